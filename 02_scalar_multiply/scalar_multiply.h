// scalar_multiply.h: the interface of exercise 02, out[i] = a * x[i].
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Pointers are device pointers. Each run_* function launches its kernel and returns without
// waiting for it (the caller synchronises); n == 0 is allowed and does nothing.
#pragma once

#include <cstddef>

#include "steps.h"

// Step 1: a single block, thread threadIdx.x handles element threadIdx.x. Needs n <= 1024
// (the most threads one block may have).
void run_one_block(float a, const float* x, float* out, size_t n);

// Step 2: ceil(n / block_size) blocks of block_size threads, one element per thread, and a
// bounds check for the last, partly filled block.
void run_many_blocks(float a, const float* x, float* out, size_t n, int block_size);

// Step 3: a grid sized to fill the GPU once (from its SM count), each thread striding through
// the array by the total number of threads in the grid.
void run_grid_stride(float a, const float* x, float* out, size_t n, int block_size);

// Step 4: the grid-stride loop moving 16 bytes (a float4) per load and store, with a scalar
// loop for the last n % 4 elements. Needs x and out 16-byte aligned (cudaMalloc's are); for
// other pointers it falls back to step 3.
void run_vectorized(float a, const float* x, float* out, size_t n, int block_size);

// Predictions: numbers you work out on paper before you run anything, written in starter.cu
// (its placeholders are -1); the tests of the step they belong to check them against
// answers.cpp, which holds the working-out (open it once a prediction passes).
// Step 2: how many blocks of 256 threads does run_many_blocks launch for n = 2^31 + 5?
extern const long long kBlocksAt2To31Plus5;
// Step 3: on an H100 (132 SMs) with blocks of 256 threads, one wave is 8 blocks per SM. For
// n = 2^25, how many elements does thread 0 of block 0 of run_grid_stride's grid handle?
extern const long long kElementsOfThread0At2To25;
// Step 4: every thread of a full H100 SM (2048 threads) waits for one load of step 4's loop.
// How many bytes has that SM requested from memory and not yet received?
extern const long long kBytesInFlightPerSm;

// What limits the sizes a step takes: how its grid covers the array.
enum class Coverage {
    one_block,           // one thread per element in a single block: n up to the block size limit
    block_per_chunk,     // one thread per element in ceil(n / block) blocks: at most 2^31 - 1 blocks
    grid_stride,         // a grid that fills the GPU once, each thread looping: any n
};
struct ScaleInfo {
    Coverage coverage;
};

// The steps, in order: the program, the tests and their summary all read this one list.
using ScaleFn = void (*)(float a, const float* x, float* out, size_t n, int block_size);
using ScaleStep = Step<ScaleFn, ScaleInfo>;
inline const ScaleStep kSteps[] = {
    {1, "one_block", [](float a, const float* x, float* out, size_t n, int) { run_one_block(a, x, out, n); },
     {Coverage::one_block}},
    {2, "many_blocks", run_many_blocks, {Coverage::block_per_chunk}, "--block"},  // (step 1: one block of n)
    {3, "grid_stride", run_grid_stride, {Coverage::grid_stride}, "--block"},
    {4, "vectorized", run_vectorized, {Coverage::grid_stride}, "--block"},
};

// The CPU reference. The product of two floats, computed in double, is exact; the GPU rounds
// it to float, so each GPU result must lie within half a float ulp of this value.
inline double scale_reference(float a, float x) { return (double)a * (double)x; }
