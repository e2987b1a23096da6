// 03_game_of_life/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-03` shows which steps pass and `make run-03` shows the program's output.
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
// Thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) owns cell
// (x, y) = (blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y).
// It reads the old lattice `in` and writes the new one `out`: no thread ever writes a cell that
// another thread still has to read, so no synchronisation is needed within the launch.
__global__ void life_global(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h) {
    // TODO(step 1): compute this thread's (x, y); threads outside the lattice (the grid is rounded
    //               up to whole blocks) return at once. Find the columns left and right of x and
    //               the rows above and below y on the torus (x == 0: left is w - 1; x == w - 1:
    //               right is 0; the same for rows), add up the eight neighbours, and write
    //               next_state(...) to out. Index rows as (size_t)y * w: a lattice may have
    //               more than 2^31 cells.
}

void run_global(const uint8_t* in, uint8_t* out, int width, int height) {
    if (width <= 0 || height <= 0) return;
    // TODO(step 1): launch life_global with blocks of kGlobalBlockX x kGlobalBlockY threads (a
    //               dim3) and a 2D grid with enough blocks to cover every column and every row
    //               (round up in both directions), then check the launch with CUDA_CHECK_LAUNCH().
}

// ---- Step 2: a single block, many generations per launch -----------------------------------------
// __syncthreads() is a barrier for the threads of ONE block, so one block can run generation
// after generation by itself: compute the next lattice, wait for everybody, swap, repeat. The
// whole lattice lives in shared memory (dynamic: its size is given at launch), twice: `cur` is
// read and `next` written, so ONE barrier per generation is enough (after it, nobody reads the
// old `cur` any more, and it may become the next `next`). The block has 32 x 32 threads, and a
// lattice may have many more cells: thread (tx, ty) handles cells (tx + 32 i, ty + 32 j).
__global__ void life_single_block(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h,
                                  int generations) {
    // TODO(step 2): declare the dynamic shared memory (extern __shared__ uint8_t lattice[];) and
    //               split it into cur (the first w * h bytes) and next (the second). Then:
    //               1. copy in -> cur, every thread taking every (blockDim.x * blockDim.y)-th
    //                  cell (consecutive threads, consecutive bytes), and __syncthreads();
    //               2. for each generation: every thread computes its cells of next from cur
    //                  (the same neighbour sum and wrap-around as step 1), then
    //                  __syncthreads(), then swap the two pointers;
    //               3. copy cur -> out.
    //               Every thread must reach every __syncthreads(): never put one inside a branch
    //               or a loop that some threads of the block skip.
}

size_t single_block_max_cells() {
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    // The most shared memory one block may ask for, once the kernel opts in (227 KB on H100).
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
    //               threads with shared_bytes of dynamic shared memory (the third launch
    //               parameter), passing max(generations, 0); check the launch.
    return true;
}

// ---- Step 3: shared-memory tiles with a halo, 4 cells per thread ---------------------------------
// Each block updates a kTileW x kTileH tile. To do so it needs the tile plus a one-cell border
// (the halo): (kTileW + 2) x (kTileH + 2) cells, which it copies into shared memory once, so
// each cell is read from global memory about once instead of nine times.
//
// In shared memory every row of the tile is kTileWords 32-bit words: word 0 holds the cell left
// of the tile in its top byte, words 1 .. kTileW / 4 hold the tile's cells, four per word (byte
// 0, the lowest, is the leftmost cell: GPUs are little-endian), and the last word holds the
// cell right of the tile in its lowest byte. Row 0 is the row above the tile, row kTileH + 1 the
// row below. A thread works on whole words: 4 cells at once.
constexpr int kTileWords = kTileW / 4 + 2;
constexpr int kRowsPerThread = kTileH / kSharedBlockY;
static_assert(kSharedBlockX * 4 == kTileW, "one word of the tile per thread of a row");
static_assert(kRowsPerThread * kSharedBlockY == kTileH, "whole rows per thread");
static_assert((kTileH + 2) * kTileWords * sizeof(uint32_t) <= 48 * 1024,
              "a static __shared__ array may have at most 48 KB");

// Cell x of a lattice row, wrapping x once around the torus; a position still outside after
// that (a tile hanging over the edge of a lattice narrower than the tile) reads as dead. The
// load itself is unconditional (from a valid cell), so the compiler needs no branch around it.
__device__ __forceinline__ uint32_t cell_at(const uint8_t* row, int x, int w) {
    x = wrap_once(x, w);
    const uint32_t v = row[x < w ? x : 0];
    return x < w ? v : 0u;
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
    // neighbours == 2 and the cell is alive. __vcmpeq4 sets a byte to 0xFF where the bytes match.
    return __vcmpeq4(neighbours | mid, 0x03030303u) & 0x01010101u;
}

// `aligned`: every row starts on a 4-byte boundary (w % 4 == 0 and aligned pointers), so words
// of 4 cells can be loaded and stored whole.
__global__ void __launch_bounds__(kSharedBlockX * kSharedBlockY)
    life_shared(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h, bool aligned) {
    // TODO(step 3): declare the tile, __shared__ uint32_t tile[kTileH + 2][kTileWords], and this
    //               thread's place: lane = threadIdx.x is its word of a row, the tile's first
    //               cell is (x0, y0) = (blockIdx.x * kTileW, blockIdx.y * kTileH), and the
    //               thread's four cells start at column x = x0 + 4 * lane.
    //               Then fill `tile`. Shared row r (0 .. kTileH + 1) is lattice row y0 - 1 + r,
    //               wrapped with wrap_once (a row still outside the lattice after that, when the
    //               lattice is lower than the tile, is all zeros); the rows of the block take
    //               turns (r = threadIdx.y, + kSharedBlockY, ...). In each row, thread `lane`
    //               stores word lane + 1: cells x .. x + 3, one per byte (cell_at(row, x + b, w)
    //               << (8 * b)). When `aligned` and the whole tile lies inside the lattice
    //               (x0 + kTileW <= w), load the word in one go instead:
    //               *reinterpret_cast<const uint32_t*>(row + x). Lane 0 also stores word 0 (cell
    //               x0 - 1, in its top byte: << 24) and the last lane the last word (cell
    //               x0 + kTileW, in its lowest byte). Then __syncthreads().

    // TODO(step 3): this thread updates its word (cells x .. x + 3) in tile rows
    //               r0 = threadIdx.y * kRowsPerThread .. r0 + kRowsPerThread - 1, i.e. lattice
    //               rows y0 + r0 + i. For each: read the words lane, lane + 1, lane + 2 of the
    //               shared rows above, at and below (shared rows r0 + i, + 1, + 2), add them up
    //               column by column, and call next_four(). Moving down a row, the rows at and
    //               below become the rows above and at: keep them in registers and read only
    //               the new row below. Write the 4 new cells to out, skipping cells past the
    //               right or bottom edge: one 32-bit store when `aligned`, else byte by byte
    //               ((next >> (8 * b)) & 1).
}

void run_shared(const uint8_t* in, uint8_t* out, int width, int height) {
    if (width <= 0 || height <= 0) return;
    // TODO(step 3): set aligned = width % 4 == 0 and both pointers 4-byte aligned
    //               (reinterpret_cast<uintptr_t>(p) % 4 == 0); launch life_shared with a 2D grid
    //               of ceil(width / kTileW) x ceil(height / kTileH) blocks of
    //               kSharedBlockX x kSharedBlockY threads; check the launch.
}
