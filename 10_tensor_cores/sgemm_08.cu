// sgemm_08.cu: exercise 08's best FP32 kernel, for the comparison row of this exercise's tables
// (FP32 on the CUDA cores against BF16 on the tensor cores). It is compiled from 08's own
// solution, so the row is always the kernel that exercise 08 teaches; sgemm_08.h declares it.
#include "../08_tiled_matmul/solution.cu"
