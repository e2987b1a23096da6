# 08_tiled_matmul: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SANITIZE_ARGS := --m 67 --n 129 --k 33
BASELINES     := cublas_sgemm

# make profile-08: 1024 x 1024 x 1024 (cuBLAS is left out).
PROFILE_ARGS     := --m 1024 --n 1024 --k 1024
PROFILE_COLUMNS  := global load sectors per request (32 B each) = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum; \
                    FMA pipe busy (% of peak) = sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active; \
                    bank conflicts per shared-memory request = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum / smsp__inst_executed_op_shared_ld.sum + smsp__inst_executed_op_shared_st.sum
