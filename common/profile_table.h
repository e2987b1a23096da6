// profile_table.h: Nsight Compute's counters, as one Markdown table with a row per step and kernel.
//
// `make profile-NN` (common/profile.sh) runs an exercise's program under ncu once per step. The
// program runs each step once inside an NVTX range named by the step ("step 3 sequential",
// measure.h), and ncu profiles only the launches inside that range (--nvtx-include), writing
// one CSV line per launch (`ncu --csv --page raw`). This header reads those CSVs, adds up the
// launches of each kernel within its step, and fills the columns that PROFILE_COLUMNS asks
// for, e.g.
//   "global load sectors per request = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
//                                      / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
// A column is [SCALE *] METRIC [+ METRIC...] [/ METRIC [+ METRIC...]]. Over a step's launches a
// ratio is taken of the sums (conflicts over requests of all launches); a single percentage or
// rate (.pct, .ratio, .per_second, pct_of_peak) is averaged, weighted by each launch's time; any
// other single value (a count, bytes, a time) is summed.
// Host code only: common/tests.cpp tests it on a CSV recorded on an H100 (profile_sample.csv).
#pragma once

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "bench.h"  // strf

namespace profile {

constexpr const char* kTimeMetric = "gpu__time_duration.sum";
constexpr const char* kDeviceNameMetric = "device__attribute_display_name";

// ---- ncu's CSV ----------------------------------------------------------------------------------

// One CSV line: fields separated by commas, a field in quotes may hold commas ("" is a quote).
inline std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

// "1,234.5" (ncu may group digits) -> 1234.5; "n/a", "" or text -> NaN.
inline double parse_number(const std::string& text) {
    std::string digits;
    for (char c : text)
        if (c != ',') digits += c;
    if (digits.empty()) return NAN;
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    return *end == '\0' ? v : NAN;
}

// The factor to the base unit (nanoseconds, bytes) for the units ncu may print with prefixes.
inline double unit_factor(const std::string& unit) {
    static const std::map<std::string, double> factors = {
        {"usecond", 1e3}, {"us", 1e3}, {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9}, {"s", 1e9},
        {"Kbyte", 1e3}, {"KB", 1e3}, {"Mbyte", 1e6}, {"MB", 1e6}, {"Gbyte", 1e9}, {"GB", 1e9}};
    const auto f = factors.find(unit);
    return f == factors.end() ? 1.0 : f->second;
}

// "void scan_each_tile<int, true>(const T1 *, T1 *, unsigned long, T1 *, bool)" ->
// "scan_each_tile<int, true>": no return type, no parameter list.
inline std::string short_kernel_name(std::string name) {
    if (name.rfind("void ", 0) == 0) name = name.substr(5);
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        if (name[i] == '>') --depth;
        if (name[i] == '(' && depth == 0) return name.substr(0, i);
    }
    return name;
}

struct Launch {
    std::string kernel;  // short_kernel_name: "scan_each_tile<int, true>"
    std::string grid, block;
    std::map<std::string, double> values;  // metric -> value in base units (NaN: not measured)
    double value(const std::string& metric) const {
        const auto v = values.find(metric);
        return v == values.end() ? NAN : v->second;
    }
};

struct Report {
    std::vector<Launch> launches;  // in launch order
    std::string device;            // "NVIDIA H200", if the CSV has it
    std::vector<std::string> columns;  // the CSV's header: which metrics ncu collected
    std::string error;             // non-empty: the CSV could not be read
};

// Reads `ncu --csv --page raw` output: a header line naming the columns ("ID", ..., "Kernel
// Name", ..., one column per metric), a line of units, then a line per launch. Anything before
// the header (ncu's own messages) is skipped.
inline Report parse_ncu_csv(std::istream& in) {
    Report r;
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        header = split_csv_line(line);
        if (header.size() > 1 && header[0] == "ID") break;
        header.clear();
    }
    if (header.empty()) {
        r.error = "no CSV header (a line starting with \"ID\") in ncu's output";
        return r;
    }
    auto column = [&](const char* name) {
        for (size_t c = 0; c < header.size(); ++c)
            if (header[c] == name) return (int)c;
        return -1;
    };
    const int kernel = column("Kernel Name"), grid = column("Grid Size"), block = column("Block Size");
    const int device = column(kDeviceNameMetric);
    if (kernel < 0) {
        r.error = "ncu's CSV has no \"Kernel Name\" column";
        return r;
    }
    r.columns = header;
    std::vector<double> factor(header.size(), 1.0);
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split_csv_line(line);
        if (f.size() < header.size()) continue;  // a blank line or a message
        if (f[0].empty()) {                      // the units line
            for (size_t c = 0; c < header.size(); ++c) factor[c] = unit_factor(f[c]);
            continue;
        }
        Launch l;
        l.kernel = short_kernel_name(f[kernel]);
        if (grid >= 0) l.grid = f[grid];
        if (block >= 0) l.block = f[block];
        for (size_t c = (size_t)kernel + 1; c < header.size(); ++c)
            if (header[c].find("__") != std::string::npos)  // metric names: unit__counter.rollup
                l.values[header[c]] = parse_number(f[c]) * factor[c];
        if (device >= 0 && r.device.empty()) r.device = f[device];
        r.launches.push_back(l);
    }
    return r;
}

// ---- What the exercise asks for -----------------------------------------------------------------

struct Column {
    std::string header;                 // plain words
    std::string formula;                // as written, for the list under the table
    double scale = 1;
    std::vector<std::string> num, den;  // den empty: not a ratio
};

inline bool is_rate_metric(const std::string& m) {
    auto ends_with = [&](const char* s) {
        const std::string e(s);
        return m.size() >= e.size() && m.compare(m.size() - e.size(), e.size(), e) == 0;
    };
    return ends_with(".pct") || ends_with(".ratio") || ends_with(".per_second") ||
           m.find("pct_of_peak") != std::string::npos;
}

// "header = [SCALE *] m1 [+ m2 ...] [/ m3 [+ m4 ...]]; header = ...". Sets *error if malformed.
inline std::vector<Column> parse_columns(const std::string& spec, std::string* error) {
    std::vector<Column> columns;
    size_t at = 0;
    while (at <= spec.size()) {
        size_t end = spec.find(';', at);
        if (end == std::string::npos) end = spec.size();
        const std::string entry = spec.substr(at, end - at);
        at = end + 1;
        if (entry.find_first_not_of(" \t\n") == std::string::npos) continue;
        const size_t eq = entry.rfind('=');
        auto trim = [](const std::string& s) {
            const size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
            return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
        };
        Column c;
        c.header = eq == std::string::npos ? "" : trim(entry.substr(0, eq));
        c.formula = eq == std::string::npos ? "" : trim(entry.substr(eq + 1));
        std::vector<std::string> words;
        for (size_t w = 0; w < c.formula.size();) {
            const size_t s = c.formula.find_first_not_of(" \t\n", w);
            if (s == std::string::npos) break;
            size_t e = c.formula.find_first_of(" \t\n", s);
            if (e == std::string::npos) e = c.formula.size();
            words.push_back(c.formula.substr(s, e - s));
            w = e;
        }
        const std::string where = "'" + trim(entry) + "': ";
        if (c.header.empty() || words.empty()) {
            *error = where + "write it as HEADER = FORMULA";
            return {};
        }
        size_t i = 0;
        if (words.size() > 2 && words[1] == "*") {
            char* stop = nullptr;
            c.scale = std::strtod(words[0].c_str(), &stop);
            if (*stop != '\0' || words[0].empty()) {
                *error = where + "'" + words[0] + "' is not a number";
                return {};
            }
            i = 2;
        }
        std::vector<std::string>* side = &c.num;
        bool want_metric = true;
        for (; i < words.size(); ++i) {
            const std::string& w = words[i];
            if (want_metric) {
                bool ok = w.find("__") != std::string::npos;
                for (char ch : w) ok = ok && (std::isalnum((unsigned char)ch) || ch == '_' || ch == '.');
                if (!ok) {
                    *error = where + "'" + w + "' is not an ncu metric name (unit__counter.rollup)";
                    return {};
                }
                side->push_back(w);
                want_metric = false;
            } else if (w == "+") {
                want_metric = true;
            } else if (w == "/" && side == &c.num) {
                side = &c.den;
                want_metric = true;
            } else {
                *error = where + "expected + or / before '" + w + "'";
                return {};
            }
        }
        if (want_metric) {
            *error = where + "ends where a metric name should follow";
            return {};
        }
        columns.push_back(c);
    }
    return columns;
}

// The columns every exercise's table starts with.
inline std::vector<Column> standard_columns() {
    std::string error;
    return parse_columns(
        "GPU time (us) = 0.001 * gpu__time_duration.sum;"
        "DRAM throughput (% of peak) = dram__throughput.avg.pct_of_peak_sustained_elapsed;"
        "achieved occupancy (% of max warps) = sm__warps_active.avg.pct_of_peak_sustained_active",
        &error);
}

// Every metric ncu must collect: the columns', each launch's time, the GPU's name.
inline std::string metric_list(const std::vector<Column>& columns) {
    std::vector<std::string> all = {kTimeMetric, kDeviceNameMetric};
    for (const auto& c : columns)
        for (const auto* side : {&c.num, &c.den})
            for (const auto& m : *side) {
                bool seen = false;
                for (const auto& a : all) seen = seen || a == m;
                if (!seen) all.push_back(m);
            }
    std::string list;
    for (const auto& m : all) list += (list.empty() ? "" : ",") + m;
    return list;
}

// The metrics of `columns` that the CSV lacks (a name this ncu or GPU does not know: ncu leaves
// it out with a warning, and its columns would read n/a).
inline std::vector<std::string> missing_metrics(const Report& report, const std::vector<Column>& columns) {
    std::vector<std::string> missing;
    for (const auto& c : columns)
        for (const auto* side : {&c.num, &c.den})
            for (const auto& m : *side) {
                bool found = false, listed = false;
                for (const auto& h : report.columns) found = found || h == m;
                for (const auto& x : missing) listed = listed || x == m;
                if (!found && !listed) missing.push_back(m);
            }
    return missing;
}

// ---- From launches to rows ----------------------------------------------------------------------

struct Row {
    std::string step, kernel;
    std::vector<const Launch*> launches;
    std::vector<std::string> cells;  // one per column
};

// A number with about three significant digits: 1234, 45.6, 0.78, 0.00.
inline std::string short_number(double v) {
    if (std::isnan(v)) return "n/a";
    const double a = std::fabs(v);
    return strf(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
}

inline std::string column_value(const Column& c, const std::vector<const Launch*>& launches) {
    auto sum = [](const std::vector<std::string>& metrics, const Launch& l) {
        double s = 0;
        for (const auto& m : metrics) s += l.value(m);
        return s;
    };
    if (launches.empty()) return "-";
    double num = 0, den = 0;
    if (!c.den.empty()) {
        for (const Launch* l : launches) num += sum(c.num, *l), den += sum(c.den, *l);
        if (std::isnan(num) || std::isnan(den)) return "n/a";
        return den == 0 ? "-" : short_number(c.scale * num / den);  // "-": nothing to divide by
    }
    bool rate = false;
    for (const auto& m : c.num) rate = rate || is_rate_metric(m);
    for (const Launch* l : launches) {
        const double t = l->value(kTimeMetric), v = sum(c.num, *l);
        num += rate ? t * v : v;
        den += t;
    }
    if (rate) return den > 0 ? short_number(c.scale * num / den) : "n/a";
    return short_number(c.scale * num);
}

// What ncu profiled inside one step's NVTX range.
struct StepReport {
    std::string label;  // "step 3 sequential"
    Report report;
};

// "step 3 sequential" -> "3"; a label of no step stays whole.
inline std::string step_number(const std::string& label) {
    if (label.rfind("step ", 0) != 0) return label;
    return label.substr(5, label.find(' ', 5) - 5);
}

// One row per step and kernel, in step order, the launches of a kernel within its step added
// up; a step with no launch gets a row saying so.
inline std::vector<Row> summarize(const std::vector<StepReport>& steps, const std::vector<Column>& columns) {
    std::vector<Row> rows;
    for (const StepReport& s : steps) {
        const size_t first_row = rows.size();
        for (const Launch& l : s.report.launches) {
            Row* row = nullptr;
            for (size_t r = first_row; r < rows.size(); ++r)
                if (rows[r].kernel == l.kernel) row = &rows[r];
            if (!row) {
                rows.push_back({step_number(s.label), l.kernel, {}, {}});
                row = &rows.back();
            }
            row->launches.push_back(&l);
        }
        if (rows.size() == first_row) rows.push_back({step_number(s.label), "(no launch profiled)", {}, {}});
    }
    for (Row& r : rows)
        for (const Column& c : columns) r.cells.push_back(column_value(c, r.launches));
    return rows;
}

}  // namespace profile
