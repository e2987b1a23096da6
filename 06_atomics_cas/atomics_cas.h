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
#include <vector>

constexpr int kBlock = 256;  // threads per block of every kernel (a whole number of warps)
constexpr int kWarp = 32;

inline size_t blocks_of(size_t n) { return (n + kBlock - 1) / kBlock; }

// ---- Step 1: race -------------------------------------------------------------------------
// n threads each add 1 to *counter without atomics. Both versions lose updates:
//   plain:   `*counter += 1` (load, add, store); how many are lost depends on timing.
//   barrier: load, __syncthreads(), store. Every thread of a block reads before any of them
//            writes, so each block adds at most 1 and the result is at most blocks_of(n):
//            for n >= 2 updates are lost with certainty (README, "Why the loss is certain").
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

// ---- Step 4: cas_max_min (operations with no float built-in) -------------------------------
// *result = max (or min) of *result and every values[i], with the rule of max_beats/min_beats
// below. Initialise *result to NaN for "no value yet" (DeviceBuffer::poison() does).
void run_cas_max_float(const float* values, float* result, size_t n);
void run_cas_min_float(const float* values, float* result, size_t n);

// The rule (IEEE 754-2019 maximumNumber / minimumNumber): NaN means "no value" and never wins,
// any number beats a stored NaN, -0.0 counts as smaller than +0.0, otherwise the usual order.
// So the result is NaN only when no input was a number.
inline bool max_beats(float candidate, float current) {
    if (std::isnan(candidate)) return false;
    if (std::isnan(current)) return true;
    if (candidate == current) return std::signbit(current) && !std::signbit(candidate);
    return candidate > current;
}
inline bool min_beats(float candidate, float current) {
    if (std::isnan(candidate)) return false;
    if (std::isnan(current)) return true;
    if (candidate == current) return !std::signbit(current) && std::signbit(candidate);
    return candidate < current;
}

// ---- Step 5: spinlock (a mutex guarding a record of several words) --------------------------
// Each warp sums, counts and takes the max of its values, then ONE lane takes the lock, updates
// the three fields together, and releases it. *lock must be 0 (free) before the launch and is
// 0 again after it. The record is three words: no single atomic can update it.
struct LockedRecord {
    long long sum;
    long long count;
    long long max;
};
inline LockedRecord empty_record() { return LockedRecord{0, 0, LLONG_MIN}; }
void run_spinlock(const int* values, LockedRecord* record, int* lock, size_t n);

// ---- Step 6: contention ---------------------------------------------------------------------
// Adds every values[i] into one of `addresses` counters (a power of two), issuing one atomic
// per thread, per warp (the warp's sum), or per block (the block's sum); then adds the sum of
// all counters to *total. Update i goes to counters[contention_address(i, how, addresses)];
// with addresses == 1 every atomic hits the same word.
enum class Aggregation { none, warp, block };
void run_contention(const int* values, size_t n, Aggregation how, int* counters, size_t addresses,
                    int* total);

inline size_t contention_address(size_t i, Aggregation how, size_t addresses) {
    size_t unit = how == Aggregation::none ? i : how == Aggregation::warp ? i / kWarp : i / kBlock;
    return unit & (addresses - 1);
}
inline size_t atomics_issued(size_t n, Aggregation how) {
    return how == Aggregation::none ? n : how == Aggregation::warp ? (n + kWarp - 1) / kWarp : blocks_of(n);
}
inline bool is_power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// ---- Library baseline (library.cu) -----------------------------------------------------------
// *total = sum of the n values by cub::DeviceReduce::Sum: no atomics on a shared word at all.
// Overwrites *total (unlike the launchers above). CUB's scratch space is allocated on the first
// call (and when a larger n needs more) and kept, so timed calls do not allocate.
void run_cub_sum(const int* values, int* total, size_t n);

// ---- CPU references (double precision or exact) ----------------------------------------------
// Integer sums wrap modulo 2^32 on the GPU; the reference does the same.
inline int wrap_to_int(long long x) { return (int)(uint32_t)(uint64_t)x; }
inline long long sum_reference(const std::vector<int>& v) {
    long long s = 0;
    for (int x : v) s += x;
    return s;
}
template <class T>
double sum_reference(const std::vector<T>& v) {
    double s = 0;
    for (T x : v) s += (double)x;
    return s;
}
template <class T>
double sum_abs_reference(const std::vector<T>& v) {
    double s = 0;
    for (T x : v) s += std::fabs((double)x);
    return s;
}
inline float max_reference(const std::vector<float>& v, float start) {
    float m = start;
    for (float x : v)
        if (max_beats(x, m)) m = x;
    return m;
}
inline float min_reference(const std::vector<float>& v, float start) {
    float m = start;
    for (float x : v)
        if (min_beats(x, m)) m = x;
    return m;
}
// Tolerances of a sum of n terms whose absolute values add up to sum_abs, in any order: 4 sqrt(n)
// rounding units (as compare.h's float_sum_tolerance), for float and for double.
inline double float_sum_atol(size_t n, double sum_abs) { return 4.0 * 0x1.0p-24 * std::sqrt((double)n + 1.0) * sum_abs + 1e-30; }
inline double double_sum_atol(size_t n, double sum_abs) { return 4.0 * 0x1.0p-53 * std::sqrt((double)n + 1.0) * sum_abs + 1e-300; }
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
