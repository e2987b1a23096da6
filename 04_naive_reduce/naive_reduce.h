// naive_reduce.h: the interface of exercise 04, the first ways to sum n floats on a GPU.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Pointers are device pointers. Each run_* function launches its kernel(s) and returns without
// waiting (the caller synchronises); n == 0 is allowed and launches nothing.
//
// Steps 2 to 4 leave one partial result per block in device memory; the host copies them back
// and finishes (finish_sum, finish_stats below). Exercise 05 finishes on the GPU instead.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "buffer.h"
#include "compare.h"
#include "cuda_check.h"
#include "launch.h"
#include "steps.h"

// Every kernel here works for any block size from 1 to this (the hardware limit since 2010).
constexpr int kMaxBlock = 1024;

// ---- The grid ---------------------------------------------------------------------------------
// The kernels use grid-stride loops, so the grid need not grow with n: one "wave" of blocks,
// enough threads to fill every SM once, covers any n. (Blocks of fewer than 64 threads hit the
// limit of resident blocks per SM first, 32 on Hopper, so they take several waves: the grid
// stays bounded all the same.) This is also the number of partial results steps 2 to 4 write
// (fewer when n is small: every block gets at least one element).
inline unsigned wave_blocks(int block_size) {
    static int threads_per_sm = 0;  // one device per program here: ask once
    if (threads_per_sm == 0) {
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    }
    return (unsigned)sm_count() * (unsigned)std::max(1, threads_per_sm / block_size);
}

inline unsigned reduce_blocks(size_t n, int block_size) {
    return (unsigned)std::min<size_t>(ceil_div(n, block_size), wave_blocks(block_size));
}

// ---- Step 1: atomic_each ----------------------------------------------------------------------
// Every thread atomicAdds each of its elements into *sum (zeroed first; 0 for n == 0).
void run_atomic_each(const float* x, size_t n, float* sum, int block_size);
// Your prediction (starter.cu, checked by the tests): the float atomic_each leaves for 2^25 ones.
extern const float kSumOfOnesAtomic;

// ---- Step 2: block_serial ---------------------------------------------------------------------
// reduce_blocks(n, block_size) blocks; each thread sums its grid-stride elements, the block
// puts those sums in shared memory, and thread 0 adds them one after another into
// partials[blockIdx.x].
void run_block_serial(const float* x, size_t n, float* partials, int block_size);

// ---- Step 3: block_tree -----------------------------------------------------------------------
// The same partials as step 2, but the block combines its values in a tree of rounds.
void run_block_tree(const float* x, size_t n, float* partials, int block_size);
// Your prediction: the rounds block_tree_sum needs for a block of 96 threads.
extern const long long kTreeRounds96;

// The host's half of steps 2 and 3: add the per-block partials (in double) and round once.
inline float finish_sum(const std::vector<float>& partials) {
    double s = 0;
    for (float p : partials) s += p;
    return (float)s;
}

// ---- Step 4: stats ----------------------------------------------------------------------------
// What a block knows about its elements. Two summaries merge exactly (in real arithmetic) into
// the summary of the union, whatever their sizes: that is why it carries a count and a sum, not
// an average (the average of two averages is only right when both counts are equal).
// m2 is the sum of squared deviations from this summary's own mean: variance = m2 / count.
// The empty summary is {0, 0, 0, +inf, -inf}: merging it with anything changes nothing.
struct Stats {
    unsigned long long count;
    float sum;
    float m2;
    float min;
    float max;
};

// reduce_blocks(n, block_size) blocks, each writing the summary of its elements to partials.
void run_stats(const float* x, size_t n, Stats* partials, int block_size);
// Your prediction: the bytes of dynamic shared memory run_stats asks for with blocks of 256.
extern const long long kStatsSharedBytes256;

// The final answer. For n == 0: count 0, mean and variance NaN (0 / 0: there is no value to
// report), min = +inf and max = -inf (the empty min and max, as for the merge).
// A NaN anywhere in the input makes mean, variance, min and max NaN.
struct Summary {
    size_t count = 0;
    double mean = 0, variance = 0;  // population variance: m2 / count
    float min = 0, max = 0;
};

// min and max that let a NaN through (std::min would keep or drop it depending on order).
inline float min_with_nan(float a, float b) { return (a < b || std::isnan(a)) ? a : b; }
inline float max_with_nan(float a, float b) { return (a > b || std::isnan(a)) ? a : b; }

// The host's half of step 4: merge the per-block summaries in double.
inline Summary finish_stats(const std::vector<Stats>& partials) {
    double count = 0, sum = 0, m2 = 0;
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (const Stats& p : partials) {
        if (p.count == 0) continue;
        if (count > 0) {
            const double delta = (double)p.sum / (double)p.count - sum / count;
            m2 += delta * delta * count * (double)p.count / (count + (double)p.count);
        }
        m2 += p.m2;
        sum += p.sum;
        count += (double)p.count;
        mn = min_with_nan(mn, p.min);
        mx = max_with_nan(mx, p.max);
    }
    Summary s;
    s.count = (size_t)count;
    s.mean = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
    s.variance = count > 0 ? m2 / count : std::numeric_limits<double>::quiet_NaN();
    s.min = mn;
    s.max = mx;
    return s;
}

// ---- Step 5: rows_cols ------------------------------------------------------------------------
// m is a rows x cols matrix, row-major (element (r, c) at m[r * cols + c]). Writes
// row_sums[rows], col_sums[cols] and *total. An empty matrix (rows or cols 0) gives zeros.
void run_rows_cols(const float* m, size_t rows, size_t cols, float* row_sums, float* col_sums,
                   float* total, int block_size);

// ---- Support files (given; not part of your task) ----------------------------------------------
// The library reference, cub::DeviceReduce::Sum, is CubSum (common/baselines/cub_sum.h).
//
// atomic_per_thread.cu: the source blog's kernel 1, shown beside the steps (step "-"): each
// thread adds its grid-stride share, read as float4, and sends one atomicAdd into *sum (zeroed
// first; 0 for n == 0).
void run_atomic_per_thread(const float* x, size_t n, float* sum, int block_size);
//
// barrier_demo.cu: the source material's broken tree, __syncthreads() inside the if (see the
// README), run once on n ones, one block per block_size elements (a power of two); it reports
// how many block totals, and how many threads' reads of their block's total, were wrong.
// Undefined behaviour: it may hang (a 10 s watchdog ends the program) or give wrong results.
// Never used by the tests. Returns the program's exit code.
int run_barrier_demo(size_t n, int block_size);

// ---- Inputs -----------------------------------------------------------------------------------
enum class Values { mixed, positive, negative, ones, large };
inline const std::vector<std::string> kValuesNames = {"mixed", "positive", "negative", "ones", "large"};  // as above
inline Values values_named(const std::string& name) {  // name: one of kValuesNames
    return (Values)(std::find(kValuesNames.begin(), kValuesNames.end(), name) - kValuesNames.begin());
}
inline const char* values_name(Values v) {
    switch (v) {
        case Values::mixed: return "mixed, uniform in [-1, 1)";
        case Values::positive: return "positive, uniform in [0, 1)";
        case Values::negative: return "negative, uniform in [-1, 0)";
        case Values::ones: return "all 1";
        case Values::large: return "large, uniform in [-1e15, 1e15)";
    }
    return "?";
}
inline std::vector<float> make_values(Values v, size_t n, uint64_t seed) {
    switch (v) {
        case Values::mixed: return random_floats(n, seed, -1.0f, 1.0f);
        case Values::positive: return random_floats(n, seed, 0.0f, 1.0f);
        case Values::negative: return random_floats(n, seed, -1.0f, 0.0f);
        case Values::ones: return std::vector<float>(n, 1.0f);
        case Values::large: return random_floats(n, seed, -1e15f, 1e15f);
    }
    return {};
}

// ---- CPU references (double precision) --------------------------------------------------------
// The sum's reference is compare.h's ReferenceSum: sum_reference(x) gives the sum and sum |x|.
// The tolerance of every float sum here: compare.h's float_sum_tolerance,
// |got - sum| <= 4 * 2^-24 * sqrt(n + 1) * sum|x|. It assumes rounding errors that behave like
// independent noise; a serial float sum of many same-sign values breaks that (see step 1).
inline Tolerance sum_tolerance(size_t n, const ReferenceSum& r) { return float_sum_tolerance(n, r.sum_abs); }

struct StatsReference {
    Summary exact;              // two passes in double; min and max exact
    double sum_abs = 0;         // sum |x|
    double sum_abs_dev = 0;     // sum |x - mean|
    double m2 = 0;              // sum (x - mean)^2
};
inline StatsReference stats_reference(const std::vector<float>& x) {
    StatsReference r;
    const size_t n = x.size();
    r.exact.count = n;
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    double sum = 0;
    for (float v : x) {
        sum += v;
        r.sum_abs += std::fabs((double)v);
        mn = min_with_nan(mn, v);
        mx = max_with_nan(mx, v);
    }
    r.exact.min = mn;
    r.exact.max = mx;
    if (n == 0) {
        r.exact.mean = r.exact.variance = std::numeric_limits<double>::quiet_NaN();
        return r;
    }
    const double mean = sum / (double)n;
    for (float v : x) {
        const double d = (double)v - mean;
        r.m2 += d * d;
        r.sum_abs_dev += std::fabs(d);
    }
    r.exact.mean = mean;
    r.exact.variance = r.m2 / (double)n;
    return r;
}

// The mean is a float sum divided by n: the sum's tolerance divided by n.
inline Tolerance mean_tolerance(const StatsReference& r) {
    const size_t n = std::max<size_t>(r.exact.count, 1);
    return Tolerance{0.0, float_sum_tolerance(n, r.sum_abs).atol / (double)n};
}
// The variance is m2 / n, and m2 a float sum of n squared deviations: the sum rule applied to
// sum (x - mean)^2. Each deviation is also taken from a float mean that is off by up to e (the
// mean's tolerance), which moves (x - mean)^2 by about 2 e |x - mean|: values far from zero
// compared with their spread make the float variance inaccurate, and the tolerance says so.
inline Tolerance variance_tolerance(const StatsReference& r) {
    const size_t n = std::max<size_t>(r.exact.count, 1);
    const double e = mean_tolerance(r).atol;
    return Tolerance{0.0, (float_sum_tolerance(n, r.m2).atol + 2.0 * e * r.sum_abs_dev) / (double)n};
}

// The summary's fields against the reference: count, min and max exact (a NaN matches a NaN),
// mean and variance within their tolerances (NaN for no elements).
struct StatsVerdict {
    bool count, mean, variance, min, max;
    bool ok() const { return count && mean && variance && min && max; }
    std::string wrong() const {  // e.g. "mean variance"
        const std::string w = std::string(count ? "" : " count") + (mean ? "" : " mean") +
                              (variance ? "" : " variance") + (min ? "" : " min") + (max ? "" : " max");
        return w.empty() ? w : w.substr(1);
    }
};
inline StatsVerdict judge_stats(const Summary& got, const StatsReference& ref) {
    const Summary& e = ref.exact;
    auto same = [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    return {got.count == e.count, e.count == 0 ? std::isnan(got.mean) : within(got.mean, e.mean, mean_tolerance(ref)),
            e.count == 0 ? std::isnan(got.variance) : within(got.variance, e.variance, variance_tolerance(ref)),
            same(got.min, e.min), same(got.max, e.max)};
}

// Row sums, column sums and total of a rows x cols row-major matrix, with the sums of |x| each
// tolerance needs.
struct RowsColsReference {
    std::vector<double> row_sums, row_abs, col_sums, col_abs;
    ReferenceSum total;
};
inline RowsColsReference rows_cols_reference(const std::vector<float>& m, size_t rows, size_t cols) {
    RowsColsReference r;
    r.row_sums.assign(rows, 0.0);
    r.row_abs.assign(rows, 0.0);
    r.col_sums.assign(cols, 0.0);
    r.col_abs.assign(cols, 0.0);
    for (size_t i = 0; i < rows; ++i)
        for (size_t j = 0; j < cols; ++j) {
            const double v = m[i * cols + j];
            r.row_sums[i] += v;
            r.row_abs[i] += std::fabs(v);
            r.col_sums[j] += v;
            r.col_abs[j] += std::fabs(v);
        }
    r.total = sum_reference(m);
    return r;
}

// Compares a vector of float sums, each with its own tolerance (n terms, sum |x| = abs[i]).
inline Comparison compare_sums(const std::vector<float>& got, const std::vector<double>& ref,
                               const std::vector<double>& abs, size_t terms) {
    Comparison c;
    c.count = ref.size();
    if (got.size() != ref.size()) {
        c.mismatches = ref.size() ? ref.size() : 1;
        return c;
    }
    for (size_t i = 0; i < ref.size(); ++i) {
        if (!within(got[i], ref[i], float_sum_tolerance(terms, abs[i]))) {
            if (c.mismatches++ == 0) {
                c.first_bad = i;
                c.first_got = got[i];
                c.first_ref = ref[i];
            }
        } else {
            c.worst_abs_err = std::max(c.worst_abs_err, std::fabs(got[i] - ref[i]));
        }
    }
    return c;
}

// ---- The steps, as main.cpp and tests.cpp run them (given; not part of your task) -------------
// Device memory for one run: the input x, step 5's rows x cols matrix (none when rows and cols
// are 0), and every step's output. Host code only.
struct ReduceBuffers {
    size_t n, rows, cols;
    int block;
    DeviceBuffer<float> x, matrix, sum, partials, row_sums, col_sums;
    DeviceBuffer<Stats> stats;
    ReduceBuffers(const std::vector<float>& host_x, int block_size, const std::vector<float>& host_matrix = {},
                  size_t matrix_rows = 0, size_t matrix_cols = 0)
        : n(host_x.size()), rows(matrix_rows), cols(matrix_cols), block(block_size), x(host_x),
          matrix(host_matrix), sum(1), partials(std::max(1u, reduce_blocks(n, block))), row_sums(rows),
          col_sums(cols), stats(std::max(1u, reduce_blocks(n, block))) {}
    // Before a checked run: an output the step forgot to write reads as NaN.
    void poison() {
        sum.poison();
        partials.poison();
        stats.poison();
        row_sums.poison();
        col_sums.poison();
    }
};

// Where a step leaves its result, and so how the host finishes it and what is checked.
enum class Output {
    one_sum,      // *sum (step 1, and the library)
    block_sums,   // one float per block in partials, added by finish_sum (steps 2 and 3)
    block_stats,  // one Stats per block, merged by finish_stats (step 4)
    matrix_sums,  // row_sums, col_sums and *sum, their total (step 5)
};

// A step's result on the host: the total (every output but block_stats) or the summary.
struct HostResult {
    float total = 0;
    Summary summary;
};
// The host's part of a step: copy back what it left and finish. (Step 5's row and column sums
// stay on the device: its answer is the total.)
inline HostResult finish(const ReduceBuffers& b, Output out) {
    const unsigned blocks = reduce_blocks(b.n, b.block);
    HostResult a;
    if (out == Output::block_stats) {
        std::vector<Stats> p = b.stats.download();
        p.resize(blocks);  // n == 0: no partials at all
        a.summary = finish_stats(p);
    } else if (out == Output::block_sums) {
        std::vector<float> p = b.partials.download();
        p.resize(blocks);
        a.total = finish_sum(p);
    } else {
        a.total = b.sum.download()[0];
    }
    return a;
}

// What a step is besides its launcher: where it leaves its result (so how the host finishes it
// and what is checked), and the least FLOP it must do per element it reads: 1 for a sum; 5 for
// the summary (a sum, a sum of squares as one FMA, a min and a max); 2 for the matrix (each
// element joins its row's sum and its column's).
struct ReduceInfo {
    Output output;
    double flop_per_element;
};
// A step's launcher: the step's GPU work alone, asynchronous (what is timed).
using ReduceFn = void (*)(ReduceBuffers& b);
using ReduceStep = Step<ReduceFn, ReduceInfo>;
// The steps, in order: the program, the tests and their summary all read this one list.
inline const ReduceStep kSteps[] = {
    {1, "atomic_each", [](ReduceBuffers& b) { run_atomic_each(b.x.get(), b.n, b.sum.get(), b.block); },
     {Output::one_sum, 1}},
    {2, "block_serial", [](ReduceBuffers& b) { run_block_serial(b.x.get(), b.n, b.partials.get(), b.block); },
     {Output::block_sums, 1}},
    {3, "block_tree", [](ReduceBuffers& b) { run_block_tree(b.x.get(), b.n, b.partials.get(), b.block); },
     {Output::block_sums, 1}},
    {4, "stats", [](ReduceBuffers& b) { run_stats(b.x.get(), b.n, b.stats.get(), b.block); },
     {Output::block_stats, 5}},
    {5, "rows_cols",
     [](ReduceBuffers& b) {
         run_rows_cols(b.matrix.get(), b.rows, b.cols, b.row_sums.get(), b.col_sums.get(), b.sum.get(), b.block);
     },
     {Output::matrix_sums, 2}, "--rows --cols"},
};
