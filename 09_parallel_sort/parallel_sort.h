// parallel_sort.h: the interface of exercise 09, sorting 32-bit keys five ways (and a sixth, optional).
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Every sort is out of place: it reads keys_in[0..n) (and values_in[0..n)), leaves them as they
// were, and writes keys_out[0..n) (and values_out[0..n)) and nothing past them. Pointers are
// device pointers; inputs and outputs do not overlap. Each run_* function launches its kernels
// and returns without waiting (the caller synchronises); temporary device memory comes from the
// stream-ordered pool. n == 0 is allowed and does nothing; n is at most kMaxKeys.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "compare.h"
#include "steps.h"

// Positions are 32-bit unsigned numbers in the radix sorts' counts: n < 2^32.
constexpr size_t kMaxKeys = 0xFFFFFFFFu;

// ---- Keys ------------------------------------------------------------------------------------
// Every key is 32 bits; its type says how those bits are ordered (key_less below states it).
enum class KeyType { u32, i32, f32 };
inline const char* to_string(KeyType t) { return t == KeyType::u32 ? "uint" : t == KeyType::i32 ? "int" : "float"; }

struct SortJob {
    const uint32_t* keys_in = nullptr;    // n keys as bit patterns (int and float keys reinterpreted)
    uint32_t* keys_out = nullptr;
    size_t n = 0;
    KeyType type = KeyType::u32;
    const uint32_t* values_in = nullptr;  // optional: a 32-bit value that travels with its key
    uint32_t* values_out = nullptr;       // (both or neither)
};

// ---- Tiles ----------------------------------------------------------------------------------------
// Steps 1 and 2: a block of kBitonicThreads threads sorts kBitonicTile keys in shared memory,
// one compare-exchange per thread per stage of the network.
constexpr int kBitonicThreads = 1024;
constexpr size_t kBitonicTile = 2 * kBitonicThreads;  // 2048

// Step 3: a block of kSplitThreads threads splits kSplitTile keys; each warp owns kSplitRows rows
// of 32 consecutive keys.
constexpr int kSplitThreads = 256;
constexpr int kSplitRows = 8;
constexpr size_t kSplitTile = (size_t)kSplitThreads * kSplitRows;  // 2048

// Steps 4 and 5: digits of kRadixBits bits, kRadixPasses passes; a block of kRadixThreads threads
// (one per digit value) ranks kRadixTile keys, each warp owning kRadixRows rows of 32 keys.
constexpr int kRadixBits = 8;
constexpr int kRadixDigits = 1 << kRadixBits;  // 256
constexpr int kRadixPasses = 32 / kRadixBits;  // 4
constexpr int kRadixThreads = kRadixDigits;
constexpr int kRadixWarps = kRadixThreads / 32;
constexpr int kRadixRows = 16;
constexpr size_t kRadixTile = (size_t)kRadixThreads * kRadixRows;  // 4096

// Step 6 (optional): the same 8-bit digits; a block of kSweepThreads threads ranks kSweepTile
// keys, each warp owning kSweepRows rows of 32 keys, and threads 0 .. kRadixDigits-1 own a digit each.
constexpr int kSweepThreads = 512;
constexpr int kSweepWarps = kSweepThreads / 32;
constexpr int kSweepRows = 16;
constexpr size_t kSweepTile = (size_t)kSweepThreads * kSweepRows;

// ---- The steps: one launcher each ---------------------------------------------------------------
// Step 1: every tile of kBitonicTile keys is sorted on its own (the last one may be shorter):
// keys_out[t*T .. ) holds the keys of keys_in[t*T .. ), sorted. Unsigned keys, no values.
void run_bitonic_block(const SortJob& job);
// Step 2: all n keys, by a bitonic sorting network: step 1's tiles, then merges across tiles
// (global passes for strides of a tile or more, a shared-memory kernel for the rest).
// Unsigned keys, no values.
void run_bitonic_global(const SortJob& job);
// Step 3: LSD radix sort with 1-bit digits: 32 stable splits. Unsigned keys, no values.
void run_split_sort(const SortJob& job);
// Steps 4 and 5: LSD radix sort with 8-bit digits (per-tile histograms, their scan, a scatter
// that ranks keys inside the tile). Step 4 writes it for unsigned keys; step 5 adds int and float
// keys (ordered_bits on the first load, raw_bits on the last store) and values.
void run_radix_sort(const SortJob& job);
// Step 6 (optional; the exercise is complete without it): step 5's sort (any key type, values or
// not) with the keys read once per digit. One kernel counts the digits of all four passes in one
// read of the keys; then each pass ranks a tile, learns from the tiles before it where its runs
// go (a decoupled look-back, 07's step 6, one chain per digit) and scatters.
void run_onesweep(const SortJob& job);

// The bytes a step must move per key for n keys, read and written, with values or without: a
// model of its passes, the benchmark's B/key. For steps 2 to 5 it is the working-out of a
// prediction, so it lives in answers.cpp: open it once your predictions pass.
double bitonic_block_bytes_per_key(size_t n, bool values);
double bitonic_global_bytes_per_key(size_t n, bool values);
double split_bytes_per_key(size_t n, bool values);
double radix_bytes_per_key(size_t n, bool values);
double onesweep_bytes_per_key(size_t n, bool values);

// ---- Predictions: worked out on paper, written in starter.cu, checked by the tests --------------
extern const long long kTileStages;             // step 1: stages of the network on one 2048-key tile
extern const long long kBitonicGlobalLaunches;  // step 2: launches of run_bitonic_global, n = 2^20
extern const long long kSplitBytesPerKey;       // step 3: bytes per key the 32 passes move, large n
extern const long long kRadixBytesPerKey;       // step 4: bytes per key the 4 passes move, large n
extern const long long kSweepStatusWords;       // step 6: status words one pass publishes, n = 2^28

// The steps, in order: the program, the tests and their summary all read this one list.
using SortFn = void (*)(const SortJob&);
// What else a step is: the jobs it takes (steps 1 to 4 unsigned keys alone; steps 5 and 6 any
// key type, with values or without), what it promises (step 1 sorts each tile of kBitonicTile keys
// on its own; 0: all n keys), its model of the bytes it moves, and the prediction that model
// answers or gives away (step 2's bytes are 8 per launch): the program shows the B/key of such a
// step, and what follows from it, only once the prediction is right.
struct SortInfo {
    bool any_keys;      // int and float keys, and values, too
    size_t sorted_run;  // sorts each run of this many keys on its own; 0: all n keys
    double (*bytes_per_key)(size_t n, bool values);
    Prediction predicted{};  // the prediction bytes_per_key answers
};
using SortStep = Step<SortFn, SortInfo>;
inline const SortStep kSteps[] = {
    {1, "bitonic_block", run_bitonic_block, {false, kBitonicTile, bitonic_block_bytes_per_key}},
    {2, "bitonic_global", run_bitonic_global,
     {false, 0, bitonic_global_bytes_per_key, {"kBitonicGlobalLaunches", &kBitonicGlobalLaunches}}},
    {3, "split", run_split_sort, {false, 0, split_bytes_per_key, {"kSplitBytesPerKey", &kSplitBytesPerKey}}},
    {4, "radix_sort", run_radix_sort, {false, 0, radix_bytes_per_key, {"kRadixBytesPerKey", &kRadixBytesPerKey}}},
    {5, "keys_and_pairs", run_radix_sort, {true, 0, radix_bytes_per_key, {"kRadixBytesPerKey", &kRadixBytesPerKey}},
     "--keys --pairs"},  // steps 1 to 4 and CUB's row sort uint keys alone
    {6, "onesweep", run_onesweep, {true, 0, onesweep_bytes_per_key}, "--keys --pairs"},  // optional: complete at step 5
};
// Whether a step takes a job of these keys, with values (pairs) or without.
inline bool takes(const SortStep& step, KeyType type, bool pairs) {
    return step.info.any_keys || (type == KeyType::u32 && !pairs);
}

// Step 5: the order-preserving transform, compiled for host and device (the tests call it on
// the CPU). ordered_bits(x, t) < ordered_bits(y, t), as unsigned numbers, exactly when
// key_less(x, y, t); raw_bits undoes it. Both are one to one on all 2^32 patterns.
#ifdef __CUDACC__
#define SORT_HOST_DEVICE __host__ __device__
#else
#define SORT_HOST_DEVICE
#endif
SORT_HOST_DEVICE uint32_t ordered_bits(uint32_t raw, KeyType type);
SORT_HOST_DEVICE uint32_t raw_bits(uint32_t ordered, KeyType type);

// Given (count_scan.cu), used by steps 3 and 4: out[i] = in[0] + ... + in[i-1] (out[0] = 0),
// on the GPU, asynchronously; the sum of all counts must be below 2^32. out may be in.
void exclusive_scan_counts(const uint32_t* in, uint32_t* out, size_t count);

// ---- The order of each key type, for the CPU reference -------------------------------------------
// uint and int: as numbers. float: a total order on all 2^32 patterns, as IEEE 754's totalOrder
// has it, except where the NaNs go:
//   -inf < negative numbers < -0.0 < +0.0 < positive numbers < +inf < NaNs
// -0.0 comes before +0.0: they are equal as numbers but different keys, and a sort must put
// different keys in one order whatever their input order. All NaNs come last, as
// std::sort(..., [](float a, float b) { return a < b || (!isnan(a) && isnan(b)); }) would put
// them: those with the sign bit clear first (by payload), then those with it set (payloads in
// decreasing order, as totalOrder has them). Written here without bit tricks; the GPU uses
// ordered_bits.
inline float key_as_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
inline uint32_t float_as_key(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}
inline bool float_key_less(float a, float b) {
    const int class_a = std::isnan(a) ? 1 + std::signbit(a) : 0, class_b = std::isnan(b) ? 1 + std::signbit(b) : 0;
    if (class_a != class_b) return class_a < class_b;  // numbers, NaNs with the sign clear, the others
    if (class_a == 0) return a < b || (a == b && std::signbit(a) && !std::signbit(b));
    const uint32_t payload_a = float_as_key(a) & 0x7FFFFFu, payload_b = float_as_key(b) & 0x7FFFFFu;
    return class_a == 1 ? payload_a < payload_b : payload_a > payload_b;
}
inline bool key_less(uint32_t a, uint32_t b, KeyType type) {
    if (type == KeyType::i32) return (int32_t)a < (int32_t)b;
    if (type == KeyType::f32) return float_key_less(key_as_float(a), key_as_float(b));
    return a < b;
}

// The positions of the keys in the order a stable sort puts them: std::stable_sort of 0..n-1 by
// key. With run > 0, each run of `run` keys is sorted on its own (step 1's tiles).
inline std::vector<uint32_t> stable_order(const std::vector<uint32_t>& keys, KeyType type, size_t run = 0) {
    std::vector<uint32_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0u);
    const size_t span = run > 0 ? run : std::max<size_t>(keys.size(), 1);
    for (size_t start = 0; start < keys.size(); start += span) {
        const auto first = order.begin() + start, last = order.begin() + std::min(start + span, keys.size());
        std::stable_sort(first, last, [&](uint32_t x, uint32_t y) { return key_less(keys[x], keys[y], type); });
    }
    return order;
}

// The keys in a given order: what a sort must write, given stable_order's positions.
inline std::vector<uint32_t> gather(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& order) {
    std::vector<uint32_t> out(order.size());
    for (size_t j = 0; j < order.size(); ++j) out[j] = keys[order[j]];
    return out;
}

// Whether `sorted` (uint keys) with `from` (each one's input position) is the stable sort of `keys`,
// checked in O(n): `from` is a permutation, each key is the input key at its position, and every
// neighbour pair is in order, equal keys by increasing position. (The program checks CUB's sort
// of pairs this way and uses it as the reference for large n, where std::stable_sort is slow.)
inline bool is_stable_sort_of(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& sorted,
                              const std::vector<uint32_t>& from) {
    if (sorted.size() != keys.size() || from.size() != keys.size()) return false;
    std::vector<bool> seen(keys.size(), false);
    for (size_t j = 0; j < keys.size(); ++j) {
        if (from[j] >= keys.size() || seen[from[j]] || keys[from[j]] != sorted[j]) return false;
        seen[from[j]] = true;
        if (j > 0 && (sorted[j - 1] > sorted[j] || (sorted[j - 1] == sorted[j] && from[j - 1] > from[j]))) return false;
    }
    return true;
}

// ---- Inputs ----------------------------------------------------------------------------------------
// random: uniform over all 2^32 patterns (for float keys that includes NaNs, infinities and
// subnormals); equal: one key n times; sorted, reverse: random keys in (reverse) order;
// few: 4 distinct random keys; top_bit, low_bit: one random key with only its highest (lowest)
// bit varying.
enum class Distribution { random, equal, sorted, reverse, few, top_bit, low_bit };
inline const std::vector<std::string>& distribution_names() {
    static const std::vector<std::string> names = {"random", "equal", "sorted", "reverse", "few", "top_bit", "low_bit"};
    return names;
}
inline Distribution distribution_named(const std::string& name) {
    const auto& names = distribution_names();
    return (Distribution)(std::find(names.begin(), names.end(), name) - names.begin());
}

inline std::vector<uint32_t> make_keys(size_t n, Distribution d, uint64_t seed, KeyType type = KeyType::u32) {
    const uint64_t s = splitmix64(seed);
    auto bits = [s](size_t i) { return (uint32_t)(splitmix64(s ^ (i * 0xD1B54A32D192ED03ull)) >> 32); };
    const uint32_t base = (uint32_t)splitmix64(s + 1);
    std::vector<uint32_t> keys(n);
    for (size_t i = 0; i < n; ++i) {
        switch (d) {
        case Distribution::equal: keys[i] = base; break;
        case Distribution::few: keys[i] = (uint32_t)splitmix64(s + 2 + bits(i) % 4); break;
        case Distribution::top_bit: keys[i] = (base & 0x7FFFFFFFu) | (bits(i) & 0x80000000u); break;
        case Distribution::low_bit: keys[i] = (base & ~1u) | (bits(i) & 1u); break;
        default: keys[i] = bits(i); break;
        }
    }
    auto less = [type](uint32_t a, uint32_t b) { return key_less(a, b, type); };
    if (d == Distribution::sorted) std::sort(keys.begin(), keys.end(), less);
    if (d == Distribution::reverse) std::sort(keys.rbegin(), keys.rend(), less);
    return keys;
}
