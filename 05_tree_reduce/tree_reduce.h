// tree_reduce.h: the interface of exercise 05, the sum of a float array, eight ways.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Pointers are device pointers. Each run_* function launches its kernel(s) and returns without
// waiting (the caller synchronises) and leaves the sum of x[0..n) in *out, one float on the
// device. The sum of no elements is 0: with n == 0 no kernel is launched and *out is set to 0.
// x only has to be aligned as a float (4 bytes): step 7 must cope with any other alignment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "buffer.h"
#include "compare.h"
#include "cuda_check.h"
#include "steps.h"

// Temporary device memory the launchers need, as they see it (pointers only; ScratchBuffers
// below owns it). partials holds per-block sums between passes; counter is the one-launch
// finish's count of finished blocks (step 8). It must be zero before the first call, and every
// call of run_one_pass leaves it zero again.
struct ScratchView {
    float* partials = nullptr;        // at least scratch_floats(n, block) floats
    unsigned int* counter = nullptr;  // one unsigned int
};

// The most blocks the grid-filling kernels (steps 7 and 8) launch, so that their partial sums
// fit in scratch and one block can finish them. Several blocks per SM on any GPU to date.
constexpr unsigned kMaxGridBlocks = 8192;

// Block sizes must be powers of two from 32 to 1024: the trees halve their stride each step.
inline bool valid_block_size(int block) {
    return block >= 32 && block <= 1024 && (block & (block - 1)) == 0;
}

// Floats of scratch the launchers may use for n elements with `block` threads per block. The
// pass-by-pass steps (1 to 6) reduce n values to ceil(n / block) or fewer, and those again,
// until one is left; each pass writes to fresh scratch. Steps 7 and 8 need one per block.
inline size_t scratch_floats(size_t n, int block) {
    size_t total = 0;
    for (size_t count = n; count > (size_t)block;) {
        count = (count + block - 1) / block;
        total += count;
    }
    return total > kMaxGridBlocks ? total : kMaxGridBlocks;
}

// Owns the scratch for up to n elements with `block` threads per block (host code only).
// The partial sums start as NaN, so a pass that reads a sum nobody wrote shows up in the
// result; the counter starts at zero, as step 8 requires.
struct ScratchBuffers {
    DeviceBuffer<float> partials;
    DeviceBuffer<unsigned int> counter;
    ScratchBuffers(size_t n, int block) : partials(scratch_floats(n, block)), counter(1) {
        partials.poison();
        CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned int)));
    }
    ScratchView view() const { return ScratchView{partials.get(), counter.get()}; }
};

// ---- The ladder: one launcher per step --------------------------------------------------------
// Each leaves the sum of x[0..n) in *out. Steps 1 to 6 write one sum per block and are launched
// again over those sums until one is left (reduce_in_passes in starter.cu).
// Step 1: a shared-memory tree with interleaved pairs, done by the threads owning the slots.
void run_interleaved_divergent(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 2: the same pairs, each round's additions done by the lowest-numbered threads.
void run_interleaved_strided(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 3: a shared-memory tree whose rounds fold the upper half of the values onto the lower.
void run_sequential(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 4: as step 3, but each thread adds two elements while loading (half as many blocks).
void run_first_add(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 5: as step 4, with the last values of each block reduced by one warp, without block-wide
// barriers.
void run_unrolled_warp(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 6: as step 4, with warp shuffles instead of a shared-memory tree.
void run_shuffle(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 7: a grid that fills the GPU once, 16-byte loads in a grid-stride loop, then a second
// launch of one block over the per-block sums.
void run_grid_stride_vec(const float* x, size_t n, float* out, int block, ScratchView s);
// Step 8: as step 7 in ONE launch: the last block to finish adds up the per-block sums.
void run_one_pass(const float* x, size_t n, float* out, int block, ScratchView s);

// Your predictions (starter.cu; the tests check them against answers.cpp, README "Your task"):
extern const long long kBusyWarpRounds256;    // step 1: warps with work, summed over the rounds (block 256)
extern const long long kBankConflictWays;     // step 2: the n-way conflict of warp 0 in the round 2 apart
extern const long long kBarriersUnrolled256;  // step 5: __syncthreads() one 256-thread block passes
extern const long long kGridBlocksAt1000000;  // step 7: grid_for's blocks for 1,000,000 floats, block 256, wave 1056

// The steps, in order: the program, the tests and their summary all read this one list.
using ReduceFn = void (*)(const float*, size_t, float*, int, ScratchView);
inline const Step<ReduceFn> kSteps[] = {
    {1, "interleaved_divergent", run_interleaved_divergent, {}, "--block"},
    {2, "interleaved_strided", run_interleaved_strided, {}, "--block"},
    {3, "sequential", run_sequential, {}, "--block"},
    {4, "first_add", run_first_add, {}, "--block"},
    {5, "unrolled_warp", run_unrolled_warp, {}, "--block"},
    {6, "shuffle", run_shuffle, {}, "--block"},
    {7, "grid_stride_vec", run_grid_stride_vec, {}, "--block"},
    {8, "one_pass", run_one_pass, {}, "--block"},
};
// The library baseline is CubSum (common/baselines/cub_sum.h).

// ---- The source material's warp tail, for the demonstration only (legacy_tail.cu) --------
// One pass of step 5 with the old `volatile` warp-synchronous tail: writes one sum per block
// to partials[0 .. legacy_tail_blocks(n, block)). Needs block >= 64. Not part of any step, not
// tested, not in `make sanitize`: run it under racecheck to see why (README, step 5).
size_t legacy_tail_blocks(size_t n, int block);
void run_legacy_volatile_tail(const float* x, size_t n, float* partials, int block);
// Runs it once on n whole numbers and says what it gave (the program's --volatile-demo): 0 when
// the sum was right this time, 1 when it was not.
int run_volatile_demo(size_t n, int block, uint64_t seed);

// ---- CPU references -------------------------------------------------------------------------
// The sum's reference is compare.h's ReferenceSum: sum_reference(x, n) gives the sum in double
// precision and sum |x[i]|, which sets the tolerance. The tests and the benchmark sum
// compare.h's random_whole_floats, whose sums float adds exactly: a correct kernel returns
// exactly the reference, and a kernel that skips or repeats a single element cannot hide in a
// tolerance.
