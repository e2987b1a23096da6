# cublas_sgemm: the libraries this baseline links (read by the Makefile for every exercise that
# names it in BASELINES).
LIBS := -lcublas
