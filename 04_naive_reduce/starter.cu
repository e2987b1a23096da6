// 04_naive_reduce/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-04` shows which steps pass and `make run-04` shows the program's output.
//
// Summing n floats: every result depends on every input, so threads must combine their work.
// Five kernels, from "everyone adds into one place" to per-block summaries finished on the host.
// Every kernel takes a grid of any size and any block size from 1 to 1024 (kMaxBlock).

#include "naive_reduce.h"

#include <algorithm>
#include <cmath>

#include "cuda_check.h"

// ---- Step 1: atomic_each ----------------------------------------------------------------------
// The shortest correct kernel: every element goes straight into one float with atomicAdd. The
// atomic makes each read-add-write indivisible, so no addition is lost, but additions to one
// address are carried out one at a time: n steps, however many threads there are.
__global__ void sum_atomic_each(const float* x, size_t n, float* sum) {
    // TODO(step 1): atomicAdd every element of x into *sum, each thread taking its elements in a
    //               grid-stride loop (any grid size, any n; size_t indices).
}

void run_atomic_each(const float* x, size_t n, float* sum, int block_size) {
    // TODO(step 1): leave the sum of x[0..n) in *sum (0 for n == 0), launching sum_atomic_each on
    //               a bounded grid (reduce_blocks in naive_reduce.h) of block_size threads, every
    //               CUDA call and launch checked. The host does not wait between your calls: what
    //               makes *sum start from 0 must run before the kernel does.
}

// TODO(step 1): predict: what float does atomic_each leave in *sum for 2^25 ones? (Work it out
//               from how many significant bits a float has; the tests check your number.)
const float kSumOfOnesAtomic = -1;  // your prediction

// ---- Step 2: block_serial ---------------------------------------------------------------------
// Threads of one block can share data through shared memory and wait for each other with
// __syncthreads(); threads of different blocks cannot (not within a kernel). So each block
// sums its own elements and writes one partial result; the host adds up the partials.

// The sum of this thread's elements: i = global index, i + stride, i + 2 * stride, ... (0 for a
// thread with none). Used by steps 2, 3 and 5.
__device__ float thread_sum(const float* x, size_t n) {
    // TODO(step 2): return the sum of this thread's grid-stride elements, added in a register.
    return 0.0f;
}

// Launched with blockDim.x * sizeof(float) bytes of dynamic shared memory (the third <<<>>>
// argument counts bytes): room for one float per thread, whatever the block size.
__global__ void sum_block_serial(const float* x, size_t n, float* partials) {
    // TODO(step 2): partials[blockIdx.x] = the block's thread_sums added in thread order by
    //               thread 0 alone, after every thread has put its own in dynamic shared memory.
    //               Before writing: which threads must reach the barrier, and what goes wrong
    //               if it sits inside thread 0's branch?
}

void run_block_serial(const float* x, size_t n, float* partials, int block_size) {
    if (n == 0) return;
    sum_block_serial<<<reduce_blocks(n, block_size), block_size, block_size * sizeof(float)>>>(x, n, partials);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 3: block_tree -----------------------------------------------------------------------
// Thread 0 of step 2 does blockDim.x - 1 additions while the others wait. A tree does the same
// additions in rounds: in one round many threads each add a pair of values at the same time, so
// the count of values still to combine roughly halves from round to round.

// Every thread of the block calls this with its value v and the block's shared array s (at
// least blockDim.x floats); every thread gets the block's total. It contains barriers, so it
// must be called by all threads of the block, or by none.
__device__ float block_tree_sum(float v, float* s) {
    // TODO(step 3): every thread returns the sum of the block's values v, combined in s in about
    //               log2(blockDim.x) rounds, for ANY block size from 1 to 1024 (96 and 1000 too).
    //               Every thread reaches every barrier, and the caller may write s again as soon
    //               as this returns.
    return 0.0f;
}

// TODO(step 3): predict: how many rounds does block_tree_sum need for a block of 96 threads, if a
//               round adds disjoint pairs of values and each value takes part in one addition
//               at most? (Try 96 on paper, not only powers of two.)
const long long kTreeRounds96 = -1;  // your prediction

__global__ void sum_block_tree(const float* x, size_t n, float* partials) {
    // TODO(step 3): as step 2, with block_tree_sum combining the block's values.
}

void run_block_tree(const float* x, size_t n, float* partials, int block_size) {
    if (n == 0) return;
    sum_block_tree<<<reduce_blocks(n, block_size), block_size, block_size * sizeof(float)>>>(x, n, partials);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 4: stats ----------------------------------------------------------------------------
// min, max, mean and variance in one pass. Each thread summarises its elements, the block
// merges the summaries with the same tree as step 3, the host merges the blocks' summaries.

// NaN-propagating min and max (fminf/fmaxf would drop a NaN): the same rule as the host's.
__device__ float min_with_nan_d(float a, float b) { return (a < b || isnan(a)) ? a : b; }
__device__ float max_with_nan_d(float a, float b) { return (a > b || isnan(a)) ? a : b; }

__device__ Stats stats_empty() { return Stats{0ull, 0.0f, 0.0f, INFINITY, -INFINITY}; }

// One element x as a summary: merged with any other summary, it must give the summary of that
// summary's values and x together.
__device__ Stats stats_of(float x) {
    // TODO(step 4): the summary of the single value x (README, step 4: decide first).
    return stats_empty();
}

// The summary of a and b together. With na, nb the counts and delta the difference of the two
// means (b.sum / nb - a.sum / na), the squared deviations of the union are
//     m2 = a.m2 + b.m2 + delta^2 * na * nb / (na + nb)
// (each part's deviations are measured from its own mean; the last term moves them to the
// common mean). Counts and sums simply add; min and max with NaN passed through.
__device__ Stats stats_merge(Stats a, Stats b) {
    // TODO(step 4): the summary of a and b together (the formula above). An empty side (count 0,
    //               its mean 0 / 0) leaves the other unchanged. Form the weight so that no
    //               product of two counts can overflow.
    return a;
}

// Launched with room for blockDim.x Stats of dynamic shared memory (run_stats below).
__global__ void stats_blocks(const float* x, size_t n, Stats* partials) {
    // TODO(step 4): partials[blockIdx.x] = the summary of the block's elements: each thread
    //               summarises its grid-stride elements, and the block merges the summaries in
    //               rounds, as step 3 adds. An extern __shared__ array's name belongs to the
    //               whole file: the Stats array needs a name that no float array uses.
}

// TODO(step 4): predict: how many bytes of dynamic shared memory does run_stats ask for with
//               blocks of 256 threads? (What does the third launch parameter count, and how
//               large is one Stats, given its fields in naive_reduce.h?)
const long long kStatsSharedBytes256 = -1;  // your prediction

void run_stats(const float* x, size_t n, Stats* partials, int block_size) {
    if (n == 0) return;
    stats_blocks<<<reduce_blocks(n, block_size), block_size, block_size * sizeof(Stats)>>>(x, n, partials);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 5: rows_cols ------------------------------------------------------------------------
// Two reductions of one row-major matrix, with two different mappings of threads to data.
// Rows are contiguous: a block takes a row, its threads read neighbouring elements (coalesced)
// and block_tree_sum combines them. Columns are strided: a thread takes a column and walks down
// it; a warp's 32 threads then read 32 neighbouring elements of one row (coalesced again).

// One block per row, the block striding over rows (gridDim.x may be smaller than rows).
__global__ void sum_rows(const float* m, size_t rows, size_t cols, float* row_sums) {
    // TODO(step 5): block b writes row_sums[r] for rows r = b, b + gridDim.x, ...; the block's
    //               threads share each row's elements and combine them with block_tree_sum
    //               (blockDim.x floats of dynamic shared memory come with the launch). Every
    //               thread of the block must make the same number of block_tree_sum calls.
}

// x covers the columns (grid-stride), y cuts the rows into bands of `band` rows: the band's
// column sum is added into col_sums (zeroed by the launcher) with one atomicAdd. Few atomics
// per address, unlike step 1: rows / band of them for each column.
__global__ void sum_cols(const float* m, size_t rows, size_t cols, size_t band, float* col_sums) {
    // TODO(step 5): blockIdx.y picks a band of `band` rows (the last band may be shorter); x covers
    //               the columns in a grid-stride loop. For each column, add the band's elements
    //               in a register, then atomicAdd that into col_sums[c].
}

// The total is a reduction of the row sums: ONE block, so thread_sum strides by blockDim.x.
__global__ void sum_total(const float* row_sums, size_t rows, float* total) {
    // TODO(step 5): ONE block reduces the row sums with thread_sum and block_tree_sum (blockDim.x
    //               floats of dynamic shared memory); thread 0 writes *total.
}

void run_rows_cols(const float* m, size_t rows, size_t cols, float* row_sums, float* col_sums,
                   float* total, int block_size) {
    if (rows == 0 || cols == 0) {  // sums over nothing are 0
        if (rows) CUDA_CHECK(cudaMemsetAsync(row_sums, 0, rows * sizeof(float)));
        if (cols) CUDA_CHECK(cudaMemsetAsync(col_sums, 0, cols * sizeof(float)));
        CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(float)));
        return;
    }
    const size_t shared = block_size * sizeof(float);
    const unsigned row_blocks = (unsigned)std::min<size_t>(rows, wave_blocks(block_size));
    sum_rows<<<row_blocks, block_size, shared>>>(m, rows, cols, row_sums);
    CUDA_CHECK_LAUNCH();

    // Enough bands that the grid still fills the GPU when the matrix has few columns. gridDim.y
    // (and z) are limited to 65535 blocks; only x goes up to 2^31 - 1.
    CUDA_CHECK(cudaMemsetAsync(col_sums, 0, cols * sizeof(float)));
    const unsigned col_blocks = reduce_blocks(cols, block_size);
    const size_t wave_threads = (size_t)wave_blocks(block_size) * block_size;
    size_t bands = std::max<size_t>(1, wave_threads / ((size_t)col_blocks * block_size));
    bands = std::min({bands, rows, (size_t)65535});
    const size_t band = (rows + bands - 1) / bands;
    bands = (rows + band - 1) / band;  // rounding up the band may leave the last ones empty
    sum_cols<<<dim3(col_blocks, (unsigned)bands), block_size>>>(m, rows, cols, band, col_sums);
    CUDA_CHECK_LAUNCH();

    sum_total<<<1, block_size, shared>>>(row_sums, rows, total);
    CUDA_CHECK_LAUNCH();
}
