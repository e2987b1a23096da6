// 08_tiled_matmul/answers.cpp: the answers to the predictions of tiled_matmul.h, derived, and what
// they say about each kernel (the roofline of LECTURE.md, rung by rung). The tests check your
// constants against these (common/answers.h). Open this file once a prediction passes, not
// before: it is the working-out on paper.
#include <algorithm>
#include <vector>

#include "answers.h"
#include "tiled_matmul.h"

namespace {

// Step 1: the 32-byte sectors one warp's load instruction touches, when lane l reads float
// `first + l * stride` of an array that starts on a sector boundary (cudaMalloc aligns to 256).
//   x->row: lane l has row l and reads A[l][p]: 32 floats K = 1024 floats (4 KB) apart, a sector
//           each, 32 sectors for 32 useful floats. Its load of B is one address (a broadcast).
//   x->col: lane l has column l and reads B[p][l]: 32 neighbouring floats, 128 bytes, 4 sectors.
//           Its load of A is one address (a broadcast).
// The stores to C follow the same pattern (x->row: 32 rows apart; x->col: neighbours).
// make profile-08 (1024^3, NVIDIA H100 80GB HBM3) measures 16.5 sectors per load request for
// x->row and 2.50 for x->col: each kernel has two loads per step, and the counter averages them,
// (32 + 1) / 2 and (4 + 1) / 2. x->row takes 4.39 ms, x->col 0.347: the caches soften the
// difference, which is why the time ratio is not the sector ratio.
double warp_sectors(size_t first, size_t stride) {
    std::vector<size_t> sectors;
    for (size_t lane = 0; lane < 32; ++lane) sectors.push_back((first + lane * stride) * sizeof(float) / 32);
    std::sort(sectors.begin(), sectors.end());
    return (double)(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

// Step 2: one step along k, the block's kTile x kTile threads load a kTile x kTile tile of A and
// one of B, 2 x 32 x 32 floats of 4 bytes, and do kTile^3 = 32^3 FMAs with them (each thread
// kTile): 8192 bytes for 32768 FMAs, 0.25 bytes per FMA, the naive kernels' 8 divided by the tile
// width. As intensity: 2 FLOP per FMA / 0.25 = 8 FLOP per byte, T / 4 for tiles of T.
double tiled_global_bytes_per_fma() {
    const double bytes = 2.0 * kTile * kTile * sizeof(float), fmas = (double)kTile * kTile * kTile;
    return bytes / fmas;
}

// Step 3: per step p, a thread reads b = tile_b[p][col] once and the 8 values of A its 8 rows
// need (each a broadcast for the warp), 9 reads of 4 bytes for 8 FMAs: 4.5 bytes per FMA, against
// the tiled kernel's 2 reads per FMA (8 bytes).
double blocked_1d_shared_bytes_per_fma() {
    const double rows = 8;  // a thread's elements of one column of C (README, step 3)
    return (rows + 1) * sizeof(float) / rows;
}

// Step 4: per step p, a thread reads 8 values of A's column and 8 of B's row (four float4 reads,
// 64 bytes) and does 8 x 8 = 64 FMAs with them: 1 byte per FMA. A micro-tile of r x c results
// reads r + c values for r c FMAs: the larger and squarer, the fewer bytes per FMA, until the
// accumulators no longer fit in registers (README question 5).
double blocked_2d_shared_bytes_per_fma() {
    const double rows = 8, cols = 8;  // a thread's micro-tile of C (README, step 4)
    return (rows + cols) * sizeof(float) / (rows * cols);
}

// Step 5: a GPU runs SMs x (blocks per SM) blocks at a time, one wave: 132 x 2 = 264 slots of
// matmul_split_k on an H100 (124 registers a thread, 256 threads a block: two blocks per SM). A
// grid of `blocks` needs ceil(blocks / 264) waves and keeps blocks / (waves x 264) of their slots
// busy. With S slices, C's tiles of 128 x 128 make tiles x S blocks.
//   1024^3: 8 x 8 = 64 tiles. S = 1: 64 / 264 = 0.24 (step 4: three quarters of the GPU idle);
//           2: 128 / 264 = 0.48; 3: 192 / 264 = 0.73; 4: 256 / 264 = 0.97. Four slices.
//   1536^3: 12 x 12 = 144 tiles. S = 1: 144 / 264 = 0.55; 2: 288 blocks are 1.09 waves, so two
//           waves, 288 / 528 = 0.55 again: a grid just past a wave is no better; 3: 432 / 528 =
//           0.82; 4: 576 / 792 = 0.73; 5: 720 / 792 = 0.91. Five slices.
// At 2048^3 (256 tiles, 0.97) and 4096^3 (1024 tiles, 3.88 waves, 0.97 of four) the tiles alone
// fill the waves: one slice, step 4 as it is.
//
// Measured on an NVIDIA H100 80GB HBM3 (CUDA 13.0, the course's prototype of this step: L2
// flushed, median of 25 interleaved runs, % of cuBLAS SGEMM in the same run), the kernel of step 4
// with a fixed number of slices at 1024^3, atomic adds into a zeroed C:
//   slices  blocks  waves   % of cuBLAS
//        1      64   0.24      57.6 (step 4)
//        2     128   0.48      99.9
//        3     192   0.73      86.4
//        4     256   0.97     107.4
//        8     512   1.94     102.3
// Three slices are slower than two: 60 SMs run two blocks of 22 k-tiles each while 72 run one,
// and the busiest SM sets the time; with four, 124 SMs run two blocks of 16. Eight do the same
// work per SM as four, with twice the atomics and each block's first tile twice as often. The
// rule of solution.cu takes the fewest slices that keep 90% of the slots busy: four, 106.7%. At
// 1536^3 its five slices (2.73 waves) reached 103.9%, against step 4's 67.0%; at m = n = 512,
// k = 8192 (16 tiles) fifteen slices, 86.7% against 11.8%. The deterministic sum (each slice
// writes its partial tile to a workspace; the last block of the tile adds them in slice order)
// made the same choices: 98.8% at 1024^3, 95.4% at 1536^3, 69.1% at 512 x 512 x 8192, where the
// last block's serial sum of fifteen partial tiles shows.
int fewest_slices_that_fill(int m, int n, int k, int sms, int blocks_per_sm) {
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    const long long wave = (long long)sms * blocks_per_sm;
    const int k_tiles = (k + 15) / 16;
    for (int s = 1; s <= k_tiles; ++s) {
        const long long blocks = tiles * s, waves = (blocks + wave - 1) / wave;
        if ((double)blocks / (double)(waves * wave) >= 0.9) return s;
    }
    return -1;  // none: not the case at these sizes
}

}  // namespace

// Each rung on the roofline of an NVIDIA H100 80GB HBM3 (132 SMs at 1980 MHz: FP32 peak
// 66.9 TFLOP/s, DRAM 3352 GB/s, ridge 20.0 FLOP per byte; shared memory 32 banks x 4 B x 132 SMs
// x 1.98 GHz = 33.5 TB/s). "Global" counts bytes *requested* from global memory per FMA (before
// the caches), "shared" the bytes each thread reads from shared memory per FMA. Each roof is what
// that traffic alone allows: min(66.9 TFLOP/s, intensity x 3352 GB/s) for DRAM, and 2 FLOP x
// 33.5 TB/s / (shared bytes per FMA) for shared memory. Measured at 4096^3 (make bench-08,
// commit 524328f), TFLOP/s:
//
//   kernel                        global B/FMA  FLOP/byte  DRAM roof  shared B/FMA  shared roof  measured
//   naive                                  8       0.25       0.84             -            -  0.50 (x->row), 5.85 (x->col)
//   tiled, T = 32                       0.25          8       26.8             8          8.4  8.90
//   register_blocked_1d, 64 x 64       0.125         16       53.6           4.5         14.9  16.33
//   register_blocked_2d, 128 x 128    0.0625         32       66.9             1         66.9  45.27
//   cuBLAS SGEMM                                                                               51.72
//
// The naive kernel is memory-bound twice over. Tiling raises the kernel to 8 FLOP per byte and 1D
// register blocking to 16, both still under the ridge (20.0), and only the 2D micro-tile past it
// (32); yet DRAM is not what holds tiled and 1D back: the bottleneck has moved to shared memory,
// whose roof is far below their DRAM roofs, and the measured points sit right at it (slightly
// above, because broadcast reads cost less than counted). Only the 2D micro-tile takes shared
// memory out of the way; what limits it then is the FMA pipe and everything else it must issue
// (loads, address arithmetic, the barrier). Tiling cuts the global loads 32-fold, yet buys only
// 1.4 to 1.5 times over the coalesced naive kernel: the caches already gave that kernel most of
// its reuse.

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        // x->row: lane l reads A[l][p] (p = 5), rows K = 1024 floats apart.
        {"kXRowSectorsA", [] { return warp_sectors(5, 1024); }},
        // x->col: lane l reads B[p][l], 32 neighbours in row p.
        {"kXColSectorsB", [] { return warp_sectors(5 * 1024, 1); }},
        {"kTiledGlobalBytesPerFma", [] { return tiled_global_bytes_per_fma(); }},
        {"kBlocked1dSharedBytesPerFma", [] { return blocked_1d_shared_bytes_per_fma(); }},
        {"kBlocked2dSharedBytesPerFma", [] { return blocked_2d_shared_bytes_per_fma(); }},
        // An H100: 132 SMs, two blocks of matmul_split_k on each.
        {"kSlices1024", [] { return (double)fewest_slices_that_fill(1024, 1024, 1024, 132, 2); }},
        {"kSlices1536", [] { return (double)fewest_slices_that_fill(1536, 1536, 1536, 132, 2); }},
    };
    return answers;
}
