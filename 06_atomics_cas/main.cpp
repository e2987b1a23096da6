// 06_atomics_cas/main.cpp: runs each step on random data, checks it against the CPU reference,
// and times it; --bench prints the contention table and the cost of each kind of update.
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "atomics_cas.h"
#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "program.h"

static const char* kUsage =
    "usage: atomics_cas [options]     n threads update the same memory: races, atomics, CAS, locks\n"
    "  --n N           updates, one per thread (default 2^20, at most 2^28; 2^K and 2^K+C work too)\n"
    "  --kernel NAME   race, atomic_add, cas_add, cas_max_min, spinlock, contention or all (default all)\n"
    "  --addresses K   counters the contention step spreads its atomics over (a power of two,\n"
    "                  default 1, at most 2^24)\n"
    "  --cas-n M       updates for the cas_add step (default 2^14, at most 2^20): every success of a\n"
    "                  contended CAS loop costs a pass of all waiting threads, so its time grows\n"
    "                  with the square of M (the benchmark shows it)\n"
    "  --seed S        seed of the random input (default 1)\n"
    "  --bench         print the contention table (2^26 updates on 1, 32, 1024 and 2^20 addresses)\n"
    "                  and the cost of each kind of one-address update (2^12 to 2^16 updates)\n";

static const char* kStepNames[] = {"race", "atomic_add", "cas_add", "cas_max_min", "spinlock", "contention"};
static const Aggregation kAggregations[] = {Aggregation::none, Aggregation::warp, Aggregation::block};
static const char* aggregation_name(Aggregation a) {
    return a == Aggregation::none ? "per_thread" : a == Aggregation::warp ? "warp_aggregated" : "block_aggregated";
}

// Inputs of every step, on the host (for the references) and on the GPU, and their targets.
struct Workload {
    size_t n, addresses, cas_n;  // cas_add uses the first cas_n values
    std::vector<int> ints;          // in [-3, 3]: sums of up to 2^28 of them fit in an int
    std::vector<float> floats;      // in [-1, 1)
    std::vector<double> doubles;    // in [-1/3, 1/3), every bit of the mantissa in use
    std::vector<float> extremes;    // in [-100, 100) with NaN, -0.0 and +0.0 mixed in
    DeviceBuffer<int> d_ints;
    DeviceBuffer<float> d_floats, d_extremes;
    DeviceBuffer<double> d_doubles;
    DeviceBuffer<int> counter{1}, total{1}, counters, lock{1};
    DeviceBuffer<float> fvalue{1};
    DeviceBuffer<double> dvalue{1};
    DeviceBuffer<LockedRecord> record{1};

    Workload(size_t n_, size_t addresses_, size_t cas_n_, uint64_t seed)
        : n(n_), addresses(addresses_), cas_n(cas_n_ < n_ ? cas_n_ : n_) {
        ints = random_ints(n, seed, -3, 3);
        floats = random_floats(n, seed + 1, -1.0f, 1.0f);
        doubles.resize(n);
        for (size_t i = 0; i < n; ++i) doubles[i] = floats[i] / 3.0;
        extremes = random_floats(n, seed + 2, -100.0f, 100.0f);
        for (size_t i = 7; i < n; i += 1009) extremes[i] = std::nanf("");
        for (size_t i = 11; i < n; i += 2003) extremes[i] = -0.0f;
        for (size_t i = 13; i < n; i += 3001) extremes[i] = 0.0f;
        d_ints = DeviceBuffer<int>(ints);
        d_floats = DeviceBuffer<float>(floats);
        d_doubles = DeviceBuffer<double>(doubles);
        d_extremes = DeviceBuffer<float>(extremes);
        counters = DeviceBuffer<int>(addresses);
    }
};

struct Outcome {
    bool ok = false;
    std::string got, expected, note;
};

// One row of the tables: how to reset the target, run the launcher, and check the result.
struct Case {
    int step;
    std::string kernel;
    size_t updates;
    std::function<void()> reset, run;
    std::function<Outcome()> check;
};

template <class T>
static T download_one(const DeviceBuffer<T>& b) {
    return b.download()[0];
}
static void zero(void* p, size_t bytes) { CUDA_CHECK(cudaMemsetAsync(p, 0, bytes)); }
static bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

static Outcome race_outcome(int got, size_t n, size_t limit, const char* why) {
    Outcome o;
    o.ok = got >= 1 && (size_t)got <= limit;
    o.got = std::to_string(got);
    o.expected = std::to_string(n);
    o.note = strf("lost %zu of %zu updates (%.2f%%)%s", n - (size_t)got, n, 100.0 * (n - (size_t)got) / n, why);
    if (!o.ok) o.note = strf("the counter holds %d, but must be 1 to %zu", got, limit);
    return o;
}
template <class T>
static Outcome sum_outcome(T got, double ref, double atol) {
    Outcome o;
    o.ok = within((double)got, ref, Tolerance{0.0, atol});
    o.got = strf("%.10g", (double)got);
    o.expected = strf("%.10g", ref);
    o.note = strf("|error| %.2g, allowed %.2g", std::fabs((double)got - ref), atol);
    return o;
}

static std::vector<Case> make_cases(Workload& w) {
    const size_t n = w.n, cn = w.cas_n;
    std::vector<Case> cases;
    for (RaceKind kind : {RaceKind::plain, RaceKind::barrier}) {
        const bool plain = kind == RaceKind::plain;
        cases.push_back({1, plain ? "race plain" : "race barrier", n, [&w] { zero(w.counter.get(), sizeof(int)); },
                         [&w, kind] { run_race(w.counter.get(), w.n, kind); },
                         [&w, n, plain] {
                             const std::string why = plain ? "" : strf(", as it must: at most %zu blocks count", blocks_of(n));
                             return race_outcome(download_one(w.counter), n, plain ? n : blocks_of(n), why.c_str());
                         }});
    }
    const long long isum = sum_reference(w.ints);
    cases.push_back({2, "atomic_add_int", n, [&w] { zero(w.counter.get(), sizeof(int)); },
                     [&w] { run_atomic_add_int(w.d_ints.get(), w.counter.get(), w.n); },
                     [&w, isum] {
                         Outcome o;
                         int got = download_one(w.counter);
                         o.ok = got == wrap_to_int(isum);
                         o.got = std::to_string(got);
                         o.expected = std::to_string(wrap_to_int(isum));
                         o.note = o.ok ? "exact" : "an int sum must be exact";
                         return o;
                     }});
    // Float and double sums over the first m values, checked against the double reference.
    auto float_case = [&](int step, const char* name, size_t m, void (*launch)(const float*, float*, size_t)) {
        std::vector<float> part(w.floats.begin(), w.floats.begin() + m);
        const double ref = sum_reference(part), atol = float_sum_atol(m, sum_abs_reference(part));
        cases.push_back({step, name, m, [&w] { zero(w.fvalue.get(), sizeof(float)); },
                         [&w, launch, m] { launch(w.d_floats.get(), w.fvalue.get(), m); },
                         [&w, ref, atol] { return sum_outcome(download_one(w.fvalue), ref, atol); }});
    };
    auto double_case = [&](int step, const char* name, size_t m, void (*launch)(const double*, double*, size_t)) {
        std::vector<double> part(w.doubles.begin(), w.doubles.begin() + m);
        const double ref = sum_reference(part), atol = double_sum_atol(m, sum_abs_reference(part));
        cases.push_back({step, name, m, [&w] { zero(w.dvalue.get(), sizeof(double)); },
                         [&w, launch, m] { launch(w.d_doubles.get(), w.dvalue.get(), m); },
                         [&w, ref, atol] { return sum_outcome(download_one(w.dvalue), ref, atol); }});
    };
    float_case(2, "atomic_add_float", n, run_atomic_add_float);
    double_case(2, "atomic_add_double", n, run_atomic_add_double);
    float_case(3, "cas_add_float", cn, run_cas_add_float);
    double_case(3, "cas_add_double", cn, run_cas_add_double);
    for (bool is_max : {true, false}) {
        const float ref = is_max ? max_reference(w.extremes, std::nanf("")) : min_reference(w.extremes, std::nanf(""));
        cases.push_back({4, is_max ? "cas_max_float" : "cas_min_float", n, [&w] { w.fvalue.poison(); },  // NaN: empty
                         [&w, is_max] {
                             (is_max ? run_cas_max_float : run_cas_min_float)(w.d_extremes.get(), w.fvalue.get(), w.n);
                         },
                         [&w, ref] {
                             Outcome o;
                             float got = download_one(w.fvalue);
                             o.ok = same_bits(got, ref);
                             o.got = strf("%.9g", got);
                             o.expected = strf("%.9g", ref);
                             o.note = o.ok ? "bit for bit (NaN ignored, -0 < +0)"
                                           : "must match bit for bit (NaN ignored, -0 < +0)";
                             return o;
                         }});
    }
    const LockedRecord rref = record_reference(w.ints, empty_record());
    cases.push_back({5, "spinlock", n,
                     [&w] {
                         static const LockedRecord empty = empty_record();
                         CUDA_CHECK(cudaMemcpyAsync(w.record.get(), &empty, sizeof empty, cudaMemcpyHostToDevice));
                         zero(w.lock.get(), sizeof(int));
                     },
                     [&w] { run_spinlock(w.d_ints.get(), w.record.get(), w.lock.get(), w.n); },
                     [&w, rref] {
                         Outcome o;
                         LockedRecord r = download_one(w.record);
                         int lock = download_one(w.lock);
                         o.ok = r.sum == rref.sum && r.count == rref.count && r.max == rref.max && lock == 0;
                         o.got = strf("count %lld, sum %lld, max %lld", r.count, r.sum, r.max);
                         o.expected = strf("count %lld, sum %lld, max %lld", rref.count, rref.sum, rref.max);
                         o.note = !o.ok && lock != 0 ? "the lock was left held"
                                  : o.ok             ? "record consistent, lock free again"
                                                     : "the record does not match";
                         return o;
                     }});
    for (Aggregation how : kAggregations) {
        std::vector<int> cref = contention_reference(w.ints, how, w.addresses);
        cases.push_back({6, std::string("contention ") + aggregation_name(how), n,
                         [&w] {
                             zero(w.counters.get(), w.counters.bytes());
                             zero(w.total.get(), sizeof(int));
                         },
                         [&w, how] { run_contention(w.d_ints.get(), w.n, how, w.counters.get(), w.addresses, w.total.get()); },
                         [&w, how, isum, cref] {
                             Outcome o;
                             int got = download_one(w.total);
                             Comparison c = compare_exact(w.counters.download(), cref);
                             o.ok = got == wrap_to_int(isum) && c.ok();
                             o.got = std::to_string(got);
                             o.expected = std::to_string(wrap_to_int(isum));
                             o.note = strf("%zu atomics on %zu address%s; counters: %s", atomics_issued(w.n, how),
                                           w.addresses, w.addresses == 1 ? "" : "es", c.describe().c_str());
                             return o;
                         }});
    }
    return cases;
}

static int run_steps(const std::string& which, size_t n, size_t addresses, size_t cas_n, uint64_t seed) {
    DeviceFacts dev = device_facts();
    Workload w(n, addresses, cas_n, seed);
    std::printf("n threads update one place in memory, on %s (%d SMs): n = %zu (cas_add: %zu),\n"
                "contention over %zu address%s\n\n",
                dev.name.c_str(), dev.sm_count, n, w.cas_n, addresses, addresses == 1 ? "" : "es");
    Table table({"step", "kernel", "updates", "result", "expected", "time (ms)", "M updates/s", "check"});
    int failures = 0;
    // The first run (checked) is the warm-up; 3 timed repeats keep compute-sanitizer runs short.
    // `make bench-06` measures properly.
    const BenchConfig quick{0, 3, false};
    for (Case& c : make_cases(w)) {
        if (which != "all" && which != kStepNames[c.step - 1]) continue;
        const std::string step = std::to_string(c.step);
        c.reset();
        c.run();
        CUDA_CHECK(cudaDeviceSynchronize());
        Outcome o = c.check();
        if (o.ok) {
            Timing t = time_gpu([&] { c.reset(); c.run(); }, quick);
            o = c.check();  // the last timed run must be right too
            if (o.ok) {
                table.row({step, c.kernel, std::to_string(c.updates), o.got, o.expected, strf("%.4f", t.median_ms),
                           strf("%.1f", c.updates / (t.median_ms * 1e-3) / 1e6), "ok: " + o.note});
                continue;
            }
        }
        ++failures;
        table.row({step, c.kernel, std::to_string(c.updates), o.got, o.expected, "-", "-",
                   "FAILED: " + o.note + " (is TODO step " + step + " done?)"});
    }
    table.print();
    std::printf("\nFor race, \"ok\" means updates were lost, as the missing atomics must lose them. Time is the\n"
                "median of 3 runs and includes resetting the target (a memset); M updates/s = updates / time.\n");
    return failures ? 1 : 0;
}

static int run_bench(uint64_t seed) {
    DeviceFacts dev = device_facts();
    const size_t n = (size_t)1 << 26;
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s, %d threads per block\n\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, kBlock);

    // ---- Table 1: contention ----
    std::vector<int> values = random_ints(n, seed, -3, 3);
    const long long isum = sum_reference(values);
    DeviceBuffer<int> d_values(values), d_total(1), d_counters((size_t)1 << 20);
    zero(d_counters.get(), d_counters.bytes());  // every counter is read back below, used or not
    Timing cub_t = time_gpu([&] { run_cub_sum(d_values.get(), d_total.get(), n); });
    const bool cub_ok = download_one(d_total) == wrap_to_int(isum);
    const double cub_rate = n / (cub_t.median_ms * 1e-3);
    std::printf("Contention: %zu updates (one int per thread, values in [-3, 3]) summed through atomics on\n"
                "1 to 2^20 counters, then the counters summed into one total. Time includes zeroing the\n"
                "counters. %% of CUB: against cub::DeviceReduce::Sum of the same values (%.3f ms, %.1f G\n"
                "values/s, %s); %% of DRAM peak: the 4 bytes read per update, against %.0f GB/s.\n"
                "Median of 20 runs.\n\n",
                n, cub_t.median_ms, cub_rate / 1e9, cub_ok ? "checked" : "WRONG RESULT", dev.dram_gbs);
    Table table({"strategy", "addresses", "atomics", "time (ms)", "G updates/s", "x one-address", "% of CUB",
                 "% of DRAM peak", "check"});
    int failures = cub_ok ? 0 : 1;
    double one_address_rate = 0;
    const size_t address_counts[] = {1, 32, 1024, (size_t)1 << 20};
    for (Aggregation how : kAggregations) {
        for (size_t k : address_counts) {
            auto run = [&] {
                zero(d_counters.get(), k * sizeof(int));
                zero(d_total.get(), sizeof(int));
                run_contention(d_values.get(), n, how, d_counters.get(), k, d_total.get());
            };
            Timing t = time_gpu(run);
            // Re-check after timing: a fast wrong result is not a result.
            std::vector<int> counters = d_counters.download();
            counters.resize(k);
            const bool ok = download_one(d_total) == wrap_to_int(isum) &&
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

    // ---- Table 2: the cost of each kind of update, all on one address ----
    std::printf("\nThe cost of an update when every thread updates the same address, by kind and by number\n"
                "of threads (one update each): nanoseconds per update (time / updates), median of 5 runs.\n\n");
    const int log_sizes[] = {12, 14, 16};
    std::vector<std::string> names;
    std::vector<std::vector<double>> ns;  // [kernel][size]
    std::vector<std::string> status;
    for (int s = 0; s < 3; ++s) {
        const size_t m = (size_t)1 << log_sizes[s];
        Workload w(m, 1, m, seed);
        int row = 0;
        for (const Case& c : make_cases(w)) {
            if (c.step == 6) continue;  // that is table 1
            Timing t = time_gpu([&] { c.reset(); c.run(); }, BenchConfig{1, 5, false});
            Outcome o = c.check();  // the last timed run
            if (s == 0) {
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
    size_t base = 0;  // the built-in float atomicAdd: what cas_add_float rebuilds
    for (size_t r = 0; r < names.size(); ++r)
        if (names[r] == "atomic_add_float") base = r;
    Table costs({"kernel", "ns/update, 2^12", "ns/update, 2^14", "ns/update, 2^16", "M updates/s, 2^16",
                 "x atomic_add_float, 2^16", "check"});
    for (size_t r = 0; r < names.size(); ++r)
        costs.row({names[r], strf("%.3f", ns[r][0]), strf("%.3f", ns[r][1]), strf("%.3f", ns[r][2]),
                   strf("%.1f", 1e3 / ns[r][2]), strf("%.2f", ns[r][2] / ns[base][2]), status[r]});
    costs.print();
    std::printf("\nThe race rows lose updates by design; their time is what no atomics would cost. Each time\n"
                "includes resetting the target and one launch (~2-5 us), which dominates the smallest sizes.\n");
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    size_t n = opts.size("--n", (size_t)1 << 20, 1, (size_t)1 << 28);
    std::string kernel = opts.choice("--kernel", "all",
                                     {"all", "race", "atomic_add", "cas_add", "cas_max_min", "spinlock", "contention"});
    size_t addresses = opts.size("--addresses", 1, 1, (size_t)1 << 24);
    size_t cas_n = opts.size("--cas-n", (size_t)1 << 14, 1, (size_t)1 << 20);
    if (!is_power_of_two(addresses)) opts.fail("--addresses", "must be a power of two (got " + std::to_string(addresses) + ")");
    uint64_t seed = opts.size("--seed", 1, 0);
    bool bench = opts.flag("--bench");
    opts.finish();

    require_gpu(opts.program().c_str());
    if (bench) {
        require_fits_in_gpu(opts, "--bench", 4.0 * ((size_t)1 << 26) + 4.0 * ((size_t)1 << 20));
        return run_bench(seed);
    }
    require_fits_in_gpu(opts, "--n", 24.0 * n + 4.0 * addresses);
    return run_steps(kernel, n, addresses, cas_n, seed);
}
