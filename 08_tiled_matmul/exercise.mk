# 08_tiled_matmul: build settings read by the top Makefile (every line optional).
#   LIBS           extra link flags
#   BASELINES      library baselines linked in from common/baselines/
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_DEMO  options of a deliberately racy demo that racecheck must catch
LIBS          := -lcublas
SANITIZE_ARGS := --m 67 --n 129 --k 33
BASELINES     := cublas_sgemm
