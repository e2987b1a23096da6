// measure.h: the one loop that runs, checks and times an exercise's steps, for the default run
// and for --bench alike, written once.
//
//   TableSpec spec;                       // what the rate counts, its unit, the columns of its own
//   Measurements m(spec, timing, p.outputs());
//   m.section("2^25 floats", Work{4.0 * n, 1.0 * n}, rows);   // once per size
//   return m.finish() ? 1 : 0;
//
// A row is a step of the exercise, a baseline (the library or the copy that is the table's 100%)
// or a reference (another library or copy, shown beside). For each section the engine
//   1. runs every row once and checks it (a wrong row is reported and never timed);
//   2. times the baselines and references, then the steps, then the baselines and references
//      again, and keeps the faster time of each baseline and reference: one slow measurement
//      of the library must not flatter the steps;
//   3. checks every timed row again after its timing: a row that is wrong after its timing
//      shows no figure. A fast wrong result is never a figure.
// It prints one table per section:
//   | step | kernel | <leading> | time (ms) | <rate> | [GB/s] | % of <baseline> | vs previous | % of <peak> |
//     [% of <bytes peak>] | <copy_roof> | % of that | <columns> | check |
// (each measured column only where the spec asks for it). A row's % of the baseline compares with
// the section's first baseline, or with the one it names (a sort of pairs against the library's
// sort of pairs). finish() writes every section's rows to --csv FILE and the last section as a
// roofline to --plot FILE (roofline_svg.h).
//
// Rows that many exercises measure are made here once: copy_row (cudaMemcpy device to device,
// checked, drawn as a measured roof) and check_of (a Comparison with the CPU as a row's check).
//
// With COURSE_PROFILE=1 in the environment every row runs exactly once inside an NVTX range
// named by its label ("step 3 sequential"; other rows by their name) and nothing is timed:
// `make profile-NN` runs the program that way under Nsight Compute and files each kernel
// launch under the range it ran in.
//
// The run's record, for the course's tools (make profile-NN reads it; nothing reads the tables
// printed): with COURSE_RECORD=FILE (OutputFiles::record), finish() writes one JSON object,
//   {"record":"program","rows":[{"section":"2^25 floats","step":"3","name":"sequential","kind":"step",
//    "status":"ok","detail":"..."},...],"ranges":[{"label":"step 3 sequential","step":true},...],"failures":0}
// ranges: the NVTX ranges run under COURSE_PROFILE=1, in order, and whether each is a step's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>
#include <nvtx3/nvToolsExt.h>

#include "bench.h"
#include "compare.h"
#include "cuda_check.h"
#include "gpu.h"
#include "json.h"
#include "roofline_svg.h"

struct Check {
    bool ok = false;
    std::string detail;               // "max error 1.2e-07 (tolerance 6e-08)", or what went wrong
    std::vector<std::string> cells{}; // measured values for the table's own columns
};

// What one run of a row costs, at the least: the bytes it must move through DRAM (each input
// read once, each output written once) and the operations it must do (FLOP, or the table's
// ops_name). Together they place the row on the roofline.
struct Work {
    double bytes = 0;
    double ops = 0;
};

enum class RowKind {
    step,       // a step of the exercise (or a kernel the exercise gives)
    baseline,   // the table's 100%: the library (CUB, cuBLAS, NCCL) or the copy
    reference,  // another library or copy, shown beside; timed like a baseline
};

struct StepRow {
    std::string step;                 // "3", or "-" for a row that is not a step
    std::string name;
    std::function<void()> run;        // launches the row's work on the default stream
    std::function<Check()> check;     // after run + synchronise: compare with the CPU reference
    std::string skip = "";            // non-empty: this row does not apply here, and why
    std::function<void()> prepare{};  // before each checked run, e.g. poison the output
    RowKind kind = RowKind::step;
    Work work{};                      // non-zero fields: this row's own, instead of the section's
                                      // (a copy, not a step: bytes and 0 ops, drawn as a roof)
    std::vector<std::string> cells{}; // the row's own cells (a model column), before the check's cells
    std::string baseline = "";        // the baseline its % compares with: "" the section's first (a reference
                                      //   row: none), or the name of one (a second library), or "-" for none
                                      //   (work that is not comparable)
};

struct TableSpec {
    std::string rate = "GB/s";        // the rate column's heading
    bool rate_counts_ops = false;     // the rate counts Work::ops (GFLOP/s, G keys/s), else Work::bytes
    double rate_unit = 1e9;           // rate = work per second / rate_unit
    std::string ops_name = "FLOP";    // what Work::ops counts, on the plot ("FLOP", "keys", "cell updates")
    // The exercise's own columns, filled by each row's cells and then its check's cells in this
    // order: `leading` stand before the time (e.g. a size and a traffic model), `columns` after the rates.
    std::vector<std::string> leading{};
    std::vector<std::string> columns{};
    std::string baseline_column = ""; // e.g. "% of CUB": the baseline row's time over each row's time
    bool vs_previous = false;         // a column "vs previous": the step before's time over this one's
    double peak = 0;                  // > 0: a column "% of <peak_name>", the rate over this peak
    std::string peak_name = "DRAM peak";  //   (in the rate's unit: DRAM GB/s, FP32 GFLOP/s...)
    std::string copy_roof = "";       // e.g. "at copy speed": a column of the rate each row would reach if its
                                      //   Work::bytes moved at the speed of the section's copy (the row that is
                                      //   not a step and has bytes but no ops), then "% of that"
    double compute_roof = 0;          // > 0: the plot's compute roof, in ops per second; 0, with ops_name "FLOP":
    std::string compute_roof_name = "";  //   this GPU's FP32 peak (gpu.h), as every FP32 kernel's roof
    // With rate_counts_ops, a second rate beside the first: "GB/s" of Work::bytes, and, when
    // bytes_peak > 0, its "% of <bytes_peak_name>" (cell updates/s and GB/s; a FLOP/s kernel and
    // a copy in one table).
    bool bytes_rate = false;
    double bytes_peak = 0;            // GB/s
    std::string bytes_peak_name = "DRAM peak";
    int calls_per_run = 1;            // each row's run() makes this many calls back to back (nccl-tests'
                                      //   iterations): times and rates are per call
    std::string check_column = "check";
    std::string footer = "";          // under the tables: what the rate counts
    const char* time_format = "%.4f";
    const char* rate_format = "%.1f"; // how a rate is written (printf)...
    std::function<std::string(double rate)> rate_text{};  // ...unless this says (e.g. "6.7 G")
    std::string title = "";           // the plot's title: what the program computes

    // A rate of operations rather than bytes: its heading ("G keys/s"), how many operations make
    // one of its unit (1e9), and what they are on the plot ("keys").
    void count_ops(const std::string& heading, double unit, const std::string& name) {
        rate = heading;
        rate_counts_ops = true;
        rate_unit = unit;
        ops_name = name;
    }
};

// Where finish() writes: empty for none (Program::outputs() fills them from --csv and --plot,
// and the record from COURSE_RECORD).
struct OutputFiles {
    std::string csv, plot, record;
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

// One row's outcome, kept for the CSV, the plot and the program's own summary lines.
struct RowResult {
    std::string section, step, name;
    RowKind kind = RowKind::step;
    Work work;
    std::vector<std::string> cells;        // the row's own cells
    std::vector<std::string> check_cells;  // and its check's
    std::string baseline;             // as in its StepRow
    enum Status { ok, failed, failed_after_timing, skipped } status = skipped;
    std::string detail;
    double ms = 0;                    // 0: not timed
    double rate = 0;                  // in the table's unit
    double of_baseline = 0;           // percent; 0: no baseline in its section
    double of_peak = 0;               // percent; 0: no peak
    double gb_per_s = 0;              // with TableSpec::bytes_rate: Work::bytes per second / 1e9
    double of_bytes_peak = 0;         // percent of TableSpec::bytes_peak; 0: none
    double at_copy_speed = 0;         // the rate its bytes would allow at the copy's speed; 0: none
    bool timed() const { return ms > 0; }
};

class Measurements {
public:
    Measurements(TableSpec spec, BenchConfig timing = {}, OutputFiles files = {})
        : spec_(std::move(spec)), timing_(timing), files_(std::move(files)) {}

    // Runs, checks and times one size's rows, and prints its table (with the title above it,
    // when there is one). `work` is what one run of every row costs unless the row says otherwise.
    void section(const std::string& title, Work work, const std::vector<StepRow>& rows) {
        const bool profiling = profiling_mode();
        std::vector<RowResult> results;
        for (const StepRow& r : rows) {
            RowResult res;
            res.section = title, res.step = r.step, res.name = r.name, res.kind = r.kind;
            res.work = own_work(r, work);
            res.cells = r.cells;
            res.baseline = r.baseline;
            if (!r.skip.empty()) {
                res.detail = r.skip;
                results.push_back(res);
                continue;
            }
            if (r.prepare) r.prepare();
            if (profiling) {
                nvtxRangePushA(label(r).c_str());
                ranges_.push_back({label(r), r.kind == RowKind::step});
            }
            r.run();
            CUDA_CHECK(cudaDeviceSynchronize());
            if (profiling) nvtxRangePop();
            record_check(res, r.check(), RowResult::failed);
            results.push_back(res);
        }
        if (!profiling) {
            // Libraries and copies before and after the steps; the faster time of the two counts.
            auto time_rows = [&](bool steps) {
                for (size_t i = 0; i < rows.size(); ++i) {
                    if ((rows[i].kind == RowKind::step) != steps || results[i].status != RowResult::ok) continue;
                    if (rows[i].prepare) rows[i].prepare();
                    const double ms = time_gpu(rows[i].run, timing_).median_ms / spec_.calls_per_run;
                    CUDA_CHECK(cudaDeviceSynchronize());
                    results[i].ms = results[i].ms > 0 ? std::min(results[i].ms, ms) : ms;
                    record_check(results[i], rows[i].check(), RowResult::failed_after_timing);
                }
            };
            time_rows(false);
            time_rows(true);
            time_rows(false);
            fill_rates(results);
        }
        print_section(title, results);
        for (auto& r : results) results_.push_back(std::move(r));
    }

    // The footer and how times were taken; then the CSV and the plot, if asked for. Returns the
    // number of rows that failed their check.
    int finish() {
        if (!spec_.footer.empty()) std::printf("%s\n", spec_.footer.c_str());
        if (profiling_mode())
            std::printf("COURSE_PROFILE=1: each row ran once inside an NVTX range named by its label, untimed.\n");
        else
            std::printf("time: %s.\n", timing_method(timing_).c_str());
        if (!files_.csv.empty()) write_file(files_.csv, csv());
        if (!files_.plot.empty()) write_file(files_.plot, roofline_svg(plot()));
        int failures = 0;
        for (const auto& r : results_)
            failures += r.status == RowResult::failed || r.status == RowResult::failed_after_timing;
        if (!files_.record.empty()) {
            std::ofstream out(files_.record, std::ios::binary | std::ios::trunc);
            out << record(failures) << "\n";
        }
        return failures;
    }

    // The run's record (see the top): every row's outcome and the NVTX ranges run, one line.
    std::string record(int failures) const {
        std::vector<std::string> rows;
        for (const auto& r : results_)
            rows.push_back("{\"section\":" + json::quote(r.section) + ",\"step\":" + json::quote(r.step) +
                           ",\"name\":" + json::quote(r.name) + ",\"kind\":" + json::quote(kind_name(r.kind)) +
                           ",\"status\":" + json::quote(status_name(r.status)) + ",\"detail\":" + json::quote(r.detail) + "}");
        std::vector<std::string> ranges;
        for (const auto& r : ranges_)
            ranges.push_back("{\"label\":" + json::quote(r.first) + ",\"step\":" + (r.second ? "true" : "false") + "}");
        return "{\"record\":\"program\",\"rows\":" + json::list(rows) + ",\"ranges\":" + json::list(ranges) +
               ",\"failures\":" + std::to_string(failures) + "}";
    }

    const std::vector<RowResult>& results() const { return results_; }
    // The rows of the last section that were timed (and so passed), of one kind, in table order.
    std::vector<const RowResult*> last_timed(RowKind kind) const {
        std::vector<const RowResult*> rows;
        for (const RowResult& r : results_)
            if (r.section == results_.back().section && r.kind == kind && r.timed()) rows.push_back(&r);
        return rows;
    }
    // A result measured elsewhere (a program's own measurement, or a test's), for the CSV and plot.
    void add(RowResult r) { results_.push_back(std::move(r)); }

    // Every row of every section, one line each, with a header line (RFC 4180 quoting).
    std::string csv() const {
        std::vector<std::string> head = {"section", "step", "name", "kind"};
        const std::vector<std::string> own = own_columns();
        head.insert(head.end(), own.begin(), own.end());
        for (const char* h : {"time_ms", "rate", "rate_unit", "percent_of_baseline", "percent_of_peak", "bytes", "ops",
                              "status", "detail"})
            head.push_back(h);
        std::string out = csv_line(head);
        for (const auto& r : results_) {
            std::vector<std::string> f = {r.section, r.step, r.name, kind_name(r.kind)};
            std::vector<std::string> cells = r.cells;
            cells.insert(cells.end(), r.check_cells.begin(), r.check_cells.end());
            cells.resize(own.size());
            f.insert(f.end(), cells.begin(), cells.end());
            f.push_back(r.timed() ? strf("%.6g", r.ms) : "");
            f.push_back(r.timed() ? strf("%.6g", r.rate) : "");
            f.push_back(spec_.rate);
            f.push_back(r.of_baseline > 0 ? strf("%.4g", r.of_baseline) : "");
            f.push_back(r.of_peak > 0 ? strf("%.4g", r.of_peak) : "");
            f.push_back(strf("%.17g", r.work.bytes));
            f.push_back(strf("%.17g", r.work.ops));
            f.push_back(status_name(r.status));
            f.push_back(r.detail);
            out += csv_line(f);
        }
        return out;
    }

    // The last section's timed rows on the device's roofline (theoretical DRAM and, for FLOP,
    // FP32 peaks from its clocks, as students derive them), with each copy measured in that
    // section as a dashed roof of its own.
    RooflinePlot plot() const {
        RooflinePlot plot;
        plot.ops_name = spec_.ops_name;
        const std::string last = results_.empty() ? "" : results_.back().section;
        DeviceFacts dev;
        int count = 0;
        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) dev = device_facts();
        cudaGetLastError();
        plot.title = (spec_.title.empty() ? std::string("roofline") : spec_.title) + (last.empty() ? "" : ", " + last);
        plot.compute_roof = spec_.compute_roof;
        plot.compute_label = spec_.compute_roof_name;
        if (plot.compute_roof == 0 && spec_.ops_name == "FLOP" && dev.fp32_gflops > 0) {
            plot.compute_roof = dev.fp32_gflops * 1e9;
            plot.compute_label = strf("FP32 peak %.1f TFLOP/s", dev.fp32_gflops / 1e3);
        }
        plot.subtitle = (dev.name.empty() ? std::string("no GPU") : dev.name) +
                        strf(": DRAM %.0f GB/s theoretical", dev.dram_gbs) +
                        (plot.compute_roof > 0 ? ", " + plot.compute_label : std::string()) +
                        "; each point: a row of the table, timed";
        plot.memory_roofs.push_back({strf("DRAM peak %.0f GB/s", dev.dram_gbs), dev.dram_gbs * 1e9, false});
        for (const auto& r : results_) {
            if (r.section != last || !r.timed() || r.status != RowResult::ok) continue;
            const double per_s = 1e3 / r.ms;
            if (r.work.ops <= 0 && r.work.bytes > 0 && r.kind != RowKind::step) {
                plot.memory_roofs.push_back({strf("%s %.0f GB/s", r.name.c_str(), r.work.bytes * per_s / 1e9),
                                             r.work.bytes * per_s, true});
                continue;
            }
            if (r.work.ops <= 0 || r.work.bytes <= 0) continue;
            const std::string name = r.kind == RowKind::step && r.step != "-" ? r.step + " " + r.name : r.name;
            plot.points.push_back({name, r.work.ops / r.work.bytes, r.work.ops * per_s, r.kind != RowKind::step});
        }
        return plot;
    }

private:
    std::vector<std::string> own_columns() const {
        std::vector<std::string> all = spec_.leading;
        all.insert(all.end(), spec_.columns.begin(), spec_.columns.end());
        return all;
    }
    static std::string label(const StepRow& r) { return r.kind == RowKind::step ? "step " + r.step + " " + r.name : r.name; }
    // A row's non-zero fields override the section's; a row that is not a step and moves bytes
    // but does no operations (a copy) keeps its 0 ops, so that the plot draws it as a roof.
    static Work own_work(const StepRow& r, Work section) {
        if (r.kind != RowKind::step && r.work.bytes > 0 && r.work.ops == 0) return r.work;
        return {r.work.bytes > 0 ? r.work.bytes : section.bytes, r.work.ops > 0 ? r.work.ops : section.ops};
    }
    static const char* kind_name(RowKind k) {
        return k == RowKind::step ? "step" : k == RowKind::baseline ? "baseline" : "reference";
    }
    static const char* status_name(RowResult::Status s) {
        return s == RowResult::ok ? "ok" : s == RowResult::failed ? "failed"
               : s == RowResult::failed_after_timing ? "failed after timing" : "skipped";
    }
    static void record_check(RowResult& res, const Check& c, RowResult::Status if_wrong) {
        res.status = c.ok ? RowResult::ok : if_wrong;
        res.detail = c.detail;
        res.check_cells = c.cells;
    }

    static bool is_copy(const RowResult& r) { return r.kind != RowKind::step && r.work.ops <= 0 && r.work.bytes > 0; }

    void fill_rates(std::vector<RowResult>& results) const {
        auto usable = [](const RowResult& r) { return r.status == RowResult::ok && r.timed(); };
        auto baseline_ms = [&](const std::string& name) {
            for (const auto& r : results)
                if (r.kind == RowKind::baseline && usable(r) && (name.empty() || r.name == name)) return r.ms;
            return 0.0;
        };
        double copy_bytes_per_s = 0;
        for (const auto& r : results)
            if (is_copy(r) && usable(r) && copy_bytes_per_s == 0) copy_bytes_per_s = r.work.bytes / (r.ms * 1e-3);
        for (auto& r : results) {
            if (!usable(r)) {
                if (r.status != RowResult::ok) r.ms = 0;  // no figure for a wrong result
                continue;
            }
            const double work = spec_.rate_counts_ops ? r.work.ops : r.work.bytes;
            r.rate = work / (r.ms * 1e-3) / spec_.rate_unit;
            const bool compared = r.baseline != "-" && (r.kind != RowKind::reference || !r.baseline.empty());
            const double base_ms = compared ? baseline_ms(r.baseline) : 0;
            if (base_ms > 0) r.of_baseline = 100 * base_ms / r.ms;
            if (spec_.peak > 0) r.of_peak = 100 * r.rate / spec_.peak;
            if (spec_.bytes_rate) r.gb_per_s = r.work.bytes / (r.ms * 1e-3) / 1e9;
            if (spec_.bytes_peak > 0) r.of_bytes_peak = 100 * r.gb_per_s / spec_.bytes_peak;
            if (!spec_.copy_roof.empty() && copy_bytes_per_s > 0 && work > 0 && r.work.bytes > 0 && !is_copy(r))
                r.at_copy_speed = copy_bytes_per_s * work / r.work.bytes / spec_.rate_unit;
        }
    }

    void print_section(const std::string& title, const std::vector<RowResult>& results) const {
        const std::vector<std::string> own_heads = own_columns();
        const size_t own = own_heads.size(), leading = spec_.leading.size();
        std::vector<std::string> measured = {"time (ms)", spec_.rate};
        if (spec_.bytes_rate) measured.push_back("GB/s");
        if (!spec_.baseline_column.empty()) measured.push_back(spec_.baseline_column);
        if (spec_.vs_previous) measured.push_back("vs previous");
        if (spec_.peak > 0) measured.push_back("% of " + spec_.peak_name);
        if (spec_.bytes_rate && spec_.bytes_peak > 0) measured.push_back("% of " + spec_.bytes_peak_name);
        if (!spec_.copy_roof.empty()) measured.insert(measured.end(), {spec_.copy_roof, "% of that"});
        auto line = [&](std::vector<std::string> cells, const std::vector<std::string>& values, const std::string& last) {
            std::vector<std::string> out = {cells[0], cells[1]};
            out.insert(out.end(), cells.begin() + 2, cells.begin() + 2 + leading);
            out.insert(out.end(), values.begin(), values.end());
            out.insert(out.end(), cells.begin() + 2 + leading, cells.end());
            out.push_back(last);
            return out;
        };
        std::vector<std::string> head = {"step", "kernel"};
        head.insert(head.end(), own_heads.begin(), own_heads.end());
        Table table(line(head, measured, spec_.check_column));
        double previous_ms = 0;
        for (const auto& r : results) {
            std::vector<std::string> cells = {r.step, r.name};
            std::vector<std::string> own_cells = r.cells;
            own_cells.insert(own_cells.end(), r.check_cells.begin(), r.check_cells.end());
            own_cells.resize(own, "-");
            cells.insert(cells.end(), own_cells.begin(), own_cells.end());
            std::vector<std::string> values(measured.size(), "-");
            if (r.timed()) {
                size_t v = 0;
                values[v++] = strf(spec_.time_format, r.ms);
                // A rate of nothing (no work of that kind, e.g. a copy's FLOP) shows as "-".
                values[v++] = !(r.rate > 0) ? "-" : rate_cell(r.rate);
                if (spec_.bytes_rate) values[v++] = r.gb_per_s > 0 ? strf("%.1f", r.gb_per_s) : "-";
                if (!spec_.baseline_column.empty()) values[v++] = r.of_baseline > 0 ? strf("%.1f", r.of_baseline) : "-";
                if (spec_.vs_previous) {
                    values[v++] = r.kind == RowKind::step && previous_ms > 0 ? strf("%.2fx", previous_ms / r.ms) : "-";
                    if (r.kind == RowKind::step) previous_ms = r.ms;
                }
                if (spec_.peak > 0) values[v++] = r.of_peak > 0 ? strf("%.1f", r.of_peak) : "-";
                if (spec_.bytes_rate && spec_.bytes_peak > 0)
                    values[v++] = r.of_bytes_peak > 0 ? strf("%.1f", r.of_bytes_peak) : "-";
                if (!spec_.copy_roof.empty() && r.at_copy_speed > 0) {
                    values[v++] = rate_cell(r.at_copy_speed);
                    values[v++] = strf("%.1f", 100 * r.rate / r.at_copy_speed);
                }
            }
            std::string check;
            const std::string todo = r.kind == RowKind::step && r.step != "-" ? " (is TODO step " + r.step + " done?)" : "";
            switch (r.status) {
                case RowResult::ok: check = "ok: " + r.detail; break;
                case RowResult::failed: check = "FAILED: " + r.detail + todo; break;
                case RowResult::failed_after_timing: check = "FAILED after timing: " + r.detail + todo; break;
                case RowResult::skipped: check = "skipped: " + r.detail; break;
            }
            table.row(line(cells, values, check));
        }
        if (!title.empty()) std::printf("%s\n\n", title.c_str());
        table.print();
        std::printf("\n");
    }

    std::string rate_cell(double rate) const {
        return spec_.rate_text ? spec_.rate_text(rate) : strf(spec_.rate_format, rate);
    }

    static std::string csv_line(const std::vector<std::string>& fields) {
        std::string line;
        for (size_t i = 0; i < fields.size(); ++i) {
            const std::string& f = fields[i];
            const bool quote = f.find_first_of(",\"\n\r") != std::string::npos;
            std::string q;
            for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
            line += (i ? "," : "") + (quote ? "\"" + q + "\"" : f);
        }
        return line + "\n";
    }

    static void write_file(const std::string& path, const std::string& text) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            std::fprintf(stderr, "error: could not write %s\n", path.c_str());
            std::exit(1);
        }
        std::printf("wrote %s\n", path.c_str());
    }

    TableSpec spec_;
    BenchConfig timing_;
    OutputFiles files_;
    std::vector<RowResult> results_;
    std::vector<std::pair<std::string, bool>> ranges_;  // the NVTX ranges run under COURSE_PROFILE=1, in
                                                        // order, and whether each is a step's
};

// ---- Rows that many exercises measure ---------------------------------------------------------

// A comparison with the CPU reference (compare.h) as a row's check.
inline Check check_of(const Comparison& c) { return {c.ok(), c.describe()}; }

// cudaMemcpy device to device of `bytes` bytes from src to dst, measured beside the steps: the
// memory roof this GPU reaches. Its Work is the bytes read plus the bytes written and no
// operations, so --plot draws it as a measured roof. dst is poisoned (every byte 0xFF) before the
// checked run; `check` then compares it with the source. `cells`: the row's cells in the table's
// own columns. Nothing to copy: skipped.
inline StepRow copy_row(const std::string& name, void* dst, const void* src, size_t bytes, std::function<Check()> check,
                        RowKind kind = RowKind::reference, std::vector<std::string> cells = {}) {
    return {"-", name, [=] { CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); },
            std::move(check), bytes ? "" : "nothing to copy", [=] { CUDA_CHECK(cudaMemset(dst, 0xFF, bytes)); },
            kind, Work{2.0 * bytes, 0}, std::move(cells)};
}

// The same copy of source.size() elements, checked element by element: dst must then hold exactly
// `source`, the host's copy of what src holds (it must live until the section is measured).
template <class T>
StepRow copy_row(const std::string& name, T* dst, const T* src, const std::vector<T>& source,
                 RowKind kind = RowKind::reference, std::vector<std::string> cells = {}) {
    const size_t n = source.size();
    auto check = [dst, n, &source] {
        std::vector<T> got(n);
        if (n) CUDA_CHECK(cudaMemcpy(got.data(), dst, n * sizeof(T), cudaMemcpyDeviceToHost));
        return check_of(compare_exact(got, source));
    };
    return copy_row(name, dst, src, n * sizeof(T), check, kind, std::move(cells));
}
