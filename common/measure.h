// measure.h: the one loop that runs, checks and times an exercise's steps, for the default run
// and for --bench alike, written once.
//
//   TableSpec t;                          // the table's columns, its rate and footer
//   t.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(t.rate), cols::check()};
//   Measurements m(t, timing, p.outputs());
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
// It prints one table per section, of the table's columns (cols:: below: a heading and a row's
// cell each; an exercise's own columns, e.g. a size or a result, take the cells its rows and
// their checks give). A row's % of the baseline compares with the section's first baseline, or
// with the one it names (a sort of pairs against the library's sort of pairs). finish() writes
// every section's rows to --csv FILE, the same columns with more digits, and the last section
// as a roofline to --plot FILE (roofline_svg.h).
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

// What a table's rate counts: its heading, Work::ops or Work::bytes, the unit and, on the plot,
// what an operation is. The default: GB/s of Work::bytes.
struct Rate {
    std::string heading = "GB/s";
    bool counts_ops = false;          // the rate counts Work::ops (GFLOP/s, G keys/s), else Work::bytes
    double unit = 1e9;                // rate = work per second / unit
    std::string ops_name = "FLOP";    // what Work::ops counts, on the plot ("FLOP", "keys", "cell updates")
    const char* format = "%.1f";      // how a rate is written (printf)...
    std::function<std::string(double rate)> text{};  // ...unless this says (e.g. "6.7 G")
    std::string cell(double rate) const { return text ? text(rate) : strf(format, rate); }
};
// A rate of operations rather than bytes: its heading ("G keys/s"), how many operations make one
// of its unit (1e9), and what they are on the plot ("keys").
inline Rate ops_rate(const std::string& heading, double unit, const std::string& ops_name, const char* format = "%.1f") {
    return {heading, true, unit, ops_name, format};
}

struct RowResult;
// One column of a table: its heading and a row's cell, as the table shows it ("-": nothing) and
// as the CSV writes it (exact: more digits; when unset, the cell; "-" is written as nothing).
struct Column {
    std::string heading;
    std::function<std::string(const RowResult&)> cell;
    std::function<std::string(const RowResult&)> exact = {};
    int own = -1;                     // an exercise's own column: the row's own cells, then its check's,
                                      //   fill these in order (the engine numbers them)
};

// A table: its columns (measure.h's cols:: makes them) and what is per table. No columns: step,
// kernel, time, the rate and the check.
struct TableSpec {
    std::string title = "";           // the plot's title: what the program computes
    Rate rate{};                      // what the rate column counts (and the plot's operations)
    std::vector<Column> columns{};
    std::string footer = "";          // under the tables: what the rate counts
    int calls_per_run = 1;            // each row's run() makes this many calls back to back (nccl-tests'
                                      //   iterations): times and rates are per call
    struct {
        std::string label;
        double ops_per_s = 0;
    } compute_roof;                   // the plot's compute roof; none, with the rate's ops "FLOP": this
                                      //   GPU's FP32 peak (gpu.h), as every FP32 kernel's roof
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
    double gb_per_s = 0;              // Work::bytes per second / 1e9
    double vs_previous = 0;           // a step: the time of the step timed before it over its own; 0: none
    double at_copy_speed = 0;         // the rate its bytes would allow at the speed of the section's copy; 0: none
    bool timed() const { return ms > 0; }
};

// ---- Columns: what a table shows of each row --------------------------------------------------
// A measured column shows "-" for a row that was not timed (skipped, wrong, or profiled).
namespace cols {
inline std::string percent(double p) { return p > 0 ? strf("%.1f", p) : "-"; }
inline std::string exact_percent(double p) { return p > 0 ? strf("%.4g", p) : "-"; }

inline Column step() { return {"step", [](const RowResult& r) { return r.step; }}; }
inline Column kernel() { return {"kernel", [](const RowResult& r) { return r.name; }}; }
// The exercise's own: a size, a traffic model, a result. Filled by each row's cells, then its check's.
inline Column own(const std::string& heading) { return {heading, {}, {}, 0}; }
inline Column time(const char* format = "%.4f") {
    return {"time (ms)", [format](const RowResult& r) { return r.timed() ? strf(format, r.ms) : "-"; },
            [](const RowResult& r) { return strf("%.6g", r.ms); }};
}
// The table's rate (a rate of nothing, e.g. a copy's FLOP, shows as "-").
inline Column rate(const Rate& rate) {
    return {rate.heading, [rate](const RowResult& r) { return r.timed() && r.rate > 0 ? rate.cell(r.rate) : "-"; },
            [](const RowResult& r) { return r.rate > 0 ? strf("%.6g", r.rate) : "-"; }};
}
// Beside a rate of operations: the bytes' GB/s.
inline Column gb_per_s() {
    return {"GB/s", [](const RowResult& r) { return r.timed() && r.gb_per_s > 0 ? strf("%.1f", r.gb_per_s) : "-"; },
            [](const RowResult& r) { return r.gb_per_s > 0 ? strf("%.6g", r.gb_per_s) : "-"; }};
}
// "% of CUB": the baseline's time over the row's (the section's first baseline, or the one it names).
inline Column of_baseline(const std::string& heading) {
    return {heading, [](const RowResult& r) { return r.timed() ? percent(r.of_baseline) : "-"; },
            [](const RowResult& r) { return exact_percent(r.of_baseline); }};
}
// The step timed before's time over this step's.
inline Column vs_previous() {
    return {"vs previous", [](const RowResult& r) { return r.timed() && r.vs_previous > 0 ? strf("%.2fx", r.vs_previous) : "-"; },
            [](const RowResult& r) { return r.vs_previous > 0 ? strf("%.4g", r.vs_previous) : "-"; }};
}
// "% of <name>": the rate over a peak in the rate's unit (DRAM GB/s, FP32 GFLOP/s...).
inline Column of_peak(const std::string& name, double peak) {
    return {"% of " + name, [peak](const RowResult& r) { return r.timed() ? percent(100 * r.rate / peak) : "-"; },
            [peak](const RowResult& r) { return exact_percent(100 * r.rate / peak); }};
}
// "% of <name>": the bytes' GB/s over a peak in GB/s (beside a rate of operations).
inline Column of_bytes_peak(const std::string& name, double gb_per_s) {
    return {"% of " + name, [gb_per_s](const RowResult& r) { return r.timed() ? percent(100 * r.gb_per_s / gb_per_s) : "-"; },
            [gb_per_s](const RowResult& r) { return exact_percent(100 * r.gb_per_s / gb_per_s); }};
}
// The rate a row would reach if its Work::bytes moved at the speed of the section's copy (the row
// that is not a step and has bytes but no ops), in the table's rate...
inline Column at_copy_speed(const std::string& heading, const Rate& rate) {
    return {heading, [rate](const RowResult& r) { return r.timed() && r.at_copy_speed > 0 ? rate.cell(r.at_copy_speed) : "-"; },
            [](const RowResult& r) { return r.at_copy_speed > 0 ? strf("%.6g", r.at_copy_speed) : "-"; }};
}
// ...and the row's rate as a percentage of that.
inline Column of_copy_speed() {
    auto of = [](const RowResult& r) { return r.at_copy_speed > 0 ? 100 * r.rate / r.at_copy_speed : 0; };
    return {"% of that", [of](const RowResult& r) { return r.timed() ? percent(of(r)) : "-"; },
            [of](const RowResult& r) { return exact_percent(of(r)); }};
}
// The row's check: ok, FAILED (before or after its timing: is its TODO step done?) or skipped, and why.
inline Column check(const std::string& heading = "check") {
    return {heading, [](const RowResult& r) {
        const std::string todo = r.kind == RowKind::step && r.step != "-" ? " (is TODO step " + r.step + " done?)" : "";
        switch (r.status) {
            case RowResult::ok: return "ok: " + r.detail;
            case RowResult::failed: return "FAILED: " + r.detail + todo;
            case RowResult::failed_after_timing: return "FAILED after timing: " + r.detail + todo;
            case RowResult::skipped: break;
        }
        return "skipped: " + r.detail;
    }};
}
}  // namespace cols

class Measurements {
public:
    Measurements(TableSpec spec, BenchConfig timing = {}, OutputFiles files = {})
        : spec_(std::move(spec)), timing_(timing), files_(std::move(files)) {
        if (spec_.columns.empty())
            spec_.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(spec_.rate), cols::check()};
        int own = 0;
        for (Column& c : spec_.columns)
            if (c.own >= 0) c.own = own++;
    }

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
        }
        std::fputs(tabulate(title, std::move(results)).c_str(), stdout);
    }

    // One section's measured rows: fills in their rates, keeps them for the CSV and the plot, and
    // returns the section's table (its title, when there is one, above it). section() prints it;
    // the host tests call it with made-up rows.
    std::string tabulate(const std::string& title, std::vector<RowResult> results) {
        fill_rates(results);
        Table table(headings());
        for (const auto& r : results) {
            std::vector<std::string> cells;
            for (const Column& c : spec_.columns) cells.push_back(cell(c, r));
            table.row(cells);
        }
        for (auto& r : results) results_.push_back(std::move(r));
        return (title.empty() ? "" : title + "\n\n") + table.text() + "\n";
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
    const std::vector<Column>& columns() const { return spec_.columns; }
    // The rows of the last section that were timed (and so passed), of one kind, in table order.
    std::vector<const RowResult*> last_timed(RowKind kind) const {
        std::vector<const RowResult*> rows;
        for (const RowResult& r : results_)
            if (r.section == results_.back().section && r.kind == kind && r.timed()) rows.push_back(&r);
        return rows;
    }
    // A result measured elsewhere (a program's own measurement, or a test's), for the CSV and plot.
    void add(RowResult r) { results_.push_back(std::move(r)); }

    // Every row of every section, one line each, with a header line (RFC 4180 quoting): its
    // section, the table's columns (numbers with more digits), then its kind, its Work and its
    // status, for a reader that redraws the plot.
    std::string csv() const {
        std::vector<std::string> head = {"section"};
        for (const std::string& h : headings()) head.push_back(h);
        for (const char* h : {"kind", "bytes", "ops", "status"}) head.push_back(h);
        std::string out = csv_line(head);
        for (const auto& r : results_) {
            std::vector<std::string> f = {r.section};
            for (const Column& c : spec_.columns) {
                if (!c.exact) {
                    f.push_back(cell(c, r, ""));
                    continue;
                }
                const std::string v = r.timed() ? c.exact(r) : "";
                f.push_back(v == "-" ? "" : v);  // a measured column's nothing
            }
            f.push_back(kind_name(r.kind));
            f.push_back(strf("%.17g", r.work.bytes));
            f.push_back(strf("%.17g", r.work.ops));
            f.push_back(status_name(r.status));
            out += csv_line(f);
        }
        return out;
    }

    // The last section's timed rows on the device's roofline (theoretical DRAM and, for FLOP,
    // FP32 peaks from its clocks, as students derive them), with each copy measured in that
    // section as a dashed roof of its own.
    RooflinePlot plot() const {
        DeviceFacts dev;
        int count = 0;
        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) dev = device_facts();
        cudaGetLastError();
        return plot(dev);
    }
    // The same for a given device (an empty one: "no GPU"), so that a host test's plot does not
    // depend on the machine it runs on.
    RooflinePlot plot(const DeviceFacts& dev) const {
        RooflinePlot plot;
        plot.ops_name = spec_.rate.ops_name;
        const std::string last = results_.empty() ? "" : results_.back().section;
        plot.title = (spec_.title.empty() ? std::string("roofline") : spec_.title) + (last.empty() ? "" : ", " + last);
        plot.compute_roof = spec_.compute_roof.ops_per_s;
        plot.compute_label = spec_.compute_roof.label;
        if (plot.compute_roof == 0 && spec_.rate.ops_name == "FLOP" && dev.fp32_gflops > 0) {
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
    std::vector<std::string> headings() const {
        std::vector<std::string> all;
        for (const Column& c : spec_.columns) all.push_back(c.heading);
        return all;
    }
    // A row's cell in a column; an exercise's own column takes the row's own cells, then its check's.
    static std::string cell(const Column& c, const RowResult& r, const std::string& none = "-") {
        if (c.own < 0) return c.cell(r);
        const size_t k = (size_t)c.own;
        if (k < r.cells.size()) return r.cells[k];
        return k - r.cells.size() < r.check_cells.size() ? r.check_cells[k - r.cells.size()] : none;
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

    // A section's figures, from its times: what the columns show. A row that is wrong shows none.
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
        double previous_ms = 0;  // the step timed before, for "vs previous"
        for (auto& r : results) {
            if (!usable(r)) {
                if (r.status != RowResult::ok) r.ms = 0;  // no figure for a wrong result
                continue;
            }
            const double work = spec_.rate.counts_ops ? r.work.ops : r.work.bytes;
            r.rate = work / (r.ms * 1e-3) / spec_.rate.unit;
            const bool compared = r.baseline != "-" && (r.kind != RowKind::reference || !r.baseline.empty());
            const double base_ms = compared ? baseline_ms(r.baseline) : 0;
            if (base_ms > 0) r.of_baseline = 100 * base_ms / r.ms;
            r.gb_per_s = r.work.bytes / (r.ms * 1e-3) / 1e9;
            if (copy_bytes_per_s > 0 && work > 0 && r.work.bytes > 0 && !is_copy(r))
                r.at_copy_speed = copy_bytes_per_s * work / r.work.bytes / spec_.rate.unit;
            if (r.kind == RowKind::step) {
                if (previous_ms > 0) r.vs_previous = previous_ms / r.ms;
                previous_ms = r.ms;
            }
        }
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
