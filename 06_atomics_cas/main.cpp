// 06_atomics_cas/main.cpp: runs each step's kernels on random data next to CUB's sum, checks them
// against the CPU and times them; --bench measures contention on 1 to 2^20 addresses and the cost
// of each kind of update on one word.
#include "atomics_cas.h"
#include "cub_sum.h"
#include "program.h"

// A kernel's outcome (step_cases.cpp) as a row's check: the note, then the result and what was expected.
static Check check_of(const Outcome& o) { return Check{o.ok, o.note, {o.got, o.expected}}; }

// One workload: the selected steps' kernels (those that update one word, those that spread their
// updates over addresses, or both) and CUB's sum of the same ints.
static void measure(Measurements& table, const Program& p, const std::string& title, Workload& w, bool one_word,
                    bool spreading) {
    CubSum cub(w.n);
    DeviceBuffer<int> cub_total(1);
    std::vector<StepRow> rows;
    for (const AtomicsStep& s : kSteps) {
        if (!p.selected(s.name) || !(s.info.spreads ? spreading : one_word)) continue;
        const size_t updates = s.info.updates(w);
        for (size_t k = 0; k < s.info.kernel_count(); ++k)
            rows.push_back({std::to_string(s.number), s.info.kernels[k].name, [&w, s, k] { s.run(w, k); },
                            [&w, s, k] { return check_of(s.info.check(w, k)); }, "", {}, RowKind::step,
                            Work{s.info.kernels[k].bytes_per_update * updates, 1.0 * updates},
                            {std::to_string(updates), s.info.atomics ? s.info.atomics(w, k) : "-"},
                            updates == w.n ? "" : "-"});  // fewer updates than CUB sums: no share of its time
    }
    if (p.selected("cub"))
        rows.push_back({"-", "cub::DeviceReduce::Sum", [&] { cub.run(w.d_ints.get(), w.n, cub_total.get()); },
                        [&] { return check_of(int_sum_outcome(cub_total.download()[0], w.int_sum)); }, "",
                        [&] { cub_total.poison(); }, RowKind::baseline, Work{4.0 * w.n, 1.0 * w.n},
                        {std::to_string(w.n), "0"}});
    table.section(title, Work{}, rows);
}

// What spreading the atomics buys: each kernel's time on one address over its time on more.
static void print_spreading(const std::vector<RowResult>& results, const std::vector<std::string>& sections) {
    std::vector<std::string> head = {"x one-address"};
    for (size_t i = 1; i < sections.size(); ++i) head.push_back(sections[i].substr(0, sections[i].find(':')));
    Table gains(head);
    for (const RowResult& one : results) {
        if (one.section != sections[0] || one.kind != RowKind::step) continue;
        std::vector<std::string> cells = {one.name};
        for (const RowResult& r : results)  // the same kernel on more addresses, in order
            if (r.section != sections[0] && r.name == one.name)
                cells.push_back(one.timed() && r.timed() ? strf("%.1f", one.ms / r.ms) : "-");
        gains.row(cells);
    }
    gains.print();
    std::printf("\n");
}

// The default run (every selected step on one workload of n updates) or --bench: contention on
// 1 to 2^20 addresses, then what each kind of one-word update costs.
static int run(const Program& p, size_t n, size_t addresses, size_t cas_n) {
    // --bench: fewer runs of the slowest CAS rows. Otherwise the checked run is the warm-up, and 3
    // timed runs keep compute-sanitizer short: --bench measures.
    const BenchConfig cfg = p.bench ? kBudgetedTiming : BenchConfig{0, 3, false};
    TableSpec t;
    t.title = "n threads updating shared memory";
    t.rate = ops_rate("M updates/s", 1e6, "updates");
    t.columns = {cols::step(), cols::kernel(), cols::own("updates"), cols::own("atomics"), cols::time(), cols::rate(t.rate),
                 cols::of_baseline("% of CUB"),
                 // the updates per second DRAM can feed 4-byte values to
                 cols::of_peak("DRAM peak (4 B an update)", device_facts().dram_gbs * 1e3 / 4), cols::own("result"),
                 cols::own("expected"), cols::check()};
    t.footer = "M updates/s = updates / time; the time includes setting the target (a memset). % of CUB: against\n"
               "cub::DeviceReduce::Sum of the same ints (no atomics on a shared word). For race, \"ok\" means\n"
               "updates were lost, as the missing atomics must lose them.";
    Measurements table(t, cfg, p.outputs());
    if (!p.bench) {
        Workload w(n, addresses, cas_n, p.seed);
        print_run_header("n threads update one place in memory,",
                         strf("n = %zu (cas_add: %zu),\ncontention over %zu address%s", n, w.cas_n, addresses,
                              addresses == 1 ? "" : "es"));
        measure(table, p, "", w, true, true);
        return table.finish() ? 1 : 0;
    }
    print_bench_header(strf("n threads updating the same memory, %d threads per block", kBlock), cfg);
    std::printf("\n");
    std::vector<std::string> sections;
    {
        Workload w((size_t)1 << 26, (size_t)1 << 20, 1, p.seed);
        for (size_t a : {(size_t)1, (size_t)32, (size_t)1024, (size_t)1 << 20}) {
            w.addresses = a;
            sections.push_back((a == ((size_t)1 << 20) ? "2^20" : std::to_string(a)) + (a == 1 ? " address" : " addresses") +
                               ": 2^26 ints in [-3, 3] summed through atomics, then the counters summed");
            measure(table, p, sections.back(), w, false, true);
        }
    }
    print_spreading(table.results(), sections);
    for (int log_m : {12, 14, 16}) {
        Workload w((size_t)1 << log_m, 1, (size_t)1 << log_m, p.seed + log_m);
        measure(table, p, strf("2^%d updates, one per thread, all on one word", log_m), w, true, false);
    }
    return table.finish() ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"n threads update the same memory: races, atomics, CAS, locks",
               {{"--n N", "updates, one per thread"},
                {"--addresses K", "counters the contention step spreads its atomics over, a power of two"},
                {"--cas-n M",
                 "updates for the cas_add step, at most n: every success of a contended CAS loop costs a pass of "
                 "all waiting threads, so its time grows with the square of M (the benchmark shows it)",
                 "2^14, or n if smaller"}},
               step_decls(kSteps), {"cub"},
               "the contention tables (2^26 updates on 1, 32, 1024 and 2^20 addresses) and the cost of each kind "
               "of one-word update (2^12 to 2^16 updates)"});
    const size_t n = p.size("--n", (size_t)1 << 20, 1, (size_t)1 << 28);
    const size_t addresses = p.size("--addresses", 1, 1, (size_t)1 << 24);
    const size_t cas_n = p.size("--cas-n", std::min<size_t>(n, (size_t)1 << 14), 1, (size_t)1 << 20);
    p.not_with_bench({"--n", "--addresses", "--cas-n"});
    p.finish();
    if (!is_power_of_two(addresses)) p.fail("--addresses", strf("must be a power of two (got %zu)", addresses));
    if (cas_n > n)
        p.fail("--cas-n", strf("must be at most --n, %zu here: cas_add runs on the first M of the n values (got %zu)", n, cas_n));
    // The largest workload (--bench: 2^26 updates on 2^20 counters). Host: the inputs (20 bytes an
    // update), the counters' reference. GPU: the inputs, the counters and CUB's storage.
    const double updates = p.bench ? 0x1p26 : n, counters = p.bench ? 0x1p20 : addresses;
    require_memory(p, p.bench ? "--bench" : "--n", 20 * updates + 16 * counters,
                   20 * updates + 4 * counters + (1 << 20));
    return run(p, n, addresses, cas_n);
}
