// 07_prefix_scan/main.cpp: runs each step on random data (int and float, inclusive and
// exclusive), checks it against the CPU reference, times it, and counts the additions each
// algorithm performs; --bench prints the benchmark table, --racy-demo shows the racy naive scan.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_scan.h"
#include "prefix_scan.h"
#include "program.h"

static const ScanKind kKinds[] = {ScanKind::inclusive, ScanKind::exclusive};

static int run(const Program& p, size_t n) {
    const DeviceFacts dev = device_facts();
    std::printf("Prefix sums on %s (%d SMs): n = %zu; int inputs in [-9, 9] (compared exactly), float\n"
                "inputs in [0, 1) (compared with the double-precision reference within a tolerance)\n\n",
                dev.name.c_str(), dev.sm_count, n);
    const std::vector<int> xi = int_input(n, p.seed);
    const std::vector<float> xf = float_input(n, p.seed);
    DeviceBuffer<int> di(xi), oi(n);
    DeviceBuffer<float> df(xf), of(n);
    // run_steps runs and times the int inclusive scan; its check runs the other three on the
    // first `used` elements (a one-block step takes no more) and checks all four.
    auto check_scan = [&](const ScanFns& scan, size_t used, const std::string& n_cell) {
        const std::vector<int> xi_used(xi.begin(), xi.begin() + used);
        const std::vector<float> xf_used(xf.begin(), xf.begin() + used);
        double worst = 0;
        for (ScanKind kind : kKinds) {
            if (kind == ScanKind::exclusive) {
                oi.poison();
                scan.for_int(di.get(), oi.get(), used, kind);
            }
            of.poison();
            scan.for_float(df.get(), of.get(), used, kind);
            CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<int> got = oi.download();
            got.resize(used);
            Comparison c = compare_exact(got, scan_reference(xi_used, kind));
            if (!c.ok()) return Check{false, std::string("int ") + to_string(kind) + ": " + c.describe(), {n_cell}};
            std::vector<float> got_f = of.download();
            got_f.resize(used);
            c = check_float_scan(got_f, xf_used, kind);
            if (!c.ok()) return Check{false, std::string("float ") + to_string(kind) + ": " + c.describe(), {n_cell}};
            worst = std::max(worst, c.worst_abs_err);
        }
        return Check{true, strf("float max abs error %.3g", worst), {n_cell}};
    };
    std::vector<StepRow> rows;
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        const size_t used = std::min(n, s.run.max_n);
        const std::string n_cell = used < n ? strf("%zu (one block's limit)", used) : strf("%zu", used);
        rows.push_back({std::to_string(s.number), s.name,
                        [&, s, used] { s.run.for_int(di.get(), oi.get(), used, ScanKind::inclusive); },
                        [&, s, used, n_cell] { return check_scan(s.run, used, n_cell); }, "",
                        [&] { oi.poison(); }, RowKind::step, Work{8.0 * used, 8.0 * used}});
    }
    const auto& compact = kCompactStep[0];
    const int threshold = 0;  // keeps about half
    DeviceBuffer<size_t> kept(1);
    if (p.selected(compact.name)) {
        const size_t expected = std::count_if(xi.begin(), xi.end(), [](int v) { return v > threshold; });
        auto check = [&, expected] {
            const std::string n_cell = strf("%zu", n);
            const size_t got = kept.download()[0];
            if (got != expected) return Check{false, strf("kept %zu elements, expected %zu", got, expected), {n_cell}};
            std::vector<int> out = oi.download();
            out.resize(expected);
            const Comparison c = compare_exact(out, compact_reference(xi, threshold));
            return Check{c.ok(), c.ok() ? strf("kept %zu of %zu (x > %d)", got, n, threshold) : c.describe(), {n_cell}};
        };
        rows.push_back({std::to_string(compact.number), compact.name,
                        [&] { compact.run(di.get(), oi.get(), n, threshold, kept.get()); }, check, "",
                        [&] { oi.poison(); kept.poison(); }, RowKind::step, Work{4.0 * n + 4.0 * expected, 4.0 * n + 4.0 * expected}});
    }
    StepTable table{"GB/s", 0, {"n"},
                    "Times are of the int inclusive scan. GB/s counts 8 bytes per element (read 4, write 4;\n"
                    "compact: read n, write the kept ones), whatever else an algorithm moves."};
    table.leading_columns = 1;
    table.check_column = "check (int and float, inclusive and exclusive)";
    const int failures = run_steps(rows, table);
    if (p.kernel != compact.name) print_counts(xi, p.kernel);
    if (n <= 16) print_pictures(xi);
    return failures ? 1 : 0;
}

// What each multi-block design moves through DRAM, in arrays of n ints. host_levels: 2n or more
// per launch at the lowest levels; from stride 8 on, a whole 32-byte sector for each 4-byte
// value; the upper levels are small enough for L2: about 20n in all.
static const char* traffic_of(int step) {
    return step == 3 ? "~20n" : step == 4 ? "4n" : step == 5 ? "3n" : "2n";
}

static int run_bench(const Program& p) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_bench_header("inclusive scans of int, 2^25 and 2^28 elements", cfg);
    std::printf("GB/s counts 8 bytes per element (read n, write n), whatever else an algorithm moves; %% of CUB\n"
                "compares with cub::DeviceScan::InclusiveSum on the same data in this run.\n"
                "traffic: what each design moves through DRAM, in arrays of n ints (read n + write n = 2n),\n"
                "counting nothing as served by L2.\n\n");
    Table table({"n", "algorithm", "traffic", "time (ms)", "GB/s", "% of CUB", "% of peak"});
    CubScan cub;
    int failures = 0;
    for (int k : {25, 28}) {
        const size_t n = (size_t)1 << k;
        const double bytes = 8.0 * n;
        const std::vector<int> x = int_input(n, p.seed + k);
        const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
        DeviceBuffer<int> di(x), oi(n);
        // Times one scan into a poisoned output, then checks what it left there.
        auto measure = [&](const std::string& name, const std::function<void()>& scan, double& ms) {
            oi.poison();
            ms = time_gpu(scan, cfg).median_ms;
            const Comparison c = compare_exact(oi.download(), ref);
            if (c.ok()) return true;
            ++failures;
            std::printf("%s at 2^%d: FAILED check after timing: %s\n", name.c_str(), k, c.describe().c_str());
            return false;
        };
        const std::string size = strf("2^%d", k);
        const double copy_ms = time_device_copy(4 * n, cfg).median_ms, copy_gbs = gb_per_s(bytes, copy_ms);
        table.row({size, "cudaMemcpy (device to device)", "2n", strf("%.4f", copy_ms), strf("%.0f", copy_gbs), "",
                   strf("%.1f", 100 * copy_gbs / dev.dram_gbs)});
        double cub_ms = 0;
        const bool cub_ok = measure("CUB", [&] { cub.inclusive_sum(di.get(), oi.get(), n); }, cub_ms);
        const double cub_gbs = gb_per_s(bytes, cub_ms);
        table.row({size, "cub::DeviceScan::InclusiveSum", "2n", cub_ok ? strf("%.4f", cub_ms) : "FAILED check",
                   strf("%.0f", cub_gbs), "100.0", strf("%.1f", 100 * cub_gbs / dev.dram_gbs)});
        for (const auto& s : kSteps) {
            if (s.run.max_n < n) continue;  // the one-block steps
            double ms = 0;
            const bool ok = measure(s.name, [&] { s.run.for_int(di.get(), oi.get(), n, ScanKind::inclusive); }, ms);
            if (!ok) {
                table.row({size, s.name, traffic_of(s.number), "FAILED check", "-", "-", "-"});
                continue;
            }
            const double gbs = gb_per_s(bytes, ms);
            table.row({size, s.name, traffic_of(s.number), strf("%.4f", ms), strf("%.0f", gbs),
                       strf("%.1f", ms > 0 ? 100 * cub_ms / ms : 0.0), strf("%.1f", 100 * gbs / dev.dram_gbs)});
        }
    }
    table.print();
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    std::vector<std::string> steps = step_names(kSteps);
    steps.push_back(kCompactStep[0].name);
    Program p(argc, argv,
              {"prefix sums (scans) on the GPU, checked on the CPU",
               "  --n N           elements (default 1000000; 2^K and 2^K+C work too; at most 2^31-1)\n"
               "  --racy-demo     run the source material's in-place naive scan, which has a race, instead\n"
               "                  (then try it under: compute-sanitizer --tool racecheck)\n",
               steps, {}, "the benchmark table (2^25 and 2^28 elements)"});
    const size_t n = p.size("--n", 1000000, 1, ((size_t)1 << 31) - 1);
    const bool racy = p.flag("--racy-demo");
    p.not_with_bench({"--n", "--racy-demo"});
    p.not_with("--kernel", "--racy-demo", "the demo runs no step");
    p.not_with("--n", "--racy-demo", "the demo always scans 1024 elements, one block");
    for (const char* file : {"--csv", "--plot"}) p.not_with(file, "--racy-demo", "the demo prints no table");
    p.finish();

    if (racy) {
        require_gpu(p.program().c_str());
        run_racy_demo(p.seed);
        return 0;
    }
    if (p.bench) {
        // Host: the input, its reference and one downloaded output. GPU: in, out, host_levels'
        // tree and the copy's two buffers. All at 2^28 ints.
        require_memory(p, "--bench", 3.0 * 4 * ((size_t)1 << 28), 5.0 * 4 * ((size_t)1 << 28));
        return run_bench(p);
    }
    // Host, at the peak of a scan's check: the int and float inputs, their first-n copies, one
    // downloaded output and its reference (24n). GPU: int and float in and out (16n),
    // host_levels' tree (up to 8n), compaction's scratch (8n).
    require_memory(p, "--n", 24.0 * n, 32.0 * n);
    return run(p, n);
}
