// profile_table.cpp: the host tool behind `make profile-NN` (common/profile.sh runs it).
//
//   profile_table --print-metrics [--columns SPEC]     the metrics to give ncu --metrics
//   profile_table --print-kernel-regex --kernels SPEC  the kernels to give ncu --kernel-name
//   profile_table --csv FILE --kernels SPEC [--columns SPEC] [--launch-cap N] [--first-launch-only]
//                                                      the Markdown table, from ncu's CSV
// SPEC as in profile_table.h. A bad SPEC gets one line naming the option, and exit code 2.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "options.h"
#include "profile_table.h"

static const char* kUsage =
    "usage: profile_table [options]      Nsight Compute's CSV as one table, a row per step\n"
    "  --csv FILE            ncu --csv --page raw output to read\n"
    "  --kernels SPEC        STEP=KERNEL ... (the exercise's PROFILE_KERNELS)\n"
    "  --columns SPEC        HEADER = FORMULA; ... (the exercise's PROFILE_COLUMNS)\n"
    "  --launch-cap N        ncu profiled at most N launches (say so if it reached them)\n"
    "  --first-launch-only   count only the first launch of each kernel in each step\n"
    "  --note TEXT           a line to print under the table (why first launches only)\n"
    "  --print-metrics       print the metrics ncu must collect, and stop\n"
    "  --print-kernel-regex  print the --kernel-name regex for ncu, and stop\n";

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const std::string csv = opts.text("--csv", "");
    const std::string kernel_spec = opts.text("--kernels", "");
    const std::string column_spec = opts.text("--columns", "");
    const size_t cap = opts.size("--launch-cap", 0, 0);
    const bool first_only = opts.flag("--first-launch-only");
    const std::string note = opts.text("--note", "");
    const bool print_metrics = opts.flag("--print-metrics");
    const bool print_regex = opts.flag("--print-kernel-regex");
    opts.finish();

    std::string error;
    std::vector<profile::Column> columns = profile::standard_columns();
    for (const auto& c : profile::parse_columns(column_spec, &error)) columns.push_back(c);
    if (!error.empty()) opts.fail("--columns", error);
    if (print_metrics) {
        std::printf("%s\n", profile::metric_list(columns).c_str());
        return 0;
    }
    const std::vector<profile::KernelStep> kernels = profile::parse_kernel_steps(kernel_spec, &error);
    if (!error.empty()) opts.fail("--kernels", error);
    if (print_regex) {
        std::printf("%s\n", profile::kernel_regex(kernels).c_str());
        return 0;
    }
    if (csv.empty()) opts.fail("--csv", "needs the file ncu wrote (see --help)");
    std::ifstream in(csv);
    if (!in) opts.fail("--csv", "cannot read '" + csv + "'");
    const profile::Report report = profile::parse_ncu_csv(in);
    if (!report.error.empty()) opts.fail("--csv", report.error);

    std::vector<std::string> header = {"step", "kernel", "launches"};
    for (const auto& c : columns) header.push_back(c.header);
    Table table(header);
    for (const auto& r : profile::summarize(report, kernels, columns, first_only)) {
        std::vector<std::string> cells = {r.step, r.kernel, r.launches.empty() ? "-" : std::to_string(r.launches.size())};
        cells.insert(cells.end(), r.cells.begin(), r.cells.end());
        table.row(cells);
    }
    std::printf("Counters of each step's kernels%s%s:\n\n", report.device.empty() ? "" : ", on ",
                report.device.c_str());
    table.print();
    std::printf("\n");
    if (!note.empty()) std::printf("%s\n", note.c_str());
    if (first_only)
        std::printf("Each row shows the first launch of its kernel in its step.\n");
    else
        std::printf("Each step ran once. A row adds up its launches: times are summed, percentages averaged\n"
                    "over the time, ratios taken of the sums.\n");
    if (cap > 0 && report.launches.size() >= cap)
        std::printf("ncu stopped after %zu launches (PROFILE_LAUNCHES in exercise.mk): later launches are missing.\n",
                    cap);
    for (const auto& m : profile::missing_metrics(report, columns))
        std::printf("ncu collected no %s (a name this ncu or GPU does not know?): its column reads n/a.\n",
                    m.c_str());
    std::printf("\nWhat each column reads (Nsight Compute metric names):\n");
    for (const auto& c : columns) std::printf("  %s = %s\n", c.header.c_str(), c.formula.c_str());
    return 0;
}
