// BEGIN SOLUTION
// 03_game_of_life/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 03_game_of_life/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-03` shows which steps pass and `make run-03` shows the program's output.
//
// Conway's Game of Life on a torus, three ways. Each kernel shows one idea: a 2D grid of 2D
// blocks; many generations in one launch, held together by __syncthreads(); a shared-memory
// tile with a halo. Cells are bytes, 0 or 1 (game_of_life.h has the layout and the torus rule).

#include <cstdint>

#include "game_of_life.h"

#include "cuda_check.h"

// ---- Given: the rule, and wrapping around the torus ------------------------------------------
// B3/S23: born with exactly 3 live neighbours, survives with 2 or 3.
__device__ __forceinline__ uint8_t next_state(uint8_t alive, int neighbours) {
    return neighbours == 3 || (alive && neighbours == 2);
}

// v mod n for v in [-n, 2n): one compare instead of the `%` of the source material, which is an
// integer division (tens of instructions) and, for negative v, has the sign of v in C++.
__device__ __forceinline__ int wrap_once(int v, int n) { return v < 0 ? v + n : (v >= n ? v - n : v); }

// ---- Step 1: one thread per cell ---------------------------------------------------------------
// A 2D grid of 2D blocks: every thread owns one cell (x, y), its column from the .x indices and
// its row from the .y indices. It reads the old lattice `in` and writes the new one `out`: no
// thread ever writes a cell that another thread still has to read, so no synchronisation is
// needed within the launch.
__global__ void life_global(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h) {
    // TODO(step 1): write this thread's cell (x, y) of out: next_state of its cell in `in` and of
    //               its eight neighbours on the torus, counted with multiplicity (a lattice may
    //               be 1 cell wide). A thread that owns no cell of the lattice touches nothing.
    //               Wrap with a compare, not %; index in size_t (more than 2^31 cells happen).
    // BEGIN SOLUTION
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const int left = x == 0 ? w - 1 : x - 1;
    const int right = x == w - 1 ? 0 : x + 1;
    const uint8_t* up = in + (size_t)(y == 0 ? h - 1 : y - 1) * w;
    const uint8_t* mid = in + (size_t)y * w;
    const uint8_t* down = in + (size_t)(y == h - 1 ? 0 : y + 1) * w;
    const int n = up[left] + up[x] + up[right] + mid[left] + mid[right] + down[left] + down[x] + down[right];
    out[(size_t)y * w + x] = next_state(mid[x], n);
    // END SOLUTION
}

// TODO(step 1): predict, on paper, kGlobalBlocksAt1000x1000 (game_of_life.h).
// BEGIN SOLUTION
const long long kGlobalBlocksAt1000x1000 = 2016;  // 32 columns of blocks x 63 rows of blocks
// END SOLUTION
// STARTER: const long long kGlobalBlocksAt1000x1000 = -1;  // your prediction

void run_global(const uint8_t* in, uint8_t* out, int width, int height) {
    if (width <= 0 || height <= 0) return;
    // TODO(step 1): launch life_global with 2D blocks of kGlobalBlockX x kGlobalBlockY threads on
    //               a 2D grid that covers every column and every row; check the launch.
    // BEGIN SOLUTION
    const dim3 block(kGlobalBlockX, kGlobalBlockY);
    const dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    life_global<<<grid, block>>>(in, out, width, height);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// ---- Step 2: a single block, many generations per launch -----------------------------------------
// __syncthreads() is a barrier for the threads of ONE block, so one block can run generation
// after generation by itself, in one launch. The whole lattice lives in shared memory (dynamic:
// its size is given at launch), twice: one copy is read while the other is written, and the two
// swap roles every generation. The block has 32 x 32 threads, and a lattice may have many more
// cells: thread (tx, ty) handles cells (tx + 32 i, ty + 32 j).
__global__ void life_single_block(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h,
                                  int generations) {
    // TODO(step 2): hold both lattices in the dynamic shared memory (extern __shared__, w * h
    //               bytes each): copy `in` in, run `generations` generations, each reading one
    //               copy and writing the other, and copy the last one to `out`. Thread (tx, ty)
    //               handles cells (tx + 32 i, ty + 32 j). Which barriers, where: yours to decide
    //               (README, step 2); every thread must reach every barrier.
    // BEGIN SOLUTION
    extern __shared__ uint8_t lattice[];
    const size_t cells = (size_t)w * h;
    uint8_t* cur = lattice;
    uint8_t* next = lattice + cells;
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int threads = blockDim.x * blockDim.y;

    for (size_t i = thread; i < cells; i += threads) cur[i] = in[i];
    __syncthreads();
    for (int g = 0; g < generations; ++g) {
        for (int y = threadIdx.y; y < h; y += blockDim.y) {
            const uint8_t* up = cur + (size_t)(y == 0 ? h - 1 : y - 1) * w;
            const uint8_t* mid = cur + (size_t)y * w;
            const uint8_t* down = cur + (size_t)(y == h - 1 ? 0 : y + 1) * w;
            for (int x = threadIdx.x; x < w; x += blockDim.x) {
                const int left = x == 0 ? w - 1 : x - 1;
                const int right = x == w - 1 ? 0 : x + 1;
                const int n = up[left] + up[x] + up[right] + mid[left] + mid[right] + down[left] + down[x] +
                              down[right];
                next[(size_t)y * w + x] = next_state(mid[x], n);
            }
        }
        __syncthreads();  // every cell of next is written, and nobody reads cur any more
        uint8_t* t = cur;
        cur = next;
        next = t;
    }
    for (size_t i = thread; i < cells; i += threads) out[i] = cur[i];
    // END SOLUTION
}

// TODO(step 2): predict, on paper, kCellsOfThread00At340x340 (game_of_life.h).
// BEGIN SOLUTION
const long long kCellsOfThread00At340x340 = 121;  // x and y each 0, 32, ..., 320: 11 x 11
// END SOLUTION
// STARTER: const long long kCellsOfThread00At340x340 = -1;  // your prediction

size_t single_block_max_cells() {
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    // The most shared memory one block may ask for, once the kernel opts in (227 KB on an H100
    // or H200).
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return (size_t)optin / 2;  // two copies of the lattice, one byte per cell
}

bool run_single_block(const uint8_t* in, uint8_t* out, int width, int height, int generations) {
    if (width <= 0 || height <= 0) return true;
    const size_t cells = (size_t)width * height;
    if (cells > single_block_max_cells()) return false;
    const size_t shared_bytes = 2 * cells;
    // Beyond 48 KB of dynamic shared memory, a kernel has to opt in before its launch.
    CUDA_CHECK(cudaFuncSetAttribute(life_single_block, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)shared_bytes));
    // TODO(step 2): launch life_single_block as ONE block of kSingleBlockSide x kSingleBlockSide
    //               threads with shared_bytes of dynamic shared memory; a negative generation
    //               count runs none. Check the launch.
    // BEGIN SOLUTION
    const dim3 block(kSingleBlockSide, kSingleBlockSide);
    life_single_block<<<1, block, shared_bytes>>>(in, out, width, height, generations > 0 ? generations : 0);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    return true;
}

// ---- Step 3: shared-memory tiles with a halo, 16 cells per thread ------------------------------
// Each block updates a kTileW x kTileH tile. To do so it needs the tile plus a one-cell border
// (the halo), which it copies into shared memory once, so each cell is read from global memory
// little more than once instead of nine times.
//
// Why 16 cells per thread and 16-byte loads: the kernel is limited by how much each instruction
// achieves and by how many bytes are on their way from memory at once. A thread that handles one
// cell spends most of its instructions on indices and wrap-around; a thread that handles 16
// (one uint4 load, one uint4 store, SIMD within a register for the rule) spends them on cells.
//
// In shared memory every row of the tile is kRowWords 32-bit words: words kFirst .. kFirst +
// kTileW / 4 - 1 hold the tile's cells, four per word (byte 0, the lowest, is the leftmost cell:
// GPUs are little-endian); word kFirst - 1 holds the cell left of the tile in its top byte, word
// kFirst + kTileW / 4 the cell right of the tile in its lowest byte; kFirst = 4 keeps the cells
// 16-byte aligned for vector loads. Row 0 is the lattice row above the tile, row kTileH + 1 the
// row below.
constexpr int kFirst = 4;
constexpr int kRowWords = kTileW / 4 + 2 * kFirst;
constexpr int kRowsPerThread = kTileH / kSharedBlockY;
constexpr int kTileRows = kTileH + 2;
static_assert(kSharedBlockX * kCellsPerThread == kTileW, "one vector of 16 cells per thread in a row");
static_assert(kRowsPerThread * kSharedBlockY == kTileH, "whole rows per thread");
static_assert(2 * kTileRows <= kSharedBlockX * kSharedBlockY, "one thread per halo cell");
static_assert(kTileRows * kRowWords * sizeof(uint32_t) <= 48 * 1024,
              "a static __shared__ array may have at most 48 KB");

// Cell x of a lattice row, wrapping x once around the torus; a position still outside after
// that (a tile hanging over the edge of a lattice narrower than the tile) reads as dead. The
// load itself is unconditional (from a valid cell), so the compiler needs no branch around it.
__device__ __forceinline__ uint32_t cell_at(const uint8_t* row, int x, int w) {
    x = wrap_once(x, w);
    const bool inside = (unsigned)x < (unsigned)w;
    const uint32_t v = row[inside ? x : 0];
    return inside ? v : 0u;
}

// How a row may be read and written: whole 16-byte vectors (only if every row of both lattices
// starts on a 16-byte boundary), 4-byte words (every row on a 4-byte boundary), or byte by byte.
enum class Access { vec16, word4, bytes };

// Cells x .. x + 15 of a row, one per byte. Vector or word loads only where all 16 are inside
// the lattice; elsewhere (a tile at the right edge, odd widths) cell by cell, with wrapping.
__device__ __forceinline__ uint4 load16(const uint8_t* row, int x, int w, Access access) {
    if (access == Access::vec16 && x + 16 <= w) return *reinterpret_cast<const uint4*>(row + x);
    uint32_t v[4] = {0, 0, 0, 0};
    if (access == Access::word4 && x + 16 <= w) {
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = reinterpret_cast<const uint32_t*>(row + x)[j];
    } else {
#pragma unroll
        for (int b = 0; b < 16; ++b) v[b / 4] |= cell_at(row, x + b, w) << (8 * (b % 4));
    }
    return make_uint4(v[0], v[1], v[2], v[3]);
}

// Writes cells x .. x + 15 of a row, skipping those past the right edge.
__device__ __forceinline__ void store16(uint8_t* row, int x, int w, Access access, uint4 v) {
    if (access == Access::vec16 && x + 16 <= w) {
        *reinterpret_cast<uint4*>(row + x) = v;
    } else if (access == Access::word4 && x + 16 <= w) {
        uint32_t* p = reinterpret_cast<uint32_t*>(row + x);
        p[0] = v.x, p[1] = v.y, p[2] = v.z, p[3] = v.w;
    } else {
        const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int b = 0; b < 16; ++b)
            if (x + b < w) row[x + b] = (uint8_t)(words[b / 4] >> (8 * (b % 4)));
    }
}

// Four cells at once, one per byte of a 32-bit word (SIMD within a register). col_l, col_c and
// col_r are, for the word to the left, this word and the word to the right, the sums of the
// rows above, at and below, byte by byte (each byte 0..3); mid holds the four cells themselves.
// No byte ever exceeds 9, so additions never carry from one cell into the next.
__device__ __forceinline__ uint32_t next_four(uint32_t col_l, uint32_t col_c, uint32_t col_r, uint32_t mid) {
    // Byte j of `left` is the column sum of cell j - 1: this word moved up one byte, with the
    // top byte of the word on the left coming in at the bottom. `right` is the mirror image.
    const uint32_t left = __funnelshift_l(col_l, col_c, 8);
    const uint32_t right = __funnelshift_r(col_c, col_r, 8);
    const uint32_t neighbours = left + col_c + right - mid;  // the 3 x 3 sum minus the cell itself
    // B3/S23 as one test per byte: (neighbours | alive) == 3 exactly when neighbours == 3, or
    // neighbours == 2 and the cell is alive. y = that ^ 3 is 0 for "alive next" and 1..15
    // otherwise, so y + 15 has bit 4 set exactly when the cell is dead next.
    const uint32_t y = (neighbours | mid) ^ 0x03030303u;
    return ~((y + 0x0F0F0F0Fu) >> 4) & 0x01010101u;
}

// The six words of a shared row around a thread's 16 cells: left neighbour word, the four
// words of the cells (c.x .. c.w), right neighbour word.
struct Six {
    uint32_t l;
    uint4 c;
    uint32_t r;
};
__device__ __forceinline__ Six row_words(const uint32_t* row, int lane) {
    const int first = kFirst + 4 * lane;
    return {row[first - 1], *reinterpret_cast<const uint4*>(row + first), row[first + 4]};
}

__global__ void __launch_bounds__(kSharedBlockX * kSharedBlockY)
    life_shared(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h, Access access) {
    // TODO(step 3): fill __shared__ __align__(16) uint32_t tile[kTileRows][kRowWords] (layout above)
    //               for the tile at (blockIdx.x * kTileW, blockIdx.y * kTileH): its rows and the
    //               halo around them, wrapped once (load16, cell_at), then one barrier. All of the
    //               block's threads share the loading and every one reaches the barrier, even a
    //               thread whose cells lie past the lattice's edge (README, step 3).
    // BEGIN SOLUTION
    __shared__ __align__(16) uint32_t tile[kTileRows][kRowWords];
    const int lane = threadIdx.x;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
    const int x = x0 + kCellsPerThread * lane;

    // The row of the lattice that shared row r holds, or -1 for none (wrapped once).
    auto lattice_row = [&](int r) {
        const int gy = wrap_once(y0 - 1 + r, h);
        return gy < h ? gy : -1;
    };
    // Every load first, then every store: the loads do not wait for each other, so a thread has
    // all of them in flight at once (the bytes in flight, as much as the instruction count, set
    // the speed of a memory-bound kernel). The trip count is fixed, so the loop unrolls fully.
    constexpr int kLoads = (kTileRows + kSharedBlockY - 1) / kSharedBlockY;
    uint4 cells[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
        const int r = threadIdx.y + k * kSharedBlockY;
        const int gy = r < kTileRows ? lattice_row(r) : -1;
        const uint4 v = load16(in + (size_t)(gy < 0 ? 0 : gy) * w, x, w, access);  // row 0 if none
        cells[k] = gy < 0 ? make_uint4(0, 0, 0, 0) : v;
    }
    const int t = threadIdx.y * kSharedBlockX + lane;
    const int halo_r = t / 2;
    uint32_t halo = 0;
    if (t < 2 * kTileRows) {
        const int gy = lattice_row(halo_r);
        if (gy >= 0) halo = cell_at(in + (size_t)gy * w, t % 2 == 0 ? x0 - 1 : x0 + kTileW, w);
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
        const int r = threadIdx.y + k * kSharedBlockY;
        if (r < kTileRows) *reinterpret_cast<uint4*>(&tile[r][kFirst + 4 * lane]) = cells[k];
    }
    if (t < 2 * kTileRows) {
        if (t % 2 == 0) tile[halo_r][kFirst - 1] = halo << 24;
        else tile[halo_r][kFirst + kTileW / 4] = halo;
    }
    __syncthreads();
    // END SOLUTION

    // TODO(step 3): update this thread's 16 cells (lane L: x0 + 16 L on) in its kRowsPerThread
    //               consecutive tile rows (warp y: rows y * kRowsPerThread on) from the shared
    //               rows above, at and below each (row_words, next_four), reading each shared row
    //               once. Store (store16) only rows inside the lattice; store16 itself skips cells
    //               past the right edge.
    // BEGIN SOLUTION
    const int r0 = threadIdx.y * kRowsPerThread;
    Six above = row_words(tile[r0], lane);
    Six at = row_words(tile[r0 + 1], lane);
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
        const Six below = row_words(tile[r0 + i + 2], lane);
        const uint32_t sl = above.l + at.l + below.l, sr = above.r + at.r + below.r;
        const uint32_t s0 = above.c.x + at.c.x + below.c.x, s1 = above.c.y + at.c.y + below.c.y;
        const uint32_t s2 = above.c.z + at.c.z + below.c.z, s3 = above.c.w + at.c.w + below.c.w;
        const uint4 next = make_uint4(next_four(sl, s0, s1, at.c.x), next_four(s0, s1, s2, at.c.y),
                                      next_four(s1, s2, s3, at.c.z), next_four(s2, s3, sr, at.c.w));
        const int y = y0 + r0 + i;
        if (y < h && x < w) store16(out + (size_t)y * w, x, w, access, next);
        above = at;
        at = below;
    }
    // END SOLUTION
}

// TODO(step 3): predict, on paper, kBytesCopiedAt4096x4096 (game_of_life.h).
// BEGIN SOLUTION
const long long kBytesCopiedAt4096x4096 = 17895424;  // 8 x 128 tiles, each (512 + 2) x (32 + 2) cells
// END SOLUTION
// STARTER: const long long kBytesCopiedAt4096x4096 = -1;  // your prediction

void run_shared(const uint8_t* in, uint8_t* out, int width, int height) {
    if (width <= 0 || height <= 0) return;
    // TODO(step 3): use the widest Access under which no row's vector or word load or store is
    //               misaligned (README, step 3: the width and both pointers count), and launch
    //               life_shared with one block of kSharedBlockX x kSharedBlockY threads per tile,
    //               tiles covering the lattice; check the launch.
    // BEGIN SOLUTION
    const uintptr_t pointers = reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out);
    const Access access = width % 16 == 0 && pointers % 16 == 0 ? Access::vec16
                          : width % 4 == 0 && pointers % 4 == 0 ? Access::word4
                                                                : Access::bytes;
    const dim3 grid((width + kTileW - 1) / kTileW, (height + kTileH - 1) / kTileH);
    life_shared<<<grid, dim3(kSharedBlockX, kSharedBlockY)>>>(in, out, width, height, access);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}
