# 04_naive_reduce: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := atomic_per_thread.cu barrier_demo.cu
SANITIZE_ARGS := --n 100003
BASELINES     := cub_sum

# make profile-04: the default run (2^24 floats; the matrix of step 5 from the same size).
PROFILE_ARGS     :=
PROFILE_COLUMNS  := L2 atomic requests (thousands) = 0.001 * lts__t_requests_op_red.sum + lts__t_requests_op_atom.sum; \
                    global load sectors per request (32 B each) = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
