// cub_scan.cu: see cub_scan.h.
#include <climits>
#include <cub/cub.cuh>

#include "cub_scan.h"
#include "cuda_check.h"
#include "launch.h"

CubScan::CubScan() { keep_pool_memory(); }

void CubScan::inclusive_sum(const int* in, int* out, size_t n) {
    if (n == 0) return;
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
