# 11_multi_gpu: build settings read by the top Makefile (every line optional).
#   LIBS           extra link flags
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
LIBS          := -lnccl
SANITIZE_ARGS := --n 100003
