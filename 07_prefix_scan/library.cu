// 07_prefix_scan/library.cu: the library baseline for the benchmark, cub::DeviceScan::InclusiveSum
// (CUB ships with the CUDA Toolkit and is header-only). CUB's scan is itself a single-pass
// decoupled look-back scan, tuned per GPU generation.
#include <climits>
#include <cstdint>
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "prefix_scan.h"

// CUB asks for its scratch memory in two calls: one to learn the size, one to run. The scratch
// comes from the stream-ordered pool, kept between calls as solution.cu keeps its own, so that
// both sides pay the same (tiny) price for it.
void run_cub_inclusive_sum(const int* in, int* out, size_t n) {
    if (n == 0) return;
    static bool pool_keeps_memory = false;
    if (!pool_keeps_memory) {
        int device = 0;
        cudaMemPool_t pool;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
        uint64_t keep_all = UINT64_MAX;
        CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
        pool_keeps_memory = true;
    }
    auto scan = [&](void* temp, size_t& bytes) {
        // 32-bit counts where they suffice, as most callers pass them (CUB then indexes in 32 bits).
        if (n <= (size_t)INT_MAX) return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, (int)n);
        return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);
    };
    size_t bytes = 0;
    CUDA_CHECK(scan(nullptr, bytes));
    void* temp = nullptr;
    CUDA_CHECK(cudaMallocAsync(&temp, bytes, 0));
    CUDA_CHECK(scan(temp, bytes));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(temp, 0));
}
