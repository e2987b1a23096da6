# cublas_gemm_bf16: the libraries this baseline links (read by the Makefile for every exercise
# that names it in BASELINES).
LIBS := -lcublas
