// count_scan.cu (given): exclusive_scan_counts, the prefix sum that steps 3 and 4 run over their
// per-tile counts. It is exercise 07's reduce-then-scan for one type: every block sums one tile
// of counts, those sums are scanned (by this same function, so any count works), and every
// block scans its tile again starting from its tile's offset.
#include <cstdint>

#include "cuda_check.h"
#include "launch.h"
#include "parallel_sort.h"

namespace {

constexpr int kScanThreads = 256;
constexpr int kScanRows = 16;
constexpr size_t kScanTile = (size_t)kScanThreads * kScanRows;  // 4096 counts per block
constexpr unsigned kAllLanes = 0xFFFFFFFFu;

// Warp w of a block holds the 32 * kScanRows consecutive counts starting at its_first(),
// row r (32 consecutive counts) in lane order: every load is 128 contiguous bytes.
__device__ size_t its_first() {
    return (size_t)blockIdx.x * kScanTile + (size_t)(threadIdx.x / 32) * 32 * kScanRows + threadIdx.x % 32;
}

__global__ void __launch_bounds__(kScanThreads) sum_tiles(const uint32_t* in, size_t count, uint32_t* tile_sums) {
    __shared__ uint32_t warp_sums[kScanThreads / 32];
    const size_t first = its_first();
    uint32_t sum = 0;
#pragma unroll
    for (int r = 0; r < kScanRows; ++r)
        if (first + 32 * r < count) sum += in[first + 32 * r];
#pragma unroll
    for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(kAllLanes, sum, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t tile = 0;
        for (int w = 0; w < kScanThreads / 32; ++w) tile += warp_sums[w];
        tile_sums[blockIdx.x] = tile;
    }
}

// out = the exclusive scan of in over this block's tile, plus tile_offsets[block] (if given).
// Each warp scans its rows in order, carrying the total from row to row; the warps' totals then
// go through shared memory. in and out may be the same array: a warp reads its counts before it
// writes them, and no other warp touches them.
__global__ void __launch_bounds__(kScanThreads) scan_tiles(const uint32_t* in, uint32_t* out, size_t count,
                                                           const uint32_t* tile_offsets) {
    __shared__ uint32_t warp_totals[kScanThreads / 32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t first = its_first();
    uint32_t v[kScanRows];
#pragma unroll
    for (int r = 0; r < kScanRows; ++r) v[r] = first + 32 * r < count ? in[first + 32 * r] : 0;
    uint32_t carried = 0;  // the warp's counts in earlier rows
#pragma unroll
    for (int r = 0; r < kScanRows; ++r) {
        uint32_t inclusive = v[r];
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const uint32_t below = __shfl_up_sync(kAllLanes, inclusive, d);
            if (lane >= (unsigned)d) inclusive += below;
        }
        v[r] = carried + inclusive - v[r];
        carried += __shfl_sync(kAllLanes, inclusive, 31);
    }
    if (lane == 0) warp_totals[warp] = carried;
    __syncthreads();
    uint32_t offset = tile_offsets ? tile_offsets[blockIdx.x] : 0;
    for (unsigned w = 0; w < warp; ++w) offset += warp_totals[w];
#pragma unroll
    for (int r = 0; r < kScanRows; ++r)
        if (first + 32 * r < count) out[first + 32 * r] = offset + v[r];
}

}  // namespace

void exclusive_scan_counts(const uint32_t* in, uint32_t* out, size_t count) {
    if (count == 0) return;
    const size_t tiles = ceil_div(count, kScanTile);
    if (tiles == 1) {
        scan_tiles<<<1, kScanThreads>>>(in, out, count, nullptr);
        CUDA_CHECK_LAUNCH();
        return;
    }
    keep_pool_memory();
    uint32_t* offsets = nullptr;
    CUDA_CHECK(cudaMallocAsync(&offsets, tiles * sizeof(uint32_t), 0));
    sum_tiles<<<(unsigned)tiles, kScanThreads>>>(in, count, offsets);
    CUDA_CHECK_LAUNCH();
    exclusive_scan_counts(offsets, offsets, tiles);  // the tiles' sums become their offsets
    scan_tiles<<<(unsigned)tiles, kScanThreads>>>(in, out, count, offsets);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(offsets, 0));
}
