// 05_tree_reduce/library.cu: the library baseline, cub::DeviceReduce::Sum.
//
// CUB ships with the CUDA Toolkit (as part of CCCL) and is header-only. Its device-wide
// reductions follow a two-call pattern: ask how much temporary storage the algorithm wants,
// allocate it once, then call again with the storage to do the work.
#include <cub/cub.cuh>

#include "tree_reduce.h"

#include "cuda_check.h"

size_t cub_sum_temp_bytes(size_t n) {
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const float*)nullptr, (float*)nullptr,
                                      (int64_t)n));
    return bytes;
}

void run_cub_sum(const float* x, size_t n, float* out, void* temp, size_t temp_bytes) {
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, (int64_t)n));
    CUDA_CHECK_LAUNCH();
}
