// cublas_sgemm.cpp: see cublas_sgemm.h.
//
// cuBLAS follows Fortran BLAS: matrices are column-major. A row-major m x n matrix in memory is
// the same bytes as its transpose, an n x m column-major matrix. So instead of C = A * B we ask
// cuBLAS for the column-major product C^T = B^T * A^T, whose operands are exactly the bytes of
// our B (n x k column-major, leading dimension n) and A (k x m, leading dimension k), and whose
// result lands in C's bytes (n x m, leading dimension n). No copy, no transpose kernel.
#include <cublas_v2.h>

#include "cublas_check.h"
#include "cuda_check.h"
#include "cublas_sgemm.h"

CublasSgemm::CublasSgemm() : handle_(nullptr) {
    cublasHandle_t h = nullptr;
    CUBLAS_CHECK(cublasCreate(&h));
    handle_ = h;
    // Strict FP32: pedantic mode rules out every faster, less exact path a handle can be switched
    // to: TF32 tensor cores (10 bits of mantissa instead of 23), FP32 emulated on BF16 tensor
    // cores (newer cuBLAS versions), reduced-precision reductions. Our kernels do plain FP32 FMAs
    // on the CUDA cores, so that is the fair comparison.
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
}

CublasSgemm::~CublasSgemm() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));  // no check in a destructor
}

void CublasSgemm::run(const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum; BLAS would only scale C by beta
        CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
        return;
    }
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                             B, n, A, k, &beta, C, n));
}
