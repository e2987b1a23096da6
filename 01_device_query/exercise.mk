# 01_device_query: build settings read by the top Makefile (every line optional).
#   LIBS           extra link flags
#   BASELINES      library baselines linked in from common/baselines/
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_DEMO  options of a deliberately racy demo that racecheck must catch
#   PROFILE_ARGS     program options of a representative size for make profile-NN
#   PROFILE_COLUMNS  profile-NN's own counters: "plain-words header = ncu formula; ..."
#   PROFILE_LAUNCHES the most kernel launches profile-NN profiles (default 64)
SANITIZE_ARGS :=

# make profile-01: the FMA kernel of --bench (the only kernel here), its first launch.
PROFILE_ARGS     := --bench
PROFILE_COLUMNS  := FP32 GFLOP/s (an FMA is 2 FLOP) = 2 * smsp__sass_thread_inst_executed_op_ffma_pred_on.sum / gpu__time_duration.sum; \
                    FMA pipe busy (% of peak) = sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active; \
                    issue slots used (%) = sm__inst_issued.avg.pct_of_peak_sustained_active
