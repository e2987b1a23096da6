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
#include <vector>
#include <cuda_runtime.h>

#include "compare.h"
#include "cuda_check.h"

// Every kernel here works for any block size from 1 to this (the hardware limit since 2010).
constexpr int kMaxBlock = 1024;

// ---- The grid ---------------------------------------------------------------------------------
// The kernels use grid-stride loops, so the grid need not grow with n: one "wave" of blocks,
// enough threads to fill every SM once, covers any n. (Blocks of fewer than 64 threads hit the
// limit of resident blocks per SM first, 32 on Hopper, so they take several waves: the grid
// stays bounded all the same.) This is also the number of partial results steps 2 to 4 write
// (fewer when n is small: every block gets at least one element).
inline unsigned wave_blocks(int block_size) {
    static int sm_count = 0, threads_per_sm = 0;  // one device per program here: ask once
    if (sm_count == 0) {
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    }
    return (unsigned)sm_count * (unsigned)std::max(1, threads_per_sm / block_size);
}

inline unsigned reduce_blocks(size_t n, int block_size) {
    const size_t needed = (n + block_size - 1) / block_size;
    return (unsigned)std::min<size_t>(needed, wave_blocks(block_size));
}

// ---- Step 1: atomic_each ----------------------------------------------------------------------
// Every thread atomicAdds each of its elements into *sum (zeroed first; 0 for n == 0).
void run_atomic_each(const float* x, size_t n, float* sum, int block_size);

// ---- Step 2: block_serial ---------------------------------------------------------------------
// reduce_blocks(n, block_size) blocks; each thread sums its grid-stride elements, the block
// puts those sums in shared memory, and thread 0 adds them one after another into
// partials[blockIdx.x].
void run_block_serial(const float* x, size_t n, float* partials, int block_size);

// ---- Step 3: block_tree -----------------------------------------------------------------------
// The same partials as step 2, but the block combines its values in ceil(log2(blockDim)) steps.
void run_block_tree(const float* x, size_t n, float* partials, int block_size);

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
// library.cu: the reference, cub::DeviceReduce::Sum. Ask for the scratch size once, allocate
// it, then run as often as needed.
size_t cub_sum_temp_bytes(size_t n);
void run_cub_sum(const float* x, size_t n, float* sum, void* temp, size_t temp_bytes);

// barrier_demo.cu: the source material's broken tree, __syncthreads() inside the if (see the
// README). One block per block_size elements (a power of two); writes each block's total to
// partials and, for every element, the total as its thread saw it to seen. Undefined
// behaviour: it may hang or give wrong results. Never used by the tests.
void run_barrier_in_if(const float* x, size_t n, float* partials, float* seen, int block_size);
inline unsigned barrier_demo_blocks(size_t n, int block_size) {
    return (unsigned)((n + block_size - 1) / block_size);
}

// ---- Inputs -----------------------------------------------------------------------------------
enum class Values { mixed, positive, negative, ones, large };
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
struct SumReference {
    double sum = 0;      // the exact-enough sum
    double sum_abs = 0;  // sum of |x|: what the rounding errors of a float sum scale with
};
inline SumReference sum_reference(const float* x, size_t n) {
    SumReference r;
    for (size_t i = 0; i < n; ++i) {
        r.sum += x[i];
        r.sum_abs += std::fabs((double)x[i]);
    }
    return r;
}
inline SumReference sum_reference(const std::vector<float>& x) { return sum_reference(x.data(), x.size()); }

// The tolerance of every float sum here: compare.h's float_sum_tolerance,
// |got - sum| <= 4 * 2^-24 * sqrt(n + 1) * sum|x|. It assumes rounding errors that behave like
// independent noise; a serial float sum of many same-sign values breaks that (see step 1).
inline Tolerance sum_tolerance(size_t n, const SumReference& r) { return float_sum_tolerance(n, r.sum_abs); }

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

// Row sums, column sums and total of a rows x cols row-major matrix, with the sums of |x| each
// tolerance needs.
struct RowsColsReference {
    std::vector<double> row_sums, row_abs, col_sums, col_abs;
    SumReference total;
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
