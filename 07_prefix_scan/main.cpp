// 07_prefix_scan/main.cpp: runs each step on random data (int and float, inclusive and
// exclusive), checks it against the CPU reference, times it, and counts the additions each
// algorithm performs; --bench prints the benchmark table, --racy-demo shows the racy naive scan.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "program.h"
#include "prefix_scan.h"

static const char* kUsage =
    "usage: prefix_scan [options]      prefix sums (scans) on the GPU, checked on the CPU\n"
    "  --n N           elements (default 1000000; 2^K and 2^K+C work too; at most 2^31-1)\n"
    "  --kernel NAME   naive_block, blelloch_block, host_levels, scan_then_propagate,\n"
    "                  reduce_then_scan, decoupled_lookback, compact or all (default all)\n"
    "  --seed S        seed of the random input (default 1)\n"
    "  --bench         print the benchmark table (2^25 and 2^28 elements) instead\n"
    "  --racy-demo     run the source material's in-place naive scan, which has a race, instead\n"
    "                  (then try it under: compute-sanitizer --tool racecheck)\n";

struct Step {
    const char* name;
    void (*run_int)(const int*, int*, size_t, ScanKind);
    void (*run_float)(const float*, float*, size_t, ScanKind);
    size_t max_n;  // one block's limit, or none
    Simulated (*simulate)(const std::vector<long long>&, ScanKind);
};
static const Step kSteps[] = {
    {"naive_block", run_naive_block, run_naive_block, kNaiveMaxN, simulate_naive_block},
    {"blelloch_block", run_blelloch_block, run_blelloch_block, kBlellochMaxN, simulate_blelloch_block},
    {"host_levels", run_host_levels, run_host_levels, SIZE_MAX, simulate_host_levels},
    {"scan_then_propagate", run_scan_then_propagate, run_scan_then_propagate, SIZE_MAX,
     simulate_scan_then_propagate},
    {"reduce_then_scan", run_reduce_then_scan, run_reduce_then_scan, SIZE_MAX, simulate_reduce_then_scan},
    {"decoupled_lookback", run_decoupled_lookback, run_decoupled_lookback, SIZE_MAX,
     simulate_decoupled_lookback},
};
static const ScanKind kKinds[] = {ScanKind::inclusive, ScanKind::exclusive};

// Integer inputs in [-9, 9]: partial sums wander like a random walk (about 5.5 sqrt(n)), far
// from int's limits even at 2^31 elements. Float inputs in [0, 1): with no cancellation, the
// tolerance (4 sqrt(i) float roundings of the prefix itself) stays tight relative to the values.
static std::vector<int> int_input(size_t n, uint64_t seed) { return random_ints(n, seed, -9, 9); }
static std::vector<float> float_input(size_t n, uint64_t seed) { return random_floats(n, seed + 1000, 0.0f, 1.0f); }

// Runs one step on the first n elements, both types and both kinds; "" when all four are right.
static std::string check_step(const Step& s, size_t n, const std::vector<int>& xi, const std::vector<float>& xf,
                              DeviceBuffer<int>& di, DeviceBuffer<int>& oi, DeviceBuffer<float>& df,
                              DeviceBuffer<float>& of, double* worst_float_err) {
    const std::vector<int> xi_n(xi.begin(), xi.begin() + n);
    const std::vector<float> xf_n(xf.begin(), xf.begin() + n);
    for (ScanKind kind : kKinds) {
        oi.poison();
        s.run_int(di.get(), oi.get(), n, kind);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<int> got = oi.download();
        got.resize(n);
        Comparison c = compare_exact(got, scan_reference(xi_n, kind));
        if (!c.ok()) return std::string("int ") + to_string(kind) + ": " + c.describe();
        of.poison();
        s.run_float(df.get(), of.get(), n, kind);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> gotf = of.download();
        gotf.resize(n);
        c = check_float_scan(gotf, xf_n, kind);
        if (!c.ok()) return std::string("float ") + to_string(kind) + ": " + c.describe();
        *worst_float_err = std::max(*worst_float_err, c.worst_abs_err);
    }
    return "";
}

static std::vector<long long> widen(const std::vector<int>& x) { return std::vector<long long>(x.begin(), x.end()); }

// The additions each algorithm performs, counted by running its loops on the CPU (count.cpp).
static void print_counts(const std::vector<int>& x, bool all_steps, const std::string& which) {
    const size_t kMaxCounted = (size_t)1 << 24;
    const size_t n = x.size();
    std::printf("\nAdditions performed for an inclusive scan, counted by running each algorithm's own loops on\n"
                "the CPU (count.cpp), thread by thread; the one-block algorithms are counted with as many\n"
                "threads as elements, as in the source material's model.\n\n");
    if (n > kMaxCounted) {
        std::printf("(not counted for n above 2^24: the simulation would take too long; try --n 2^20)\n");
        return;
    }
    const std::vector<long long> xl = widen(x);
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    Table table({"algorithm", "additions", "per element", "span (steps)", "launches", "simulation"});
    struct Entry {
        const char* name;
        Simulated (*simulate)(const std::vector<long long>&, ScanKind);
    };
    std::vector<Entry> entries = {{"serial (one thread)", simulate_serial}};
    for (const Step& s : kSteps)
        if (all_steps || which == s.name) entries.push_back({s.name, s.simulate});
    for (const Entry& e : entries) {
        Simulated sim = e.simulate(xl, ScanKind::inclusive);
        bool same = sim.result.size() == n && std::equal(ref.begin(), ref.end(), sim.result.begin(),
                                                         [](int r, long long g) { return (long long)r == g; });
        table.row({e.name, strf("%llu", (unsigned long long)sim.count.additions),
                   strf("%.2f", n ? (double)sim.count.additions / n : 0.0),
                   sim.count.steps ? strf("%llu", (unsigned long long)sim.count.steps) : "-",
                   strf("%llu", (unsigned long long)sim.count.launches),
                   same ? "computes the scan" : "WRONG RESULT (count.cpp disagrees with the reference)"});
    }
    table.print();

    // The source material's question: n = 32, its naive (inclusive) and work-efficient
    // (exclusive) algorithms.
    std::vector<long long> x32(32, 1);
    Simulated naive = simulate_naive_block(x32, ScanKind::inclusive);
    Simulated blelloch = simulate_blelloch_block(x32, ScanKind::exclusive);
    Simulated blelloch_incl = simulate_blelloch_block(x32, ScanKind::inclusive);
    Simulated serial = simulate_serial(x32, ScanKind::inclusive);
    std::printf("\nThe source's question, n = 32: the naive scan performs %llu additions in %llu steps; the\n"
                "work-efficient scan %llu in %llu steps (up-sweep + down-sweep, exclusive as in the source;\n"
                "%llu to make it inclusive). One thread alone needs %llu.\n",
                (unsigned long long)naive.count.additions, (unsigned long long)naive.count.steps,
                (unsigned long long)blelloch.count.additions, (unsigned long long)blelloch.count.steps,
                (unsigned long long)blelloch_incl.count.additions, (unsigned long long)serial.count.additions);
}

// For the lecture: the two single-block algorithms on a small input, step by step.
static void print_row(const char* label, const std::vector<long long>& v, size_t n) {
    std::printf("  %-22s", label);
    for (size_t i = 0; i < n; ++i) std::printf("%5lld", v[i]);
    std::printf("\n");
}
static void print_pictures(const std::vector<int>& x) {
    const size_t n = x.size();
    std::printf("\nNaive (Hillis-Steele) inclusive scan: each step adds the element `offset` places left.\n");
    std::vector<long long> cur(x.begin(), x.end()), next(n);
    print_row("input", cur, n);
    for (size_t offset = 1; offset < n; offset *= 2) {
        for (size_t i = 0; i < n; ++i) next[i] = cur[i] + (i >= offset ? cur[i - offset] : 0);
        std::swap(cur, next);
        print_row(strf("offset %zu", offset).c_str(), cur, n);
    }
    size_t m = 2;
    while (m < n) m *= 2;
    std::printf("\nWork-efficient (Blelloch) exclusive scan, padded with zeros to %zu elements.\n", m);
    std::vector<long long> a(m, 0);
    std::copy(x.begin(), x.end(), a.begin());
    print_row("input", a, m);
    size_t offset = 1;
    for (size_t d = m / 2; d > 0; d /= 2, offset *= 2) {
        for (size_t t = 0; t < d; ++t) a[offset * (2 * t + 2) - 1] += a[offset * (2 * t + 1) - 1];
        print_row(strf("up-sweep, stride %zu", 2 * offset).c_str(), a, m);
    }
    a[m - 1] = 0;
    print_row("root set to 0", a, m);
    for (size_t d = 1; d < m; d *= 2) {
        offset /= 2;
        for (size_t t = 0; t < d; ++t) {
            const size_t l = offset * (2 * t + 1) - 1, r = offset * (2 * t + 2) - 1;
            const long long old_left = a[l];
            a[l] = a[r];
            a[r] += old_left;
        }
        print_row(strf("down-sweep, stride %zu", 2 * offset).c_str(), a, m);
    }
}

static int run_steps(const std::string& which, size_t n, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Prefix sums on %s (%d SMs): n = %zu; int inputs in [-9, 9] (compared exactly), float\n"
                "inputs in [0, 1) (compared with the double-precision reference within a tolerance)\n\n",
                dev.name.c_str(), dev.sm_count, n);
    const std::vector<int> xi = int_input(n, seed);
    const std::vector<float> xf = float_input(n, seed);
    DeviceBuffer<int> di(xi), oi(n);
    DeviceBuffer<float> df(xf), of(n);
    Table table({"step", "kernel", "n", "time (ms)", "GB/s", "check (int and float, inclusive and exclusive)"});
    int failures = 0;
    int number = 0;
    for (const Step& s : kSteps) {
        ++number;
        if (which != "all" && which != s.name) continue;
        const std::string step = std::to_string(number);
        const size_t used = std::min(n, s.max_n);
        const std::string n_cell = used < n ? strf("%zu (one block's limit)", used) : strf("%zu", used);
        double worst = 0;
        const std::string bad = check_step(s, used, xi, xf, di, oi, df, of, &worst);
        if (!bad.empty()) {
            ++failures;
            table.row({step, s.name, n_cell, "-", "-", "FAILED " + bad + " (is TODO step " + step + " done?)"});
            continue;
        }
        Timing t = time_gpu([&] { s.run_int(di.get(), oi.get(), used, ScanKind::inclusive); });
        table.row({step, s.name, n_cell, strf("%.4f", t.median_ms), strf("%.1f", gb_per_s(8.0 * used, t.median_ms)),
                   strf("ok (float: max abs error %.3g)", worst)});
    }
    if (which == "all" || which == "compact") {
        const std::string step = std::to_string(std::size(kSteps) + 1);  // the step after the scans
        const int threshold = 0;
        const std::vector<int> ref = compact_reference(xi, threshold);
        DeviceBuffer<size_t> kept(1);
        oi.poison();
        kept.poison();
        run_compact(di.get(), oi.get(), n, threshold, kept.get());
        CUDA_CHECK(cudaDeviceSynchronize());
        const size_t got_kept = kept.download()[0];
        std::vector<int> got = oi.download();
        std::string verdict;
        if (got_kept != ref.size()) {
            verdict = strf("FAILED: kept %zu elements, expected %zu", got_kept, ref.size());
        } else {
            got.resize(ref.size());
            Comparison c = compare_exact(got, ref);
            verdict = c.ok() ? strf("ok: kept %zu of %zu (x > %d)", got_kept, n, threshold) : "FAILED: " + c.describe();
        }
        if (verdict.rfind("ok", 0) == 0) {
            Timing t = time_gpu([&] { run_compact(di.get(), oi.get(), n, threshold, kept.get()); });
            table.row({step, "compact", strf("%zu", n), strf("%.4f", t.median_ms),
                       strf("%.1f", gb_per_s(4.0 * n + 4.0 * ref.size(), t.median_ms)), verdict});
        } else {
            ++failures;
            table.row({step, "compact", strf("%zu", n), "-", "-", verdict + " (is TODO step " + step + " done?)"});
        }
    }
    table.print();
    std::printf("\nTime: median of 20 runs of the int inclusive scan. GB/s counts 8 bytes per element (read\n"
                "4, write 4; compact: read n, write the kept ones), whatever else an algorithm moves.\n");
    if (which != "compact") print_counts(xi, which == "all", which);
    if (n <= 16) print_pictures(xi);
    return failures ? 1 : 0;
}

// The in-place naive scan: it may or may not give wrong answers here, depending on how the warps
// are scheduled; racecheck reports the hazard either way.
static int run_racy_demo(uint64_t seed) {
    const size_t n = kNaiveMaxN;
    std::vector<int> x = int_input(n, seed);
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    DeviceBuffer<int> di(x), oi(n);
    const int runs = 100;
    int wrong_runs = 0;
    Comparison first_wrong;
    for (int r = 0; r < runs; ++r) {
        oi.poison();
        run_naive_block_racy(di.get(), oi.get(), n);
        CUDA_CHECK(cudaDeviceSynchronize());
        Comparison c = compare_exact(oi.download(), ref);
        if (!c.ok() && wrong_runs++ == 0) first_wrong = c;
    }
    std::printf("Racy naive scan (one shared buffer updated in place), n = %zu, %d runs:\n", n, runs);
    std::printf("  %d of %d runs gave a wrong result%s%s\n", wrong_runs, runs, wrong_runs ? "; the first: " : "",
                wrong_runs ? first_wrong.describe().c_str() : "");
    std::printf("A race need not show up in a test: whether it does depends on the order in which warps\n"
                "happen to run. compute-sanitizer finds it whatever the outcome:\n"
                "  compute-sanitizer --tool racecheck build/07_prefix_scan/solution/prefix_scan --racy-demo\n"
                "Step 1's double-buffered scan_naive_block has no such hazard (make sanitize-07).\n");
    return 0;
}

static int run_bench(uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s\n", dev.name.c_str(), dev.sm_count,
                dev.dram_gbs);
    std::printf("Inclusive scan of int. GB/s counts 8 bytes per element (read n, write n), whatever else an\n"
                "algorithm moves; %% of CUB compares with cub::DeviceScan::InclusiveSum on the same data in\n"
                "this run. Median of 20 runs, L2 flushed between runs, every output checked after timing.\n"
                "traffic: what each design moves through DRAM, in arrays of n ints (read n + write n = 2n),\n"
                "counting nothing as served by L2.\n\n");
    Table table({"n", "algorithm", "traffic", "time (ms)", "GB/s", "% of CUB", "% of peak"});
    struct Entry {
        const char* name;
        const char* traffic;
        void (*run)(const int*, int*, size_t, ScanKind);
    };
    // host_levels: 2n or more per launch at the lowest levels; from stride 8 on, a whole 32-byte
    // sector for each 4-byte value; the upper levels are small enough for L2: about 20n in all.
    const Entry entries[] = {
        {"host_levels", "~20n", run_host_levels},
        {"scan_then_propagate", "4n", run_scan_then_propagate},
        {"reduce_then_scan", "3n", run_reduce_then_scan},
        {"decoupled_lookback", "2n", run_decoupled_lookback},
    };
    int failures = 0;
    for (int k : {25, 28}) {
        const size_t n = (size_t)1 << k;
        const double bytes = 8.0 * n;
        const std::vector<int> x = int_input(n, seed + k);
        const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
        DeviceBuffer<int> di(x), oi(n);
        auto checked = [&](const std::string& name) {
            Comparison c = compare_exact(oi.download(), ref);
            if (!c.ok()) {
                ++failures;
                std::printf("%s at 2^%d: FAILED check after timing: %s\n", name.c_str(), k, c.describe().c_str());
            }
            return c.ok();
        };
        const double copy_ms = time_device_copy(4 * n).median_ms;
        table.row({strf("2^%d", k), "cudaMemcpy (device to device)", "2n", strf("%.4f", copy_ms),
                   strf("%.0f", gb_per_s(bytes, copy_ms)), "", strf("%.1f", 100 * gb_per_s(bytes, copy_ms) / dev.dram_gbs)});
        oi.poison();
        const double cub_ms = time_gpu([&] { run_cub_inclusive_sum(di.get(), oi.get(), n); }).median_ms;
        const bool cub_ok = checked("CUB");
        const double cub_gbs = gb_per_s(bytes, cub_ms);
        table.row({strf("2^%d", k), "cub::DeviceScan::InclusiveSum", "2n", cub_ok ? strf("%.4f", cub_ms) : "FAILED check",
                   strf("%.0f", cub_gbs), "100.0", strf("%.1f", 100 * cub_gbs / dev.dram_gbs)});
        for (const Entry& e : entries) {
            oi.poison();
            const double ms = time_gpu([&] { e.run(di.get(), oi.get(), n, ScanKind::inclusive); }).median_ms;
            const bool ok = checked(e.name);
            const double gbs = gb_per_s(bytes, ms);
            table.row({strf("2^%d", k), e.name, e.traffic, ok ? strf("%.4f", ms) : "FAILED check",
                       ok ? strf("%.0f", gbs) : "-",
                       ok ? strf("%.1f", ms > 0 ? 100 * cub_ms / ms : 0.0) : "-",
                       ok ? strf("%.1f", 100 * gbs / dev.dram_gbs) : "-"});
        }
    }
    table.print();
    return failures ? 1 : 0;
}

// run_steps keeps, at its peak, the int and float inputs, their first-n copies, one downloaded
// output and its reference on the host: about 24 bytes per element (51 GB at 2^31 - 1).
static constexpr double kHostBytesPerElement = 24.0;

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const size_t n = opts.size("--n", 1000000, 1, ((size_t)1 << 31) - 1);
    const std::string kernel = opts.choice("--kernel", "all",
                                           {"all", "naive_block", "blelloch_block", "host_levels",
                                            "scan_then_propagate", "reduce_then_scan", "decoupled_lookback",
                                            "compact"});
    const uint64_t seed = opts.size("--seed", 1, 0);
    const bool bench = opts.flag("--bench");
    const bool racy = opts.flag("--racy-demo");
    opts.finish();
    if (bench && racy) opts.fail("--racy-demo", "cannot be combined with --bench");
    if (!bench && !racy) require_fits_in_host(opts, "--n", kHostBytesPerElement * n);

    require_gpu(opts.program().c_str());
    if (racy) return run_racy_demo(seed);
    if (bench) {
        // in, out, host_levels' tree and the copy's two buffers, at 2^28 ints
        require_fits_in_gpu(opts, "--bench", 5.0 * 4 * ((size_t)1 << 28));
        return run_bench(seed);
    }
    // int and float in and out (16n), host_levels' tree (up to 8n), compaction's scratch (8n)
    require_fits_in_gpu(opts, "--n", 32.0 * n);
    return run_steps(kernel, n, seed);
}
