// BEGIN SOLUTION
// 05_tree_reduce/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 05_tree_reduce/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-05` shows which steps pass and `make run-05` shows the program's output.
//
// The sum of a float array, eight ways: each step is one rung of the classic optimisation
// ladder and keeps what the previous rungs got right. Once a step passes, LECTURE.md says what
// its rung changed and what that measured.
//
// Rules every kernel keeps, whatever n is:
//   - every thread of a block reaches every __syncthreads() (never put one inside a branch
//     that only some threads take), so threads past the end load 0, the identity of +;
//   - no read past x[n - 1];
//   - indices into x are size_t: n may exceed 2^31.

#include <cstdint>

#include "tree_reduce.h"

#include "cuda_check.h"
#include "launch.h"  // ceil_div, one_wave_blocks

// ---- Plumbing (given) -------------------------------------------------------------------------

// The sum of no elements is 0: set *out without launching anything.
static void write_zero(float* out) { CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float))); }

// Steps 1 to 6 turn n values into one sum per block. Launching the same kernel again over those
// sums, and again, until a single block is left, finishes the job: ceil(log_B(n)) launches in
// all. Each pass writes its sums to fresh scratch, and the last one writes *out.
using PassKernel = void (*)(const float*, size_t, float*);
static void reduce_in_passes(PassKernel kernel, size_t per_block, size_t shared_bytes,
                             const float* x, size_t n, float* out, int block, float* scratch) {
    if (n == 0) return write_zero(out);
    for (;;) {
        const size_t blocks = ceil_div(n, per_block);
        float* sums = blocks == 1 ? out : scratch;
        kernel<<<(unsigned)blocks, block, shared_bytes>>>(x, n, sums);
        CUDA_CHECK_LAUNCH();
        if (blocks == 1) return;
        x = sums;
        n = blocks;
        scratch += blocks;
    }
}

// ---- Step 1: interleaved addressing, divergent -------------------------------------------------
// One element per thread goes into shared memory, then an interleaved binary tree: the first
// round adds neighbouring slots, each later round adds the survivors of the one before, twice as
// far apart, and the thread that owns the left slot of a pair does the addition. The block's
// sum ends in buf[0].
__global__ void reduce_interleaved_divergent(const float* __restrict__ x, size_t n,
                                             float* __restrict__ partials) {
    extern __shared__ float buf[];  // blockDim.x floats, sized at launch
    // TODO(step 1): write the sum of this block's blockDim.x elements of x to partials[blockIdx.x],
    //               by the interleaved tree in buf described above. Any n: a thread past the end
    //               contributes the identity, and every thread reaches every barrier.
    // BEGIN SOLUTION
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    buf[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = buf[0];
    // END SOLUTION
}

// TODO(step 1): predict: in one 256-thread block, count for each round of the tree the warps
//               that hold at least one thread with an addition to do; what is the total over
//               all rounds? (Every such warp issues the round's instructions.)
// BEGIN SOLUTION
const long long kBusyWarpRounds256 = 47;  // 8 warps in each of the rounds 1 to 16 apart, then 4, 2, 1
// END SOLUTION
// STARTER: const long long kBusyWarpRounds256 = -1;  // your prediction

void run_interleaved_divergent(const float* x, size_t n, float* out, int block, ScratchView s) {
    reduce_in_passes(reduce_interleaved_divergent, block, block * sizeof(float), x, n, out, block,
                     s.partials);
}

// ---- Step 2: interleaved addressing, strided index -----------------------------------------------
// The same tree, the same pairs of slots, but the k-th addition of a round is done by thread k
// (threads 0, 1, 2, ...), not by the owner of the slot: whole warps fall idle instead of idling
// lanes inside every warp. The price: consecutive threads now touch slots far apart.
__global__ void reduce_interleaved_strided(const float* __restrict__ x, size_t n,
                                           float* __restrict__ partials) {
    extern __shared__ float buf[];
    // TODO(step 2): the same block sum and output as step 1, the same pairs of slots in every
    //               round, each round's additions done by the lowest-numbered threads.
    // BEGIN SOLUTION
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    buf[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) buf[index] += buf[index + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = buf[0];
    // END SOLUTION
}

// TODO(step 2): predict: in the round that adds slots 2 apart, the 32 threads of warp 0 each
//               write one word of buf. Banks are word % 32: how many different words does the
//               busiest bank serve (the n of an n-way bank conflict)?
// BEGIN SOLUTION
const long long kBankConflictWays = 4;  // thread t writes word 4t: banks 0, 4, ..., 28, each four times
// END SOLUTION
// STARTER: const long long kBankConflictWays = -1;  // your prediction

void run_interleaved_strided(const float* x, size_t n, float* out, int block, ScratchView s) {
    reduce_in_passes(reduce_interleaved_strided, block, block * sizeof(float), x, n, out, block,
                     s.partials);
}

// ---- Step 3: sequential addressing ---------------------------------------------------------------
// Step 2 packed each round's additions onto threads 0, 1, 2, ..., but its threads touch words 2s
// apart. Here the pairs themselves change: in every round the adding threads are still 0, 1,
// 2, ..., and the 32 threads of a warp touch 32 consecutive words.
__global__ void reduce_sequential(const float* __restrict__ x, size_t n,
                                  float* __restrict__ partials) {
    extern __shared__ float buf[];
    // TODO(step 3): the same block sum and output, with pairs of your choosing: each round's
    //               additions done by the lowest-numbered threads, a warp's 32 threads on 32
    //               consecutive words, every value added exactly once, for every block size.
    // BEGIN SOLUTION
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    buf[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = buf[0];
    // END SOLUTION
}

void run_sequential(const float* x, size_t n, float* out, int block, ScratchView s) {
    reduce_in_passes(reduce_sequential, block, block * sizeof(float), x, n, out, block, s.partials);
}

// ---- Step 4: first add during load -----------------------------------------------------------------
// In step 3 half the threads go idle at the first step. Instead, each block covers 2 * blockDim
// consecutive elements and each thread adds two of them while loading: half the blocks, and the
// first tree step comes for free. n need not be a multiple of 2 * blockDim. Load the pair with
// this helper; steps 5 and 6 use it too.
__device__ float load_pair(const float* __restrict__ x, size_t n) {
    // TODO(step 4): return the sum of this thread's two elements of its block's 2 * blockDim.x,
    //               each of the block's elements taken by exactly one thread, and each of a warp's
    //               two load instructions reading 32 consecutive floats (coalesced). An element
    //               at or past n counts as 0. Index in size_t.
    // BEGIN SOLUTION
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    return v;
    // END SOLUTION
    // STARTER: return 0.0f;
}

__global__ void reduce_first_add(const float* __restrict__ x, size_t n,
                                 float* __restrict__ partials) {
    extern __shared__ float buf[];
    // TODO(step 4): step 3's block sum and output, each thread starting from its load_pair.
    // BEGIN SOLUTION
    const unsigned tid = threadIdx.x;
    buf[tid] = load_pair(x, n);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = buf[0];
    // END SOLUTION
}

void run_first_add(const float* x, size_t n, float* out, int block, ScratchView s) {
    // Each block now covers 2 * block elements.
    reduce_in_passes(reduce_first_add, 2 * (size_t)block, block * sizeof(float), x, n, out, block,
                     s.partials);
}

// ---- Step 5: unroll the last warp ----------------------------------------------------------------
// Once 64 values are left, only warp 0 works: its 32 threads can finish without block-wide
// barriers. They still need __syncwarp(): since Volta, the threads of a warp are scheduled
// independently and are NOT guaranteed to run in lockstep, so a lane may read buf[lane + s]
// before or after its neighbour has overwritten it. (legacy_tail.cu keeps the old `volatile`
// version that assumed lockstep; LECTURE.md, step 5, shows what racecheck says.)
//
// Called by the 32 threads of warp 0 (lane = threadIdx.x) once buf holds the last
// min(blockDim.x, 64) values. Returns the block's sum in lane 0.
__device__ float warp_tail(float* buf, unsigned lane) {
    // TODO(step 5): return (in lane 0) the sum of those values, using buf and no __syncthreads().
    //               Lockstep is not guaranteed: where lanes share a word of buf, only a
    //               __syncwarp() orders their accesses (where each one stands is yours to decide).
    // BEGIN SOLUTION
    float v = buf[lane];
    if (blockDim.x >= 64) v += buf[lane + 32];
#pragma unroll
    for (unsigned s = 16; s > 0; s /= 2) {
        buf[lane] = v;
        __syncwarp();
        if (lane < s) v += buf[lane + s];
        __syncwarp();
    }
    return v;
    // END SOLUTION
    // STARTER: return 0.0f;
}

// TODO(step 5): predict: how many __syncthreads() does one 256-thread block of reduce_unrolled_warp
//               pass, from the load to the end of the kernel?
// BEGIN SOLUTION
const long long kBarriersUnrolled256 = 3;  // after the load, then after the folds to 128 and to 64 values
// END SOLUTION
// STARTER: const long long kBarriersUnrolled256 = -1;  // your prediction

__global__ void reduce_unrolled_warp(const float* __restrict__ x, size_t n,
                                     float* __restrict__ partials) {
    extern __shared__ float buf[];
    // TODO(step 5): step 4, but the block-wide tree stops as soon as warp 0 can finish alone in
    //               warp_tail (for every block size from 32 to 1024); thread 0 writes the sum.
    // BEGIN SOLUTION
    const unsigned tid = threadIdx.x;
    buf[tid] = load_pair(x, n);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        const float v = warp_tail(buf, tid);
        if (tid == 0) partials[blockIdx.x] = v;
    }
    // END SOLUTION
}

void run_unrolled_warp(const float* x, size_t n, float* out, int block, ScratchView s) {
    reduce_in_passes(reduce_unrolled_warp, 2 * (size_t)block, block * sizeof(float), x, n, out,
                     block, s.partials);
}

// ---- Step 6: warp shuffles ---------------------------------------------------------------------------
// __shfl_down_sync(mask, v, d) hands each lane the v of the lane d above it, register to
// register: a warp sums 32 values in 5 steps with no shared memory and no __syncwarp (the
// _sync in the name is the synchronisation). A block then needs shared memory only for one
// value per warp. Steps 7 and 8 reuse both helpers.

// The sum of v over the 32 lanes of the calling warp, in lane 0. All 32 lanes must call it.
__device__ float warp_sum(float v) {
    // TODO(step 6): the warp's sum of v in lane 0, with register shuffles only.
    // BEGIN SOLUTION
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
    // END SOLUTION
    // STARTER: return 0.0f;
}

// The sum of v over the whole block, in thread 0. Every thread of the block must call it, and
// a second call needs a __syncthreads() between the two: both calls use the same __shared__
// memory, the one value per warp that block_sum keeps there.
__device__ float block_sum(float v) {
    // TODO(step 6): the block's sum of v in thread 0 (the other threads' result is unused), for
    //               any block of 32 to 1024 threads, with warp_sum and one value per warp passed
    //               through __shared__ memory.
    // BEGIN SOLUTION
    __shared__ float warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp != 0) return 0.0f;
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    return warp_sum(v);
    // END SOLUTION
    // STARTER: return 0.0f;
}

__global__ void reduce_shuffle(const float* __restrict__ x, size_t n,
                               float* __restrict__ partials) {
    // TODO(step 6): step 4's block sum and output, with load_pair and block_sum.
    // BEGIN SOLUTION
    const float v = block_sum(load_pair(x, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    // END SOLUTION
}

void run_shuffle(const float* x, size_t n, float* out, int block, ScratchView s) {
    reduce_in_passes(reduce_shuffle, 2 * (size_t)block, 0, x, n, out, block, s.partials);
}

// ---- Step 7: grid-stride loop with 16-byte loads ---------------------------------------------------
// Steps 1 to 6 give each thread one or two elements, so most of the time goes to starting
// blocks, trees and extra passes rather than to reading memory. Here the grid is just large
// enough to fill the GPU, and each thread sums many elements in a grid-stride loop with float4
// (16-byte) loads, several independent ones in flight, before one block_sum per block. A
// second launch of one block adds up the per-block sums.

// float4 loads in flight per thread per trip through the loop.
constexpr int kVecUnroll = 4;

// This thread's share of x[0..n), read as float4 wherever the alignment allows.
__device__ float thread_sum_vec(const float* __restrict__ x, size_t n) {
    // TODO(step 7): the grid's threads together read every element of x[0..n) exactly once, for
    //               any n and any 4-byte alignment of x; no float4 load may be misaligned. The
    //               bulk goes through a grid-stride loop with kVecUnroll float4 loads in flight
    //               per trip. (In device code use min() or ?:, not std::min: it is host-only.)
    // BEGIN SOLUTION
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t misaligned = (reinterpret_cast<uintptr_t>(x) / sizeof(float)) % 4;
    const size_t head = misaligned == 0 ? 0 : (4 - misaligned < n ? 4 - misaligned : n);
    const float4* body = reinterpret_cast<const float4*>(x + head);
    const size_t nvec = (n - head) / 4;
    const size_t tail_start = head + 4 * nvec;

    float sum = 0.0f;
    if (t < head) sum += x[t];
    if (t < n - tail_start) sum += x[tail_start + t];
    size_t i = t;
    for (; i + (kVecUnroll - 1) * stride < nvec; i += kVecUnroll * stride) {
        float4 v[kVecUnroll];
#pragma unroll
        for (int u = 0; u < kVecUnroll; ++u) v[u] = body[i + u * stride];
#pragma unroll
        for (int u = 0; u < kVecUnroll; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < nvec; i += stride) {
        const float4 v = body[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    return sum;
    // END SOLUTION
    // STARTER: return 0.0f;
}

__global__ void reduce_grid_stride_vec(const float* __restrict__ x, size_t n,
                                       float* __restrict__ partials) {
    // TODO(step 7): block_sum of thread_sum_vec; thread 0 writes it to partials[blockIdx.x].
    // BEGIN SOLUTION
    const float v = block_sum(thread_sum_vec(x, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    // END SOLUTION
}

// The grid for steps 7 and 8: one full wave (`wave` blocks resident at once on the whole GPU),
// but never more blocks than the array needs: the fewest blocks whose threads, one unrolled trip
// each, read all n floats (rounded UP: the last block's trip may be partly empty). Never more
// than kMaxGridBlocks, never 0.
static unsigned grid_for(size_t n, int block, unsigned wave) {
    // TODO(step 7): the block count described above: the fewest blocks that cover n floats with
    //               one unrolled trip per thread (rounded up), but at most `wave` and
    //               kMaxGridBlocks, and at least 1.
    // BEGIN SOLUTION
    size_t blocks = ceil_div(n, (size_t)block * 4 * kVecUnroll);
    if (blocks > wave) blocks = wave;
    if (blocks > kMaxGridBlocks) blocks = kMaxGridBlocks;
    return blocks > 0 ? (unsigned)blocks : 1u;
    // END SOLUTION
    // STARTER: return 1;
}

// TODO(step 7): predict: how many blocks does grid_for give for n = 1,000,000 floats, blocks of
//               256, on a GPU whose wave is 1056 such blocks (an H100 or H200)?
// BEGIN SOLUTION
const long long kGridBlocksAt1000000 = 245;  // 1,000,000 / (256 threads * 4 floats * kVecUnroll 4), rounded up
// END SOLUTION
// STARTER: const long long kGridBlocksAt1000000 = -1;  // your prediction

void run_grid_stride_vec(const float* x, size_t n, float* out, int block, ScratchView s) {
    if (n == 0) return write_zero(out);
    const unsigned blocks = grid_for(n, block, one_wave_blocks((const void*)reduce_grid_stride_vec, block));
    if (blocks == 1) {
        reduce_grid_stride_vec<<<1, block>>>(x, n, out);
        CUDA_CHECK_LAUNCH();
        return;
    }
    reduce_grid_stride_vec<<<blocks, block>>>(x, n, s.partials);
    CUDA_CHECK_LAUNCH();
    reduce_grid_stride_vec<<<1, block>>>(s.partials, blocks, out);  // the second pass
    CUDA_CHECK_LAUNCH();
}

// ---- Step 8: one launch, the last block finishes --------------------------------------------------
// Blocks cannot wait for each other (they may not all be resident at once), but they can count.
// Each block publishes its sum, then takes a ticket from a counter in global memory with
// atomicAdd. The block that draws the last ticket knows every other sum is published, adds
// them up and writes *out: no second launch. For that to hold, a block's sum must be visible to
// the whole GPU before its ticket is, and the last block's reads of the sums must not be served
// before its ticket, nor from its SM's L1 cache (not kept coherent with other SMs' writes).
// The last block also puts the counter back to 0, ready for the next launch. Summing the
// partials in index order makes the result the same bits every time, unlike atomicAdd on *out.
__global__ void reduce_one_pass(const float* __restrict__ x, size_t n, float* partials,
                                unsigned int* counter, float* __restrict__ out) {
    // TODO(step 8): *out = the sum of x[0..n) in this one launch, by the ticket scheme above; the
    //               last block leaves *counter at 0. Its two block_sum calls share block_sum's
    //               shared memory (block_sum's rule applies).
    // BEGIN SOLUTION
    __shared__ bool is_last;
    const float v = block_sum(thread_sum_vec(x, n));
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        const unsigned ticket = atomicAdd(counter, 1u);
        is_last = ticket == gridDim.x - 1;
        if (is_last) __threadfence();
    }
    __syncthreads();
    if (!is_last) return;
    float total = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) total += __ldcg(&partials[i]);
    total = block_sum(total);
    if (threadIdx.x == 0) {
        *out = total;
        *counter = 0;
    }
    // END SOLUTION
}

void run_one_pass(const float* x, size_t n, float* out, int block, ScratchView s) {
    if (n == 0) return write_zero(out);
    const unsigned blocks = grid_for(n, block, one_wave_blocks((const void*)reduce_one_pass, block));
    reduce_one_pass<<<blocks, block>>>(x, n, s.partials, s.counter, out);
    CUDA_CHECK_LAUNCH();
}
