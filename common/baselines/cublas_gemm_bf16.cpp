// cublas_gemm_bf16.cpp: see cublas_gemm_bf16.h.
//
// cuBLAS is column-major. The row-major m x n result C has the bytes of the column-major n x m
// matrix C^T = B^T * A^T. Bt (row-major n x k) has the bytes of the column-major k x n matrix B,
// so "transposed" (CUBLAS_OP_T) it is B^T, n x k; A (row-major m x k) has the bytes of the
// column-major k x m matrix A^T, used as it is (CUBLAS_OP_N). Both operands then run along k in
// memory: the case cuBLAS calls "TN".
#include <cublas_v2.h>

#include "cublas_gemm_bf16.h"
#include "cublas_check.h"
#include "cuda_check.h"

CublasGemmBf16::CublasGemmBf16() : handle_(nullptr) {
    cublasHandle_t h = nullptr;
    CUBLAS_CHECK(cublasCreate(&h));
    handle_ = h;
    // Default math: BF16 inputs with FP32 compute (below) run on the tensor cores, every sum in
    // FP32, as a hand-written tensor-core kernel does.
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
}

CublasGemmBf16::~CublasGemmBf16() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));  // no check in a destructor
}

void CublasGemmBf16::run(const __nv_bfloat16* A, const __nv_bfloat16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum; BLAS would only scale C by beta
        CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
        return;
    }
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, Bt,
                              CUDA_R_16BF, k, A, CUDA_R_16BF, k, &beta, C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}
