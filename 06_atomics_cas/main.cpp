// 06_atomics_cas/main.cpp: runs each step on random data, checks it against the CPU reference,
// and times it; --bench prints the contention table and the cost of each kind of update.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "atomics_cas.h"
#include "cub_sum.h"
#include "program.h"

static int run(const Program& p, size_t n, size_t addresses, size_t cas_n) {
    const DeviceFacts dev = device_facts();
    Workload w(n, addresses, cas_n, p.seed);
    std::printf("n threads update one place in memory, on %s (%d SMs): n = %zu (cas_add: %zu),\n"
                "contention over %zu address%s\n\n",
                dev.name.c_str(), dev.sm_count, n, w.cas_n, addresses, addresses == 1 ? "" : "es");
    std::deque<StepCase> cases;  // kept alive, and in place, for the rows that run them
    std::vector<StepRow> rows;
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        for (StepCase& made : s.run(w)) {
            const StepCase& c = cases.emplace_back(std::move(made));
            StepRow r{std::to_string(s.number), c.kernel, [&c] { c.reset(); c.run(); },  // the reset is timed too
                      [&c] {
                          const Outcome o = c.check();
                          return Check{o.ok, o.note, {std::to_string(c.updates), o.got, o.expected}};
                      }};
            r.work = Work{(double)c.updates, (double)c.updates};
            rows.push_back(r);
        }
    }
    StepTable table{"M updates/s", 0, {"updates", "result", "expected"},
                    "For race, \"ok\" means updates were lost, as the missing atomics must lose them. Time\n"
                    "includes resetting the target (a memset); M updates/s = updates / time. The checked run\n"
                    "is the warm-up, and 3 timed runs keep compute-sanitizer short: `make bench-06` measures."};
    table.rate_unit = 1e6;
    table.leading_columns = table.extra_columns.size();
    return run_steps(rows, table, BenchConfig{0, 3, false}) ? 1 : 0;
}

// Table 1: 2^26 updates summed through atomics on 1 to 2^20 counters, against CUB.
static int contention_table(const Program& p, const BenchConfig& cfg, const DeviceFacts& dev) {
    const size_t n = (size_t)1 << 26;
    std::vector<int> values = random_ints(n, p.seed, -3, 3);
    const long long isum = exact_sum(values);
    DeviceBuffer<int> d_values(values), d_total(1), d_counters((size_t)1 << 20);
    CUDA_CHECK(cudaMemset(d_counters.get(), 0, d_counters.bytes()));  // every counter is read back below
    CubSum cub(n);
    const Timing cub_t = time_gpu([&] { cub.run(d_values.get(), n, d_total.get()); }, cfg);
    const bool cub_ok = d_total.download()[0] == wrap_to_int(isum);
    const double cub_rate = n / (cub_t.median_ms * 1e-3);
    std::printf("Contention: %zu updates (one int per thread, values in [-3, 3]) summed through atomics on\n"
                "1 to 2^20 counters, then the counters summed into one total. Time includes zeroing the\n"
                "counters. %% of CUB: against cub::DeviceReduce::Sum of the same values (%.3f ms, %.1f G\n"
                "values/s, %s); %% of DRAM peak: the 4 bytes read per update, against %.0f GB/s.\n\n",
                n, cub_t.median_ms, cub_rate / 1e9, cub_ok ? "checked" : "WRONG RESULT", dev.dram_gbs);
    Table table({"strategy", "addresses", "atomics", "time (ms)", "G updates/s", "x one-address", "% of CUB",
                 "% of DRAM peak", "check"});
    int failures = cub_ok ? 0 : 1;
    double one_address_rate = 0;
    for (Aggregation how : kAggregations) {
        for (size_t k : {(size_t)1, (size_t)32, (size_t)1024, (size_t)1 << 20}) {
            auto run = [&] {
                CUDA_CHECK(cudaMemsetAsync(d_counters.get(), 0, k * sizeof(int)));
                CUDA_CHECK(cudaMemsetAsync(d_total.get(), 0, sizeof(int)));
                run_contention(d_values.get(), n, how, d_counters.get(), k, d_total.get());
            };
            const Timing t = time_gpu(run, cfg);
            // Re-checked after timing: a fast wrong result is not a result.
            std::vector<int> counters = d_counters.download();
            counters.resize(k);
            const bool ok = d_total.download()[0] == wrap_to_int(isum) &&
                            compare_exact(counters, contention_reference(values, how, k)).ok();
            if (!ok) ++failures;
            const double rate = n / (t.median_ms * 1e-3);
            if (how == Aggregation::none && k == 1) one_address_rate = rate;
            table.row({aggregation_name(how), k == ((size_t)1 << 20) ? "2^20" : std::to_string(k),
                       std::to_string(atomics_issued(n, how)), ok ? strf("%.3f", t.median_ms) : "-",
                       ok ? strf("%.2f", rate / 1e9) : "-", ok ? strf("%.1f", rate / one_address_rate) : "-",
                       ok ? strf("%.1f", 100 * rate / cub_rate) : "-",
                       ok ? strf("%.1f", 100 * gb_per_s(4.0 * n, t.median_ms) / dev.dram_gbs) : "-",
                       ok ? "ok" : "FAILED check"});
        }
    }
    table.print();
    return failures;
}

// Table 2: the cost of each kind of update (every step but contention), all on one address.
static int cost_table(const Program& p) {
    const BenchConfig cfg{1, 5, false};
    std::printf("\nThe cost of an update when every thread updates the same address, by kind and by number\n"
                "of threads (one update each): nanoseconds per update (time / updates).\nTime: %s.\n\n",
                timing_method(cfg).c_str());
    int failures = 0;
    std::vector<std::string> names, status;
    std::vector<std::vector<double>> ns;  // [kernel][size]
    for (int log_m : {12, 14, 16}) {
        const size_t m = (size_t)1 << log_m;
        Workload w(m, 1, m, p.seed);
        size_t row = 0;
        for (const auto& s : kSteps) {
            if (s.run == contention_cases) continue;  // that is table 1
            for (const StepCase& c : s.run(w)) {
                const Timing t = time_gpu([&] { c.reset(); c.run(); }, cfg);
                const Outcome o = c.check();  // the last timed run
                if (row == names.size()) {
                    names.push_back(c.kernel);
                    ns.emplace_back();
                    status.push_back("ok");
                }
                ns[row].push_back(t.median_ms * 1e6 / m);
                if (!o.ok) {
                    ++failures;
                    status[row] = "FAILED: " + o.note;
                }
                ++row;
            }
        }
    }
    // x atomic_add_float: the built-in float atomicAdd, which cas_add_float rebuilds.
    const size_t base = std::find(names.begin(), names.end(), "atomic_add_float") - names.begin();
    Table costs({"kernel", "ns/update, 2^12", "ns/update, 2^14", "ns/update, 2^16", "M updates/s, 2^16",
                 "x atomic_add_float, 2^16", "check"});
    for (size_t r = 0; r < names.size(); ++r)
        costs.row({names[r], strf("%.3f", ns[r][0]), strf("%.3f", ns[r][1]), strf("%.3f", ns[r][2]),
                   strf("%.1f", 1e3 / ns[r][2]), strf("%.2f", ns[r][2] / ns[base][2]), status[r]});
    costs.print();
    std::printf("\nThe race rows lose updates by design; their time is what no atomics would cost. Each time\n"
                "includes resetting the target and one launch (~2-5 us), which dominates the smallest sizes.\n");
    return failures;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"n threads update the same memory: races, atomics, CAS, locks",
               "  --n N           updates, one per thread (default 2^20, at most 2^28; 2^K and 2^K+C work too)\n"
               "  --addresses K   counters the contention step spreads its atomics over (a power of two,\n"
               "                  default 1, at most 2^24)\n"
               "  --cas-n M       updates for the cas_add step (default 2^14, or n if smaller; at most n and\n"
               "                  2^20): every success of a contended CAS loop costs a pass of all waiting\n"
               "                  threads, so its time grows with the square of M (the benchmark shows it)\n",
               step_names(kSteps), {},
               "the contention table (2^26 updates on 1, 32, 1024 and 2^20 addresses)\n"
               "                  and the cost of each kind of one-address update (2^12 to 2^16 updates)"});
    const size_t n = p.size("--n", (size_t)1 << 20, 1, (size_t)1 << 28);
    const size_t addresses = p.size("--addresses", 1, 1, (size_t)1 << 24);
    const size_t cas_n = p.size("--cas-n", std::min<size_t>(n, (size_t)1 << 14), 1, (size_t)1 << 20);
    p.not_with_bench({"--n", "--addresses", "--cas-n"});
    p.only_for_kernels("--addresses", {"contention"});
    p.only_for_kernels("--cas-n", {"cas_add"});
    p.finish();
    if (!is_power_of_two(addresses)) p.fail("--addresses", strf("must be a power of two (got %zu)", addresses));
    if (cas_n > n)
        p.fail("--cas-n", strf("must be at most --n, %zu here: cas_add runs on the first M of the n values (got %zu)", n, cas_n));
    if (p.bench) {
        // GPU: 2^26 values, 2^20 counters, CUB's storage. Host: the values, the counters' reference.
        const double values = 4.0 * ((size_t)1 << 26), counters = 4.0 * ((size_t)1 << 20);
        require_memory(p, "--bench", values + 4 * counters, values + counters + (1 << 20));
        const BenchConfig cfg;
        const DeviceFacts dev =
            print_bench_header(strf("n threads updating the same memory, %d threads per block", kBlock), cfg);
        std::printf("\n");
        const int failures = contention_table(p, cfg, dev) + cost_table(p);
        return failures ? 1 : 0;
    }
    // Host: the inputs (20 bytes an update), the sums' references (12 more), the counters'. GPU:
    // the inputs (20 bytes an update) and the counters.
    require_memory(p, "--n", 32.0 * n + 12.0 * addresses, 24.0 * n + 4.0 * addresses);
    return run(p, n, addresses, cas_n);
}
