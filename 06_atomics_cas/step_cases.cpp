// 06_atomics_cas/step_cases.cpp: each step's kernels as main.cpp and tests.cpp run them: how to
// reset the target, run the launcher and check the result against the CPU (atomics_cas.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "atomics_cas.h"
#include "bench.h"  // strf

Workload::Workload(size_t n_, size_t addresses_, size_t cas_n_, uint64_t seed)
    : n(n_), addresses(addresses_), cas_n(std::min(cas_n_, n_)) {  // main.cpp refuses a larger --cas-n
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

// The counter of a race must hold 1 to `limit`: updates were lost, but not all of them.
Outcome race_outcome(int got, size_t n, size_t limit, const std::string& why) {
    Outcome o;
    o.ok = got >= 1 && (size_t)got <= limit;
    o.got = std::to_string(got);
    o.expected = std::to_string(n);
    o.note = strf("lost %zu of %zu updates (%.2f%%)%s", n - (size_t)got, n, 100.0 * (n - (size_t)got) / n, why.c_str());
    if (!o.ok) o.note = strf("the counter holds %d, but must be 1 to %zu", got, limit);
    return o;
}
Outcome sum_outcome(double got, double ref, Tolerance tol) {
    Outcome o;
    o.ok = within(got, ref, tol);
    o.got = strf("%.10g", got);
    o.expected = strf("%.10g", ref);
    o.note = strf("|error| %.2g, allowed %.2g", std::fabs(got - ref), tol.atol);
    return o;
}
Outcome int_sum_outcome(int got, long long ref) {
    Outcome o;
    o.ok = got == wrap_to_int(ref);
    o.got = std::to_string(got);
    o.expected = std::to_string(wrap_to_int(ref));
    o.note = o.ok ? "exact" : "an int sum must be exact";
    return o;
}

// A float or double sum over the first m values, checked against the double reference.
template <class T>
StepCase sum_case(const char* name, size_t m, const std::vector<T>& values, const DeviceBuffer<T>& d_values,
                  DeviceBuffer<T>& target, void (*launch)(const T*, T*, size_t)) {
    const ReferenceSum ref = sum_reference(values.data(), m);
    const Tolerance tol = sum_tolerance<T>(m, ref);
    return {name, m, [&target] { zero(target.get(), sizeof(T)); },
            [&d_values, &target, launch, m] { launch(d_values.get(), target.get(), m); },
            [&target, ref, tol] { return sum_outcome((double)download_one(target), ref.sum, tol); }};
}

}  // namespace

std::vector<StepCase> race_cases(Workload& w) {
    std::vector<StepCase> cases;
    for (RaceKind kind : {RaceKind::plain, RaceKind::barrier}) {
        const bool plain = kind == RaceKind::plain;
        cases.push_back({plain ? "race plain" : "race barrier", w.n, [&w] { zero(w.counter.get(), sizeof(int)); },
                         [&w, kind] { run_race(w.counter.get(), w.n, kind); },
                         [&w, plain] {
                             const size_t limit = plain ? w.n : blocks_of(w.n);
                             const std::string why = plain ? "" : strf(", as it must: at most %zu blocks count", limit);
                             return race_outcome(download_one(w.counter), w.n, limit, why);
                         }});
    }
    return cases;
}

std::vector<StepCase> atomic_add_cases(Workload& w) {
    const long long isum = exact_sum(w.ints);
    return {{"atomic_add_int", w.n, [&w] { zero(w.counter.get(), sizeof(int)); },
             [&w] { run_atomic_add_int(w.d_ints.get(), w.counter.get(), w.n); },
             [&w, isum] { return int_sum_outcome(download_one(w.counter), isum); }},
            sum_case("atomic_add_float", w.n, w.floats, w.d_floats, w.fvalue, run_atomic_add_float),
            sum_case("atomic_add_double", w.n, w.doubles, w.d_doubles, w.dvalue, run_atomic_add_double)};
}

std::vector<StepCase> cas_add_cases(Workload& w) {
    return {sum_case("cas_add_float", w.cas_n, w.floats, w.d_floats, w.fvalue, run_cas_add_float),
            sum_case("cas_add_double", w.cas_n, w.doubles, w.d_doubles, w.dvalue, run_cas_add_double)};
}

std::vector<StepCase> cas_max_min_cases(Workload& w) {
    std::vector<StepCase> cases;
    for (bool is_max : {true, false}) {
        const float ref = is_max ? max_reference(w.extremes, std::nanf("")) : min_reference(w.extremes, std::nanf(""));
        cases.push_back({is_max ? "cas_max_float" : "cas_min_float", w.n, [&w] { w.fvalue.poison(); },  // NaN: empty
                         [&w, is_max] {
                             (is_max ? run_cas_max_float : run_cas_min_float)(w.d_extremes.get(), w.fvalue.get(), w.n);
                         },
                         [&w, ref] {
                             Outcome o;
                             const float got = download_one(w.fvalue);
                             o.ok = same_bits(got, ref);
                             o.got = strf("%.9g", got);
                             o.expected = strf("%.9g", ref);
                             o.note = o.ok ? "bit for bit (NaN ignored, -0 < +0)"
                                           : "must match bit for bit (NaN ignored, -0 < +0)";
                             return o;
                         }});
    }
    return cases;
}

std::vector<StepCase> spinlock_cases(Workload& w) {
    const LockedRecord rref = record_reference(w.ints, empty_record());
    return {{"spinlock", w.n,
             [&w] {
                 static const LockedRecord empty = empty_record();
                 CUDA_CHECK(cudaMemcpyAsync(w.record.get(), &empty, sizeof empty, cudaMemcpyHostToDevice));
                 zero(w.lock.get(), sizeof(int));
             },
             [&w] { run_spinlock(w.d_ints.get(), w.record.get(), w.lock.get(), w.n); },
             [&w, rref] {
                 Outcome o;
                 const LockedRecord r = download_one(w.record);
                 const int lock = download_one(w.lock);
                 o.ok = r.sum == rref.sum && r.count == rref.count && r.max == rref.max && lock == 0;
                 o.got = strf("count %lld, sum %lld, max %lld", r.count, r.sum, r.max);
                 o.expected = strf("count %lld, sum %lld, max %lld", rref.count, rref.sum, rref.max);
                 o.note = !o.ok && lock != 0 ? "the lock was left held"
                          : o.ok             ? "record consistent, lock free again"
                                             : "the record does not match";
                 return o;
             }}};
}

std::vector<StepCase> contention_cases(Workload& w) {
    const long long isum = exact_sum(w.ints);
    std::vector<StepCase> cases;
    for (Aggregation how : kAggregations) {
        const std::vector<int> cref = contention_reference(w.ints, how, w.addresses);
        cases.push_back({std::string("contention ") + aggregation_name(how), w.n,
                         [&w] {
                             zero(w.counters.get(), w.counters.bytes());
                             zero(w.total.get(), sizeof(int));
                         },
                         [&w, how] {
                             run_contention(w.d_ints.get(), w.n, how, w.counters.get(), w.addresses, w.total.get());
                         },
                         [&w, how, isum, cref] {
                             Outcome o = int_sum_outcome(download_one(w.total), isum);
                             const Comparison c = compare_exact(w.counters.download(), cref);
                             o.ok = o.ok && c.ok();
                             o.note = strf("%zu atomics on %zu address%s; counters: %s", atomics_issued(w.n, how),
                                           w.addresses, w.addresses == 1 ? "" : "es", c.describe().c_str());
                             return o;
                         }});
    }
    return cases;
}
