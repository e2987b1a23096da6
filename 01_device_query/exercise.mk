# 01_device_query: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := peak_kernels.cu
SANITIZE_ARGS :=

# make profile-01: the FMA kernel of --bench (the only kernel here), in its NVTX range 'step - FP32 FMA kernel'.
PROFILE_ARGS     := --bench
PROFILE_COLUMNS  := FP32 GFLOP/s (an FMA is 2 FLOP) = 2 * smsp__sass_thread_inst_executed_op_ffma_pred_on.sum / gpu__time_duration.sum; \
                    FMA pipe busy (% of peak) = sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active; \
                    issue slots used (%) = sm__inst_issued.avg.pct_of_peak_sustained_active
