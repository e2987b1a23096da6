// 06_atomics_cas/library.cu: the library baseline for the contention benchmark. CUB's
// DeviceReduce sums the values with no shared word to fight over: each block reduces its part in
// registers and shared memory, and a second pass adds the block results.
#include <cub/cub.cuh>

#include "atomics_cas.h"
#include "buffer.h"
#include "cuda_check.h"

void run_cub_sum(const int* values, int* total, size_t n) {
    if (n == 0) return;
    static DeviceBuffer<char> scratch;  // grown on demand and kept, so timed calls do not allocate
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, values, total, (long long)n));
    if (bytes > scratch.size()) scratch = DeviceBuffer<char>(bytes);
    CUDA_CHECK(cub::DeviceReduce::Sum(scratch.get(), bytes, values, total, (long long)n));
}
