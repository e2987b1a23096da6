// 06_atomics_cas/step_cases.cpp: each step's kernels as main.cpp and tests.cpp run them: set the
// target, run the launcher, and check the result against the CPU (atomics_cas.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "answers.h"  // find_answer: a count that answers a prediction waits for it
#include "atomics_cas.h"
#include "bench.h"  // strf

Workload::Workload(size_t n_, size_t addresses_, size_t cas_n_, uint64_t seed)
    : n(n_), cas_n(std::min(cas_n_, n_)), addresses(addresses_) {  // main.cpp refuses a larger --cas-n
    ints = random_ints(n, seed, -3, 3);
    floats = random_floats(n, seed + 1, -1.0f, 1.0f);
    doubles.resize(n);
    for (size_t i = 0; i < n; ++i) doubles[i] = floats[i] / 3.0;
    extremes = random_floats(n, seed + 2, -100.0f, 100.0f);
    for (size_t i = 7; i < n; i += 1009) extremes[i] = std::nanf("");
    for (size_t i = 11; i < n; i += 2003) extremes[i] = -0.0f;
    for (size_t i = 13; i < n; i += 3001) extremes[i] = 0.0f;
    d_ints = DeviceBuffer<int>(ints);
    d_floats = DeviceBuffer<float>(floats);
    d_doubles = DeviceBuffer<double>(doubles);
    d_extremes = DeviceBuffer<float>(extremes);
    counters = DeviceBuffer<int>(addresses);
    int_sum = exact_sum(ints);
    float_sum = sum_reference(floats.data(), n);
    double_sum = sum_reference(doubles.data(), n);
    float_cas_sum = sum_reference(floats.data(), cas_n);
    double_cas_sum = sum_reference(doubles.data(), cas_n);
    max = max_reference(extremes, std::nanf(""));
    min = min_reference(extremes, std::nanf(""));
    record_sum = record_reference(ints, empty_record());
}

// Step 4's rule on the host, the reference the GPU's results are compared with bit for bit.
namespace {
bool max_beats(float candidate, float current) {
    if (std::isnan(candidate)) return false;
    if (std::isnan(current)) return true;
    if (candidate == current) return std::signbit(current) && !std::signbit(candidate);
    return candidate > current;
}
bool min_beats(float candidate, float current) {
    if (std::isnan(candidate)) return false;
    if (std::isnan(current)) return true;
    if (candidate == current) return !std::signbit(current) && std::signbit(candidate);
    return candidate < current;
}
}  // namespace

float max_reference(const std::vector<float>& v, float start) {
    float m = start;
    for (float x : v)
        if (max_beats(x, m)) m = x;
    return m;
}
float min_reference(const std::vector<float>& v, float start) {
    float m = start;
    for (float x : v)
        if (min_beats(x, m)) m = x;
    return m;
}

namespace {

template <class T>
T download_one(const DeviceBuffer<T>& b) {
    return b.download()[0];
}
void zero(void* p, size_t bytes) { CUDA_CHECK(cudaMemsetAsync(p, 0, bytes)); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A float or double sum of m values against the double-precision reference.
template <class T>
Outcome sum_outcome(const DeviceBuffer<T>& target, size_t m, const ReferenceSum& ref) {
    const double got = download_one(target);
    const Tolerance tol = sum_tolerance<T>(m, ref);
    return {within(got, ref.sum, tol), strf("%.10g", got), strf("%.10g", ref.sum),
            strf("|error| %.2g, allowed %.2g", std::fabs(got - ref.sum), tol.atol)};
}

}  // namespace

Outcome int_sum_outcome(int got, long long ref) {
    const bool ok = got == wrap_to_int(ref);
    return {ok, std::to_string(got), std::to_string(wrap_to_int(ref)), ok ? "exact" : "an int sum must be exact"};
}

// ---- Step 1: race plain (k = 0), race barrier (k = 1) ----------------------------------------
void launch_race(Workload& w, size_t k) {
    zero(w.counter.get(), sizeof(int));
    run_race(w.counter.get(), w.n, k == 0 ? RaceKind::plain : RaceKind::barrier);
}
// The counter must hold 1 to `limit`: updates were lost, but not all of them.
Outcome check_race(const Workload& w, size_t k) {
    const size_t got = (size_t)download_one(w.counter);  // a negative count reads as far above the limit
    const size_t limit = k == 0 ? w.n : blocks_of(w.n);
    const std::string why = k == 0 ? "" : strf(", as it must: at most %zu blocks count", limit);
    const bool ok = got >= 1 && got <= limit;
    return {ok, std::to_string((int)got), std::to_string(w.n),
            ok ? strf("lost %zu of %zu updates (%.2f%%)%s", w.n - got, w.n, 100.0 * (w.n - got) / w.n, why.c_str())
               : strf("the counter holds %d, but must be 1 to %zu", (int)got, limit)};
}

// ---- Step 2: int (k = 0), float (1), double (2) ----------------------------------------------
void launch_atomic_add(Workload& w, size_t k) {
    if (k == 0) {
        zero(w.counter.get(), sizeof(int));
        run_atomic_add_int(w.d_ints.get(), w.counter.get(), w.n);
    } else if (k == 1) {
        zero(w.fvalue.get(), sizeof(float));
        run_atomic_add_float(w.d_floats.get(), w.fvalue.get(), w.n);
    } else {
        zero(w.dvalue.get(), sizeof(double));
        run_atomic_add_double(w.d_doubles.get(), w.dvalue.get(), w.n);
    }
}
Outcome check_atomic_add(const Workload& w, size_t k) {
    if (k == 0) return int_sum_outcome(download_one(w.counter), w.int_sum);
    return k == 1 ? sum_outcome(w.fvalue, w.n, w.float_sum) : sum_outcome(w.dvalue, w.n, w.double_sum);
}

// ---- Step 3: float (k = 0), double (1), on the first cas_n values ----------------------------
void launch_cas_add(Workload& w, size_t k) {
    if (k == 0) {
        zero(w.fvalue.get(), sizeof(float));
        run_cas_add_float(w.d_floats.get(), w.fvalue.get(), w.cas_n);
    } else {
        zero(w.dvalue.get(), sizeof(double));
        run_cas_add_double(w.d_doubles.get(), w.dvalue.get(), w.cas_n);
    }
}
Outcome check_cas_add(const Workload& w, size_t k) {
    return k == 0 ? sum_outcome(w.fvalue, w.cas_n, w.float_cas_sum) : sum_outcome(w.dvalue, w.cas_n, w.double_cas_sum);
}

// ---- Step 4: max (k = 0), min (1), starting from NaN ("no value yet") ------------------------
void launch_cas_max_min(Workload& w, size_t k) {
    w.fvalue.poison();
    (k == 0 ? run_cas_max_float : run_cas_min_float)(w.d_extremes.get(), w.fvalue.get(), w.n);
}
Outcome check_cas_max_min(const Workload& w, size_t k) {
    const float got = download_one(w.fvalue), ref = k == 0 ? w.max : w.min;
    const bool ok = same_bits(got, ref);
    return {ok, strf("%.9g", got), strf("%.9g", ref),
            ok ? "bit for bit (NaN ignored, -0 < +0)" : "must match bit for bit (NaN ignored, -0 < +0)"};
}

// ---- Step 5 ---------------------------------------------------------------------------------
void launch_spinlock(Workload& w, size_t) {
    static const LockedRecord empty = empty_record();
    CUDA_CHECK(cudaMemcpyAsync(w.record.get(), &empty, sizeof empty, cudaMemcpyHostToDevice));
    zero(w.lock.get(), sizeof(int));
    run_spinlock(w.d_ints.get(), w.record.get(), w.lock.get(), w.n);
}
Outcome check_spinlock(const Workload& w, size_t) {
    const LockedRecord r = download_one(w.record), ref = w.record_sum;
    const int lock = download_one(w.lock);
    const bool ok = r.sum == ref.sum && r.count == ref.count && r.max == ref.max && lock == 0;
    return {ok, strf("count %lld, sum %lld, max %lld", r.count, r.sum, r.max),
            strf("count %lld, sum %lld, max %lld", ref.count, ref.sum, ref.max),
            !ok && lock != 0 ? "the lock was left held" : ok ? "record consistent, lock free again" : "the record does not match"};
}

// ---- Step 6: per thread (k = 0), per warp (1), per block (2), on w.addresses counters --------
void launch_contention(Workload& w, size_t k) {
    zero(w.counters.get(), w.addresses * sizeof(int));
    zero(w.total.get(), sizeof(int));
    run_contention(w.d_ints.get(), w.n, kAggregations[k], w.counters.get(), w.addresses, w.total.get());
}
Outcome check_contention(const Workload& w, size_t k) {
    Outcome o = int_sum_outcome(download_one(w.total), w.int_sum);
    const Comparison c =
        compare_exact(w.counters.download(w.addresses), contention_reference(w.ints, kAggregations[k], w.addresses));
    o.ok = o.ok && c.ok();
    o.note = strf("%s atomics on %zu address%s; counters: %s", contention_atomics(w, k).c_str(), w.addresses,
                  w.addresses == 1 ? "" : "es", c.describe().c_str());
    return o;
}
std::string contention_atomics(const Workload& w, size_t k) {
    const std::string count = std::to_string(atomics_issued(w.n, kAggregations[k]));
    if (kAggregations[k] != Aggregation::warp) return count;
    // One per warp that holds a value, as the lock of step 5 is taken: with --n 100003 this count
    // is kLockAcquisitions100003's answer, so it waits for that prediction (steps.h: Prediction).
    const Prediction predicted{"kLockAcquisitions100003", &kLockAcquisitions100003};
    return predicted.shown(count, find_answer(predicted.name)->derive());
}
