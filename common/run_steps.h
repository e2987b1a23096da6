// run_steps.h: the loop every exercise program runs over its steps, written once.
//
// For each step the program describes how to run it and how to check it; run_steps() then, for
// each selected step: prepares (poisons the output), runs, synchronises, checks against the CPU
// reference, and only if the result is right times it (a fast wrong kernel is not a result).
// It prints one table:
//   | step | kernel | time (ms) | GB/s | <extra columns> | check |
// (a table may put some of its extra columns before the time, and add "% of <peak>" after the
// rate) and returns the number of failed steps, so `main` can return non-zero.
//
// With COURSE_PROFILE=1 in the environment every step runs exactly once and nothing is timed:
// `make profile-NN` runs the programs that way under Nsight Compute, so that each of a step's
// kernels is profiled once and no timing or cache-flushing kernel gets in the way.
#pragma once

#include <algorithm>
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
    double work = 0;                  // > 0: the bytes (or FLOP) of this row's run, not the table's
};

struct StepTable {
    std::string rate = "GB/s";               // or "GFLOP/s"
    double work = 0;                         // bytes (or FLOP) one run moves (or does)
    std::vector<std::string> extra_columns{};
    std::string footer = "";                 // under the table: what the rate counts
    double rate_unit = 1e9;                  // rate = work / seconds / rate_unit (1e6: "M updates/s")
    size_t leading_columns = 0;              // how many of extra_columns stand before the time
    std::string check_column = "check";      // the last column's heading
    double peak = 0;                         // > 0: a column "% of <peak_name>" after the rate
    std::string peak_name = "peak";
    const char* time_format = "%.4f";
    const char* rate_format = "%.1f";
    // How a rate (work per second) is written; default: in units of 10^9, one decimal.
    std::function<std::string(double per_second)> rate_text{};
};

inline bool profiling_mode() {
    const char* p = std::getenv("COURSE_PROFILE");
    return p && std::string(p) == "1";
}

// How the times in a table were taken, from the timing settings themselves.
inline std::string timing_method(const BenchConfig& cfg) {
    const std::string runs = cfg.repeats == 1 ? "one run" : strf("median of %d runs", cfg.repeats);
    std::string method = strf("%s after %d warm-up run%s", runs.c_str(), cfg.warmup, cfg.warmup == 1 ? "" : "s");
    if (cfg.budget_ms > 0)
        method += strf(" (work slower than %.0f ms: 1 warm-up run and %d to %d runs, about %.0f s in all)",
                       cfg.budget_ms / (2.0 * cfg.repeats), std::min(3, cfg.repeats), cfg.repeats, cfg.budget_ms / 1e3);
    return method + ", timed with CUDA events" + (cfg.flush_l2 ? ", L2 cache flushed before each run" : "");
}

inline int run_steps(const std::vector<StepRow>& rows, const StepTable& table, const BenchConfig& timing = {}) {
    const bool profiling = profiling_mode();
    const size_t extra = table.extra_columns.size(), leading = std::min(table.leading_columns, extra);
    // One line: step, kernel, the leading extra cells, what was measured, the other extra cells, check.
    auto line = [&](std::vector<std::string> first, std::vector<std::string> measured,
                    const std::vector<std::string>& cells, const std::string& check) {
        first.insert(first.end(), cells.begin(), cells.begin() + leading);
        first.insert(first.end(), measured.begin(), measured.end());
        first.insert(first.end(), cells.begin() + leading, cells.end());
        first.push_back(check);
        return first;
    };
    std::vector<std::string> measured = {"time (ms)", table.rate};
    if (table.peak > 0) measured.push_back("% of " + table.peak_name);
    Table out(line({"step", "kernel"}, measured, table.extra_columns, table.check_column));
    auto row = [&](const StepRow& r, std::vector<std::string> measured, std::vector<std::string> cells,
                   const std::string& check) {
        measured.resize(table.peak > 0 ? 3 : 2, "-");
        cells.resize(extra, "-");
        out.row(line({r.step, r.name}, measured, cells, check));
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
        const double per_second = (r.work > 0 ? r.work : table.work) / (t.median_ms * 1e-3);
        const double rate = per_second / table.rate_unit;
        const std::string share = strf("%.1f", 100 * rate / table.peak);  // shown only with a peak
        row(r, {strf(table.time_format, t.median_ms), table.rate_text ? table.rate_text(per_second) : strf(table.rate_format, rate), share},
            c.cells, "ok: " + c.detail);
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
