// 08_tiled_matmul/tests.cpp: one group of test cases per step, named "step N kernel: ...".
//
// Every product is checked element by element against the CPU product in double precision,
// within matmul_tolerance (tiled_matmul.h): |c - c_ref| <= 4 sqrt(k+1) 2^-24 k max|A| max|B|,
// the rounding a float sum of k terms may pick up. Small integer inputs must match exactly.
// Step 5 adds its slices' partial sums into C with atomics, in whatever order they land: its
// last bits may change from run to run. Each element is still a float sum of the same k products,
// only in another order, and the tolerance holds for any order; with small integers every partial
// sum is an integer below 2^24, exact in float in any order, so those still match exactly.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cublas_sgemm.h"
#include "testing.h"
#include "tiled_matmul.h"

namespace {

struct Shape {
    int m, n, k;
};

// The shapes the exercise names: one element, an outer product (k = 1), a matrix times a
// vector (n = 1), and odd shapes that fit no tile.
const Shape kEdgeShapes[] = {{1, 1, 1}, {1, 1000, 1}, {1000, 1, 1000}, {67, 129, 33}, {257, 1, 513}};
// Multiples of every tile in this exercise (32, 64, 128; 8 and 32 along k), and near misses.
const Shape kTileShapes[] = {{32, 32, 32},   {64, 64, 64},    {128, 128, 128}, {256, 256, 256},
                             {128, 256, 64}, {256, 128, 8},   {31, 31, 31},    {33, 33, 33},
                             {63, 65, 17},   {127, 129, 130}, {129, 127, 9},   {255, 257, 40},
                             {96, 160, 40},  {1, 128, 128},   {128, 1, 128},   {128, 128, 1},
                             {200, 7, 300},  {130, 260, 36}};

// Deep products of few tiles, where splitting k pays: k-tiles (16 deep) that share out unevenly
// among slices, a last k-tile that is partial, rows and columns that fit no tile.
const Shape kDeepShapes[] = {{200, 300, 1000}, {129, 257, 1023}, {64, 64, 4097},
                             {1, 1, 5000},     {257, 3, 2001},   {1000, 1000, 17}};

// Device copies of A and B, a poisoned C, one run, and the result on the host.
std::vector<float> gpu_product(MatmulFn run, const std::vector<float>& A, const std::vector<float>& B, int m, int n,
                               int k) {
    DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)m * n);
    d_C.poison();
    run(d_A.get(), d_B.get(), d_C.get(), m, n, k);
    CUDA_CHECK(cudaDeviceSynchronize());
    return d_C.download();
}

// Random A and B in [-1, 1), checked against the CPU product within the tolerance.
void expect_product(const Kernel& kernel, Shape s, uint64_t seed) {
    INFO(kernel.label << ": m = " << s.m << ", n = " << s.n << ", k = " << s.k);
    std::vector<float> A = random_floats((size_t)s.m * s.k, seed, -1.0f, 1.0f);
    std::vector<float> B = random_floats((size_t)s.k * s.n, seed + 77, -1.0f, 1.0f);
    std::vector<double> ref = matmul_reference(A, B, s.m, s.n, s.k);
    const Tolerance tol = matmul_tolerance(s.k, max_abs(A), max_abs(B));
    CHECK_MATCH(compare(gpu_product(kernel.run, A, B, s.m, s.n, s.k), ref, tol));
}

template <size_t N>
void expect_shapes(const Kernels& kernels, const Shape (&shapes)[N], uint64_t first_seed) {
    for (const Kernel& kernel : kernels) {
        uint64_t seed = first_seed;
        for (Shape s : shapes) expect_product(kernel, s, seed++);
    }
}

std::vector<float> small_ints(size_t n, uint64_t seed) {
    std::vector<int> v = random_ints(n, seed, -4, 4);
    return std::vector<float>(v.begin(), v.end());
}

// Integers in [-4, 4]: every product and partial sum (at most 16 * 300) is an integer below
// 2^24, exact in float, so the result must equal the reference exactly, in any order of sums.
void expect_exact_integers(const Kernels& kernels) {
    const int m = 100, n = 200, k = 300;
    std::vector<float> A = small_ints((size_t)m * k, 5), B = small_ints((size_t)k * n, 6);
    std::vector<double> ref = matmul_reference(A, B, m, n, k);
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        CHECK_MATCH(compare(gpu_product(kernel.run, A, B, m, n, k), ref, Tolerance{0.0, 0.0}));
    }
}

// k = 0 is an empty sum: C must be all zeros (it starts as NaN). m = 0 or n = 0 is an empty C:
// the launcher must not launch an empty grid (a launch error, caught by CUDA_CHECK_LAUNCH).
void expect_empty_cases(const Kernels& kernels) {
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        std::vector<float> none;
        std::vector<double> zeros((size_t)37 * 45, 0.0);
        CHECK_MATCH(compare(gpu_product(kernel.run, none, none, 37, 45, 0), zeros, Tolerance{0.0, 0.0}));
        std::vector<float> A = random_floats(5 * 3, 1), B = random_floats(3 * 5, 2);
        CHECK(gpu_product(kernel.run, std::vector<float>(), B, 0, 5, 3).empty());
        CHECK(gpu_product(kernel.run, A, std::vector<float>(), 5, 0, 3).empty());
        CHECK(gpu_product(kernel.run, none, none, 0, 0, 0).empty());
    }
}

// Operands 4 bytes past an allocation's start: sizes that are multiples of 4, but no row is
// 16-byte aligned, so a kernel that uses float4 only because the sizes allow it would fault.
void expect_misaligned(const Kernels& kernels, Shape s = {130, 132, 68}) {
    const int m = s.m, n = s.n, k = s.k;
    std::vector<float> A = random_floats((size_t)m * k, 11), B = random_floats((size_t)k * n, 12);
    std::vector<double> ref = matmul_reference(A, B, m, n, k);
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        DeviceBuffer<float> d_A((size_t)m * k + 1), d_B((size_t)k * n + 1), d_C((size_t)m * n + 1);
        CUDA_CHECK(cudaMemcpy(d_A.get() + 1, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_B.get() + 1, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
        d_C.poison();
        kernel.run(d_A.get() + 1, d_B.get() + 1, d_C.get() + 1, m, n, k);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> C = d_C.download();
        CHECK(std::isnan(C[0]));  // the float before C is not C's
        CHECK_MATCH(compare(C.data() + 1, ref.data(), ref.size(), matmul_tolerance(k, max_abs(A), max_abs(B))));
    }
}

// ---- 1024^3 against the CPU and against cuBLAS ------------------------------------------------
struct Big {
    static constexpr int s = 1024;
    std::vector<float> A = random_floats((size_t)s * s, 2024, -1.0f, 1.0f);
    std::vector<float> B = random_floats((size_t)s * s, 2025, -1.0f, 1.0f);
    std::vector<double> ref = matmul_reference(A, B, s, s, s);
    Tolerance tol = matmul_tolerance(s, max_abs(A), max_abs(B));
    std::vector<float> cublas_result() const {
        DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)s * s);
        d_C.poison();
        CublasSgemm cublas;
        cublas.run(d_A.get(), d_B.get(), d_C.get(), s, s, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        return d_C.download();
    }
};
const Big& big() {
    static const Big b;  // built once: the CPU product of 1024^3 takes a moment
    return b;
}

void expect_big(const Kernels& kernels) {
    const Big& b = big();
    const std::vector<float> cublas = b.cublas_result();
    Tolerance twice = b.tol;
    twice.atol *= 2;  // both sides round, each within tol of the exact product
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        std::vector<float> C = gpu_product(kernel.run, b.A, b.B, b.s, b.s, b.s);
        CHECK_MATCH(compare(C, b.ref, b.tol));
        CHECK_MATCH(compare(C, cublas, twice));
    }
}

// ---- Matrices of more than 2^31 elements ------------------------------------------------------
// Offsets such as i * k in int wrap around past 2^31 and read or write the wrong place. Three
// products, each with one operand of 2^31 + 3 * 2^15 + 1 elements (8.6 GB):
//   C big: m = 2^16 + 1, n = 2^15 + 1, k = 1  (C[i][j] = a_i * b_j, exact in float);
//   A big: m = 2^16 + 1, n = 1, k = 2^15 + 1;
//   B big: m = 1, n = 2^15 + 1, k = 2^16 + 1.
// Inputs are small integers, so every result is exact. Of the big C, the first rows and the
// last ones (those past element 2^31, where wrong offsets land) are checked, not all 8.6 GB.
constexpr int kHugeRows = (1 << 16) + 1, kHugeCols = (1 << 15) + 1;

// Integers in [-2, 2] from a hash of the index, on all cores (2^31 of them).
std::vector<float> hashed_ints(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    const uint64_t s = splitmix64(seed);
    on_all_cores(n, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i)
            v[i] = (float)((int)(splitmix64(s ^ (i * 0xD1B54A32D192ED03ull)) % 5) - 2);
    });
    return v;
}

// The same 2^31 + 3 * 2^15 + 1 elements as kDeepRows x kDeepK (3641 x 589833): a product of few
// tiles and a long k, which a split along k cuts into slices, with offsets past 2^31 in every one.
constexpr int kDeepRows = kHugeCols / 9, kDeepK = kHugeRows * 9;
static_assert((size_t)kDeepRows * kDeepK == (size_t)kHugeRows * kHugeCols, "the same buffer");

struct Huge {
    bool fits = false;
    std::vector<float> a_col, b_row;  // C big: the k = 1 column of A and row of B
    std::vector<float> x_vec, y_vec;  // A big: B is a k-vector; B big: A is a k-vector
    std::vector<float> x_deep, y_deep;  // the same, for the deep views of A big and B big
    DeviceBuffer<float> d_a_col, d_b_row, d_big_a, d_big_b, d_x, d_y, d_x_deep, d_y_deep, d_big_c;
    std::vector<double> ref_a, ref_b;  // results of the A-big and B-big products
    std::vector<double> ref_a_deep, ref_b_deep;  // and of their deep views
    Huge() {
        const size_t big = (size_t)kHugeRows * kHugeCols;
        if (3.0 * big * sizeof(float) > 0.9 * (double)free_gpu_bytes()) return;
        fits = true;
        a_col = hashed_ints(kHugeRows, 1);
        b_row = hashed_ints(kHugeCols, 2);
        d_a_col = DeviceBuffer<float>(a_col);
        d_b_row = DeviceBuffer<float>(b_row);
        d_big_c = DeviceBuffer<float>(big);
        {
            std::vector<float> A = hashed_ints(big, 3);  // kHugeRows x kHugeCols, or kDeepRows x kDeepK
            x_vec = hashed_ints(kHugeCols, 4);
            ref_a = matmul_reference(A, x_vec, kHugeRows, 1, kHugeCols);
            x_deep = hashed_ints(kDeepK, 7);
            ref_a_deep = matmul_reference(A, x_deep, kDeepRows, 1, kDeepK);
            d_big_a = DeviceBuffer<float>(A);
        }
        {
            std::vector<float> B = hashed_ints(big, 5);  // k x n: kHugeRows x kHugeCols, or kDeepK x kDeepRows
            y_vec = hashed_ints(kHugeRows, 6);
            ref_b = matmul_reference(y_vec, B, 1, kHugeCols, kHugeRows);
            y_deep = hashed_ints(kDeepK, 8);
            ref_b_deep = matmul_reference(y_deep, B, 1, kDeepRows, kDeepK);
            d_big_b = DeviceBuffer<float>(B);
        }
        d_x = DeviceBuffer<float>(x_vec);
        d_y = DeviceBuffer<float>(y_vec);
        d_x_deep = DeviceBuffer<float>(x_deep);
        d_y_deep = DeviceBuffer<float>(y_deep);
    }
};
Huge& huge() {
    static Huge h;  // 26 GB of GPU memory, built once for every step
    return h;
}

// A product whose result is a vector (m or n is 1), with a poisoned C, every element exactly.
void expect_exact_vector(const Kernel& kernel, const float* A, const float* B, int m, int n, int k,
                         const std::vector<double>& ref) {
    DeviceBuffer<float> d_c((size_t)m * n);
    d_c.poison();
    kernel.run(A, B, d_c.get(), m, n, k);
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK_MATCH(compare(d_c.download(), ref, Tolerance{0.0, 0.0}));
}

void expect_huge(const Kernels& kernels) {
    Huge& h = huge();
    if (!h.fits) SKIP_CASE("this GPU has too little free memory for 3 x 8.6 GB");
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        // C big: compare the first 4 rows and the last 4, element by element, exactly.
        h.d_big_c.poison();
        kernel.run(h.d_a_col.get(), h.d_b_row.get(), h.d_big_c.get(), kHugeRows, kHugeCols, 1);
        CUDA_CHECK(cudaDeviceSynchronize());
        size_t bad = 0, first_bad = 0;
        for (int first_row : {0, kHugeRows - 4}) {
            std::vector<float> rows((size_t)4 * kHugeCols);
            CUDA_CHECK(cudaMemcpy(rows.data(), h.d_big_c.get() + (size_t)first_row * kHugeCols,
                                  rows.size() * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t e = 0; e < rows.size(); ++e) {
                const size_t i = first_row + e / kHugeCols, j = e % kHugeCols;
                if (!(rows[e] == h.a_col[i] * h.b_row[j]) && bad++ == 0) first_bad = i * kHugeCols + j;
            }
        }
        INFO("C big: first wrong element at offset " << first_bad);
        CHECK(bad == 0);
        // A big and B big: every element of the (small) result, exactly.
        expect_exact_vector(kernel, h.d_big_a.get(), h.d_x.get(), kHugeRows, 1, kHugeCols, h.ref_a);
        expect_exact_vector(kernel, h.d_y.get(), h.d_big_b.get(), 1, kHugeCols, kHugeRows, h.ref_b);
    }
}

// A big and B big as deep products (m or n = kDeepRows, k = kDeepK), every element exactly: few
// tiles and a long k, so a step that splits k does, with offsets past 2^31 in its slices.
void expect_huge_deep(const Kernels& kernels) {
    Huge& h = huge();
    if (!h.fits) SKIP_CASE("this GPU has too little free memory for 3 x 8.6 GB");
    for (const Kernel& kernel : kernels) {
        INFO(kernel.label);
        expect_exact_vector(kernel, h.d_big_a.get(), h.d_x_deep.get(), kDeepRows, 1, kDeepK, h.ref_a_deep);
        expect_exact_vector(kernel, h.d_y_deep.get(), h.d_big_b.get(), 1, kDeepRows, kDeepK, h.ref_b_deep);
    }
}

}  // namespace

DECLARE_STEPS(kSteps);

// ---- every step (each of its kernels) -------------------------------------------------------
STEP_CASES(kSteps, "shapes 1x1x1, 1x1000x1, 1000x1x1000, 67x129x33, 257x1x513",
           [](const auto& step) { expect_shapes(step.run, kEdgeShapes, 1); });
STEP_CASES(kSteps, "multiples and non-multiples of the tiles (partial tiles)",
           [](const auto& step) { expect_shapes(step.run, kTileShapes, 100); });
STEP_CASES(kSteps, "small integers give the exact product", [](const auto& step) { expect_exact_integers(step.run); });
STEP_CASES(kSteps, "k = 0 writes zeros, m = 0 or n = 0 does nothing",
           [](const auto& step) { expect_empty_cases(step.run); });
STEP_CASES(kSteps, "operands that are not 16-byte aligned", [](const auto& step) { expect_misaligned(step.run); });
STEP_CASES(kSteps, "1024x1024x1024 against the CPU and cuBLAS (large)", [](const auto& step) { expect_big(step.run); });
STEP_CASES(kSteps, "operands of more than 2^31 elements, size_t offsets (large)",
           [](const auto& step) { expect_huge(step.run); });

// ---- step 5: k split into slices ----------------------------------------------------------------
// The cases above run split-K as its rule chooses; with these shapes, which have many k-tiles for
// few tiles of C, a rule that splits where it pays does.
STEP_CASE(kSteps, "split_k", "deep products of few tiles: uneven slices, partial k-tiles, odd shapes") {
    expect_shapes(step.run, kDeepShapes, 300);
    expect_misaligned(step.run, {130, 132, 1000});
}
// Fixed numbers of slices, whatever the rule would choose: slices of uneven length, and more
// slices asked for than there are k-tiles.
template <int Slices>
void split_k_with(const float* A, const float* B, float* C, int m, int n, int k) {
    run_split_k_slices(Slices, A, B, C, m, n, k);
}
STEP_CASE(kSteps, "split_k", "2, 3, 7, 32 and 1000 slices: deep and edge shapes, integers exact, k = 0") {
    std::vector<Kernel> fixed = {{"3 slices", split_k_with<3>}, {"1000 slices", split_k_with<1000>}};
    if (!under_sanitizer())
        fixed.insert(fixed.end(), {{"2 slices", split_k_with<2>}, {"7 slices", split_k_with<7>},
                                   {"32 slices", split_k_with<32>}});
    for (const Kernel& kernel : fixed) {
        const Kernels one = {{kernel, Kernel{}}};
        expect_shapes(one, kDeepShapes, 400);
        expect_shapes(one, kEdgeShapes, 500);
        expect_exact_integers(one);
        expect_empty_cases(one);
        expect_misaligned(one, {130, 132, 1000});
    }
}
STEP_CASE(kSteps, "split_k", "deep products with operands of more than 2^31 elements (large)") {
    expect_huge_deep(step.run);
}

// ---- the library reference --------------------------------------------------------------------
TEST_CASE("cuBLAS: row-major through the transpose identity, 67x129x33 and 1024^3 (large)" * needs_gpu()) {
    std::vector<float> A = random_floats(67 * 33, 1), B = random_floats(33 * 129, 2);
    CHECK_MATCH(compare(gpu_product([](const float* a, const float* b, float* c, int m, int n, int k) {
                            CublasSgemm cublas;
                            cublas.run(a, b, c, m, n, k);
                        }, A, B, 67, 129, 33),
                        matmul_reference(A, B, 67, 129, 33), matmul_tolerance(33, max_abs(A), max_abs(B))));
    CHECK_MATCH(compare(big().cublas_result(), big().ref, big().tol));
}

// ---- the predictions (on the CPU; answers.cpp derives each answer) ---------------------------
STEP_HOST_CASE(kSteps, "naive", "predictions kXRowSectorsA and kXColSectorsB (1024^3)") {
    check_prediction("kXRowSectorsA", kXRowSectorsA, "the 32 lanes read A[i][p] for 32 different rows i: how far apart are they?");
    check_prediction("kXColSectorsB", kXColSectorsB,
                     "the 32 lanes read B[p][j] for 32 neighbouring columns j: how many bytes is that?");
}
STEP_HOST_CASE(kSteps, "tiled", "prediction kTiledGlobalBytesPerFma") {
    check_prediction("kTiledGlobalBytesPerFma", kTiledGlobalBytesPerFma,
                     "per step along k, how many floats does the block load, and how many FMAs does it do?");
}
STEP_HOST_CASE(kSteps, "register_blocked_1d", "prediction kBlocked1dSharedBytesPerFma") {
    check_prediction("kBlocked1dSharedBytesPerFma", kBlocked1dSharedBytesPerFma,
                     "per step p, which shared values does a thread read, and how many FMAs use them?");
}
STEP_HOST_CASE(kSteps, "register_blocked_2d", "prediction kBlocked2dSharedBytesPerFma") {
    check_prediction("kBlocked2dSharedBytesPerFma", kBlocked2dSharedBytesPerFma,
                     "per step p, a thread reads a column piece of A and a row piece of B: how many FMAs use them?");
}
STEP_HOST_CASE(kSteps, "split_k", "predictions kSlices1024 and kSlices1536 (132 SMs, 2 blocks per SM)") {
    check_prediction("kSlices1024", kSlices1024,
                     "how many tiles has C at 1024^3, how many blocks run at once, and what share of "
                     "those slots does each number of slices keep busy?");
    check_prediction("kSlices1536", kSlices1536,
                     "count the waves each number of slices needs, rounded up: a grid just past one "
                     "wave leaves the second one nearly empty");
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the CPU reference multiplies a 2x3 by a 3x2") {
    // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]
    std::vector<float> A = {1, 2, 3, 4, 5, 6}, B = {7, 8, 9, 10, 11, 12};
    CHECK(matmul_reference(A, B, 2, 2, 3) == std::vector<double>{58, 64, 139, 154});
    CHECK(matmul_reference(A, B, 2, 2, 0) == std::vector<double>{0, 0, 0, 0});  // k = 0: empty sums
}

TEST_CASE("host: the threaded CPU reference equals a plain triple loop") {
    const int m = 301, n = 203, k = 250;  // enough work to use every core
    std::vector<float> A = random_floats((size_t)m * k, 3), B = random_floats((size_t)k * n, 4);
    std::vector<double> got = matmul_reference(A, B, m, n, k);
    size_t bad = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int p = 0; p < k; ++p) s += (double)A[(size_t)i * k + p] * B[(size_t)p * n + j];
            if (std::fabs(s - got[(size_t)i * n + j]) > 1e-12) ++bad;
        }
    CHECK(bad == 0);
}

TEST_CASE("host: the tolerance grows with k and the magnitudes, and is exact for k = 0") {
    CHECK(matmul_tolerance(100, 1, 1).atol < matmul_tolerance(1000, 1, 1).atol);
    CHECK(matmul_tolerance(100, 1, 1).atol < matmul_tolerance(100, 2, 1).atol);
    CHECK(matmul_tolerance(0, 1, 1).atol < 1e-20);
    // Leaving out one product of average size 0.25 must fail at k = 1024 and inputs in [-1, 1).
    CHECK(matmul_tolerance(1024, 1, 1).atol < 0.01);
}
