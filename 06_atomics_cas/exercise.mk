# 06_atomics_cas: build settings read by the top Makefile (every line optional).
#   LIBS           extra link flags
#   BASELINES      library baselines linked in from common/baselines/
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_DEMO  options of a deliberately racy demo that racecheck must catch
#   PROFILE_ARGS     program options of a representative size for make profile-NN
#   PROFILE_COLUMNS  profile-NN's own counters: "plain-words header = ncu formula; ..."
#   PROFILE_LAUNCHES the most kernel launches profile-NN profiles (default 64)
SANITIZE_ARGS := --n 100003
BASELINES     := cub_sum

# make profile-06: the default run (2^20 updates; cas_add 2^14).
PROFILE_ARGS     :=
PROFILE_COLUMNS  := L2 atomic requests (thousands) = 0.001 * lts__t_requests_op_red.sum + lts__t_requests_op_atom.sum; \
                    L2 atomic requests per us = 1000 * lts__t_requests_op_red.sum + lts__t_requests_op_atom.sum / gpu__time_duration.sum
