# 05_tree_reduce: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := legacy_tail.cu
SANITIZE_ARGS := --n 100003
SANITIZE_DEMO := --volatile-demo --n 4096
BASELINES     := cub_sum

# make profile-05: the default run, 2^24+3 floats, block 256 (CUB is left out).
PROFILE_ARGS     :=
PROFILE_COLUMNS  := bank conflicts per shared-memory request = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum / smsp__inst_executed_op_shared_ld.sum + smsp__inst_executed_op_shared_st.sum; \
                    threads doing work per instruction (of 32) = smsp__thread_inst_executed_pred_on.sum / smsp__inst_executed.sum; \
                    warp instructions (millions) = 1e-6 * smsp__inst_executed.sum
