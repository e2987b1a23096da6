// 04_naive_reduce/tests.cpp: one group of test cases per step, named "step N kernel: ...".
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cub_sum.h"
#include "naive_reduce.h"
#include "testing.h"

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Runs one of steps 1-3 to the answer: the kernel, then (steps 2 and 3) the host's finish.
float gpu_sum(const ReduceStep& step, const std::vector<float>& x, int block) {
    ReduceBuffers b(x, block);
    b.poison();
    step.run(b);
    CUDA_CHECK(cudaDeviceSynchronize());
    return finish(b, step.info.output).total;
}

// Checks the GPU's sum against the double reference within sum_tolerance (naive_reduce.h).
void expect_sum(const ReduceStep& step, const std::vector<float>& x, int block = 256) {
    CAPTURE(x.size());
    CAPTURE(block);
    const ReferenceSum ref = sum_reference(x);
    const float got = gpu_sum(step, x, block);
    const Tolerance tol = sum_tolerance(x.size(), ref);
    INFO("got " << got << ", expected " << ref.sum << " within " << tol.atol);
    CHECK(within(got, ref.sum, tol));
}

const size_t kSizes[] = {0, 1, 255, 256, 257, ((size_t)1 << 20) + 1};
const int kBlocks[] = {32, 64, 128, 256, 512, 1024, 33, 96, 1000};

// ---- stats ----
Summary gpu_stats(const std::vector<float>& x, int block) {
    ReduceBuffers b(x, block);
    b.poison();
    run_stats(b.x.get(), b.n, b.stats.get(), block);
    CUDA_CHECK(cudaDeviceSynchronize());
    return finish(b, Output::block_stats).summary;
}

void expect_stats(const std::vector<float>& x, int block = 256) {
    CAPTURE(x.size());
    CAPTURE(block);
    const StatsReference ref = stats_reference(x);
    const Summary got = gpu_stats(x, block);
    const StatsVerdict v = judge_stats(got, ref);  // min and max exact: they are inputs
    INFO("wrong: " << v.wrong());
    INFO("count " << got.count << " (expected " << ref.exact.count << "), mean " << got.mean << " (expected "
                  << ref.exact.mean << " within " << mean_tolerance(ref).atol << "), variance " << got.variance
                  << " (expected " << ref.exact.variance << " within " << variance_tolerance(ref).atol << "), min "
                  << got.min << " (" << ref.exact.min << "), max " << got.max << " (" << ref.exact.max << ")");
    CHECK(v.ok());
}

// ---- rows_cols ----
void expect_rows_cols(size_t rows, size_t cols, int block = 256, float lo = -1.0f, float hi = 1.0f,
                      size_t nan_row = SIZE_MAX, size_t nan_col = SIZE_MAX) {
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(block);
    std::vector<float> m = random_floats(rows * cols, rows * 7 + cols, lo, hi);
    if (nan_row < rows) m[nan_row * cols + nan_col] = kNaN;
    DeviceBuffer<float> d_m(m), d_rows(rows), d_cols(cols), d_total(1);
    d_rows.poison();
    d_cols.poison();
    d_total.poison();
    run_rows_cols(d_m.get(), rows, cols, d_rows.get(), d_cols.get(), d_total.get(), block);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got_rows = d_rows.download(), got_cols = d_cols.download();
    const float got_total = d_total.download()[0];
    const RowsColsReference ref = rows_cols_reference(m, rows, cols);
    if (nan_row < rows) {
        // The NaN's row and column are NaN, and so is the total; the rest must still be right.
        CHECK(std::isnan(got_rows[nan_row]));
        CHECK(std::isnan(got_cols[nan_col]));
        CHECK(std::isnan(got_total));
        size_t bad = 0;
        for (size_t r = 0; r < rows; ++r)
            if (r != nan_row && !within(got_rows[r], ref.row_sums[r], float_sum_tolerance(cols, ref.row_abs[r]))) ++bad;
        for (size_t c = 0; c < cols; ++c)
            if (c != nan_col && !within(got_cols[c], ref.col_sums[c], float_sum_tolerance(rows, ref.col_abs[c]))) ++bad;
        CHECK(bad == 0);
        return;
    }
    INFO("row sums");
    CHECK_MATCH(compare_sums(got_rows, ref.row_sums, ref.row_abs, cols));
    INFO("column sums");
    CHECK_MATCH(compare_sums(got_cols, ref.col_sums, ref.col_abs, rows));
    INFO("total: got " << got_total << ", expected " << ref.total.sum);
    CHECK(within(got_total, ref.total.sum, sum_tolerance(rows * cols, ref.total)));
}

}  // namespace

DECLARE_STEPS(kSteps);

// ---- steps 1 to 3: the sums -------------------------------------------------------------------
STEP_CASES_RANGE(kSteps, 1, 3, "n = 0, 1, 255, 256, 257, 2^20+1", [](const auto& step) {
    for (size_t n : kSizes) expect_sum(step, random_floats(n, n + 11, -1.0f, 1.0f));
});
STEP_CASES_RANGE(kSteps, 1, 3, "block sizes 32 to 1024, and 33, 96, 1000 (not powers of two)", [](const auto& step) {
    for (int b : kBlocks) expect_sum(step, random_floats(100003, b, -1.0f, 1.0f), b);
});
// Same sign everywhere (errors cannot cancel) and magnitudes far from 1.
STEP_CASES_RANGE(kSteps, 1, 3, "all-negative inputs and large and small magnitudes", [](const auto& step) {
    const size_t big = ((size_t)1 << 20) + 1;
    expect_sum(step, random_floats(100003, 21, -1.0f, 0.0f));
    expect_sum(step, random_floats(big, 22, -1.0f, 0.0f));
    expect_sum(step, random_floats(100003, 23, -1e30f, 1e30f));
    expect_sum(step, random_floats(big, 24, 1e6f, 2e6f));
    expect_sum(step, random_floats(big, 25, -1e-30f, 1e-30f));
});
// NaN + anything is NaN, so one NaN must reach the answer whichever thread adds it.
STEP_CASES_RANGE(kSteps, 1, 3, "a NaN in the input gives NaN", [](const auto& step) {
    const size_t n = 100003;
    for (size_t at : {(size_t)0, n / 2, n - 1}) {
        CAPTURE(at);
        std::vector<float> x = random_floats(n, 31, -1.0f, 1.0f);
        x[at] = kNaN;
        CHECK(std::isnan(gpu_sum(step, x, 256)));
    }
});
// 2^25 values of both signs, uniform in [-1, 1.05): the small positive mean puts the exact sum
// (about 8.3e5) some 35 tolerances away from 0. Uniform in [-1, 1), the sum (about -5500)
// would lie inside the tolerance (about 2.3e4), and a kernel that returned 0, or dropped half
// of the elements, would pass. (A serial float sum of these values, in index order on the CPU,
// is off by about 4 % of the tolerance.)
STEP_CASES_RANGE(kSteps, 1, 3, "n = 2^25, mixed signs (large)", [](const auto& step) {
    expect_sum(step, random_floats((size_t)1 << 25, 40 + step.number, -1.0f, 1.05f));
});

// 2^25 ones, all of the same sign, break the tolerance's assumption of noise-like rounding: a
// serial float sum (atomic_each, in any order of its atomics) stops growing, and the tolerance
// would hide where. So its result must be exactly the serial float sum that step 1's prediction
// works out (answers.cpp); the other steps keep their sums small and stay exact.
STEP_CASE(kSteps, "atomic_each", "2^25 ones: exactly the serial float sum that kSumOfOnesAtomic predicts (large)") {
    const Answer* serial = find_answer("kSumOfOnesAtomic");
    REQUIRE(serial != nullptr);
    CHECK(gpu_sum(step, std::vector<float>((size_t)1 << 25, 1.0f), 256) == (float)serial->derive());
}
// The students' predictions (starter.cu), each checked against its answer in answers.cpp.
STEP_HOST_CASE(kSteps, "atomic_each", "prediction kSumOfOnesAtomic: the float atomic_each leaves for 2^25 ones") {
    check_prediction("kSumOfOnesAtomic", kSumOfOnesAtomic,
                     "how many significant bits a float has, and what adding 1 does once whole numbers are no longer all floats");
}
STEP_HOST_CASE(kSteps, "block_tree", "prediction kTreeRounds96: rounds of the tree for a block of 96") {
    check_prediction("kTreeRounds96", (double)kTreeRounds96,
                     "what happens to the odd value out when a round pairs up an odd count of values");
}
STEP_HOST_CASE(kSteps, "stats", "prediction kStatsSharedBytes256: run_stats's dynamic shared memory at block 256") {
    check_prediction("kStatsSharedBytes256", (double)kStatsSharedBytes256,
                     "what the third launch parameter counts, and the size of one Stats (fields and alignment)");
}

STEP_CASE(kSteps, "block_serial", "2^25 ones sum to exactly 2^25: no running total grows large (large)") {
    CHECK(gpu_sum(step, std::vector<float>((size_t)1 << 25, 1.0f), 256) == 33554432.0f);
}
STEP_CASE(kSteps, "block_tree", "block size 1 (no rounds at all)") {
    expect_sum(step, random_floats(1000, 5, -1.0f, 1.0f), 1);
}
STEP_CASE(kSteps, "block_tree", "2^25 ones sum to exactly 2^25 (large)") {
    CHECK(gpu_sum(step, std::vector<float>((size_t)1 << 25, 1.0f), 256) == 33554432.0f);
}

// ---- step 4 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "stats", "empty input: count 0, mean and variance NaN, min +inf, max -inf") {
    const Summary s = gpu_stats({}, 256);
    CHECK(s.count == 0);
    CHECK(std::isnan(s.mean));
    CHECK(std::isnan(s.variance));
    CHECK(s.min == kInf);
    CHECK(s.max == -kInf);
}
STEP_CASE(kSteps, "stats", "n = 1: mean is the value, variance 0") {
    const Summary s = gpu_stats({-2.75f}, 256);
    CHECK(s.count == 1);
    CHECK(s.mean == -2.75);
    CHECK(s.variance == 0.0);
    CHECK(s.min == -2.75f);
    CHECK(s.max == -2.75f);
}
STEP_CASE(kSteps, "stats", "n = 255, 256, 257, 2^20+1") {
    for (size_t n : kSizes)
        if (n > 0) expect_stats(random_floats(n, n + 51, -1.0f, 1.0f));
}
STEP_CASE(kSteps, "stats", "block sizes 32 to 1024, and 33, 96, 1000") {
    for (int b : kBlocks) expect_stats(random_floats(100003, b + 52, -1.0f, 1.0f), b);
}
// 0, 1, ..., 299 with blocks of 256: mean 149.5, variance (300^2 - 1) / 12. A halving average
// (the source material's) would weigh the 44 values of the second block like the 256 of the first.
STEP_CASE(kSteps, "stats", "0..299 in uneven blocks: mean 149.5, variance 7499.9166...") {
    std::vector<float> x(300);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (float)i;
    for (int b : {256, 128, 96, 1024}) {
        CAPTURE(b);
        const Summary s = gpu_stats(x, b);
        CHECK(s.count == 300);
        CHECK(s.mean == doctest::Approx(149.5).epsilon(1e-6));
        CHECK(s.variance == doctest::Approx((300.0 * 300.0 - 1.0) / 12.0).epsilon(1e-5));
        CHECK(s.min == 0.0f);
        CHECK(s.max == 299.0f);
    }
}
STEP_CASE(kSteps, "stats", "constant input: mean exact, variance exactly 0") {
    const Summary s = gpu_stats(std::vector<float>(((size_t)1 << 20) + 1, 0.5f), 256);
    CHECK(s.mean == 0.5);
    CHECK(s.variance == 0.0);
    CHECK(s.min == 0.5f);
    CHECK(s.max == 0.5f);
}
STEP_CASE(kSteps, "stats", "all-negative inputs, large magnitudes, values far from zero") {
    const size_t big = ((size_t)1 << 20) + 1;
    expect_stats(random_floats(100003, 61, -1.0f, 0.0f));
    expect_stats(random_floats(big, 62, -1e15f, 1e15f));
    expect_stats(random_floats(big, 63, 1e6f, 2e6f));
    expect_stats(random_floats(big, 64, 1000.0f, 1001.0f));
}
STEP_CASE(kSteps, "stats", "min and max are exact, wherever they are") {
    const size_t n = 100003;
    for (size_t at : {(size_t)0, (size_t)4097, n - 1}) {
        CAPTURE(at);
        std::vector<float> x = random_floats(n, 71, -1.0f, 1.0f);
        x[at] = -3.1415927f;
        x[n - 1 - at] = 2.7182817f;
        const Summary s = gpu_stats(x, 256);
        CHECK(s.min == -3.1415927f);
        CHECK(s.max == 2.7182817f);
    }
}
STEP_CASE(kSteps, "stats", "a NaN in the input makes mean, variance, min and max NaN") {
    const size_t n = 100003;
    for (size_t at : {(size_t)0, n / 2, n - 1}) {
        CAPTURE(at);
        std::vector<float> x = random_floats(n, 81, -1.0f, 1.0f);
        x[at] = kNaN;
        const Summary s = gpu_stats(x, 256);
        CHECK(s.count == n);
        CHECK(std::isnan(s.mean));
        CHECK(std::isnan(s.variance));
        CHECK(std::isnan(s.min));
        CHECK(std::isnan(s.max));
    }
}
STEP_CASE(kSteps, "stats", "n = 2^25 (large)") {
    expect_stats(random_floats((size_t)1 << 25, 91, -1.0f, 1.0f));
    expect_stats(random_floats((size_t)1 << 25, 92, 1e6f, 2e6f));
}

// ---- step 5 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "rows_cols", "shapes 1x1, 1xN, Nx1, 513x257 (N = 100003)") {
    expect_rows_cols(1, 1);
    expect_rows_cols(1, 100003);
    expect_rows_cols(100003, 1);
    expect_rows_cols(513, 257);
}
STEP_CASE(kSteps, "rows_cols", "shapes 1x(2^20+1), (2^20+1)x1, 3x100003, 100003x3 (large)") {
    expect_rows_cols(1, ((size_t)1 << 20) + 1);
    expect_rows_cols(((size_t)1 << 20) + 1, 1);
    expect_rows_cols(3, 100003);
    expect_rows_cols(100003, 3);
}
STEP_CASE(kSteps, "rows_cols", "empty matrices 0x5 and 5x0 give zero sums") {
    for (auto [rows, cols] : {std::pair<size_t, size_t>{0, 5}, {5, 0}}) {
        CAPTURE(rows);
        CAPTURE(cols);
        DeviceBuffer<float> d_rows(rows), d_cols(cols), d_total(1);
        d_rows.poison();
        d_cols.poison();
        d_total.poison();
        run_rows_cols(nullptr, rows, cols, d_rows.get(), d_cols.get(), d_total.get(), 256);
        CUDA_CHECK(cudaDeviceSynchronize());
        for (float v : d_rows.download()) CHECK(v == 0.0f);
        for (float v : d_cols.download()) CHECK(v == 0.0f);
        CHECK(d_total.download()[0] == 0.0f);
    }
}
STEP_CASE(kSteps, "rows_cols", "block sizes 32 to 1024, and 33, 96, 1000, on 513x257") {
    for (int b : kBlocks) expect_rows_cols(513, 257, b);
}
STEP_CASE(kSteps, "rows_cols", "all-negative inputs and large magnitudes") {
    expect_rows_cols(513, 257, 256, -1.0f, 0.0f);
    expect_rows_cols(513, 257, 256, -1e30f, 1e30f);
    expect_rows_cols(257, 513, 128, 1e6f, 2e6f);
}
STEP_CASE(kSteps, "rows_cols", "a NaN makes its row, its column and the total NaN") {
    expect_rows_cols(513, 257, 256, -1.0f, 1.0f, 100, 200);
    expect_rows_cols(513, 257, 256, -1.0f, 1.0f, 512, 0);
}
STEP_CASE(kSteps, "rows_cols", "8192 x 4096 = 2^25 elements (large)") { expect_rows_cols(8192, 4096); }

// ---- the library reference ---------------------------------------------------------------------
TEST_CASE("library: cub::DeviceReduce::Sum agrees with the CPU" * needs_gpu()) {
    CubSum cub(((size_t)1 << 20) + 1);
    for (size_t n : {(size_t)1, (size_t)100003, ((size_t)1 << 20) + 1}) {
        CAPTURE(n);
        const std::vector<float> x = random_floats(n, 3, -1.0f, 1.0f);
        DeviceBuffer<float> d_x(x), d_sum(1);
        d_sum.poison();
        cub.run(d_x.get(), n, d_sum.get());
        CUDA_CHECK(cudaDeviceSynchronize());
        const ReferenceSum ref = sum_reference(x);
        CHECK(within(d_sum.download()[0], ref.sum, sum_tolerance(n, ref)));
    }
}

// atomic_per_thread.cu, given: float4 loads, then one atomic per thread; any n, any alignment.
TEST_CASE("given: atomic_per_thread agrees with the CPU (n = 0 to 2^20+3, aligned or not)" * needs_gpu()) {
    for (size_t n : {(size_t)0, (size_t)1, (size_t)3, (size_t)4, (size_t)5, (size_t)257, ((size_t)1 << 20) + 3}) {
        const std::vector<float> x = random_floats(n + 1, 5, -1.0f, 1.0f);
        DeviceBuffer<float> d_x(x), d_sum(1);
        for (size_t offset : {(size_t)0, (size_t)1}) {  // x + 1 is not 16-byte aligned
            CAPTURE(n);
            CAPTURE(offset);
            const std::vector<float> part(x.begin() + offset, x.begin() + offset + n);
            d_sum.poison();
            run_atomic_per_thread(d_x.get() + offset, n, d_sum.get(), 256);
            CUDA_CHECK(cudaDeviceSynchronize());
            const ReferenceSum ref = sum_reference(part);
            CHECK(within(d_sum.download()[0], ref.sum, sum_tolerance(n, ref)));
        }
    }
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: finish_sum adds the partials in double and rounds once") {
    CHECK(finish_sum({}) == 0.0f);
    CHECK(finish_sum({1e8f, 1.0f, -1e8f}) == 1.0f);  // in float, 1e8 + 1 is 1e8 and the 1 is lost
    CHECK(finish_sum({1e8f, 4.0f, 4.0f}) == 100000008.0f);  // in float, each 4 would be lost (ties to even)
}
TEST_CASE("host: finish_stats merges by count: {1, 2, 3} and {10} give mean 4, variance 12.5") {
    // {count, sum, m2, min, max}; m2 of {1, 2, 3} around its mean 2 is 1 + 0 + 1.
    const Summary s = finish_stats({Stats{3, 6.0f, 2.0f, 1.0f, 3.0f}, Stats{1, 10.0f, 0.0f, 10.0f, 10.0f}});
    CHECK(s.count == 4);
    CHECK(s.mean == doctest::Approx(4.0));  // halving the two averages would give (2 + 10) / 2 = 6
    CHECK(s.variance == doctest::Approx(12.5));
    CHECK(s.min == 1.0f);
    CHECK(s.max == 10.0f);
}
TEST_CASE("host: finish_stats skips empty summaries; none at all is the empty input") {
    const float inf = kInf;
    const Summary one = finish_stats({Stats{0, 0, 0, inf, -inf}, Stats{1, 4.0f, 0.0f, 4.0f, 4.0f}});
    CHECK(one.count == 1);
    CHECK(one.mean == 4.0);
    CHECK(one.variance == 0.0);
    const Summary none = finish_stats({});
    CHECK(none.count == 0);
    CHECK(std::isnan(none.mean));
    CHECK(std::isnan(none.variance));
    CHECK(none.min == inf);
    CHECK(none.max == -inf);
}
TEST_CASE("host: min_with_nan and max_with_nan pass a NaN through in either order") {
    CHECK(std::isnan(min_with_nan(kNaN, 1.0f)));
    CHECK(std::isnan(min_with_nan(1.0f, kNaN)));
    CHECK(std::isnan(max_with_nan(kNaN, 1.0f)));
    CHECK(std::isnan(max_with_nan(1.0f, kNaN)));
    CHECK(min_with_nan(kInf, -2.0f) == -2.0f);
    CHECK(max_with_nan(-kInf, -2.0f) == -2.0f);
}
TEST_CASE("host: stats_reference of 0..9, NaN and empty inputs") {
    std::vector<float> x(10);
    for (int i = 0; i < 10; ++i) x[i] = (float)i;
    const StatsReference s = stats_reference(x);
    CHECK(s.exact.mean == 4.5);
    CHECK(s.exact.variance == doctest::Approx(8.25));  // (10^2 - 1) / 12
    CHECK(s.exact.min == 0.0f);
    CHECK(s.exact.max == 9.0f);
    x[3] = kNaN;
    const StatsReference bad = stats_reference(x);
    CHECK(std::isnan(bad.exact.mean));
    CHECK(std::isnan(bad.exact.min));
    CHECK(std::isnan(bad.exact.max));
    const StatsReference empty = stats_reference({});
    CHECK(empty.exact.count == 0);
    CHECK(std::isnan(empty.exact.mean));
    CHECK(empty.exact.min == kInf);
}
TEST_CASE("host: tolerances grow with sqrt(n) and with the magnitudes, and reject NaN") {
    ReferenceSum a{0.0, 1000.0}, b{0.0, 4000.0};
    CHECK(sum_tolerance(1 << 20, b).atol == doctest::Approx(4 * sum_tolerance(1 << 20, a).atol));
    CHECK(sum_tolerance(4 << 20, a).atol == doctest::Approx(2 * sum_tolerance(1 << 20, a).atol).epsilon(1e-5));
    CHECK_FALSE(within(kNaN, 0.0, sum_tolerance(10, a)));
    // Values far from zero widen the variance's tolerance: the float mean is less exact there.
    std::vector<float> near0 = random_floats(1000, 1, -0.5f, 0.5f), far(1000);
    for (size_t i = 0; i < far.size(); ++i) far[i] = near0[i] + 1000.0f;
    CHECK(variance_tolerance(stats_reference(far)).atol > 100 * variance_tolerance(stats_reference(near0)).atol);
}
TEST_CASE("host: rows_cols_reference of a 2x3 matrix") {
    const RowsColsReference r = rows_cols_reference({1, 2, 3, 4, 5, 6}, 2, 3);
    CHECK(r.row_sums == std::vector<double>{6, 15});
    CHECK(r.col_sums == std::vector<double>{5, 7, 9});
    CHECK(r.total.sum == 21);
}
TEST_CASE("host: make_values stays in its ranges") {
    for (Values v : {Values::mixed, Values::positive, Values::negative, Values::ones, Values::large}) {
        const std::vector<float> x = make_values(v, 10000, 5);
        float lo = x[0], hi = x[0];
        for (float f : x) {
            lo = std::min(lo, f);
            hi = std::max(hi, f);
        }
        CAPTURE(values_name(v));
        if (v == Values::mixed) CHECK((lo >= -1.0f && hi < 1.0f && lo < 0.0f && hi > 0.0f));
        if (v == Values::positive) CHECK((lo >= 0.0f && hi < 1.0f));
        if (v == Values::negative) CHECK((lo >= -1.0f && hi < 0.0f));
        if (v == Values::ones) CHECK((lo == 1.0f && hi == 1.0f));
        if (v == Values::large) CHECK((lo >= -1e15f && hi < 1e15f && hi > 1e14f));
    }
}
