// 06_atomics_cas/tests.cpp: one group of test cases per step, named "step N name: ...".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomics_cas.h"
#include "cub_sum.h"
#include "testing.h"

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

uint32_t bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
uint64_t bits(double x) {
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

std::string described(float x) {  // "-0 (bits 0x80000000)": shows the sign of a zero
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g (bits 0x%08x)", x, (unsigned)bits(x));
    return buf;
}

// Runs one accumulating launcher on `values`, starting from `start`, and returns the result.
template <class T, class V>
T accumulate_on_gpu(void (*launch)(const V*, T*, size_t), const std::vector<V>& values, T start) {
    DeviceBuffer<V> d_values(values);
    DeviceBuffer<T> target(std::vector<T>{start});
    launch(d_values.get(), target.get(), values.size());
    CUDA_CHECK(cudaDeviceSynchronize());
    return target.download()[0];
}

int race_on_gpu(size_t n, RaceKind kind, int start = 0) {
    DeviceBuffer<int> counter(std::vector<int>{start});
    run_race(counter.get(), n, kind);
    CUDA_CHECK(cudaDeviceSynchronize());
    return counter.download()[0];
}

template <class T>
std::vector<T> small_integers(size_t n, uint64_t seed) {  // in [1, 8]: every partial sum is exact
    std::vector<int> v = random_ints(n, seed, 1, 8);
    return std::vector<T>(v.begin(), v.end());
}
std::vector<double> random_doubles(size_t n, uint64_t seed) {  // all 53 bits of the mantissa in use
    std::vector<float> f = random_floats(n, seed, -1.0f, 1.0f);
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) d[i] = f[i] / 3.0;
    return d;
}

// Checks a sum of random values against the double-precision reference, in any order.
template <class T>
void expect_sum_within(void (*launch)(const T*, T*, size_t), const std::vector<T>& v) {
    CAPTURE(v.size());
    const ReferenceSum ref = sum_reference(v);
    const Tolerance tol = sum_tolerance<T>(v.size(), ref);
    const T got = accumulate_on_gpu(launch, v, T(0));
    INFO("got " << (double)got << ", expected " << ref.sum << " within " << tol.atol);
    CHECK(within((double)got, ref.sum, tol));
}

// max and min of `v` on the GPU, starting from `start` (NaN: empty), compared bit for bit.
void expect_extremes(const std::vector<float>& v, float start = kNaN) {
    CAPTURE(v.size());
    const float max_ref = max_reference(v, start), min_ref = min_reference(v, start);
    const float max_got = accumulate_on_gpu(run_cas_max_float, v, start);
    const float min_got = accumulate_on_gpu(run_cas_min_float, v, start);
    INFO("max: got " << described(max_got) << ", expected " << described(max_ref));
    CHECK(bits(max_got) == bits(max_ref));
    INFO("min: got " << described(min_got) << ", expected " << described(min_ref));
    CHECK(bits(min_got) == bits(min_ref));
}

LockedRecord spinlock_on_gpu(const std::vector<int>& v, LockedRecord start, int launches = 1) {
    DeviceBuffer<int> d_values(v), lock(std::vector<int>{0});
    DeviceBuffer<LockedRecord> record(std::vector<LockedRecord>{start});
    for (int i = 0; i < launches; ++i) run_spinlock(d_values.get(), record.get(), lock.get(), v.size());
    CUDA_CHECK(cudaDeviceSynchronize());
    INFO("the lock word must be 0 (free) after the kernel");
    CHECK(lock.download()[0] == 0);
    return record.download()[0];
}

void expect_record(const std::vector<int>& v, int launches = 1) {
    CAPTURE(v.size());
    LockedRecord ref = empty_record();
    for (int i = 0; i < launches; ++i) ref = record_reference(v, ref);
    LockedRecord got = spinlock_on_gpu(v, empty_record(), launches);
    INFO("got count " << got.count << ", sum " << got.sum << ", max " << got.max << "; expected count "
                      << ref.count << ", sum " << ref.sum << ", max " << ref.max);
    CHECK(got.count == ref.count);
    CHECK(got.sum == ref.sum);
    CHECK(got.max == ref.max);
}

void expect_contention(const std::vector<int>& v, Aggregation how, size_t addresses) {
    CAPTURE(v.size());
    CAPTURE((int)how);
    CAPTURE(addresses);
    DeviceBuffer<int> d_values(v), counters(addresses), total(std::vector<int>{0});
    CUDA_CHECK(cudaMemset(counters.get(), 0, counters.bytes()));
    run_contention(d_values.get(), v.size(), how, counters.get(), addresses, total.get());
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(total.download()[0] == wrap_to_int(exact_sum(v)));
    CHECK_MATCH(compare_exact(counters.download(), contention_reference(v, how, addresses)));
}

const size_t kSizes[] = {0, 1, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 100003, (1u << 20) + 7};
// A contended CAS loop on one word succeeds about once per pass of all waiting threads through
// the L2, so its time grows with the square of the thread count: these stay small.
const size_t kCasSizes[] = {0, 1, 31, 33, 257, 1025, 10007};
const size_t kLockSizes[] = {0, 1, 31, 32, 33, 257, 1025, 100003};
const Aggregation kHow[] = {Aggregation::none, Aggregation::warp, Aggregation::block};

}  // namespace

DECLARE_STEPS(kSteps);

// ---- every step, as the program runs it ----------------------------------------------------------
// Each kernel of the step on sizes around a warp and a block, checked as `make run-06` checks it
// (step_cases.cpp); the contention step on 32 addresses.
STEP_CASES(kSteps, "n = 1, 31, 32, 33, 255, 256, 257, 1025, 10007: each kernel as the CPU says", [](const auto& step) {
    for (size_t n : {1, 31, 32, 33, 255, 256, 257, 1025, 10007}) {
        Workload w(n, 32, n, n + 40);
        for (size_t k = 0; k < step.info.kernel_count(); ++k) {
            CAPTURE(n);
            INFO(step.info.kernels[k].name);
            step.run(w, k);
            CUDA_CHECK(cudaDeviceSynchronize());
            const Outcome o = step.info.check(w, k);
            INFO("got " << o.got << ", expected " << o.expected << ": " << o.note);
            CHECK(o.ok);
        }
    }
});

// ---- step 1 ---------------------------------------------------------------------------------
// Why the barrier version must lose updates: every thread of a block loads the counter before
// any thread of that block stores (the barrier is between). Follow the chain of values back
// from the final one: the store of value v read v - 1, stored by an EARLIER block's store, which
// came after that block's own loads. A block cannot appear twice in the chain (its loads all
// precede its stores), so the final value is at most the number of blocks: for n >= 2 at least
// n - ceil(n / 256) updates are lost, whatever the scheduling or the GPU.
STEP_CASE(kSteps, "race", "barrier version loses updates for certain (1 <= got <= blocks < n)") {
    for (size_t n : {(size_t)2, (size_t)33, (size_t)256, (size_t)257, (size_t)1000, (size_t)100003, (size_t)1 << 20}) {
        CAPTURE(n);
        const int got = race_on_gpu(n, RaceKind::barrier);
        MESSAGE("n = " << n << ": counter " << got << ", lost " << (long long)n - got);
        CHECK(got >= 1);
        CHECK((size_t)got <= blocks_of(n));
        CHECK((size_t)got < n);
    }
}
STEP_CASE(kSteps, "race", "plain version counts at least 1 and at most n") {
    for (size_t n : {(size_t)1000, (size_t)100003, (size_t)1 << 20}) {
        CAPTURE(n);
        const int got = race_on_gpu(n, RaceKind::plain);
        MESSAGE("n = " << n << ": counter " << got << ", lost " << (long long)n - got << " (depends on timing)");
        CHECK(got >= 1);
        CHECK((size_t)got <= n);
    }
}
STEP_CASE(kSteps, "race", "one thread counts 1; n = 0 leaves the counter alone") {
    CHECK(race_on_gpu(1, RaceKind::plain) == 1);
    CHECK(race_on_gpu(1, RaceKind::barrier) == 1);
    CHECK(race_on_gpu(1, RaceKind::barrier, 41) == 42);
    CHECK(race_on_gpu(0, RaceKind::plain, 7) == 7);
    CHECK(race_on_gpu(0, RaceKind::barrier, 7) == 7);
}

// ---- step 2 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "atomic_add", "int sums exact for n = 0 to 2^20 + 7") {
    for (size_t n : kSizes) {
        CAPTURE(n);
        std::vector<int> v = random_ints(n, n + 1, -1000, 1000);
        CHECK(accumulate_on_gpu(run_atomic_add_int, v, 0) == wrap_to_int(exact_sum(v)));
    }
    std::vector<int> v = random_ints(5000, 3, -1000, 1000);
    CHECK(accumulate_on_gpu(run_atomic_add_int, v, 123456) == wrap_to_int(123456 + exact_sum(v)));
}
STEP_CASE(kSteps, "atomic_add", "int sum of 2^25 + 1 values (large)") {
    std::vector<int> v = random_ints(((size_t)1 << 25) + 1, 5, -50, 50);
    CHECK(accumulate_on_gpu(run_atomic_add_int, v, 0) == wrap_to_int(exact_sum(v)));
}
STEP_CASE(kSteps, "atomic_add", "float and double sums of small integers are exact") {
    for (size_t n : kSizes) {
        CAPTURE(n);
        std::vector<float> f = small_integers<float>(n, n + 2);
        std::vector<double> d = small_integers<double>(n, n + 3);
        CHECK(accumulate_on_gpu(run_atomic_add_float, f, 0.0f) == (float)sum_reference(f).sum);
        CHECK(accumulate_on_gpu(run_atomic_add_double, d, 0.0) == sum_reference(d).sum);
    }
}
STEP_CASE(kSteps, "atomic_add", "float and double sums of random values within tolerance") {
    for (size_t n : {(size_t)1, (size_t)33, (size_t)1025, (size_t)100003, ((size_t)1 << 20) + 7}) {
        expect_sum_within(run_atomic_add_float, random_floats(n, n + 4, -1.0f, 1.0f));
        expect_sum_within(run_atomic_add_double, random_doubles(n, n + 5));
    }
}

// ---- step 3 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "cas_add", "float and double equal the built-in atomicAdd exactly on small integers") {
    for (size_t n : kCasSizes) {
        CAPTURE(n);
        std::vector<float> f = small_integers<float>(n, n + 6);
        std::vector<double> d = small_integers<double>(n, n + 7);
        const float f_cas = accumulate_on_gpu(run_cas_add_float, f, 0.0f);
        const double d_cas = accumulate_on_gpu(run_cas_add_double, d, 0.0);
        CHECK(bits(f_cas) == bits(accumulate_on_gpu(run_atomic_add_float, f, 0.0f)));
        CHECK(bits(d_cas) == bits(accumulate_on_gpu(run_atomic_add_double, d, 0.0)));
        CHECK(f_cas == (float)sum_reference(f).sum);
        CHECK(d_cas == sum_reference(d).sum);
    }
}
STEP_CASE(kSteps, "cas_add", "float and double sums of random values within tolerance") {
    for (size_t n : kCasSizes) {
        if (n == 0) continue;
        expect_sum_within(run_cas_add_float, random_floats(n, n + 8, -1.0f, 1.0f));
        expect_sum_within(run_cas_add_double, random_doubles(n, n + 9));
    }
}
STEP_CASE(kSteps, "cas_add", "2^16 + 7 random values on one word (large)") {
    const size_t n = ((size_t)1 << 16) + 7;
    expect_sum_within(run_cas_add_float, random_floats(n, 10, -1.0f, 1.0f));
    expect_sum_within(run_cas_add_double, random_doubles(n, 11));
}
// A loop that compared floats instead of bits would never end here: NaN != NaN, so a CAS that
// succeeded (the bits matched) would look like a failure forever.
STEP_CASE(kSteps, "cas_add", "a NaN among the values makes the sum NaN, and the loop ends") {
    std::vector<float> f = random_floats(5000, 12, -1.0f, 1.0f);
    std::vector<double> d = random_doubles(5000, 13);
    f[1234] = kNaN;
    d[4321] = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(accumulate_on_gpu(run_cas_add_float, f, 0.0f)));
    CHECK(std::isnan(accumulate_on_gpu(run_cas_add_double, d, 0.0)));
}
STEP_CASE(kSteps, "cas_add", "signed zeros: -0.0 + (+0.0) is +0.0, -0.0 + (-0.0) stays -0.0") {
    std::vector<float> plus(1000, 0.0f), minus(1000, -0.0f);
    CHECK(bits(accumulate_on_gpu(run_cas_add_float, plus, -0.0f)) == bits(0.0f));
    CHECK(bits(accumulate_on_gpu(run_cas_add_float, minus, -0.0f)) == bits(-0.0f));
    std::vector<double> dplus(1000, 0.0);
    CHECK(bits(accumulate_on_gpu(run_cas_add_double, dplus, -0.0)) == bits(0.0));
}

// ---- step 4 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "cas_max_min", "random values in [-100, 100), many sizes") {
    for (size_t n : {(size_t)1, (size_t)2, (size_t)31, (size_t)33, (size_t)257, (size_t)1025, (size_t)100003})
        expect_extremes(random_floats(n, n + 14, -100.0f, 100.0f));
}
STEP_CASE(kSteps, "cas_max_min", "all values negative (an integer max of the bits gets these wrong)") {
    expect_extremes(random_floats(10007, 15, -1000.0f, -1.0f));
    expect_extremes(random_floats(33, 16, -1e-30f, -1e-38f));
}
STEP_CASE(kSteps, "cas_max_min", "signed zeros: -0.0 is below +0.0") {
    std::vector<float> zeros(10000);
    for (size_t i = 0; i < zeros.size(); ++i) zeros[i] = i % 2 ? 0.0f : -0.0f;
    expect_extremes(zeros);  // max +0.0, min -0.0, however they interleave
    CHECK(bits(accumulate_on_gpu(run_cas_max_float, zeros, kNaN)) == bits(0.0f));
    CHECK(bits(accumulate_on_gpu(run_cas_min_float, zeros, kNaN)) == bits(-0.0f));
    std::vector<float> negatives = random_floats(3000, 17, -5.0f, -1.0f);
    negatives[100] = -0.0f;  // the max of negatives and -0.0 is -0.0
    expect_extremes(negatives);
    CHECK(bits(accumulate_on_gpu(run_cas_max_float, negatives, kNaN)) == bits(-0.0f));
    std::vector<float> positives = random_floats(3000, 18, 1.0f, 5.0f);
    positives[200] = 0.0f;  // the min of positives and +0.0 is +0.0
    expect_extremes(positives);
    CHECK(bits(accumulate_on_gpu(run_cas_min_float, positives, kNaN)) == bits(0.0f));
}
STEP_CASE(kSteps, "cas_max_min", "NaN is ignored; only an all-NaN input leaves NaN") {
    std::vector<float> v = random_floats(20000, 19, -50.0f, 50.0f);
    for (size_t i = 0; i < v.size(); i += 7) v[i] = kNaN;
    expect_extremes(v);
    CHECK(!std::isnan(accumulate_on_gpu(run_cas_max_float, v, kNaN)));
    std::vector<float> all_nan(500, kNaN);
    CHECK(std::isnan(accumulate_on_gpu(run_cas_max_float, all_nan, kNaN)));
    CHECK(std::isnan(accumulate_on_gpu(run_cas_min_float, all_nan, kNaN)));
    CHECK(accumulate_on_gpu(run_cas_max_float, all_nan, 3.0f) == 3.0f);
}
STEP_CASE(kSteps, "cas_max_min", "combines with the value already stored") {
    std::vector<float> v = random_floats(4099, 20, -10.0f, 10.0f);
    CHECK(accumulate_on_gpu(run_cas_max_float, v, 50.0f) == 50.0f);
    CHECK(accumulate_on_gpu(run_cas_min_float, v, -50.0f) == -50.0f);
    CHECK(accumulate_on_gpu(run_cas_max_float, v, -50.0f) == max_reference(v, kNaN));
    CHECK(accumulate_on_gpu(run_cas_min_float, v, 50.0f) == min_reference(v, kNaN));
    CHECK(accumulate_on_gpu(run_cas_max_float, std::vector<float>{}, 5.0f) == 5.0f);  // n = 0
}

// ---- the students' predictions (starter.cu; answers.cpp derives each answer) -------------------
STEP_HOST_CASE(kSteps, "cas_add", "prediction kCasTries32: atomicCAS issued by 32 threads that read together") {
    check_prediction("kCasTries32", (double)kCasTries32, "what one success does to every other thread's expected value");
}
STEP_HOST_CASE(kSteps, "cas_max_min", "prediction kIntMaxOfNegatives: integer atomicMax on negative floats' bits") {
    check_prediction("kIntMaxOfNegatives", kIntMaxOfNegatives,
                     "how a negative float's sign, exponent and mantissa bits read as a signed int");
}
// The program's per-warp atomics count of step 6 is the same count, so it waits for this prediction.
STEP_HOST_CASE(kSteps, "spinlock", "prediction kLockAcquisitions100003: lock acquisitions for n = 100003") {
    check_prediction("kLockAcquisitions100003", (double)kLockAcquisitions100003,
                     "who takes the lock, and what the warps of the last block hold");
    const bool model_agrees = (double)atomics_issued(100003, Aggregation::warp) ==
                              find_answer("kLockAcquisitions100003")->derive();  // no number printed
    CHECK_MESSAGE(model_agrees, "atomics_issued per warp must count this answer: the program shows it only then");
}
STEP_HOST_CASE(kSteps, "contention", "prediction kLinesOf1024Counters: 128-byte lines under 1024 int counters") {
    check_prediction("kLinesOf1024Counters", (double)kLinesOf1024Counters, "how many 4-byte counters share one 128-byte line");
}

// ---- step 5 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "spinlock", "count, integer sum and max exact for n = 0 to 100003") {
    for (size_t n : kLockSizes) expect_record(random_ints(n, n + 21, -1000, 1000));
}
STEP_CASE(kSteps, "spinlock", "2^20 + 7 values, 32769 warps through one lock (large)") {
    expect_record(random_ints(((size_t)1 << 20) + 7, 25, -1000, 1000));
}
STEP_CASE(kSteps, "spinlock", "all values negative") {
    expect_record(random_ints(10001, 22, -1000000, -1));
}
STEP_CASE(kSteps, "spinlock", "two launches accumulate into one record") {
    expect_record(random_ints(50001, 23, -1000, 1000), 2);
}

// ---- step 6 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "contention", "totals and counters exact, each aggregation, 1 to 2^20 addresses") {
    for (Aggregation how : kHow)
        for (size_t addresses : {(size_t)1, (size_t)32, (size_t)1024, (size_t)1 << 20})
            for (size_t n : {(size_t)1, (size_t)31, (size_t)33, (size_t)257, (size_t)100003})
                expect_contention(random_ints(n, n + addresses, 1, 3), how, addresses);
}
STEP_CASE(kSteps, "contention", "n = 0 adds nothing") {
    for (Aggregation how : kHow) expect_contention({}, how, 32);
}
STEP_CASE(kSteps, "contention", "2^24 + 5 values (large)") {
    std::vector<int> v = random_ints(((size_t)1 << 24) + 5, 24, -3, 3);
    for (Aggregation how : kHow) expect_contention(v, how, 1024);
}

// ---- library baseline -----------------------------------------------------------------------
TEST_CASE("library: cub::DeviceReduce::Sum (CubSum) matches the CPU" * needs_gpu()) {
    CubSum cub(((size_t)1 << 20) + 1);
    for (size_t n : {(size_t)1, (size_t)100003, ((size_t)1 << 20) + 1}) {
        CAPTURE(n);
        std::vector<int> v = random_ints(n, n, -1000, 1000);
        DeviceBuffer<int> d(v), total(1);
        total.poison();
        cub.run(d.get(), n, total.get());
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK(total.download()[0] == wrap_to_int(exact_sum(v)));
    }
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: as floats -0.0 == +0.0 and NaN != NaN; as bit patterns it is the other way") {
    const float nan = kNaN;
    CHECK(-0.0f == 0.0f);
    CHECK(bits(-0.0f) != bits(0.0f));
    CHECK_FALSE(nan == nan);
    CHECK(bits(nan) == bits(nan));
}
TEST_CASE("host: the max/min rule: NaN ignored, -0.0 below +0.0, negatives in order") {
    // Both orders of each pair: the rule may not depend on which value came first.
    for (const std::vector<float>& zeros : {std::vector<float>{0.0f, -0.0f}, std::vector<float>{-0.0f, 0.0f}}) {
        CHECK(bits(max_reference(zeros, kNaN)) == bits(0.0f));
        CHECK(bits(min_reference(zeros, kNaN)) == bits(-0.0f));
    }
    CHECK(max_reference({-2.0f, -1.0f}, kNaN) == -1.0f);
    CHECK(min_reference({-1.0f, -2.0f}, kNaN) == -2.0f);
    CHECK(max_reference({1.0f}, kNaN) == 1.0f);         // a number beats the stored NaN
    CHECK(max_reference({kNaN}, 1.0f) == 1.0f);         // a NaN input never wins
    CHECK(max_reference({-1e30f, kNaN}, kNaN) == -1e30f);
    CHECK(bits(max_reference({-3.0f, -0.0f, kNaN, -1.0f}, kNaN)) == bits(-0.0f));
    CHECK(bits(min_reference({3.0f, 0.0f, kNaN, -0.0f, 1.0f}, kNaN)) == bits(-0.0f));
    CHECK(std::isnan(max_reference({kNaN, kNaN}, kNaN)));
}
TEST_CASE("host: contention addresses: per thread, per warp, per block") {
    CHECK(contention_address(37, Aggregation::none, 32) == 5);
    CHECK(contention_address(37, Aggregation::warp, 32) == 1);
    CHECK(contention_address(37 + 256 * 3, Aggregation::block, 2) == 1);
    CHECK(contention_address(123456, Aggregation::none, 1) == 0);
    CHECK(atomics_issued(2048, Aggregation::none) == 2048);
    CHECK(atomics_issued(2048, Aggregation::warp) == 64);
    CHECK(atomics_issued(2048, Aggregation::block) == 8);
}
// The host-side RAII guard of the README: the destructor unlocks on every way out of a scope.
TEST_CASE("host: std::lock_guard releases the mutex on early return and on an exception") {
    std::mutex m;
    int shared = 0;
    auto update = [&](int how) {
        std::lock_guard<std::mutex> guard(m);
        ++shared;
        if (how == 1) return;  // early return
        if (how == 2) throw std::runtime_error("failure inside the critical section");
        ++shared;
    };
    update(0);
    update(1);
    CHECK_THROWS(update(2));
    CHECK(shared == 4);
    CHECK(m.try_lock());  // free again after all three ways out
    m.unlock();
}
