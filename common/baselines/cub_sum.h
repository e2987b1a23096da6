// cub_sum.h: the library baseline for sums, cub::DeviceReduce::Sum.
//
// CUB ships with the CUDA Toolkit (part of CCCL) as headers only. Its device-wide algorithms
// follow a two-call pattern: ask how much temporary storage the algorithm wants, allocate it
// once, then call again with the storage to do the work. The constructor does the first part,
// outside any timing, so that a timed run() is the reduction alone.
#pragma once

#include <cstddef>

#include "buffer.h"

class CubSum {
public:
    explicit CubSum(size_t max_n);  // temporary storage for sums of up to max_n items
    // Asynchronous, like the exercises' launchers: *sum (a device pointer) = x[0] + ... + x[n-1],
    // 0 for n == 0. n must not exceed max_n.
    void run(const float* x, size_t n, float* sum);
    void run(const int* x, size_t n, int* sum);

private:
    size_t max_n_;
    DeviceBuffer<char> temp_;
};
