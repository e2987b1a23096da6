// run_steps.h: the loop every exercise program runs over its steps, written once.
//
// For each step the program describes how to run it and how to check it; run_steps() then, for
// each selected step: prepares (poisons the output), runs, synchronises, checks against the CPU
// reference, and only if the result is right times it (a fast wrong kernel is not a result).
// It prints one table:
//   | step | kernel | time (ms) | GB/s | <extra columns> | check |
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
};

struct StepTable {
    std::string rate = "GB/s";               // or "GFLOP/s"
    double work = 0;                         // bytes (or FLOP) one run moves (or does)
    std::vector<std::string> extra_columns{};
    std::string footer = "";                 // under the table: what the rate counts
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
    return strf("%s after %d warm-up run%s, timed with CUDA events%s", runs.c_str(), cfg.warmup,
                cfg.warmup == 1 ? "" : "s", cfg.flush_l2 ? ", L2 cache flushed before each run" : "");
}

inline int run_steps(const std::vector<StepRow>& rows, const StepTable& table, const BenchConfig& timing = {}) {
    const bool profiling = profiling_mode();
    std::vector<std::string> header = {"step", "kernel", "time (ms)", table.rate};
    header.insert(header.end(), table.extra_columns.begin(), table.extra_columns.end());
    header.push_back("check");
    Table out(header);
    const size_t extra = table.extra_columns.size();
    auto row = [&](const StepRow& r, const std::string& time, const std::string& rate,
                   std::vector<std::string> cells, const std::string& check) {
        cells.resize(extra, "-");
        std::vector<std::string> line = {r.step, r.name, time, rate};
        line.insert(line.end(), cells.begin(), cells.end());
        line.push_back(check);
        out.row(line);
    };
    int failures = 0;
    for (const StepRow& r : rows) {
        if (!r.skip.empty()) {
            row(r, "-", "-", {}, "skipped: " + r.skip);
            continue;
        }
        if (r.prepare) r.prepare();
        r.run();
        CUDA_CHECK(cudaDeviceSynchronize());
        const Check c = r.check();
        if (!c.ok) {
            ++failures;
            const std::string todo = r.step == "-" ? "" : " (is TODO step " + r.step + " done?)";
            row(r, "-", "-", c.cells, "FAILED: " + c.detail + todo);
            continue;
        }
        if (profiling) {
            row(r, "-", "-", c.cells, "ok: " + c.detail);
            continue;
        }
        const Timing t = time_gpu(r.run, timing);
        const double per_second = table.work / (t.median_ms * 1e-3);
        const std::string rate = table.rate_text ? table.rate_text(per_second) : strf("%.1f", per_second / 1e9);
        row(r, strf("%.4f", t.median_ms), rate, c.cells, "ok: " + c.detail);
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
