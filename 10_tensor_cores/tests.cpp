// 10_tensor_cores/tests.cpp: one group of test cases per step, named "step N name: ...".
//
// Every product is checked element by element against the CPU product of the same BF16 inputs
// in double precision, within bf16_matmul_tolerance (tensor_cores.h): the rounding an FP32 sum of
// k exact BF16 products may pick up on the tensor cores. Small integer inputs must match exactly
// (every product and partial sum is a whole number below 2^24, exact in FP32 however it is
// rounded). A step the GPU cannot run (BF16 tensor cores before 8.0, wgmma outside 9.x) is
// skipped with the reason.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cublas_gemm_bf16.h"
#include "tensor_cores.h"
#include "testing.h"

namespace {

using TcStep = Step<MatmulFn, StepInfo>;

// Ends the case, as skipped with the reason, when this GPU cannot run the step.
#define SKIP_IF_UNSUPPORTED(step)                                                           \
    do {                                                                                    \
        const std::string why_ = unsupported_reason((step).info.needs, device_facts());     \
        if (!why_.empty()) SKIP_CASE(why_);                                                 \
    } while (0)

// The launchers a step's cases check: its own, and the variant of the same TODO if it has one.
std::vector<Variant> launchers(const TcStep& s) {
    std::vector<Variant> v = {{s.info.label, s.run}};
    if (s.info.variant.run) v.push_back(s.info.variant);
    return v;
}

struct Shape {
    int m, n, k;
};

// The awkward sizes: one element, 15 and 17 (one short of and one past a fragment), 127,
// 4097 (one past a power of two) along each dimension, k not a multiple of 16 (and not of 8),
// k = 1, and vectors (m = 1 or n = 1).
const Shape kAwkwardShapes[] = {{1, 1, 1},       {15, 15, 15},   {17, 17, 17},  {127, 127, 127}, {4097, 1, 17},
                                {1, 4097, 33},   {15, 17, 4097}, {127, 129, 24}, {200, 300, 1},  {33, 65, 40},
                                {129, 257, 72},  {300, 7, 250},  {7, 300, 100}};
// Multiples of every tile in this exercise (16, 32, 64 along k; 128 and 256 along m and n) and
// near misses.
const Shape kTileShapes[] = {{16, 16, 16},    {32, 64, 32},    {128, 128, 64},  {128, 256, 64},  {256, 256, 128},
                             {256, 512, 256}, {384, 512, 192}, {255, 257, 65},  {129, 255, 63},  {257, 129, 127},
                             {130, 260, 1000}};

// Device copies of A and Bt, a poisoned C, one run, and the result on the host.
std::vector<float> gpu_product(MatmulFn run, const std::vector<bf16>& A, const std::vector<bf16>& Bt, int m, int n,
                               int k) {
    DeviceBuffer<bf16> d_A(A), d_Bt(Bt);
    DeviceBuffer<float> d_C((size_t)m * n);
    d_C.poison();
    run(d_A.get(), d_Bt.get(), d_C.get(), m, n, k);
    CUDA_CHECK(cudaDeviceSynchronize());
    return d_C.download();
}

// Random A and Bt in [-1, 1), rounded to BF16, against the CPU product of the rounded values.
void expect_product(const Variant& launcher, Shape s, uint64_t seed) {
    INFO(launcher.label << ": m = " << s.m << ", n = " << s.n << ", k = " << s.k);
    const std::vector<bf16> A = to_bf16(random_floats((size_t)s.m * s.k, seed, -1.0f, 1.0f));
    const std::vector<bf16> Bt = to_bf16(random_floats((size_t)s.n * s.k, seed + 77, -1.0f, 1.0f));
    const std::vector<double> ref = matmul_reference(to_float(A), to_float(Bt), s.m, s.n, s.k);
    const Tolerance tol = bf16_matmul_tolerance(s.k, max_abs(A), max_abs(Bt));
    CHECK_MATCH(compare(gpu_product(launcher.run, A, Bt, s.m, s.n, s.k), ref, tol));
}

template <size_t N>
void expect_shapes(const TcStep& step, const Shape (&shapes)[N], uint64_t first_seed) {
    for (const Variant& v : launchers(step)) {
        uint64_t seed = first_seed;
        for (Shape s : shapes) expect_product(v, s, seed++);
    }
}

std::vector<bf16> small_ints(size_t n, uint64_t seed) {
    const std::vector<int> v = random_ints(n, seed, -4, 4);
    return to_bf16(std::vector<float>(v.begin(), v.end()));
}

// Integers in [-4, 4] are exact in BF16, their products (at most 16) and every partial sum (at
// most 16 * 4097 < 2^24) are whole numbers exact in FP32: the result must equal the reference
// exactly, whatever the order of the sums and however the tensor cores round.
void expect_exact_integers(const std::vector<Variant>& runs) {
    for (Shape s : {Shape{100, 200, 300}, Shape{33, 140, 4097}}) {
        const std::vector<bf16> A = small_ints((size_t)s.m * s.k, 5), Bt = small_ints((size_t)s.n * s.k, 6);
        const std::vector<double> ref = matmul_reference(to_float(A), to_float(Bt), s.m, s.n, s.k);
        for (const Variant& v : runs) {
            INFO(v.label << ": m = " << s.m << ", n = " << s.n << ", k = " << s.k);
            CHECK_MATCH(compare(gpu_product(v.run, A, Bt, s.m, s.n, s.k), ref, Tolerance{0.0, 0.0}));
        }
    }
}

// k = 0 is an empty sum: C must be all zeros (it starts as NaN). m = 0 or n = 0 is an empty C:
// the launcher must not launch an empty grid (a launch error, caught by CUDA_CHECK_LAUNCH).
void expect_empty_cases(const std::vector<Variant>& runs) {
    for (const Variant& v : runs) {
        INFO(v.label);
        const std::vector<bf16> none;
        const std::vector<double> zeros((size_t)37 * 45, 0.0);
        CHECK_MATCH(compare(gpu_product(v.run, none, none, 37, 45, 0), zeros, Tolerance{0.0, 0.0}));
        const std::vector<bf16> A = small_ints(5 * 3, 1), Bt = small_ints(5 * 3, 2);
        CHECK(gpu_product(v.run, none, Bt, 0, 5, 3).empty());
        CHECK(gpu_product(v.run, A, none, 5, 0, 3).empty());
        CHECK(gpu_product(v.run, none, none, 0, 0, 0).empty());
    }
}

// Operands one element past an allocation's start: sizes that are multiples of 8 (so 16-byte
// rows), but no row is 16-byte aligned, so a kernel that uses 16-byte accesses only because
// the sizes allow it would fault or read the wrong elements.
void expect_misaligned(const std::vector<Variant>& runs, Shape s = {136, 264, 72}) {
    const int m = s.m, n = s.n, k = s.k;
    const std::vector<bf16> A = to_bf16(random_floats((size_t)m * k, 11)), Bt = to_bf16(random_floats((size_t)n * k, 12));
    const std::vector<double> ref = matmul_reference(to_float(A), to_float(Bt), m, n, k);
    for (const Variant& v : runs) {
        INFO(v.label << ": m = " << m << ", n = " << n << ", k = " << k);
        DeviceBuffer<bf16> d_A((size_t)m * k + 1), d_Bt((size_t)n * k + 1);
        DeviceBuffer<float> d_C((size_t)m * n + 1);
        CUDA_CHECK(cudaMemcpy(d_A.get() + 1, A.data(), A.size() * sizeof(bf16), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_Bt.get() + 1, Bt.data(), Bt.size() * sizeof(bf16), cudaMemcpyHostToDevice));
        d_C.poison();
        v.run(d_A.get() + 1, d_Bt.get() + 1, d_C.get() + 1, m, n, k);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> C = d_C.download();
        CHECK(std::isnan(C[0]));  // the float before C is not C's
        CHECK_MATCH(compare(C.data() + 1, ref.data(), ref.size(), bf16_matmul_tolerance(k, max_abs(A), max_abs(Bt))));
    }
}

// ---- 1024^3 against the CPU and against cuBLAS ------------------------------------------------
struct Big {
    static constexpr int s = 1024;
    std::vector<bf16> A = to_bf16(random_floats((size_t)s * s, 2024, -1.0f, 1.0f));
    std::vector<bf16> Bt = to_bf16(random_floats((size_t)s * s, 2025, -1.0f, 1.0f));
    std::vector<double> ref = matmul_reference(to_float(A), to_float(Bt), s, s, s);
    Tolerance tol = bf16_matmul_tolerance(s, max_abs(A), max_abs(Bt));
    std::vector<float> cublas_result() const {
        return gpu_product([](const bf16* a, const bf16* bt, float* c, int m, int n, int k) {
            CublasGemmBf16 lib;
            lib.run(a, bt, c, m, n, k);
            CUDA_CHECK(cudaDeviceSynchronize());
        }, A, Bt, s, s, s);
    }
};
const Big& big() {
    static const Big b;  // built once: the CPU product of 1024^3 takes a moment
    return b;
}

void expect_big(const TcStep& step) {
    const Big& b = big();
    const std::vector<float> cublas = b.cublas_result();
    Tolerance twice = b.tol;
    twice.atol *= 2;  // both sides round, each within tol of the exact product
    for (const Variant& v : launchers(step)) {
        INFO(v.label);
        const std::vector<float> C = gpu_product(v.run, b.A, b.Bt, b.s, b.s, b.s);
        CHECK_MATCH(compare(C, b.ref, b.tol));
        CHECK_MATCH(compare(C, cublas, twice));
    }
}

// ---- More than 2^31 elements ----------------------------------------------------------------
// Offsets such as i * n in int wrap around past 2^31 and read or write the wrong place. Three
// products, each with one matrix of more than 2^31 elements:
//   C big:  m = 2^16 + 1, n = 2^15 + 1, k = 16 (C: 8.6 GB of floats);
//   A big:  m = 2^16 + 1, n = 1, k = 2^15 + 1 (A: 4.3 GB of BF16; Bt is a vector);
//   Bt big: m = 1, n = 2^16 + 1, k = 2^15 + 1 (Bt: 4.3 GB; A is a vector).
// Inputs are integers in [-2, 2] from a hash of (seed, index), so every result is exact. Of the
// big C, the first rows and the last ones (past element 2^31, where wrong offsets land) are
// checked, not all 8.6 GB.
constexpr int kHugeRows = (1 << 16) + 1, kHugeCols = (1 << 15) + 1;

int hashed_int(uint64_t seed, size_t i) { return (int)(splitmix64(splitmix64(seed) ^ (i * 0xD1B54A32D192ED03ull)) % 5) - 2; }

std::vector<bf16> hashed_matrix(size_t count, uint64_t seed) {
    std::vector<bf16> v(count);
    on_all_cores(count, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) v[i] = __float2bfloat16((float)hashed_int(seed, i));
    });
    return v;
}

// big (rows x k) times the vector x (k), exactly (whole numbers), on every core.
std::vector<double> matrix_times_vector(const std::vector<bf16>& big, const std::vector<bf16>& x, int rows, int k) {
    std::vector<double> y(rows);
    on_all_cores(rows, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) {
            long long s = 0;
            for (int p = 0; p < k; ++p)
                s += (long long)__bfloat162float(big[i * k + p]) * (long long)__bfloat162float(x[p]);
            y[i] = (double)s;
        }
    });
    return y;
}

struct Huge {
    bool fits = false;
    std::vector<bf16> c_a, c_bt;                  // C big: A (kHugeRows x 16), Bt (kHugeCols x 16)
    DeviceBuffer<bf16> d_c_a, d_c_bt, big_a, x, y, big_bt;
    DeviceBuffer<float> big_c;
    std::vector<double> ref_a, ref_bt;            // the results of A big * x and y * Bt big
    Huge() {
        const double c_bytes = 4.0 * kHugeRows * kHugeCols, ab_bytes = 2.0 * kHugeRows * kHugeCols;
        // the big C, A and Bt, and room for the padded copy some launchers make of A or Bt
        if (c_bytes + 3 * ab_bytes > 0.9 * (double)free_gpu_bytes()) return;
        fits = true;
        c_a = hashed_matrix((size_t)kHugeRows * 16, 1);
        c_bt = hashed_matrix((size_t)kHugeCols * 16, 2);
        d_c_a = DeviceBuffer<bf16>(c_a);
        d_c_bt = DeviceBuffer<bf16>(c_bt);
        big_c = DeviceBuffer<float>((size_t)kHugeRows * kHugeCols);
        {
            const std::vector<bf16> A = hashed_matrix((size_t)kHugeRows * kHugeCols, 3), xs = hashed_matrix(kHugeCols, 4);
            ref_a = matrix_times_vector(A, xs, kHugeRows, kHugeCols);
            big_a = DeviceBuffer<bf16>(A);
            x = DeviceBuffer<bf16>(xs);
        }
        {
            const std::vector<bf16> Bt = hashed_matrix((size_t)kHugeRows * kHugeCols, 5), ys = hashed_matrix(kHugeCols, 6);
            ref_bt = matrix_times_vector(Bt, ys, kHugeRows, kHugeCols);  // row j of Bt times y: element j of y * B
            big_bt = DeviceBuffer<bf16>(Bt);
            y = DeviceBuffer<bf16>(ys);
        }
    }
};
Huge& huge() {
    static Huge h;  // 17 GB of GPU memory, built once for every step
    return h;
}

void expect_huge(const TcStep& step) {
    Huge& h = huge();
    if (!h.fits) SKIP_CASE("this GPU has too little free memory for an 8.6 GB C and two 4.3 GB operands");
    for (const Variant& v : launchers(step)) {
        INFO(v.label);
        // C big: the first 4 rows and the last 4, every element, exactly.
        h.big_c.poison();
        v.run(h.d_c_a.get(), h.d_c_bt.get(), h.big_c.get(), kHugeRows, kHugeCols, 16);
        CUDA_CHECK(cudaDeviceSynchronize());
        size_t bad = 0, first_bad = 0;
        for (int first_row : {0, kHugeRows - 4}) {
            std::vector<float> rows((size_t)4 * kHugeCols);
            CUDA_CHECK(cudaMemcpy(rows.data(), h.big_c.get() + (size_t)first_row * kHugeCols,
                                  rows.size() * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t e = 0; e < rows.size(); ++e) {
                const size_t i = first_row + e / kHugeCols, j = e % kHugeCols;
                float expected = 0;
                for (int p = 0; p < 16; ++p)
                    expected += __bfloat162float(h.c_a[i * 16 + p]) * __bfloat162float(h.c_bt[j * 16 + p]);
                if (!(rows[e] == expected) && bad++ == 0) first_bad = i * kHugeCols + j;
            }
        }
        INFO("C big: first wrong element at offset " << first_bad);
        CHECK(bad == 0);
        // A big and Bt big: every element of the (small) result, exactly.
        DeviceBuffer<float> d_r(kHugeRows);
        d_r.poison();
        v.run(h.big_a.get(), h.x.get(), d_r.get(), kHugeRows, 1, kHugeCols);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK_MATCH(compare(d_r.download(), h.ref_a, Tolerance{0.0, 0.0}));
        d_r.poison();
        v.run(h.y.get(), h.big_bt.get(), d_r.get(), 1, kHugeRows, kHugeCols);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK_MATCH(compare(d_r.download(), h.ref_bt, Tolerance{0.0, 0.0}));
    }
}

// ---- Step 5: a persistent grid, each block walking many tiles -------------------------------
// With one block per SM, a block computes more than one tile only where C has more tiles than
// the GPU has SMs. So these cases also launch the kernel with a few blocks: every block then
// walks several tiles, and its stages and phases must run on from each to the next. Counts of
// k-tiles (64 deep) that are not multiples of the stages (4) or of twice the stages (after 8
// k-tiles a stage's barriers are back at the same parity) catch a count restarted per tile.
const Shape kPersistentShapes[] = {{300, 600, 190},  {520, 530, 330}, {129, 257, 65},   {1000, 1000, 100},
                                   {257, 513, 575},  {1, 4097, 200},  {4097, 1, 17},    {640, 768, 1000},
                                   {200, 300, 1},    {385, 769, 127}};

template <int Blocks>
void persistent_with(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    run_wgmma_persistent_blocks(Blocks, A, Bt, C, m, n, k);
}
std::vector<Variant> persistent_grids() {
    std::vector<Variant> v = {{"1 block", persistent_with<1>}, {"3 blocks", persistent_with<3>}};
    if (!under_sanitizer()) v.insert(v.end(), {{"2 blocks", persistent_with<2>}, {"7 blocks", persistent_with<7>}});
    return v;
}

}  // namespace

DECLARE_STEPS(kSteps);

// ---- every step (and step 2's variant) --------------------------------------------------------
STEP_CASES(kSteps, "awkward shapes: 1, 15, 17, 127, 4097; k = 1, 17, 24, 33, 40, 72, 4097", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_shapes(step, kAwkwardShapes, 1);
});
STEP_CASES(kSteps, "multiples and near misses of the tiles (16 to 512)", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_shapes(step, kTileShapes, 100);
});
STEP_CASES(kSteps, "small integers give the exact product (k = 300 and 4097)", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_exact_integers(launchers(step));
});
STEP_CASES(kSteps, "k = 0 writes zeros, m = 0 or n = 0 does nothing", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_empty_cases(launchers(step));
});
STEP_CASES(kSteps, "operands that are not 16-byte aligned", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_misaligned(launchers(step));
});
STEP_CASES(kSteps, "1024x1024x1024 against the CPU and cuBLAS (large)", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_big(step);
});
STEP_CASES(kSteps, "a C of more than 2^31 elements, and an A and a Bt of more (large)", [](const auto& step) {
    SKIP_IF_UNSUPPORTED(step);
    expect_huge(step);
});

// ---- step 5: the persistent kernel -----------------------------------------------------------
// The cases above run it with a block per SM (each block one tile, but where C has more tiles
// than the GPU has SMs); these with a few blocks, so that every block walks many tiles.
STEP_CASE(kSteps, "wgmma_persistent", "1, 2, 3 and 7 blocks: many tiles each, k-tiles not a multiple of the stages") {
    SKIP_IF_UNSUPPORTED(step);
    uint64_t seed = 600;
    for (const Variant& v : persistent_grids())
        for (Shape s : kPersistentShapes) expect_product(v, s, seed++);
}
STEP_CASE(kSteps, "wgmma_persistent", "a few blocks: integers exact, k = 0, empty, misaligned") {
    SKIP_IF_UNSUPPORTED(step);
    const std::vector<Variant> grids = persistent_grids();
    expect_exact_integers(grids);
    expect_empty_cases(grids);
    expect_misaligned(grids);
    expect_misaligned(grids, {520, 528, 328});
}
STEP_CASE(kSteps, "wgmma_persistent", "more tiles than SMs with a block per SM: 2049x2049x136 (large)") {
    SKIP_IF_UNSUPPORTED(step);
    expect_product({step.info.label, step.run}, {2049, 2049, 136}, 700);
}
// One launch after another on the same buffers, with other data, other grids and other shapes:
// nothing of a launch's barriers or counts may carry over to the next.
STEP_CASE(kSteps, "wgmma_persistent", "repeated calls: other data, grids and shapes one after another") {
    SKIP_IF_UNSUPPORTED(step);
    const int m = 520, n = 530, k = 330;
    DeviceBuffer<float> d_C((size_t)m * n);
    std::vector<Variant> runs = {{step.info.label, step.run}};
    for (const Variant& v : persistent_grids()) runs.push_back(v);
    uint64_t seed = 800;
    for (int round = 0; round < 2; ++round)
        for (const Variant& v : runs)
            for (Shape s : {Shape{m, n, k}, Shape{m - 7, n - 9, k / 3}}) {
                INFO(v.label << ", round " << round << ": m = " << s.m << ", n = " << s.n << ", k = " << s.k);
                const std::vector<bf16> A = to_bf16(random_floats((size_t)s.m * s.k, seed, -1.0f, 1.0f));
                const std::vector<bf16> Bt = to_bf16(random_floats((size_t)s.n * s.k, seed + 1, -1.0f, 1.0f));
                seed += 2;
                DeviceBuffer<bf16> d_A(A), d_Bt(Bt);
                d_C.poison();
                v.run(d_A.get(), d_Bt.get(), d_C.get(), s.m, s.n, s.k);
                CUDA_CHECK(cudaDeviceSynchronize());
                std::vector<float> C = d_C.download();
                C.resize((size_t)s.m * s.n);
                CHECK_MATCH(compare(C, matmul_reference(to_float(A), to_float(Bt), s.m, s.n, s.k),
                                    bf16_matmul_tolerance(s.k, max_abs(A), max_abs(Bt))));
            }
}

// ---- predictions (answers.cpp derives them) -----------------------------------------------------
STEP_HOST_CASE(kSteps, "wmma_global", "prediction: accumulator elements per lane") {
    check_prediction("kAccumulatorElementsPerLane", kAccumulatorElementsPerLane,
                     "a fragment belongs to the whole warp: how is it shared among the lanes?");
}
STEP_HOST_CASE(kSteps, "wmma_shared", "prediction: bank conflict ways of unpadded rows") {
    check_prediction("kBankConflictWaysUnpadded", kBankConflictWaysUnpadded,
                     "where in a 128-byte row of banks each of 8 rows, 64 bytes apart, starts");
}
// The most of 8 consecutive rows, row_bytes apart, that start on the same banks (answers.cpp).
long long conflict_ways(int row_bytes);
STEP_HOST_CASE(kSteps, "wmma_shared", "the header's padding removes every conflict") {
    CHECK(conflict_ways((k2TileK + k2TilePad) * (int)sizeof(bf16)) == 1);
    CHECK((k2TileK + k2TilePad) * sizeof(bf16) % 16 == 0);  // rows stay 16-byte aligned
}
STEP_HOST_CASE(kSteps, "mma_pipeline", "prediction: mma.sync per warp per tile") {
    check_prediction("kMmaSyncPerWarpPerTile", kMmaSyncPerWarpPerTile,
                     "one instruction per 16 x 8 piece of the warp's C and per 16-deep slice of the tile");
}
STEP_HOST_CASE(kSteps, "wgmma_tma", "prediction: bytes the TMA writes per stage") {
    check_prediction("kTmaBytesPerStage", kTmaBytesPerStage,
                     "one stage holds a tile of A and a tile of Bt, every element 2 bytes");
}

STEP_HOST_CASE(kSteps, "wgmma_persistent", "prediction: k-tiles through block 0 at 4096x4096x5000") {
    check_prediction("kKTilesThroughBlock0", kKTilesThroughBlock0,
                     "which tiles does block 0 take, and how many k-tiles has each when k is not a multiple of 64?");
}

// ---- the library reference --------------------------------------------------------------------
TEST_CASE("gpu: cuBLAS BF16: row-major through the transpose identity, 67x129x33 and 1024^3 (large)" * needs_gpu()) {
    if (device_facts().major < 8) SKIP_CASE("BF16 GEMM on tensor cores needs compute capability 8.0");
    const std::vector<bf16> A = to_bf16(random_floats(67 * 33, 1)), Bt = to_bf16(random_floats(129 * 33, 2));
    CHECK_MATCH(compare(gpu_product([](const bf16* a, const bf16* bt, float* c, int m, int n, int k) {
                            CublasGemmBf16 cublas;
                            cublas.run(a, bt, c, m, n, k);
                            CUDA_CHECK(cudaDeviceSynchronize());
                        }, A, Bt, 67, 129, 33),
                        matmul_reference(to_float(A), to_float(Bt), 67, 129, 33),
                        bf16_matmul_tolerance(33, max_abs(A), max_abs(Bt))));
    CHECK_MATCH(compare(big().cublas_result(), big().ref, big().tol));
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the CPU reference multiplies a 2x3 by a 3x2 given as its transpose") {
    // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]; Bt = [7 9 11; 8 10 12]
    const std::vector<float> A = {1, 2, 3, 4, 5, 6}, Bt = {7, 9, 11, 8, 10, 12};
    CHECK(matmul_reference(A, Bt, 2, 2, 3) == std::vector<double>{58, 64, 139, 154});
    CHECK(matmul_reference(A, Bt, 2, 2, 0) == std::vector<double>{0, 0, 0, 0});  // k = 0: empty sums
    CHECK(transpose({7, 8, 9, 10, 11, 12}, 3, 2) == Bt);
}

TEST_CASE("host: BF16 keeps 8 significant bits, rounding to nearest even") {
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 0x1p-7f)) == 1.0f + 0x1p-7f);  // representable
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 0x1p-8f)) == 1.0f);           // a tie: to even
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 0x1.8p-8f)) == 1.0f + 0x1p-7f);
    CHECK(__bfloat162float(__float2bfloat16(256.0f)) == 256.0f);                  // whole numbers up to 256
    CHECK(__bfloat162float(__float2bfloat16(257.0f)) == 256.0f);
    // Just below a tie the error nears half a unit in the 8th bit: 2^-8 relative, beyond 2^-9.
    const float x = 1.0f + 0x1p-8f - 0x1p-20f;
    const float error = std::fabs(__bfloat162float(__float2bfloat16(x)) - x) / x;
    CHECK(error > 0x1p-9f);
    CHECK(error <= 0x1p-8f);
}

// The given descriptor packer against the field layout of the PTX ISA (values that no step uses).
TEST_CASE("host: wgmma_descriptor packs each field where the PTX ISA puts it") {
    CHECK(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::none) == 0);
    CHECK(wgmma_descriptor(0x2A30, 0, 0, WgmmaSwizzle::none) == 0x2A3);              // bits 0-13: address / 16
    CHECK(wgmma_descriptor(0x42A30, 0, 0, WgmmaSwizzle::none) == 0x2A3);             // 18-bit shared window
    CHECK(wgmma_descriptor(0, 48, 0, WgmmaSwizzle::none) == 3ull << 16);             // bits 16-29: leading / 16
    CHECK(wgmma_descriptor(0, 0, 2048, WgmmaSwizzle::none) == 128ull << 32);         // bits 32-45: stride / 16
    CHECK(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::bytes32) == 3ull << 62);           // bits 62-63: the mode
    CHECK(wgmma_descriptor(0, 0, 0, WgmmaSwizzle::bytes64) == 2ull << 62);
    CHECK(wgmma_descriptor(0x10, 32, 512, WgmmaSwizzle::bytes64) == (1 | 2ull << 16 | 32ull << 32 | 2ull << 62));
    // Moving the start 32 bytes along a row adds 2 to the descriptor, and touches no other field.
    CHECK(wgmma_descriptor(0x3000 + 32, 16, 256, WgmmaSwizzle::bytes32) ==
          wgmma_descriptor(0x3000, 16, 256, WgmmaSwizzle::bytes32) + 2);
}

TEST_CASE("host: the BF16 tolerance grows with k and the magnitudes, and catches a missing product") {
    CHECK(bf16_matmul_tolerance(100, 1, 1).atol < bf16_matmul_tolerance(1000, 1, 1).atol);
    CHECK(bf16_matmul_tolerance(100, 1, 1).atol < bf16_matmul_tolerance(100, 2, 1).atol);
    CHECK(bf16_matmul_tolerance(0, 1, 1).atol < 1e-20);
    // At k = 1024 and inputs in [-1, 1) a product left out moves an element by 0.25 on average.
    CHECK(bf16_matmul_tolerance(1024, 1, 1).atol < 0.05);
    // It is wider than FP32's (each product is exact, but the sums round coarser on tensor cores).
    CHECK(bf16_matmul_tolerance(1024, 1, 1).atol > fp32_matmul_tolerance(1024, 1, 1).atol);
}
