# 09_parallel_sort: build settings read by the top Makefile (every line optional).
#   LIBS           extra link flags
#   BASELINES      library baselines linked in from common/baselines/
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_DEMO  options of a deliberately racy demo that racecheck must catch
SANITIZE_ARGS := --n 4099 --pairs
BASELINES     := cub_sort
