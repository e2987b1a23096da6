// cub_sum.cu: see cub_sum.h.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>

#include "cub_sum.h"
#include "cuda_check.h"

namespace {
template <class T>
size_t temp_bytes(size_t n) {
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                      static_cast<int64_t>(n)));
    return bytes;
}
template <class T>
void sum(const T* x, size_t n, T* out, size_t max_n, const DeviceBuffer<char>& temp) {
    if (n > max_n) {
        std::fprintf(stderr, "CubSum: %zu items, but storage was sized for %zu\n", n, max_n);
        std::exit(1);
    }
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T)));
        return;
    }
    size_t bytes = temp.bytes();
    CUDA_CHECK(cub::DeviceReduce::Sum(temp.get(), bytes, x, out, static_cast<int64_t>(n)));
    CUDA_CHECK_LAUNCH();
}
}  // namespace

CubSum::CubSum(size_t max_n)
    : max_n_(max_n), temp_(std::max(temp_bytes<float>(max_n), temp_bytes<int>(max_n)) + 1) {}

void CubSum::run(const float* x, size_t n, float* out) { sum(x, n, out, max_n_, temp_); }
void CubSum::run(const int* x, size_t n, int* out) { sum(x, n, out, max_n_, temp_); }
