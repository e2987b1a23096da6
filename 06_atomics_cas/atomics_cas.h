// atomics_cas.h: the interface of exercise 06, many threads updating the same memory.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Pointers are device pointers. Each run_* function launches its kernel(s) and returns without
// waiting (the caller synchronises); n == 0 is allowed and does nothing. Every launcher ADDS to
// the memory it is given: the caller initialises it first (0 for sums, NaN for max/min, ...).
// Every kernel here runs one thread per update, in blocks of kBlock threads, so n may be at most
// 2^31 - 1 blocks' worth; main.cpp caps --n at 2^28.
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "buffer.h"
#include "compare.h"
#include "launch.h"
#include "steps.h"

constexpr int kBlock = 256;  // threads per block of every kernel (a whole number of warps)
constexpr int kWarp = 32;

inline size_t blocks_of(size_t n) { return ceil_div(n, kBlock); }

// ---- Step 1: race -------------------------------------------------------------------------
// n threads each add 1 to *counter without atomics. Both versions lose updates:
//   plain:   `*counter += 1` (load, add, store); how many are lost depends on timing.
//   barrier: load, __syncthreads(), store; the counter ends between 1 and blocks_of(n)
//            (README question 1 asks why).
enum class RaceKind { plain, barrier };
void run_race(int* counter, size_t n, RaceKind kind);

// ---- Step 2: atomic_add (the built-in atomicAdd) --------------------------------------------
// *sum += values[i] for every i < n, one atomicAdd per thread, all on the same address.
void run_atomic_add_int(const int* values, int* sum, size_t n);
void run_atomic_add_float(const float* values, float* sum, size_t n);
void run_atomic_add_double(const double* values, double* sum, size_t n);

// ---- Step 3: cas_add (atomicAdd built from atomicCAS) ---------------------------------------
// The same sums as step 2, each addition a compare-and-swap loop on the value's bit pattern.
void run_cas_add_float(const float* values, float* sum, size_t n);
void run_cas_add_double(const double* values, double* sum, size_t n);
// Your prediction (starter.cu, checked by the tests): the atomicCAS issued by 32 threads that
// read the word together, when each round of tries lets exactly one succeed.
extern const long long kCasTries32;

// ---- Step 4: cas_max_min (operations with no float built-in) -------------------------------
// *result = max (or min) of *result and every values[i], by the rule of IEEE 754-2019
// maximumNumber / minimumNumber (the README's table): NaN means "no value" and never wins, any
// number beats a stored NaN, -0.0 counts as smaller than +0.0, otherwise the usual order. So the
// result is NaN only when no input was a number. Initialise *result to NaN for "no value yet"
// (DeviceBuffer::poison() does).
void run_cas_max_float(const float* values, float* result, size_t n);
void run_cas_min_float(const float* values, float* result, size_t n);
// Your prediction: the float that integer atomicMax keeps over the bit patterns of -0.5f, -1.0f,
// -2.0f and -4.0f.
extern const float kIntMaxOfNegatives;

// ---- Step 5: spinlock (a mutex guarding a record of several words) --------------------------
// Each warp that has values sums, counts and takes the max of them, then ONE lane takes the
// lock, updates the three fields together, and releases it. *lock must be 0 (free) before the launch and is
// 0 again after it. The record is three words: no single atomic can update it.
struct LockedRecord {
    long long sum;
    long long count;
    long long max;
};
inline LockedRecord empty_record() { return LockedRecord{0, 0, LLONG_MIN}; }
void run_spinlock(const int* values, LockedRecord* record, int* lock, size_t n);
// Your prediction: how many times run_spinlock takes the lock for n = 100003.
extern const long long kLockAcquisitions100003;

// ---- Step 6: contention ---------------------------------------------------------------------
// Adds every values[i] into one of `addresses` counters (a power of two), issuing one atomic
// per thread, per warp (the warp's sum), or per block (the block's sum); then adds the sum of
// all counters to *total. Update i goes to counters[contention_address(i, how, addresses)];
// with addresses == 1 every atomic hits the same word.
enum class Aggregation { none, warp, block };
void run_contention(const int* values, size_t n, Aggregation how, int* counters, size_t addresses,
                    int* total);
// Your prediction: the 128-byte lines that 1024 consecutive int counters lie on.
extern const long long kLinesOf1024Counters;

inline size_t contention_address(size_t i, Aggregation how, size_t addresses) {
    size_t unit = how == Aggregation::none ? i : how == Aggregation::warp ? i / kWarp : i / kBlock;
    return unit & (addresses - 1);
}
// The atomics run_contention issues for n updates (besides the counters' sum): the program's
// atomics column. Counting them per warp is step 5's prediction too, so answers.cpp holds it.
size_t atomics_issued(size_t n, Aggregation how);
inline bool is_power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// The library baseline, cub::DeviceReduce::Sum (no atomics on a shared word at all), is CubSum
// (common/baselines/cub_sum.h).

// ---- CPU references (double precision or exact) ----------------------------------------------
// Integer sums wrap modulo 2^32 on the GPU; the reference does the same.
inline int wrap_to_int(long long x) { return (int)(uint32_t)(uint64_t)x; }
inline long long exact_sum(const std::vector<int>& v) {
    long long s = 0;
    for (int x : v) s += x;
    return s;
}
// Float and double sums: compare.h's sum_reference (the sum in double and sum |x|).
// The max (min) of start and every value, by step 4's rule, on the CPU (step_cases.cpp).
float max_reference(const std::vector<float>& v, float start);
float min_reference(const std::vector<float>& v, float start);
// Tolerances of a sum of n terms in any order: compare.h's float_sum_tolerance for float (4 sqrt(n)
// rounding units of sum |x|), and the same rule for double, and so for a sum of T.
inline Tolerance double_sum_tolerance(size_t n, double sum_abs) {
    return Tolerance{0.0, 4.0 * 0x1.0p-53 * std::sqrt((double)n + 1.0) * sum_abs + 1e-300};
}
template <class T>
Tolerance sum_tolerance(size_t n, const ReferenceSum& r) {
    return sizeof(T) == sizeof(float) ? float_sum_tolerance(n, r.sum_abs) : double_sum_tolerance(n, r.sum_abs);
}
inline LockedRecord record_reference(const std::vector<int>& v, LockedRecord r) {
    for (int x : v) {
        r.sum += x;
        r.count += 1;
        if (x > r.max) r.max = x;
    }
    return r;
}
// counters[a] after run_contention on zeroed counters (wrapped like the GPU's int adds).
inline std::vector<int> contention_reference(const std::vector<int>& v, Aggregation how, size_t addresses) {
    std::vector<long long> c(addresses, 0);
    for (size_t i = 0; i < v.size(); ++i) c[contention_address(i, how, addresses)] += v[i];
    std::vector<int> out(addresses);
    for (size_t a = 0; a < addresses; ++a) out[a] = wrap_to_int(c[a]);
    return out;
}

// ---- The steps, as main.cpp and tests.cpp run them (step_cases.cpp; not part of your task) ----
inline const Aggregation kAggregations[] = {Aggregation::none, Aggregation::warp, Aggregation::block};

// The inputs of every step, on the host and on the GPU, the targets the launchers update, and
// what the CPU says they must hold. Host code only.
struct Workload {
    size_t n, cas_n;              // cas_add uses the first cas_n values
    size_t addresses;             // the counters contention spreads over: a power of two, at most
                                  // counters.size() (a benchmark may lower it between runs)
    std::vector<int> ints;        // in [-3, 3]: sums of up to 2^28 of them fit in an int
    std::vector<float> floats;    // in [-1, 1)
    std::vector<double> doubles;  // in [-1/3, 1/3), every bit of the mantissa in use
    std::vector<float> extremes;  // in [-100, 100) with NaN, -0.0 and +0.0 mixed in
    DeviceBuffer<int> d_ints;
    DeviceBuffer<float> d_floats, d_extremes;
    DeviceBuffer<double> d_doubles;
    DeviceBuffer<int> counter{1}, total{1}, counters, lock{1};
    DeviceBuffer<float> fvalue{1};
    DeviceBuffer<double> dvalue{1};
    DeviceBuffer<LockedRecord> record{1};
    long long int_sum;                             // the CPU's answers
    ReferenceSum float_sum, double_sum, float_cas_sum, double_cas_sum;
    float max, min;
    LockedRecord record_sum;
    Workload(size_t n, size_t addresses, size_t cas_n, uint64_t seed);  // cas_n <= n
};

// What one run of a kernel left, against what the CPU says.
struct Outcome {
    bool ok = false;
    std::string got, expected, note;
};
// An int sum (atomics, or CUB's) against the CPU's, which wraps as int additions do: exact or wrong.
Outcome int_sum_outcome(int got, long long ref);

// A step has one to three kernels. run(w, k) launches kernel k of the step on w (after setting
// its target as the launcher expects it: 0 for a sum, NaN for a max, a free lock...); the step's
// info names each kernel and checks what a run left.
using Launch = void (*)(Workload& w, size_t k);
struct AtomicKernel {
    const char* name;         // as the tables name it
    double bytes_per_update;  // of input read
};
struct AtomicsInfo {
    AtomicKernel kernels[3];                                        // {nullptr} after the last one
    Outcome (*check)(const Workload& w, size_t k);                  // kernel k's last run against the CPU
    bool on_cas_n = false;                                          // updates the first cas_n values, not all n
    std::string (*atomics)(const Workload& w, size_t k) = nullptr;  // atomics a run issues, if a fixed number
    bool spreads = false;                                           // over w.addresses counters, else one word
    size_t kernel_count() const {
        size_t k = 0;
        while (k < 3 && kernels[k].name) ++k;
        return k;
    }
    size_t updates(const Workload& w) const { return on_cas_n ? w.cas_n : w.n; }
};
void launch_race(Workload& w, size_t k);
void launch_atomic_add(Workload& w, size_t k);
void launch_cas_add(Workload& w, size_t k);
void launch_cas_max_min(Workload& w, size_t k);
void launch_spinlock(Workload& w, size_t k);
void launch_contention(Workload& w, size_t k);
Outcome check_race(const Workload& w, size_t k);
Outcome check_atomic_add(const Workload& w, size_t k);
Outcome check_cas_add(const Workload& w, size_t k);
Outcome check_cas_max_min(const Workload& w, size_t k);
Outcome check_spinlock(const Workload& w, size_t k);
Outcome check_contention(const Workload& w, size_t k);
std::string contention_atomics(const Workload& w, size_t k);

// The steps, in order: the program, the tests and their summary all read this one list.
using AtomicsStep = Step<Launch, AtomicsInfo>;
inline const AtomicsStep kSteps[] = {
    {1, "race", launch_race, {{{"race plain", 0}, {"race barrier", 0}}, check_race}},
    {2, "atomic_add", launch_atomic_add,
     {{{"atomic_add_int", 4}, {"atomic_add_float", 4}, {"atomic_add_double", 8}}, check_atomic_add}},
    {3, "cas_add", launch_cas_add, {{{"cas_add_float", 4}, {"cas_add_double", 8}}, check_cas_add, true}, "--cas-n"},
    {4, "cas_max_min", launch_cas_max_min, {{{"cas_max_float", 4}, {"cas_min_float", 4}}, check_cas_max_min}},
    {5, "spinlock", launch_spinlock, {{{"spinlock", 4}}, check_spinlock}},
    {6, "contention", launch_contention,
     {{{"contention per_thread", 4}, {"contention warp_aggregated", 4}, {"contention block_aggregated", 4}},
      check_contention, false, contention_atomics, true}, "--addresses"},
};
