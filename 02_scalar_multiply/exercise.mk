# 02_scalar_multiply: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SANITIZE_ARGS := --n 100003

# make profile-02: 2^24 floats (64 MB each way); step 1 needs n <= 1024 (try ARGS="--n 1000").
PROFILE_ARGS     := --n 2^24
PROFILE_COLUMNS  := global load sectors per request (32 B each) = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum; \
                    global load instructions (thousands) = 0.001 * smsp__inst_executed_op_global_ld.sum
