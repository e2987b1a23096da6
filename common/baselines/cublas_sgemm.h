// cublas_sgemm.h: the library baseline for matrix products, cuBLAS SGEMM in
// strict FP32, for row-major matrices.
#pragma once

class CublasSgemm {
public:
    CublasSgemm();
    ~CublasSgemm();
    CublasSgemm(const CublasSgemm&) = delete;
    CublasSgemm& operator=(const CublasSgemm&) = delete;
    // C (m x n) = A (m x k) * B (k x n), all row-major device arrays; asynchronous.
    void run(const float* A, const float* B, float* C, int m, int n, int k);

private:
    void* handle_;  // a cublasHandle_t; kept opaque so this header needs no cuBLAS include
};
