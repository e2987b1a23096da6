// run_steps.h: the earlier interface of the measurement loop, kept while the programs move to
// measure.h (Measurements, TableSpec). New code uses measure.h directly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "measure.h"

struct StepTable {
    std::string rate = "GB/s";
    double work = 0;                          // what one run moves (or does): what the rate counts
    std::vector<std::string> extra_columns{};
    std::string footer = "";
    double rate_unit = 1e9;
    size_t leading_columns = 0;
    std::string check_column = "check";
    double peak = 0;
    std::string peak_name = "peak";
    const char* time_format = "%.4f";
    const char* rate_format = "%.1f";
    std::function<std::string(double per_second)> rate_text{};
};

inline int run_steps(const std::vector<StepRow>& rows, const StepTable& t, const BenchConfig& timing = {}) {
    TableSpec spec;
    spec.rate = t.rate;
    spec.rate_unit = t.rate_unit;
    spec.columns = t.extra_columns;
    spec.leading_columns = t.leading_columns;
    spec.check_column = t.check_column;
    spec.peak = t.peak;
    spec.peak_name = t.peak_name;
    spec.time_format = t.time_format;
    spec.footer = t.footer;
    const double unit = t.rate_unit;
    const char* format = t.rate_format;
    if (t.rate_text) {
        auto text = t.rate_text;
        spec.rate_text = [text, unit](double rate) { return text(rate * unit); };
    } else {
        spec.rate_text = [format](double rate) { return strf(format, rate); };
    }
    Measurements m(spec, timing);
    m.section("", Work{t.work, t.work}, rows);
    return m.finish();
}
