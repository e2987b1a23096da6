// 04_naive_reduce/library.cu: the reference the benchmark compares with, cub::DeviceReduce::Sum.
// CUB (part of CCCL) ships with the CUDA Toolkit as headers only. Its reductions are tuned per
// GPU generation; exercise 05 builds most of what it does by hand.
#include <cstdint>
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "naive_reduce.h"

// CUB's two-call convention: with no scratch memory it only reports how much it needs.
size_t cub_sum_temp_bytes(size_t n) {
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                      static_cast<float*>(nullptr), static_cast<int64_t>(n)));
    return bytes;
}

// Asynchronous, like the run_* functions; writes the sum (0 for n == 0) to *sum on the device.
void run_cub_sum(const float* x, size_t n, float* sum, void* temp, size_t temp_bytes) {
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, sum, static_cast<int64_t>(n)));
}
