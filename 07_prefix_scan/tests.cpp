// 07_prefix_scan/tests.cpp: one group of test cases per step, named "step N kernel: ...".
//
// Every GPU scan is checked on int (exactly, against std::inclusive_scan / std::exclusive_scan)
// and on float (within the tolerance of check_float_scan), inclusive and exclusive. The output
// buffer has 64 poisoned elements past the end: a scan must write all n results and nothing more.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "prefix_scan.h"
#include "testing.h"

namespace {

constexpr size_t kGuard = 64;
const ScanKind kKinds[] = {ScanKind::inclusive, ScanKind::exclusive};

// The elements past n must still hold the poison: 0xFFFFFFFF, which is -1 as int and NaN as float.
bool guard_intact(const std::vector<int>& out, size_t n) {
    for (size_t i = n; i < out.size(); ++i)
        if (out[i] != -1) return false;
    return true;
}
bool guard_intact(const std::vector<float>& out, size_t n) {
    for (size_t i = n; i < out.size(); ++i)
        if (!std::isnan(out[i])) return false;
    return true;
}

// offset > 0 shifts both pointers by that many elements: they are no longer 16-byte aligned.
void expect_int_scan(IntScan run, size_t n, ScanKind kind, uint64_t seed, size_t offset = 0) {
    CAPTURE(n);
    CAPTURE(to_string(kind));
    CAPTURE(offset);
    const std::vector<int> x = random_ints(n, seed, -9, 9);
    std::vector<int> padded_x(offset, 7);
    padded_x.insert(padded_x.end(), x.begin(), x.end());
    DeviceBuffer<int> d_in(padded_x), d_out(offset + n + kGuard);
    d_out.poison();
    run(d_in.get() + offset, d_out.get() + offset, n, kind);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> all = d_out.download();
    std::vector<int> got(all.begin() + offset, all.end());
    CHECK(guard_intact(got, n));
    got.resize(n);
    CHECK_MATCH(compare_exact(got, scan_reference(x, kind)));
}

void expect_float_scan(FloatScan run, size_t n, ScanKind kind, uint64_t seed) {
    CAPTURE(n);
    CAPTURE(to_string(kind));
    const std::vector<float> x = random_floats(n, seed, 0.0f, 1.0f);
    DeviceBuffer<float> d_in(x), d_out(n + kGuard);
    d_out.poison();
    run(d_in.get(), d_out.get(), n, kind);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got = d_out.download();
    CHECK(guard_intact(got, n));
    got.resize(n);
    CHECK_MATCH(check_float_scan(got, x, kind));
}

// Each of the sizes the step takes (a one-block step: up to its limit), both kinds, int and
// (unless ints_only) float.
void expect_scans(const ScanStep& step, const std::vector<size_t>& sizes, bool ints_only = false) {
    for (size_t n : sizes)
        if (n <= step.info.max_n)
            for (ScanKind kind : kKinds) {
                expect_int_scan(step.run.for_int, n, kind, 11 + n);
                if (!ints_only) expect_float_scan(step.run.for_float, n, kind, 23 + n);
            }
}

std::vector<size_t> every_n_to_70_and(std::vector<size_t> sizes) {
    for (size_t n = 1; n <= 70; ++n) sizes.push_back(n);
    return sizes;
}

// Around the tile of steps 4, 5 and 6 (pass 2 of steps 4 and 5 needs several tiles of its own
// only above kTileItems^2, about 16.8 million elements: the (large) cases go there).
const std::vector<size_t> kTileEdges = {kTileItems - 1, kTileItems, kTileItems + 1, 2 * kTileItems + 5,
                                        kTileItems * 33 + 4 * 7 + 1};

// Compaction: n random ints in [-1000, 1000], keeping those above the threshold.
void expect_compact(CompactFn run, const std::vector<int>& x, int threshold) {
    const size_t n = x.size();
    CAPTURE(n);
    CAPTURE(threshold);
    const std::vector<int> ref = compact_reference(x, threshold);
    DeviceBuffer<int> d_in(x), d_out(n + kGuard);
    DeviceBuffer<size_t> d_kept(1);
    d_out.poison();
    d_kept.poison();
    run(d_in.get(), d_out.get(), n, threshold, d_kept.get());
    CUDA_CHECK(cudaDeviceSynchronize());
    const size_t kept = d_kept.download()[0];
    REQUIRE(kept == ref.size());
    std::vector<int> got = d_out.download();
    CHECK(guard_intact(got, kept));  // nothing written past the kept elements
    got.resize(kept);
    CHECK_MATCH(compare_exact(got, ref));
}

}  // namespace

// The summary line and make hint-07 take the steps in the order they are declared: the scans
// before compaction (step 7), then the optional step 8, which kSteps lists last.
static const int kScansBeforeCompaction = [] {
    for (const ScanStep& s : kSteps)
        if (s.number < kCompactStep[0].number) {
            const ScanStep one[] = {s};
            course_testing::declare_steps(one);
        }
    return 0;
}();
DECLARE_STEPS(kCompactStep);
DECLARE_STEPS(kSteps);

// ---- every scan (steps 1 to 6, and 8) -----------------------------------------------------------
STEP_CASES(kSteps, "int and float, inclusive and exclusive, n = 0 to 2^20+3 (up to the step's limit)",
           [](const auto& step) {
               expect_scans(step, {0, 1, 2, 31, 1023, 1024, 1025, 1500, 2047, 2048, ((size_t)1 << 20) + 3});
           });
// ---- the one-block scans (steps 1 and 2): every small size, as their trees pad it ---------------
STEP_CASE(kSteps, "naive_block", "every n from 1 to 70, and 100, 333, 513, 777") {
    expect_scans(step, every_n_to_70_and({100, 333, 513, 777}), true);
}
STEP_CASE(kSteps, "blelloch_block", "every n from 1 to 70, and 100, 333, 1029, 1777") {
    expect_scans(step, every_n_to_70_and({100, 333, 1029, 1777}), true);
}
// ---- the multi-block scans (steps 3 to 6, and 8) ----------------------------------------------
STEP_CASES_FROM(kSteps, 3, "n = 3, 5, 100003, 2^16, 2^16+1", [](const auto& step) {
    expect_scans(step, {3, 5, 100003, (size_t)1 << 16, ((size_t)1 << 16) + 1});
});
// Steps 4 and 5 go three levels of tiles deep here.
STEP_CASES_FROM(kSteps, 3, "n = 2^25+1 (large)", [](const auto& step) {
    expect_scans(step, {((size_t)1 << 25) + 1});
});
// ---- the tiled scans (steps 4 to 6, and 8) ------------------------------------------------------
STEP_CASES_FROM(kSteps, 4, "sizes around tile edges", [](const auto& step) { expect_scans(step, kTileEdges); });
STEP_CASES_FROM(kSteps, 4, "pointers not 16-byte aligned", [](const auto& step) {
    for (ScanKind kind : kKinds) {
        expect_int_scan(step.run.for_int, 100003, kind, 5, 1);
        expect_int_scan(step.run.for_int, 3 * kTileItems, kind, 6, 3);
    }
});
// ---- the single-pass scans (steps 6 and 8) ----------------------------------------------------
// A look-back that reads a status before it is complete gives a wrong tile only now and then.
STEP_CASES_FROM(kSteps, 6, "100 runs of n = 2^22+5 all exact (large)", [](const auto& step) {
    const size_t n = ((size_t)1 << 22) + 5;
    const std::vector<int> x = random_ints(n, 77, -9, 9);
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    DeviceBuffer<int> d_in(x), d_out(n);
    int wrong = 0;
    for (int r = 0; r < 100; ++r) {
        d_out.poison();
        step.run(d_in.get(), d_out.get(), n, ScanKind::inclusive);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!compare_exact(d_out.download(), ref).ok()) ++wrong;
    }
    CHECK(wrong == 0);
});
// A word of another launch that passes for this launch's is read only when a look-back comes
// before the word's own tile has published: now and then. Here every pair of epochs is tried.
STEP_CASE(kSteps, "quiet_lookback", "a word reads as published only by the launch that wrote it, first to last epoch") {
    CHECK(epoch_words_misread() == 0);
}
// Step 8 keeps its status words from call to call: a word the last call left holds a real flag
// and a real value, which this call must not take for its own. The same n again with other data
// (every word of the last call still stands), then fewer tiles, then more, int and float.
STEP_CASE(kSteps, "quiet_lookback", "calls one after another, same n with other data, fewer tiles, more") {
    const size_t big = sanitizing(((size_t)1 << 20) + 3, ((size_t)1 << 17) + 3);
    uint64_t seed = 300;
    for (size_t n : {big, big, 5 * kTileItems + 1, (size_t)1, 40 * kTileItems + 17, big})
        for (ScanKind kind : kKinds) {
            expect_int_scan(step.run.for_int, n, kind, ++seed);
            expect_float_scan(step.run.for_float, n, kind, ++seed);
        }
}
// Its epochs run out after kLastEpoch launches: then the words are cleared once and counted
// again from 1. The last two epochs, then the first two of the next round, each exact.
STEP_CASE(kSteps, "quiet_lookback", "the last epochs, then the words cleared and the epochs counted from 1 again") {
    const size_t n = 100003;
    expect_int_scan(step.run.for_int, n, ScanKind::inclusive, 51);
    set_next_epoch(kLastEpoch - 1);
    for (int call = 0; call < 4; ++call) expect_int_scan(step.run.for_int, n, kKinds[call % 2], 52 + call);
}

// ---- the predictions (on the CPU; answers.cpp derives each answer) ---------------------------
// Where a column of the program answers a prediction, the case also checks that the program's
// model gives the answer, so that the column cannot stay hidden once the tests pass.
STEP_HOST_CASE(kSteps, "naive_block", "prediction kNaiveAdditions (inclusive, n = 1000)") {
    check_prediction("kNaiveAdditions", kNaiveAdditions,
                     "at the step with offset d, which elements have a left neighbour d places away?");
    const std::vector<long long> x(1000, 1);
    const bool model_agrees =  // no number printed
        (double)simulate_naive_block(x, ScanKind::inclusive).count.additions == find_answer("kNaiveAdditions")->derive();
    CHECK_MESSAGE(model_agrees, "count.cpp's naive_block simulation must count this answer: the program shows it only then");
}
STEP_HOST_CASE(kSteps, "blelloch_block", "prediction kPaddedBankWays (m = 2048, through padded())") {
    check_prediction("kPaddedBankWays", kPaddedBankWays,
                     "the bank of word w is w mod 32: where does i + i/32 put a warp's words at each stride?");
}
STEP_HOST_CASE(kSteps, "host_levels", "prediction kHostLevelsCalls (n = 3000)") {
    check_prediction("kHostLevelsCalls", kHostLevelsCalls,
                     "how many levels has the tree of m = next_pow2(n) leaves, and what runs besides them?");
    const std::vector<long long> x(3000, 1);
    const bool model_agrees =
        (double)simulate_host_levels(x, ScanKind::inclusive).count.launches == find_answer("kHostLevelsCalls")->derive();
    CHECK_MESSAGE(model_agrees, "count.cpp's host_levels simulation must count this answer: the program shows it only then");
}
STEP_HOST_CASE(kSteps, "reduce_then_scan", "prediction kReduceThenScanBytes (int, large n)") {
    check_prediction("kReduceThenScanBytes", kReduceThenScanBytes,
                     "which passes read the whole input, and which write the whole output?");
}

STEP_HOST_CASE(kSteps, "quiet_lookback", "prediction kLookbackMemsetBytes (step 6, n = 2^28)") {
    check_prediction("kLookbackMemsetBytes", kLookbackMemsetBytes,
                     "how many tiles has n = 2^28, and what else does step 6's memset clear besides their words?");
}

// ---- step 7 ---------------------------------------------------------------------------------
STEP_CASES(kCompactStep, "none, all and about half kept, n = 0, 1, 1025, 2^20+3", [](const auto& step) {
    for (size_t n : {(size_t)0, (size_t)1, (size_t)1025, ((size_t)1 << 20) + 3}) {
        const std::vector<int> x = random_ints(n, n + 3, -1000, 1000);
        expect_compact(step.run, x, 1000);   // none
        expect_compact(step.run, x, -1001);  // all
        expect_compact(step.run, x, 0);      // about half
    }
});
STEP_CASES(kCompactStep, "exactly every other element kept", [](const auto& step) {
    std::vector<int> x(100003);
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? (int)i : -(int)i;
    expect_compact(step.run, x, 0);
});
STEP_CASES(kCompactStep, "n = 2^25+1, about half kept (large)", [](const auto& step) {
    expect_compact(step.run, random_ints(((size_t)1 << 25) + 1, 9, -1000, 1000), 0);
});

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the references: exclusive is inclusive shifted right, starting at 0") {
    const std::vector<int> x = {3, -1, 4, 1, -5, 9};
    CHECK(scan_reference(x, ScanKind::inclusive) == std::vector<int>{3, 2, 6, 7, 2, 11});
    CHECK(scan_reference(x, ScanKind::exclusive) == std::vector<int>{0, 3, 2, 6, 7, 2});
    const std::vector<double> f = scan_reference(std::vector<float>{0.5f, 0.25f}, ScanKind::exclusive);
    CHECK(f == std::vector<double>{0.0, 0.5});
    CHECK(compact_reference(x, 2) == std::vector<int>{3, 4, 9});
}

TEST_CASE("host: check_float_scan accepts float rounding, rejects a lost element and NaN") {
    const std::vector<float> x = random_floats(5000, 3, 0.0f, 1.0f);
    for (ScanKind kind : kKinds) {
        std::vector<float> sequential(x.size());  // a plain float loop: rounding, but right
        float s = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            if (kind == ScanKind::exclusive) sequential[i] = s;
            s += x[i];
            if (kind == ScanKind::inclusive) sequential[i] = s;
        }
        CHECK(check_float_scan(sequential, x, kind).ok());
        std::vector<float> lost = sequential;  // element 10 forgotten from index 10 (or 11) on
        for (size_t i = 10; i < lost.size(); ++i) lost[i] -= x[10];
        CHECK_FALSE(check_float_scan(lost, x, kind).ok());
        std::vector<float> nan = sequential;
        nan[4999] = std::nanf("");
        CHECK_FALSE(check_float_scan(nan, x, kind).ok());
    }
}

TEST_CASE("host: each traffic model says the same in ints and bytes; the cells that answer a prediction wait for it") {
    for (const ScanStep& s : kSteps) {
        CAPTURE(s.name);
        const ScanModel& m = *s.info.model;
        const std::string name = s.name;
        if (m.traffic) {  // "2n", "~20n": arrays of n ints
            const std::string traffic = m.traffic;
            CHECK(std::stod(traffic.substr(traffic[0] == '~')) * sizeof(int) == m.bytes_per_element);
        }
        CHECK((m.traffic == nullptr) == (name == "reduce_then_scan"));
        CHECK(m.traffic_predicted.value == (name == "reduce_then_scan" ? &kReduceThenScanBytes : nullptr));
        CHECK(m.additions_predicted.value == (name == "naive_block" ? &kNaiveAdditions : nullptr));
        CHECK(m.launches_predicted.value == (name == "host_levels" ? &kHostLevelsCalls : nullptr));
    }
    // The traffic cell of step 5 is its prediction's answer, once that is right.
    const bool right = (double)kReduceThenScanBytes == find_answer("kReduceThenScanBytes")->derive();
    CHECK((traffic_cell(kReduceThenScanModel) == "? (kReduceThenScanBytes)") == !right);
}
TEST_CASE("host: every simulation in count.cpp computes the scan") {
    auto sims = {simulate_serial,      simulate_naive_block,         simulate_blelloch_block,
                 simulate_host_levels, simulate_scan_then_propagate, simulate_reduce_then_scan,
                 simulate_decoupled_lookback, simulate_quiet_lookback};
    for (size_t n : {(size_t)0, (size_t)1, (size_t)2, (size_t)31, (size_t)32, (size_t)33, (size_t)1025,
                     kTileItems + 1, 3 * kTileItems + 5}) {
        const std::vector<int> x = random_ints(n, n, -9, 9);
        const std::vector<long long> xl(x.begin(), x.end());
        for (ScanKind kind : kKinds) {
            const std::vector<int> ref = scan_reference(x, kind);
            const std::vector<long long> refl(ref.begin(), ref.end());
            int which = 0;
            for (auto sim : sims) {
                CAPTURE(n);
                CAPTURE(which++);
                CAPTURE(to_string(kind));
                CHECK(sim(xl, kind).result == refl);
            }
        }
    }
}

TEST_CASE("host: the simulations of scan_then_propagate and reduce_then_scan, three levels of tiles (large)") {
    const size_t n = kTileItems * kTileItems + 5;
    const std::vector<int> x = random_ints(n, 4, -9, 9);
    const std::vector<long long> xl(x.begin(), x.end());
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    const std::vector<long long> refl(ref.begin(), ref.end());
    CHECK(simulate_scan_then_propagate(xl, ScanKind::inclusive).result == refl);
    CHECK(simulate_reduce_then_scan(xl, ScanKind::inclusive).result == refl);
}

// The source material's question (the program prints its answer), and independent checks of the
// work-efficient counts: 2(m - 1) for a power of two m, and n more for an inclusive scan.
TEST_CASE("host: counted additions: n = 32 gives 129 (naive) and 62 (work-efficient)") {
    const std::vector<long long> x32(32, 1);
    CHECK(simulate_naive_block(x32, ScanKind::inclusive).count.additions == 129);
    CHECK(simulate_naive_block(x32, ScanKind::inclusive).count.steps == 5);
    CHECK(simulate_blelloch_block(x32, ScanKind::exclusive).count.additions == 62);
    CHECK(simulate_blelloch_block(x32, ScanKind::exclusive).count.steps == 10);
    CHECK(simulate_serial(x32, ScanKind::inclusive).count.additions == 31);
    for (size_t n : {(size_t)5, (size_t)1000, (size_t)4096}) {
        const std::vector<long long> x(n, 2);
        size_t m = 2;
        while (m < n) m *= 2;
        CHECK(simulate_blelloch_block(x, ScanKind::exclusive).count.additions == 2 * (m - 1));
        CHECK(simulate_host_levels(x, ScanKind::inclusive).count.additions == 2 * (m - 1) + n);
    }
    // The tiled scans do a few additions per element, whatever n.
    const std::vector<long long> big(1 << 20, 1);
    for (auto sim : {simulate_scan_then_propagate, simulate_reduce_then_scan, simulate_decoupled_lookback}) {
        const double per_element = (double)sim(big, ScanKind::inclusive).count.additions / big.size();
        CHECK(per_element > 1.0);
        CHECK(per_element < 7.0);
    }
    // Step 4's pass 3 adds one offset to every element outside the first tile, on top of scanning
    // each tile from 0 and scanning the totals; one tile is scanned without any pass 3.
    const std::vector<long long> one_tile(kTileItems, 1), four_tiles(4 * kTileItems, 1), totals(4, kTileItems);
    const uint64_t tile_alone = simulate_scan_then_propagate(one_tile, ScanKind::inclusive).count.additions;
    const uint64_t totals_scan = simulate_scan_then_propagate(totals, ScanKind::exclusive).count.additions;
    CHECK(simulate_scan_then_propagate(four_tiles, ScanKind::inclusive).count.additions ==
          4 * tile_alone + totals_scan + 3 * kTileItems);
    // scan_each_tile, scan_each_tile on the 4 totals (one tile: no recursion), add_tile_offsets
    CHECK(simulate_scan_then_propagate(four_tiles, ScanKind::inclusive).count.launches == 3);
}
