// profile_table.cpp: the host tool behind `make profile-NN` (common/profile.sh runs it).
//
//   profile_table --print-metrics [--columns SPEC]   the metrics to give ncu --metrics
//   profile_table --steps FILE [--columns SPEC] [--launch-cap N]
//                                                    the Markdown table, from ncu's CSVs
// FILE has a line per step, "LABEL<tab>CSV": the step's NVTX range and the CSV ncu wrote for the
// launches inside it. SPEC as in profile_table.h. A bad SPEC or FILE gets one line naming the
// option, and exit code 2.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "options.h"
#include "profile_table.h"

static const char* kUsage =
    "usage: profile_table [options]      Nsight Compute's CSVs as one table, a row per step and kernel\n"
    "  --steps FILE          a line per step: its NVTX range, a tab, the CSV ncu wrote for it\n"
    "  --columns SPEC        HEADER = FORMULA; ... (the exercise's PROFILE_COLUMNS)\n"
    "  --launch-cap N        ncu profiled at most N launches per step (say so where it reached them)\n"
    "  --print-metrics       print the metrics ncu must collect, and stop\n";

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const std::string steps_file = opts.text("--steps", "");
    const std::string column_spec = opts.text("--columns", "");
    const size_t cap = opts.size("--launch-cap", 0, 0);
    const bool print_metrics = opts.flag("--print-metrics");
    opts.finish();

    std::string error;
    std::vector<profile::Column> columns = profile::standard_columns();
    for (const auto& c : profile::parse_columns(column_spec, &error)) columns.push_back(c);
    if (!error.empty()) opts.fail("--columns", error);
    if (print_metrics) {
        std::printf("%s\n", profile::metric_list(columns).c_str());
        return 0;
    }
    if (steps_file.empty()) opts.fail("--steps", "needs the list of steps and their CSVs (see --help)");
    std::ifstream list(steps_file);
    if (!list) opts.fail("--steps", "cannot read '" + steps_file + "'");
    std::vector<profile::StepReport> steps;
    std::string line, device;
    while (std::getline(list, line)) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos) opts.fail("--steps", "'" + Options::printable(line) + "' is not LABEL<tab>CSV");
        std::ifstream in(line.substr(tab + 1));
        if (!in) opts.fail("--steps", "cannot read '" + line.substr(tab + 1) + "'");
        profile::StepReport s{line.substr(0, tab), profile::parse_ncu_csv(in)};
        if (!s.report.error.empty() && s.report.error.rfind("no CSV header", 0) != 0)
            opts.fail("--steps", line.substr(tab + 1) + ": " + s.report.error);
        if (device.empty()) device = s.report.device;
        steps.push_back(std::move(s));
    }
    if (steps.empty()) opts.fail("--steps", "'" + steps_file + "' names no step");

    std::vector<std::string> header = {"step", "kernel", "launches"};
    for (const auto& c : columns) header.push_back(c.header);
    Table table(header);
    for (const auto& r : profile::summarize(steps, columns)) {
        std::vector<std::string> cells = {r.step, r.kernel, r.launches.empty() ? "-" : std::to_string(r.launches.size())};
        cells.insert(cells.end(), r.cells.begin(), r.cells.end());
        table.row(cells);
    }
    std::printf("Counters of each step's kernels%s%s:\n\n", device.empty() ? "" : ", on ", device.c_str());
    table.print();
    std::printf("\nEach step ran once, inside an NVTX range of its own name; ncu profiled the launches in that\n"
                "range. A row adds up a kernel's launches: times are summed, percentages averaged over the\n"
                "time, ratios taken of the sums.\n");
    for (const auto& s : steps) {
        if (cap > 0 && s.report.launches.size() >= cap)
            std::printf("%s: ncu stopped after %zu launches (PROFILE_LAUNCHES in exercise.mk): later ones are missing.\n",
                        s.label.c_str(), cap);
        for (const auto& m : profile::missing_metrics(s.report, columns))
            if (!s.report.launches.empty())
                std::printf("%s: ncu collected no %s (a name this ncu or GPU does not know?): n/a.\n", s.label.c_str(),
                            m.c_str());
    }
    std::printf("\nWhat each column reads (Nsight Compute metric names):\n");
    for (const auto& c : columns) std::printf("  %s = %s\n", c.header.c_str(), c.formula.c_str());
    return 0;
}
