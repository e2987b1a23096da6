// 07_prefix_scan/main.cpp: runs each step on random data next to CUB and a copy, checks it
// against the CPU reference (int and float, inclusive and exclusive), times it, and counts the
// additions each algorithm performs; --bench measures 2^25 and 2^28 elements, --racy-demo shows
// the racy naive scan.
#include "cub_scan.h"
#include "prefix_scan.h"
#include "program.h"

// One size: the copy, CUB and every selected step on xi, each timed on the int inclusive scan and
// checked on it. A one-block step scans the first elements it takes, or is skipped in the
// benchmark; outside the benchmark, a step's check also runs and checks its exclusive scan and
// both float scans.
static void measure(Measurements& table, const Program& p, const std::string& title, const std::vector<int>& xi) {
    const size_t n = xi.size();
    const std::vector<int> ref = scan_reference(xi, ScanKind::inclusive);
    const std::vector<float> xf = p.bench ? std::vector<float>() : float_input(n, p.seed);
    DeviceBuffer<int> di(xi), oi(n);
    DeviceBuffer<float> df(xf), of(xf.size());
    DeviceBuffer<size_t> kept(1);
    CubScan cub;
    // The first `used` outputs against ref (an inclusive scan's first elements are the
    // inclusive scan of the first elements); then, for a step outside the benchmark, the others.
    auto check = [&](const ScanStep* step, size_t used) {
        Comparison c = compare(oi.download().data(), ref.data(), used, Tolerance{0, 0});
        if (!c.ok() || !step || p.bench || profiling_mode())  // (profiled: no launches outside the step's range)
            return Check{c.ok(), c.ok() ? "exact" : "int inclusive: " + c.describe()};
        const std::vector<int> xi_used(xi.begin(), xi.begin() + used);
        const std::vector<float> xf_used(xf.begin(), xf.begin() + used);
        double worst = 0;
        for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
            oi.poison(), of.poison();
            step->run(di.get(), oi.get(), used, kind);
            step->run(df.get(), of.get(), used, kind);
            c = compare(oi.download().data(), scan_reference(xi_used, kind).data(), used, Tolerance{0, 0});
            if (!c.ok()) return Check{false, std::string("int ") + to_string(kind) + ": " + c.describe()};
            c = check_float_scan(of.download(used), xf_used, kind);
            if (!c.ok()) return Check{false, std::string("float ") + to_string(kind) + ": " + c.describe()};
            worst = std::max(worst, c.worst_abs_err);
        }
        return Check{true, strf("all four; float max abs error %.3g", worst)};
    };
    auto poison = [&] { oi.poison(); };
    const std::string all = std::to_string(n);
    std::vector<StepRow> rows;
    if (p.selected("cub"))  // and the copy: the libraries
        rows = {copy_row("cudaMemcpy (device to device)", oi.get(), di.get(), xi, RowKind::reference, {all, "2n"}),
                {"-", "cub::DeviceScan::InclusiveSum", [&] { cub.inclusive_sum(di.get(), oi.get(), n); },
                 [&] { return check(nullptr, n); }, "", poison, RowKind::baseline, Work{}, {all, "2n"}}};
    for (const ScanStep& s : p.selected(kSteps)) {
        const size_t used = std::min(n, s.info.max_n);  // a one-block step's time is not comparable with CUB's
        const std::string skip = p.bench && used < n ? strf("one block scans at most %zu elements", used) : "";
        rows.push_back({std::to_string(s.number), s.name, [&, s, used] { s.run(di.get(), oi.get(), used, ScanKind::inclusive); },
                        [&, s, used] { return check(&s, used); }, skip, poison, RowKind::step,
                        Work{8.0 * used, 1.0 * used}, {used < n ? strf("%zu (one block's limit)", used) : all,
                        traffic_cell(*s.info.model)},
                        used < n ? "-" : ""});
    }
    const int threshold = 0;  // keeps about half
    const std::vector<int> kept_ref = compact_reference(xi, threshold);
    auto check_compact = [&] {
        const size_t got = kept.download()[0];
        if (got != kept_ref.size()) return Check{false, strf("kept %zu elements, expected %zu", got, kept_ref.size())};
        const Comparison c = compare(oi.download().data(), kept_ref.data(), got, Tolerance{0, 0});
        return Check{c.ok(), c.ok() ? strf("kept %zu of %zu (x > %d)", got, n, threshold) : c.describe()};
    };
    for (const auto& s : p.selected(kCompactStep))  // not a scan: no share of CUB's time
        rows.push_back({std::to_string(s.number), s.name, [&, s] { s.run(di.get(), oi.get(), n, threshold, kept.get()); },
                        check_compact, "", [&] { oi.poison(), kept.poison(); }, RowKind::step,
                        Work{4.0 * (n + kept_ref.size()), 1.0 * n}, {all, "-"}, "-"});
    table.section(title, Work{8.0 * n, 1.0 * n}, rows);
}

// The default run (n ints and floats, every check) or --bench (2^25 and 2^28 ints, the int
// inclusive scan checked exactly): GB/s of the 8n bytes a scan must move, against CUB.
static int run(const Program& p, size_t n) {
    const DeviceFacts dev =
        print_header(p, BenchConfig{}, "inclusive scans of int, 2^25 and 2^28 elements", "Prefix sums",
                     strf("n = %zu; int inputs in [-9, 9] (compared exactly), float\ninputs in [0, 1) (compared "
                          "with the double-precision reference within a tolerance)", n));
    TableSpec t;
    t.title = "inclusive scan of n ints";
    t.rate.ops_name = "additions";
    t.footer = "Times are of the int inclusive scan. GB/s counts 8 bytes per element (read n ints, write n;\n"
               "compact: read n, write the kept ones), whatever else an algorithm moves. traffic: what each\n"
               "design moves through DRAM, in arrays of n ints, counting nothing as served by L2.";
    t.columns = {cols::step(), cols::kernel(), cols::own("n"), cols::own("traffic"), cols::time(), cols::rate(t.rate),
                 cols::of_baseline("% of CUB"), cols::of_peak("DRAM peak", dev.dram_gbs),
                 cols::check(p.bench ? "check" : "check (steps: int and float, inclusive and exclusive)")};
    Measurements table(t, BenchConfig{}, p.outputs());
    if (p.bench) {
        std::printf("Every result is checked exactly against the CPU's, before and after its timing.\n\n");
        for (int k : {25, 28})
            measure(table, p, strf("2^%d ints (%.0f MB)", k, 4.0 * ((size_t)1 << k) / 1e6),
                    int_input((size_t)1 << k, p.seed + k));
        return table.finish() ? 1 : 0;
    }
    const std::vector<int> xi = int_input(n, p.seed);
    measure(table, p, "", xi);
    const int failures = table.finish();
    if (!p.selected(kSteps).empty()) print_counts(xi, p.kernel);
    if (n <= 16) print_pictures(xi);
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    std::vector<StepDecl> steps = step_decls(kSteps), compact = step_decls(kCompactStep);
    steps.insert(steps.end(), compact.begin(), compact.end());
    Program p(argc, argv,
              {"prefix sums (scans) on the GPU, checked on the CPU",
               {{"--n N", "elements"},
                {"--racy-demo", "run the source material's in-place naive scan, which has a race, instead (then "
                                "try it under: compute-sanitizer --tool racecheck)"}},
               steps, {"cub"}, "the benchmark tables (2^25 and 2^28 elements)"});
    const size_t n = p.size("--n", 1000000, 1, ((size_t)1 << 31) - 1);
    const bool racy = p.flag("--racy-demo");
    p.not_with_bench({"--n", "--racy-demo"});
    p.not_with_demo("--racy-demo", {"--n"}, "the demo always scans 1024 elements, one block");
    p.finish();
    // Host, at the peak of a step's check: the int and float inputs, the scan's and compaction's
    // references, the first-n copies, one downloaded output and its reference (32n). GPU: int and
    // float in and out (16n), host_levels' tree (up to 8n), compaction's scratch (8n). --bench, at
    // 2^28 ints and no floats, 16n a side: host, the input, its reference, one downloaded output and
    // compaction's reference; GPU, in, out, host_levels' tree or compaction's scratch (8n each).
    // (--racy-demo scans 1024 ints: the default n's bytes are more than it needs.)
    const double bytes = p.bench ? 16.0 * ((size_t)1 << 28) : 32.0 * n;
    require_memory(p, p.bench ? "--bench" : "--n", bytes, bytes);
    return racy ? run_racy_demo(p.seed) : run(p, n);
}
