// tiled_matmul.h: the interface of exercise 08, C = A * B in single precision.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Matrices are row-major float32: A is m x k, B is k x n, C is m x n, element (i, j) of C at
// C[i * n + j]. Pointers are device pointers. Each run_* function launches its kernel and returns
// without waiting for it (the caller synchronises). m == 0 or n == 0 is allowed and does
// nothing; k == 0 is allowed and writes zeros (an empty sum). Every dimension is at most
// kMaxDim, so every grid fits the GPU's limits; offsets are computed in size_t, because a
// matrix may hold more than 2^31 elements.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "compare.h"
#include "cpu_threads.h"
#include "steps.h"

constexpr int kMaxDim = 1 << 20;

// ---- Step 1: naive, one thread per element of C --------------------------------------------
// Which index of C threadIdx.x runs along decides whether a warp's loads are coalesced.
enum class NaiveMap {
    x_to_row,  // threadIdx.x -> row i of C (the source material's choice): 32 rows per warp
    x_to_col,  // threadIdx.x -> column j of C: a warp reads 32 neighbouring floats of B
};
void run_naive(NaiveMap map, const float* A, const float* B, float* C, int m, int n, int k);

// ---- Step 2: shared-memory tiles ------------------------------------------------------------
constexpr int kTile = 32;  // a block of kTile x kTile threads computes a kTile x kTile tile of C
void run_tiled(const float* A, const float* B, float* C, int m, int n, int k);

// ---- Step 3: register blocking in 1D ----------------------------------------------------------
// Each thread computes 8 elements of one column of C (64 x 64 tile per block).
void run_register_blocked_1d(const float* A, const float* B, float* C, int m, int n, int k);

// ---- Step 4: register blocking in 2D ----------------------------------------------------------
// Each thread computes an 8 x 8 micro-tile (128 x 128 tile per block, 256 threads), with 16-byte
// loads and stores where alignment allows.
void run_register_blocked_2d(const float* A, const float* B, float* C, int m, int n, int k);

// ---- Step 5 (optional): small matrices, k split into slices -------------------------------------
// Step 4's tile product, with the k-tiles of each tile of C cut into slices, one block each, whose
// partial micro-tiles are added into C. run_split_k_slices makes at most `slices` of them (fewer
// where the k-tiles run out: no slice is empty); run_split_k chooses the number from the waves.
void run_split_k_slices(int slices, const float* A, const float* B, float* C, int m, int n, int k);
void run_split_k(const float* A, const float* B, float* C, int m, int n, int k);

// The library reference is CublasSgemm (common/baselines/cublas_sgemm.h), same contract.

// ---- Predictions: worked out on paper, written in starter.cu, checked by the tests -------------
extern const long long kXRowSectorsA;            // step 1: sectors of one warp's load of A, x->row, 1024^3
extern const long long kXColSectorsB;            // step 1: sectors of one warp's load of B, x->col, 1024^3
extern const double kTiledGlobalBytesPerFma;     // step 2: global bytes requested per FMA, large sizes
extern const double kBlocked1dSharedBytesPerFma; // step 3: shared bytes a thread reads per FMA
extern const double kBlocked2dSharedBytesPerFma; // step 4: shared bytes a thread reads per FMA
extern const long long kSlices1024;              // step 5: the fewest slices that fill the waves, 1024^3
extern const long long kSlices1536;              // step 5: the same at 1536^3

// ---- The steps, in order: the program, the tests and their summary all read this list --------
// A step's kernels, as the tables name them: step 1 has two (its two mappings), the others one.
using MatmulFn = void (*)(const float* A, const float* B, float* C, int m, int n, int k);
struct Kernel {
    const char* label;  // "naive, x->row"
    MatmulFn run;
};
struct Kernels {
    Kernel list[2];  // a step with one kernel leaves the second empty
    const Kernel* begin() const { return list; }
    const Kernel* end() const { return list + (list[1].run ? 2 : 1); }
};
inline void run_naive_x_to_row(const float* A, const float* B, float* C, int m, int n, int k) {
    run_naive(NaiveMap::x_to_row, A, B, C, m, n, k);
}
inline void run_naive_x_to_col(const float* A, const float* B, float* C, int m, int n, int k) {
    run_naive(NaiveMap::x_to_col, A, B, C, m, n, k);
}
inline const Step<Kernels> kSteps[] = {
    {1, "naive", {{{"naive, x->row", run_naive_x_to_row}, {"naive, x->col", run_naive_x_to_col}}}},
    {2, "tiled", {{{"tiled", run_tiled}}}},
    {3, "register_blocked_1d", {{{"register_blocked 1D", run_register_blocked_1d}}}},
    {4, "register_blocked_2d", {{{"register_blocked 2D", run_register_blocked_2d}}}},
    {5, "split_k", {{{"split-K by waves", run_split_k}}}},  // optional: the exercise is complete at step 4
};

// ---- CPU reference ---------------------------------------------------------------------------
// C = A * B in double precision (the products of floats are exact in double, the sums nearly
// so). Rows are shared out among CPU threads: a 2048^3 product is 8.6 G multiply-adds.
inline std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& B,
                                            int m, int n, int k) {
    std::vector<double> C((size_t)m * n, 0.0);
    auto rows = [&](int first, int last) {
        std::vector<double> acc(n);
        for (int i = first; i < last; ++i) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int p = 0; p < k; ++p) {
                const double a = A[(size_t)i * k + p];
                const float* b = &B[(size_t)p * n];
                for (int j = 0; j < n; ++j) acc[j] += a * b[j];
            }
            std::copy(acc.begin(), acc.end(), C.begin() + (size_t)i * n);
        }
    };
    for_row_ranges(m, (double)m * n * k, rows);
    return C;
}

// The largest |x| in a matrix (for the tolerance below).
inline double max_abs(const std::vector<float>& x) {
    double m = 0;
    for (float v : x) m = std::max(m, (double)std::fabs(v));
    return m;
}

// Tolerance of a float dot product of length k: each element of C is a sum of k products, each
// at most max|A| * max|B|, so sum_k |a_ik * b_kj| <= k * max|A| * max|B|, and the rounding
// error of such a sum in any order stays within float_sum_tolerance (compare.h):
//     |c - c_ref| <= 4 * sqrt(k + 1) * 2^-24 * k * max|A| * max|B|
// For inputs in [-1, 1) and k = 1024 that is 0.0078, while leaving out a single product (or
// reading a wrong one) moves an element by about 0.25 on average.
inline Tolerance matmul_tolerance(int k, double max_abs_a, double max_abs_b) {
    return float_sum_tolerance((size_t)k, (double)k * max_abs_a * max_abs_b);
}
