// cublas_gemm_bf16.h: the library baseline for matrix products on the tensor cores:
// cuBLAS GEMM with BF16 inputs, FP32 accumulation and FP32 output, for row-major A (m x k) and
// B given transposed, Bt (n x k): both operands run along k in memory.
#pragma once

#include <cuda_bf16.h>

class CublasGemmBf16 {
public:
    CublasGemmBf16();
    ~CublasGemmBf16();
    CublasGemmBf16(const CublasGemmBf16&) = delete;
    CublasGemmBf16& operator=(const CublasGemmBf16&) = delete;
    // C (m x n, FP32) = A (m x k) * B, with Bt = B transposed (n x k); all row-major device
    // arrays; asynchronous.
    void run(const __nv_bfloat16* A, const __nv_bfloat16* Bt, float* C, int m, int n, int k);

private:
    void* handle_;  // a cublasHandle_t; kept opaque so this header needs no cuBLAS include
};
