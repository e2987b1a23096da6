// run_steps.h: the loop every exercise program runs over its steps, written once.
//
// For each step the program describes how to run it and how to check it; run_steps() then, for
// each selected step: prepares (poisons the output), runs, synchronises, checks against the CPU
// reference, and only if the result is right times it (a fast wrong kernel is not a result).
// It prints one table:
//   | step | kernel | time (ms) | GB/s | <extra columns> | check |
// (with extras_before_time, the extra columns come before "time (ms)"; with a peak, a
// "% of peak" column follows the rate)
// and returns the number of failed steps, so `main` can return non-zero.
//
// With COURSE_PROFILE=1 in the environment every step runs exactly once and nothing is timed:
// `make profile-NN` runs the programs that way under Nsight Compute, so that each of a step's
// kernels is profiled once and no timing or cache-flushing kernel gets in the way.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench.h"
#include "cuda_check.h"

struct Check {
    bool ok = false;
    std::string detail;               // "max error 1.2e-07 (tolerance 6e-08)", or what went wrong
    std::vector<std::string> cells{}; // values for the table's extra columns
};

struct StepRow {
    std::string step;                 // "3", or "-" for a row that is not a step (a library)
    std::string name;
    std::function<void()> run;        // launches the step's work on the default stream
    std::function<Check()> check;     // after run + synchronise: compare with the CPU reference
    std::string skip = "";            // non-empty: this step does not apply here, and why
    std::function<void()> prepare{};  // before each checked run, e.g. poison the output
    double work = -1;                 // bytes (or FLOP) of this row's run; negative: the table's
};

struct StepTable {
    std::string rate = "GB/s";               // or "GFLOP/s"
    double work = 0;                         // bytes (or FLOP) one run moves (or does)
    std::vector<std::string> extra_columns{};
    std::string footer = "";                 // under the table: what the rate counts
    double rate_unit = 1e9;                  // rate = work / seconds / rate_unit (1e6: "M updates/s")
    bool extras_before_time = false;         // the extra columns before "time (ms)" instead of after the rate
    double peak = 0;                         // > 0: a "% of peak" column, the rate against this peak
};

inline bool profiling_mode() {
    const char* p = std::getenv("COURSE_PROFILE");
    return p && std::string(p) == "1";
}

// How the times in a table were taken, from the timing settings themselves.
inline std::string timing_method(const BenchConfig& cfg) {
    return strf("median of %d runs after %d warm-up runs, timed with CUDA events%s", cfg.repeats, cfg.warmup,
                cfg.flush_l2 ? ", L2 cache flushed before each run" : "");
}

inline int run_steps(const std::vector<StepRow>& rows, const StepTable& table, const BenchConfig& timing = {}) {
    const bool profiling = profiling_mode();
    std::vector<std::string> measured = {"time (ms)", table.rate};
    if (table.peak > 0) measured.push_back("% of peak");
    // One line of the table: step, kernel, then the measured cells and the extra ones in the
    // table's order, then the check.
    auto line = [&](std::vector<std::string> first, std::vector<std::string> times, std::vector<std::string> extras,
                    const std::string& check) {
        auto& a = table.extras_before_time ? extras : times;
        auto& b = table.extras_before_time ? times : extras;
        first.insert(first.end(), a.begin(), a.end());
        first.insert(first.end(), b.begin(), b.end());
        first.push_back(check);
        return first;
    };
    Table out(line({"step", "kernel"}, measured, table.extra_columns, "check"));
    const size_t extra = table.extra_columns.size();
    auto row = [&](const StepRow& r, std::vector<std::string> times, std::vector<std::string> cells,
                   const std::string& check) {
        times.resize(measured.size(), "-");
        cells.resize(extra, "-");
        out.row(line({r.step, r.name}, times, cells, check));
    };
    int failures = 0;
    for (const StepRow& r : rows) {
        if (!r.skip.empty()) {
            row(r, {}, {}, "skipped: " + r.skip);
            continue;
        }
        if (r.prepare) r.prepare();
        r.run();
        CUDA_CHECK(cudaDeviceSynchronize());
        const Check c = r.check();
        if (!c.ok) {
            ++failures;
            const std::string todo = r.step == "-" ? "" : " (is TODO step " + r.step + " done?)";
            row(r, {}, c.cells, "FAILED: " + c.detail + todo);
            continue;
        }
        if (profiling) {
            row(r, {}, c.cells, "ok: " + c.detail);
            continue;
        }
        const Timing t = time_gpu(r.run, timing);
        const double rate = (r.work >= 0 ? r.work : table.work) / (t.median_ms * 1e-3) / table.rate_unit;
        std::vector<std::string> times = {strf("%.4f", t.median_ms), strf("%.1f", rate)};
        if (table.peak > 0) times.push_back(strf("%.1f", 100 * rate / table.peak));
        row(r, times, c.cells, "ok: " + c.detail);
    }
    out.print();
    std::printf("\n");
    if (!table.footer.empty()) std::printf("%s\n", table.footer.c_str());
    if (profiling)
        std::printf("COURSE_PROFILE=1: each step ran once, untimed.\n");
    else
        std::printf("time: %s.\n", timing_method(timing).c_str());
    return failures;
}
