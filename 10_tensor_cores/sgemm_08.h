// sgemm_08.h: exercise 08's register-blocked 2D SGEMM (08_tiled_matmul/solution.cu, compiled into
// this exercise as its exercise.mk says under USES): C = A * B in FP32, A m x k and B k x n
// row-major (B NOT transposed), as 08 takes them.
#pragma once

void run_register_blocked_2d(const float* A, const float* B, float* C, int m, int n, int k);
