# 09_parallel_sort: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := count_scan.cu
# --n 8209: two tiles of step 6 (8192 keys), so its look-back runs in the program too. Step 6's
# tests skip their seven distributions under the sanitizer (one tile each at those sizes): its own
# cases take the look-back's paths.
SANITIZE_ARGS := --n 8209 --pairs
SANITIZE_SKIP := step 6 onesweep: random?*
BASELINES     := cub_sort

# make profile-09: 2^22 random keys. Every launch counts in the step whose NVTX range it ran in:
# step 2's own tile sort (step 1's kernel) and the count scan's kernels (sum_tiles, scan_tiles)
# in the step that launches them. Step 6: its digit count, the counts' scan and its four passes.
PROFILE_ARGS     := --n 2^22
PROFILE_LAUNCHES := 300
PROFILE_COLUMNS  := bank conflicts per shared-memory request = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum / smsp__inst_executed_op_shared_ld.sum + smsp__inst_executed_op_shared_st.sum; \
                    global store sectors per request (32 B each) = l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / l1tex__t_requests_pipe_lsu_mem_global_op_st.sum; \
                    DRAM read + written (MB) = 1e-6 * dram__bytes_read.sum + dram__bytes_write.sum
