// prefix_scan.h: the interface of exercise 07, prefix sums (scans) and stream compaction.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Pointers are device pointers; `in` and `out` must not overlap. Each run_* function launches
// its kernels and returns without waiting for them (the caller synchronises); n == 0 is allowed
// and does nothing.
//
// Element types. Every scan comes in two types:
//   int    sums of integers are exact in any order, so results are compared exactly with
//          std::inclusive_scan / std::exclusive_scan. The caller keeps the values small enough
//          that no partial sum leaves int's range (signed overflow is undefined in C++).
//   float  every algorithm adds in a different order, and float addition is not associative,
//          so results are compared with the double-precision reference within a tolerance
//          that grows with the number of terms (see check_float_scan below).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "compare.h"
#include "steps.h"

// Inclusive: out[i] = x[0] + ... + x[i].  Exclusive: out[0] = 0, out[i] = x[0] + ... + x[i-1].
enum class ScanKind { inclusive, exclusive };
inline const char* to_string(ScanKind k) { return k == ScanKind::inclusive ? "inclusive" : "exclusive"; }

// ---- Sizes ------------------------------------------------------------------------------------
constexpr size_t kNaiveMaxN = 1024;     // step 1: one thread per element, one block
constexpr size_t kBlellochMaxN = 2048;  // step 2: two elements per thread, one block

// Tile geometry of steps 4, 5 and 6: a block of kTileThreads threads scans kTileItems elements.
// Each thread holds kVecsPerThread 4-element vectors (int4 / float4). A warp owns 32 * 4 *
// kVecsPerThread consecutive elements, read as kVecsPerThread "chunks" of 128: in chunk v, lane
// l holds elements 4l .. 4l+3, so each vector load of a warp reads 512 consecutive bytes.
// An earlier tuning run on an H200 (LECTURE.md) preferred 128 x 32 to 128 x 24 and 256 x 16.
constexpr int kTileThreads = 128;
constexpr int kVecsPerThread = 8;
constexpr int kItemsPerThread = 4 * kVecsPerThread;          // 32
constexpr int kWarpsPerTile = kTileThreads / 32;             // 4
constexpr size_t kTileItems = (size_t)kTileThreads * kItemsPerThread;  // 4096

// ---- Step 1: naive (Hillis-Steele) scan in one block, n <= kNaiveMaxN -------------------------
void run_naive_block(const int* in, int* out, size_t n, ScanKind kind);
void run_naive_block(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 2: work-efficient (Blelloch) scan in one block, n <= kBlellochMaxN ------------------
void run_blelloch_block(const int* in, int* out, size_t n, ScanKind kind);
void run_blelloch_block(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 3: up-sweep and down-sweep with one launch per level, any n --------------------------
void run_host_levels(const int* in, int* out, size_t n, ScanKind kind);
void run_host_levels(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 4: scan-then-propagate, the textbook multi-block scan -------------------------------
// Each tile is scanned and stored with its total; the totals are scanned (recursively, so any n);
// then each tile's offset is added to its elements.
void run_scan_then_propagate(const int* in, int* out, size_t n, ScanKind kind);
void run_scan_then_propagate(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 5: reduce-then-scan -----------------------------------------------------------------
// Only the tile totals are stored; the totals are scanned (recursively); each tile is then
// scanned again from its offset: recomputing a local scan is cheaper than storing and reloading it.
void run_reduce_then_scan(const int* in, int* out, size_t n, ScanKind kind);
void run_reduce_then_scan(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 6: single pass with decoupled look-back (Merrill & Garland 2016) --------------------
void run_decoupled_lookback(const int* in, int* out, size_t n, ScanKind kind);
void run_decoupled_lookback(const float* in, float* out, size_t n, ScanKind kind);

// ---- Step 7: stream compaction ----------------------------------------------------------------
// Copies the elements with in[i] > threshold to out[0 .. kept), keeping their order, and writes
// their count to *kept (device memory; written also when n == 0). out[kept .. n) is not touched.
// Positions are ints: n <= 2^31 - 1.
void run_compact(const int* in, int* out, size_t n, int threshold, size_t* kept);

// ---- Step 8 (optional): the look-back without what it spends besides bytes --------------------
// Step 6 without clearing its status words before each call: they are kept from call to call,
// and every launch gets a number of its own, its epoch. A waiting warp backs off between its
// reads. One set of words serves every call, so calls must not overlap (one device, one stream,
// one host thread at a time).
void run_quiet_lookback(const int* in, int* out, size_t n, ScanKind kind);
void run_quiet_lookback(const float* in, float* out, size_t n, ScanKind kind);
// The epochs run 1, 2, ..., kLastEpoch: the high 32 bits of a status word hold the flag and the
// epoch, packed as you choose (starter.cu). After kLastEpoch the kept words are cleared once, and
// the count starts again at 1. set_next_epoch lets the tests reach kLastEpoch without 2^30 calls.
constexpr unsigned kLastEpoch = (1u << 30) - 1;
void set_next_epoch(unsigned epoch);
// For the tests: how many of a set of words, packed by epoch_word and read back by flag_in_epoch
// on the GPU, read otherwise than the launch that wrote them published (0: none).
int epoch_words_misread();

// The library baseline is CubScan (common/baselines/cub_scan.h).

// ---- Predictions: worked out on paper, written in starter.cu, checked by the tests ------------
extern const long long kNaiveAdditions;       // step 1: additions scan_naive_block performs, inclusive, n = 1000
extern const long long kPaddedBankWays;       // step 2: worst bank conflict of the sweeps through padded(), m = 2048
extern const long long kHostLevelsCalls;      // step 3: launches + memsets of run_host_levels, n = 3000
extern const long long kReduceThenScanBytes;  // step 5: bytes per element reduce_then_scan moves, int, large n
extern const long long kLookbackMemsetBytes;  // step 8: bytes step 6's memset writes in one call, n = 2^28 ints

// ---- The source material's racy naive scan, for the demonstration only (racy_demo.cu) ---------
// Scans kNaiveMaxN ints 100 times with the source's in-place version of step 1, which races,
// and says how often the result was wrong (the program's --racy-demo). Not a step, not tested;
// compute-sanitizer --tool racecheck reports the race whatever the results. Returns 0, the exit
// status: a wrong result is what the demo shows, not a failure.
int run_racy_demo(uint64_t seed);

// ---- The program's inputs ---------------------------------------------------------------------
// Integer inputs in [-9, 9]: partial sums wander like a random walk (about 5.5 sqrt(n)), far
// from int's limits even at 2^31 elements. Float inputs in [0, 1): with no cancellation, the
// tolerance (4 sqrt(i) float roundings of the prefix itself) stays tight relative to the values.
inline std::vector<int> int_input(size_t n, uint64_t seed) { return random_ints(n, seed, -9, 9); }
inline std::vector<float> float_input(size_t n, uint64_t seed) { return random_floats(n, seed + 1000, 0.0f, 1.0f); }

// ---- CPU references ---------------------------------------------------------------------------
// Integers: the standard library's scans, compared exactly.
inline std::vector<int> scan_reference(const std::vector<int>& x, ScanKind kind) {
    std::vector<int> r(x.size());
    if (kind == ScanKind::inclusive)
        std::inclusive_scan(x.begin(), x.end(), r.begin());
    else
        std::exclusive_scan(x.begin(), x.end(), r.begin(), 0);
    return r;
}

// Floats: accumulated in double, so the reference itself carries no float rounding.
inline std::vector<double> scan_reference(const std::vector<float>& x, ScanKind kind) {
    std::vector<double> r(x.size());
    double s = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        if (kind == ScanKind::exclusive) r[i] = s;
        s += x[i];
        if (kind == ScanKind::inclusive) r[i] = s;
    }
    return r;
}

// Element i of a float scan is a float sum of t = i+1 (inclusive) or i (exclusive) terms, added
// in an order each algorithm chooses. Each element gets float_sum_tolerance(t, sum of |terms|)
// (compare.h): 4 sqrt(t) units of float rounding times the magnitudes involved. NaN never passes.
inline Comparison check_float_scan(const std::vector<float>& got, const std::vector<float>& x,
                                   ScanKind kind) {
    Comparison c;
    c.count = x.size();
    if (got.size() != x.size()) {
        c.mismatches = x.size() ? x.size() : 1;
        return c;
    }
    double s = 0, s_abs = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        size_t terms = i;
        if (kind == ScanKind::inclusive) s += x[i], s_abs += std::fabs(x[i]), terms = i + 1;
        const double g = got[i];
        if (!within(g, s, float_sum_tolerance(terms, s_abs))) {
            if (c.mismatches++ == 0) c.first_bad = i, c.first_got = g, c.first_ref = s;
        } else {
            c.worst_abs_err = std::fmax(c.worst_abs_err, std::fabs(g - s));
        }
        if (kind == ScanKind::exclusive) s += x[i], s_abs += std::fabs(x[i]);
    }
    return c;
}

// Compaction: the elements above the threshold, in order.
inline std::vector<int> compact_reference(const std::vector<int>& x, int threshold) {
    std::vector<int> r;
    for (int v : x)
        if (v > threshold) r.push_back(v);
    return r;
}

// ---- Counting additions (support: count.cpp) --------------------------------------------------
// Each simulate_* function runs one algorithm's loops on the CPU, thread by thread and step by
// step as the kernel does them, on 64-bit integers, and counts every addition of two data values
// it performs (also those on padding zeros: the GPU performs them too). It returns the scan it
// computed, so the tests can check that the simulation really is a scan.
struct ScanCount {
    uint64_t additions = 0;  // work: additions of data values, over all threads
    uint64_t steps = 0;      // span: additions on the longest chain of dependent steps (0: not counted)
    uint64_t launches = 0;   // kernel launches (and memsets) from the host
};
struct Simulated {
    std::vector<long long> result;
    ScanCount count;
};
Simulated simulate_serial(const std::vector<long long>& x, ScanKind kind);
Simulated simulate_naive_block(const std::vector<long long>& x, ScanKind kind);
Simulated simulate_blelloch_block(const std::vector<long long>& x, ScanKind kind);
Simulated simulate_host_levels(const std::vector<long long>& x, ScanKind kind);
Simulated simulate_scan_then_propagate(const std::vector<long long>& x, ScanKind kind);
Simulated simulate_reduce_then_scan(const std::vector<long long>& x, ScanKind kind);
// The look-back's work depends on timing; this counts the case where each tile finds its
// predecessor's inclusive prefix already published (one look-back window per tile).
Simulated simulate_decoupled_lookback(const std::vector<long long>& x, ScanKind kind);
// Step 8 adds what step 6 adds; it launches no memset.
Simulated simulate_quiet_lookback(const std::vector<long long>& x, ScanKind kind);

// The program's reports, from these simulations. print_counts: the additions of the serial scan
// and of the steps `kernel` names ("all" or one step) on x (counted up to 2^24 elements), and
// the source material's question (n = 32). print_pictures: for a small x (the lecture's n = 8),
// the two one-block algorithms step by step.
void print_counts(const std::vector<int>& x, const std::string& kernel);
void print_pictures(const std::vector<int>& x);

// ---- The steps, in order: the program, the tests and their summary all read these lists ------
// A scan step's launcher, for either element type: run(in, out, n, kind) calls the int or the
// float version by the pointers' type.
using IntScan = void (*)(const int* in, int* out, size_t n, ScanKind kind);
using FloatScan = void (*)(const float* in, float* out, size_t n, ScanKind kind);
struct ScanFns {
    IntScan for_int;
    FloatScan for_float;
    void operator()(const int* in, int* out, size_t n, ScanKind kind) const { for_int(in, out, n, kind); }
    void operator()(const float* in, float* out, size_t n, ScanKind kind) const { for_float(in, out, n, kind); }
};
// What else a scan step is: the most elements it takes (one block's limit, or none) and its
// design's model: its simulation above, and what it moves through DRAM (the benchmark's traffic
// column; both in count.cpp). A cell of the model that would answer a prediction (step 1's
// additions, step 3's launches, step 5's traffic) is shown only once that prediction is right.
struct ScanModel {
    Simulated (*simulate)(const std::vector<long long>& x, ScanKind kind);
    const char* traffic;        // in arrays of n ints: "2n"; nullptr: traffic_predicted's answer is the model
    double bytes_per_element;   // the same in bytes: 8 (0 with no traffic of its own)
    Prediction traffic_predicted{};    // the prediction the traffic cell answers
    Prediction additions_predicted{};  // ... the additions cells of print_counts
    Prediction launches_predicted{};   // ... the launches cell of print_counts
};
// The benchmark's traffic cell of a step: its model's, "? (kName)" while the prediction that
// is its model is not right (count.cpp).
std::string traffic_cell(const ScanModel& model);
extern const ScanModel kNaiveBlockModel, kBlellochBlockModel, kHostLevelsModel, kScanThenPropagateModel,
    kReduceThenScanModel, kDecoupledLookbackModel, kQuietLookbackModel;
struct ScanInfo {
    size_t max_n;
    const ScanModel* model;
};
using ScanStep = Step<ScanFns, ScanInfo>;
inline const ScanStep kSteps[] = {
    {1, "naive_block", {run_naive_block, run_naive_block}, {kNaiveMaxN, &kNaiveBlockModel}},
    {2, "blelloch_block", {run_blelloch_block, run_blelloch_block}, {kBlellochMaxN, &kBlellochBlockModel}},
    {3, "host_levels", {run_host_levels, run_host_levels}, {SIZE_MAX, &kHostLevelsModel}},
    {4, "scan_then_propagate", {run_scan_then_propagate, run_scan_then_propagate},
     {SIZE_MAX, &kScanThenPropagateModel}},
    {5, "reduce_then_scan", {run_reduce_then_scan, run_reduce_then_scan}, {SIZE_MAX, &kReduceThenScanModel}},
    {6, "decoupled_lookback", {run_decoupled_lookback, run_decoupled_lookback}, {SIZE_MAX, &kDecoupledLookbackModel}},
    {8, "quiet_lookback", {run_quiet_lookback, run_quiet_lookback}, {SIZE_MAX, &kQuietLookbackModel}},  // optional
};
// Step 7 builds on the scans (step 8, optional, comes after it and is a scan).
using CompactFn = void (*)(const int* in, int* out, size_t n, int threshold, size_t* kept);
inline const Step<CompactFn> kCompactStep[] = {{7, "compact", run_compact}};
