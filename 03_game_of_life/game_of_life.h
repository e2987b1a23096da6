// game_of_life.h: the interface of exercise 03, Conway's Game of Life on a torus.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
//
// A lattice is width x height cells, one byte each: 0 (dead) or 1 (alive), row-major, cell (x, y)
// at index y * width + x (computed in size_t: a lattice may hold more than 2^31 cells). Each side
// is at most kMaxSide, so every grid fits the GPU's limits. Pointers are device pointers. Each
// run_* function launches its kernel and returns without waiting for it (the caller
// synchronises); a lattice with no cells (width or height 0) is allowed and does nothing.
//
// The torus rule, for every size including 1 x 1: the eight neighbours of (x, y) are the cells
// ((x + dx) mod width, (y + dy) mod height) for dx, dy in {-1, 0, 1}, not both 0, counted with
// multiplicity. On a lattice 1 or 2 cells wide (or high) some of those eight are the same cell,
// or the cell itself, and each counts as often as it appears: a live 1 x 1 cell has 8 live
// neighbours (itself, eight times) and dies; on a 3 x 1 ring the left neighbour is met three times.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "buffer.h"
#include "compare.h"
#include "steps.h"

constexpr int kMaxSide = 1 << 19;  // 524288 cells: the grids of every kernel stay within limits

// ---- Step 1: global ---------------------------------------------------------------------------
// One thread per cell over a 2D grid of 2D blocks (kGlobalBlockX x kGlobalBlockY threads),
// reading `in` and writing `out` (double buffering): one generation per launch.
constexpr int kGlobalBlockX = 32, kGlobalBlockY = 16;
void run_global(const uint8_t* in, uint8_t* out, int width, int height);

// ---- Step 2: single_block ---------------------------------------------------------------------
// ONE block of kSingleBlockSide x kSingleBlockSide threads runs `generations` generations in a
// single launch, with the whole lattice (two copies: this generation and the next) in shared
// memory and __syncthreads() between generations. Reads `in` once, writes `out` once.
// Only lattices whose two copies fit one block's shared memory qualify: returns false, and
// launches nothing, for a larger one (see single_block_max_cells()). generations == 0 copies.
constexpr int kSingleBlockSide = 32;
bool run_single_block(const uint8_t* in, uint8_t* out, int width, int height, int generations);
// The most cells run_single_block accepts on this GPU: half the shared memory one block may have.
size_t single_block_max_cells();

// ---- Step 3: shared ---------------------------------------------------------------------------
// Each block copies a kTileW x kTileH tile of the lattice plus a one-cell halo into shared
// memory, then updates the tile from there. Every thread updates 16 neighbouring cells (one
// 16-byte vector, four 32-bit words of 4 cells) in each of kTileH / kSharedBlockY rows.
// One generation per launch.
constexpr int kCellsPerThread = 16;
constexpr int kTileW = 512, kTileH = 32;
constexpr int kSharedBlockX = kTileW / kCellsPerThread, kSharedBlockY = 8;
void run_shared(const uint8_t* in, uint8_t* out, int width, int height);

// ---- The steps, declared once (steps.h): main.cpp, tests.cpp and the summary read them --------
// Each step as one function (lattice.cu, not part of the exercise): advances the lattice in `cur`
// by `generations` generations; `spare` (same size) is the other buffer of the pair, and the two
// are swapped as needed, never copied, so that afterwards `cur` holds the result. global and
// shared launch once per generation, single_block once in all. With poison_each, the buffer
// about to be written is filled with 0xFF before every launch, so that a cell a kernel forgets
// to write cannot pass for a right one. Returns the number of launches, or -1 (and does nothing)
// for single_block on a lattice too large for it. Does not synchronise.
using AdvanceFn = long long (*)(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                                long long generations, bool poison_each);
long long advance_global(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                         long long generations, bool poison_each);
long long advance_single_block(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                               long long generations, bool poison_each);
long long advance_shared(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                         long long generations, bool poison_each);
// What a step is besides its launcher: the largest lattice it takes on this GPU (nullptr: any) and
// why, and whether it runs every generation in one launch (the lattice read from and written to
// DRAM once) or launches once per generation (read and written every generation).
struct LifeInfo {
    size_t (*max_cells)();
    const char* limit;
    bool one_launch;
};
using LifeStep = Step<AdvanceFn, LifeInfo>;
inline const LifeStep kSteps[] = {
    {1, "global", advance_global, {nullptr, "", false}},
    {2, "single_block", advance_single_block,
     {single_block_max_cells, "two copies of the lattice in one block's shared memory", true}},
    {3, "shared", advance_shared, {nullptr, "", false}},
};

// Live cells in a device lattice of n cells (lattice.cu: a small reduction kernel; synchronises).
unsigned long long count_alive(const uint8_t* cells, size_t n);

// Predictions: numbers you work out on paper before you run anything, written in starter.cu
// (its placeholders are -1); the tests of the step they belong to check them against
// answers.cpp, which holds the working-out (open it once a prediction passes).
// Step 1: how many blocks does run_global launch for a 1000 x 1000 lattice?
extern const long long kGlobalBlocksAt1000x1000;
// Step 2: on a 340 x 340 lattice (the largest square whose two copies fit one block of an H100
// or H200), how many cells does thread (0, 0) of life_single_block update in each generation?
extern const long long kCellsOfThread00At340x340;
// Step 3: for a 4096 x 4096 lattice, how many bytes do all the blocks of one life_shared launch
// copy from global memory into their shared tiles (one byte per cell)?
extern const long long kBytesCopiedAt4096x4096;

// The CPU reference that the program and the tests compare with is in life_reference.h.

// A seeded random lattice: each cell alive with probability `density` (counter-based, like
// compare.h's inputs: cell i depends only on the seed and i).
inline std::vector<uint8_t> random_lattice(int w, int h, double density, uint64_t seed) {
    std::vector<uint8_t> cells((size_t)w * h);
    const uint64_t s = splitmix64(seed ^ 0x4C1FEull);
    for (size_t i = 0; i < cells.size(); ++i) {
        double u = (splitmix64(s ^ (i * 0xD1B54A32D192ED03ull)) >> 11) * 0x1.0p-53;
        cells[i] = u < density ? 1 : 0;
    }
    return cells;
}

inline size_t population(const std::vector<uint8_t>& cells) {
    size_t n = 0;
    for (uint8_t c : cells) n += c;
    return n;
}

// How two lattices of width w differ: "3 of 19200 cells differ; first at (5, 0): got 255,
// expected 0", or "all 19200 cells match".
inline std::string lattice_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& ref, int w) {
    if (got.size() != ref.size()) return "the lattices differ in size";
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < ref.size(); ++i)
        if (got[i] != ref[i] && bad++ == 0) first = i;
    char text[160];
    if (bad == 0)
        std::snprintf(text, sizeof text, "all %zu cells match", ref.size());
    else
        std::snprintf(text, sizeof text, "%zu of %zu cells differ; first at (%zu, %zu): got %d, expected %d", bad,
                      ref.size(), first % w, first / w, got[first], ref[first]);
    return text;
}
