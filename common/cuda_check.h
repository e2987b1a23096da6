// cuda_check.h: every CUDA call and every kernel launch is checked.
//
// CUDA reports errors through return codes that are easy to ignore, and a kernel launch returns
// nothing at all: a bad launch configuration only shows up in cudaGetLastError(), and a fault
// inside the kernel only at the next synchronising call. These two macros make the check a
// one-word habit.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

inline void cuda_check_failed(cudaError_t err, const char* expr, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line, cudaGetErrorName(err),
                 cudaGetErrorString(err), expr);
    std::exit(1);
}

// CUDA_CHECK(cudaMalloc(&p, bytes));  prints file:line, the error's name and message, exits 1.
#define CUDA_CHECK(expr)                                                        \
    do {                                                                        \
        cudaError_t cuda_check_err_ = (expr);                                   \
        if (cuda_check_err_ != cudaSuccess)                                     \
            cuda_check_failed(cuda_check_err_, #expr, __FILE__, __LINE__);      \
    } while (0)

// Put straight after every kernel<<<...>>>: catches launch-configuration errors (too many
// threads per block, too much shared memory). Faults inside the kernel surface at the next
// synchronising call, which is CUDA_CHECKed too.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
