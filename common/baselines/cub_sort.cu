// cub_sort.cu: see cub_sort.h.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "cub_sort.h"
#include "cuda_check.h"
#include "launch.h"

namespace {
// CUB's sorts index in 32 bits when the count fits in an int, in 64 bits otherwise.
template <class Sort>
cudaError_t with_count(size_t n, Sort sort) {
    return n <= (size_t)INT32_MAX ? sort((int)n) : sort((int64_t)n);
}

size_t storage_for(size_t max_n) {
    size_t keys = 0, pairs = 0;
    const uint32_t* none = nullptr;
    CUDA_CHECK(with_count(max_n, [&](auto count) {
        return cub::DeviceRadixSort::SortKeys(nullptr, keys, none, (uint32_t*)nullptr, count);
    }));
    CUDA_CHECK(with_count(max_n, [&](auto count) {
        return cub::DeviceRadixSort::SortPairs(nullptr, pairs, none, (uint32_t*)nullptr, none, (uint32_t*)nullptr,
                                               count);
    }));
    return std::max(keys, pairs) + 1;
}

// thrust asks its execution policy's allocator for temporary memory: this one draws on the pool.
struct PoolAllocator {
    using value_type = char;
    char* allocate(std::ptrdiff_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaMallocAsync(&p, (size_t)bytes, 0));
        return static_cast<char*>(p);
    }
    void deallocate(char* p, size_t) { CUDA_CHECK(cudaFreeAsync(p, 0)); }
};
}  // namespace

CubSort::CubSort(size_t max_n) : max_n_(max_n), temp_(storage_for(std::max<size_t>(max_n, 1))) { keep_pool_memory(); }

void CubSort::require(size_t n) const {
    if (n <= max_n_) return;
    std::fprintf(stderr, "CubSort: %zu keys, but its storage was sized for %zu\n", n, max_n_);
    std::exit(1);
}

void CubSort::sort_keys(const uint32_t* keys_in, uint32_t* keys_out, size_t n) {
    require(n);
    if (n == 0) return;
    size_t bytes = temp_.bytes();
    CUDA_CHECK(with_count(n, [&](auto count) {
        return cub::DeviceRadixSort::SortKeys(temp_.get(), bytes, keys_in, keys_out, count);
    }));
    CUDA_CHECK_LAUNCH();
}

void CubSort::sort_pairs(const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* values_in,
                         uint32_t* values_out, size_t n) {
    require(n);
    if (n == 0) return;
    size_t bytes = temp_.bytes();
    CUDA_CHECK(with_count(n, [&](auto count) {
        return cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys_in, keys_out, values_in, values_out, count);
    }));
    CUDA_CHECK_LAUNCH();
}

void CubSort::thrust_sort(uint32_t* keys, size_t n) {
    if (n == 0) return;
    PoolAllocator pool;
    thrust::sort(thrust::cuda::par_nosync(pool), keys, keys + n);
    CUDA_CHECK_LAUNCH();
}
