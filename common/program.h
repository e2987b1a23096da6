// program.h: what every exercise program shares: its usage text, the options every program
// has (--kernel, --seed, --bench, --help), and the header of its benchmark.
//
//   Program p(argc, argv, {"out[i] = a * x[i] on the GPU, checked on the CPU",
//                          {{"--n N", "elements"}},   // each option's text; its default and range are read
//                          step_decls(kSteps), {}, "the benchmark table (2^12 to 2^28 floats)"});
//   size_t n = p.size("--n", 1000000);   // a Program is an Options: read every option, then
//   p.not_with_bench({"--n"});           // the rules (options that cannot affect the run), then
//   p.finish();                          // (--help and --list-options print here, from what was read)
//
// A program's main.cpp includes this header and its exercise's own: the standard headers below,
// the engine (measure.h), the comparisons with the CPU (compare.h), the buffers and the options
// all come with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench.h"
#include "gpu.h"
#include "memory.h"
#include "measure.h"
#include "options.h"
#include "output_file.h"
#include "steps.h"

// One option's line in --help: its name and value ("--n N"), what it does, and, where the
// declared default is a code (-1: every device), the default in words. The default, the range
// and the steps it matters to come from what the program reads (options.h), never retyped here.
struct OptionDoc {
    std::string name;        // "--n N", "--watch"
    std::string text;        // "elements"
    std::string def = "";    // "every device"; empty: the declared default
};

// A step as the program sees it: its name (--kernel) and the options that matter to it alone,
// from the step's declaration (steps.h: Step::options).
struct StepDecl {
    std::string name;
    std::vector<std::string> options = {};
    StepDecl(const char* n) : name(n) {}
    StepDecl(std::string n, std::vector<std::string> o = {}) : name(std::move(n)), options(std::move(o)) {}
};
template <class Fn, class Info, size_t N>
std::vector<StepDecl> step_decls(const Step<Fn, Info> (&steps)[N]) {
    std::vector<StepDecl> out;
    for (const auto& s : steps) {
        std::vector<std::string> options;
        std::string word;
        for (const char* c = s.options; c && *c; ++c) {
            if (*c != ' ') word += *c;
            if ((*c == ' ' || !c[1]) && !word.empty()) options.push_back(word), word.clear();
        }
        out.push_back({s.name, options});
    }
    return out;
}

struct ProgramSpec {
    std::string synopsis;              // one line: what the program does
    std::vector<OptionDoc> options;    // the program's own options, in the order --help lists them
    std::vector<StepDecl> steps;       // --kernel choices, in step order (step_decls(kSteps)); empty: a
                                       // program that runs no step kernels (a device listing) has no --kernel, no --seed
    std::vector<std::string> extra_kernels = {};  // other --kernel choices (e.g. "cub")
    std::string bench = "";            // what --bench prints instead; empty: no --bench
};

// "a, b, c or d" (at most ~90 characters a line, indented for the usage text).
inline std::string or_list(const std::vector<std::string>& words, const std::string& indent) {
    std::string text, line;
    for (size_t i = 0; i < words.size(); ++i) {
        std::string w = words[i] + (i + 2 < words.size() ? "," : i + 2 == words.size() ? " or" : "");
        if (!line.empty() && line.size() + w.size() + 1 > 70) {
            text += line + "\n" + indent;
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    return text + line;
}

// A count as a person would type it: 2^24, 2^24+3, 2^31-1, or its digits.
inline std::string count_text(size_t x) {
    if (x < 1024) return std::to_string(x);
    int k = 0;
    while (k < 63 && ((size_t)1 << (k + 1)) <= x) ++k;
    const size_t below = (size_t)1 << k;
    if (x == below) return "2^" + std::to_string(k);
    if (x - below < 1000) return "2^" + std::to_string(k) + "+" + std::to_string(x - below);
    if (k < 63 && ((size_t)1 << (k + 1)) - x < 1000) return "2^" + std::to_string(k + 1) + "-" + std::to_string(((size_t)1 << (k + 1)) - x);
    return std::to_string(x);
}

// What --help says of an option besides its text: its range and default (from its record), the
// steps it matters to. `def`: the default in words, or "" for the recorded one.
inline std::string option_facts(const DeclaredOption& d, const std::string& def) {
    const size_t dots = d.values.find("..");
    const std::string lo = dots == std::string::npos ? "" : d.values.substr(0, dots);
    const std::string hi = dots == std::string::npos ? "" : d.values.substr(dots + 2);
    auto count = [](const std::string& v) { return count_text(std::stoull(v)); };
    const std::string shown_def = d.def.empty() ? "" : d.kind == "size" || d.kind == "seed" ? count(d.def) : d.def;
    std::vector<std::string> facts;
    if (!def.empty()) facts.push_back("default: " + def);
    else if (!shown_def.empty()) facts.push_back("default " + shown_def);
    if (d.kind == "size") {
        if (lo == "0") facts.push_back("0 is allowed");
        else if (lo != "1") facts.push_back("at least " + count(lo));
        if (hi != std::to_string(SIZE_MAX)) facts.push_back("at most " + count(hi));
    } else if (d.kind == "integer" || d.kind == "real") {
        facts.push_back(lo + " to " + hi);
    } else if (d.kind == "choice") {
        std::string words = d.values;  // "a,b,c" -> "a, b or c"
        const size_t last = words.rfind(',');
        if (last != std::string::npos) words.replace(last, 1, " or ");
        for (size_t c = words.find(','); c != std::string::npos; c = words.find(',', c + 2)) words.replace(c, 1, ", ");
        facts.push_back(words);
    }
    if (!d.only_kernels.empty()) {
        std::string steps;
        for (size_t i = 0; i < d.only_kernels.size(); ++i)
            steps += (i == 0 ? "" : i + 1 == d.only_kernels.size() ? " and " : ", ") + d.only_kernels[i];
        facts.push_back("for " + steps + " only");
    }
    std::string out;
    for (size_t i = 0; i < facts.size(); ++i) out += (i ? "; " : "") + facts[i];
    if (d.kind == "size") out += (out.empty() ? "" : "; ") + std::string("2^K and 2^K+C work too");
    return out.empty() ? "" : " (" + out + ")";
}

// One option's lines: the name in a column `width` wide, the text wrapped under itself.
inline std::string usage_line(const std::string& name, const std::string& text, size_t width) {
    const std::string indent(2 + width, ' ');
    std::string out = "  " + name + (name.size() + 1 < width ? std::string(width - name.size(), ' ') : "\n" + indent);
    std::string line, word;
    auto flush_word = [&] {
        if (word.empty()) return;
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 100) out += line + "\n" + indent, line.clear();
        line += (line.empty() ? "" : " ") + word;
        word.clear();
    };
    for (char c : text) {
        if (c == ' ') flush_word();
        else if (c == '\n') flush_word(), out += line + "\n" + indent, line.clear();
        else word += c;
    }
    flush_word();
    return out + line + "\n";
}

class Program : public Options {
public:
    Program(int argc, char** argv, ProgramSpec spec) : Options(argc, argv, ""), spec_(std::move(spec)) {
        std::vector<std::string> kernels;
        for (const StepDecl& s : steps()) kernels.push_back(s.name);
        kernels.insert(kernels.end(), spec_.extra_kernels.begin(), spec_.extra_kernels.end());
        kernels.push_back("all");
        if (!steps().empty()) {
            kernel = choice("--kernel", "all", kernels);
            seed = size("--seed", 1, 0);
            declared("--seed").kind = "seed";  // a count, but of nothing that takes memory or time
        }
        bench = spec_.bench.empty() ? false : flag("--bench");
        files.csv = text("--csv", "");
        files.plot = text("--plot", "");
        require_output_file(*this, "--csv", files.csv, ".csv");
        require_output_file(*this, "--plot", files.plot, ".svg");
        // The run's record for the course's tools (measure.h), when one of them asks for it.
        if (const char* record = std::getenv("COURSE_RECORD"); record && *record && !listing()) {
            files.record = record;
            fail_if("COURSE_RECORD", why_not_output_file(files.record, ".json"));
            fail_if("COURSE_RECORD", why_same_output(Options::outputs(), "COURSE_RECORD", files.record));
        }
        if (!steps().empty() && !spec_.bench.empty())
            refuse_with("--kernel", "--bench", "--bench measures every step; leave --kernel out or drop --bench");
    }

    std::string kernel = "all";  // "all" or one step's (or library's) name
    uint64_t seed = 1;
    bool bench = false;
    OutputFiles files;

    // Where the measurements' tables go besides the terminal (--csv, --plot).
    const OutputFiles& outputs() const { return files; }

    bool selected(const std::string& name) const { return kernel == "all" || kernel == name; }
    // The steps --kernel selects, in step order: all of them, the one it names, or none (it names a library).
    template <class Fn, class Info, size_t N>
    std::vector<Step<Fn, Info>> selected(const Step<Fn, Info> (&steps)[N]) const {
        std::vector<Step<Fn, Info>> chosen;
        for (const auto& s : steps)
            if (selected(s.name)) chosen.push_back(s);
        return chosen;
    }
    // Is any step that takes `option` (its declaration says so) selected?
    bool selected_with(const std::string& option) const {
        for (const StepDecl& s : steps())
            if (selected(s.name) && std::find(s.options.begin(), s.options.end(), option) != s.options.end()) return true;
        return false;
    }

    // After every option is read: an option that steps declare matters only to them (refused with
    // --kernel naming another), then the checks of options.h; --help and --list-options print here.
    void finish() {
        std::vector<std::string> named;  // each option the steps take, in the order they first name it
        for (const StepDecl& s : steps())
            for (const std::string& o : s.options)
                if (std::find(named.begin(), named.end(), o) == named.end()) named.push_back(o);
        for (const std::string& o : named) {
            std::vector<std::string> takers;
            for (const StepDecl& s : steps())
                if (std::find(s.options.begin(), s.options.end(), o) != s.options.end()) takers.push_back(s.name);
            only_for_kernels(o, takers);
        }
        Options::finish();
    }

    // --bench measures fixed sizes and settings: an option that would change them is refused,
    // in one line, rather than silently ignored (checked by finish()).
    void not_with_bench(std::initializer_list<const char*> names) {
        for (const char* name : names)
            refuse_with(name, "--bench", "is not used by --bench (its sizes and settings are fixed: see --help); "
                                         "drop one of the two");
    }

    // `demo` (an option that runs a demonstration instead of the steps) runs no step and prints no
    // table: --kernel, --csv and --plot are refused with it, and so are the `inputs` it does not read
    // (`why`: what it uses instead). Checked by finish().
    void not_with_demo(const std::string& demo, std::initializer_list<const char*> inputs = {},
                       const std::string& why = "") {
        not_with("--kernel", demo, "the demo runs no step");
        for (const char* input : inputs) not_with(input, demo, why);
        for (const char* file : {"--csv", "--plot"}) not_with(file, demo, "the demo prints no table");
    }

    // `name` matters only to the steps (or library rows) `kernels`: with --kernel naming another,
    // it is refused (checked by finish()).
    void only_for_kernels(const std::string& name, const std::vector<std::string>& kernels) {
        std::string list;
        for (size_t i = 0; i < kernels.size(); ++i)
            list += (i == 0 ? "" : i + 1 == kernels.size() ? " and " : ", ") + kernels[i];
        DeclaredOption& d = declared(name);
        d.only_kernels.insert(d.only_kernels.end(), kernels.begin(), kernels.end());
        const std::string chosen = kernel;
        rules_.push_back({3, [name, kernels, list, chosen](const Options& o) {
            if (!o.in_effect(name) || chosen == "all") return;
            if (std::find(kernels.begin(), kernels.end(), chosen) != kernels.end()) return;
            o.fail(name, "does nothing with --kernel " + chosen + " (it matters only to " + list + "); drop one of the two");
        }});
    }

    // The help text, from the spec and what was read: the program's own options, then every program's.
    std::string usage() const override {
        std::vector<OptionDoc> docs = spec_.options;
        if (!steps().empty()) {
            docs.push_back({"--kernel NAME", "the step to run"});
            docs.push_back({"--seed S", "seed of the random input"});
        }
        if (!spec_.bench.empty()) docs.push_back({"--bench", "print " + spec_.bench + " instead"});
        docs.push_back({"--csv FILE", "also write every table's rows to FILE (a .csv file)"});
        docs.push_back({"--plot FILE", "also draw the measured rows on this GPU's roofline, in FILE (an .svg file)"});
        for (const DeclaredOption& d : declared_options()) {  // one read but not described still shows
            bool described = false;
            for (const OptionDoc& doc : docs) described |= doc.name.substr(0, doc.name.find(' ')) == d.name;
            if (!described) docs.insert(docs.begin() + (long)spec_.options.size(), {d.name, "(not described)"});
        }
        size_t width = 16;
        for (const OptionDoc& d : docs) width = std::max(width, d.name.size() + 2);
        std::string u = "usage: " + program() + " [options]      " + spec_.synopsis + "\n";
        for (const OptionDoc& doc : docs) {
            const std::string name = doc.name.substr(0, doc.name.find(' '));
            u += usage_line(doc.name, doc.text + option_facts(declared(name), doc.def), width);
        }
        return u + usage_line("--help", "this text (--list-options: every option's kind and range, one a line)", width);
    }

private:
    const std::vector<StepDecl>& steps() const { return spec_.steps; }
    ProgramSpec spec_;
};

// The sizes a program measures, declared once: the one its size option gives (--n), or the list
// --bench measures. Its help text, its loop and its memory check all read this.
struct Sizes {
    std::string option = "--n";        // the option that gives the default run's size
    std::vector<size_t> bench;         // what --bench measures, in order
    // 2^from, 2^(from + step), ... 2^to.
    static Sizes powers_of_two(int from, int to, int step = 1, std::string option = "--n") {
        Sizes s{std::move(option), {}};
        for (int k = from; k <= to; k += step) s.bench.push_back((size_t)1 << k);
        return s;
    }
    // "2^12 to 2^28", "2^25 and 2^28", "2^20, 2^24 and 2^26".
    std::string text(bool as_powers = true) const {
        std::vector<std::string> words;
        for (size_t n : bench) words.push_back(as_powers ? count_text(n) : std::to_string(n));
        if (words.size() > 3) return words.front() + " to " + words.back();
        std::string out;
        for (size_t i = 0; i < words.size(); ++i) out += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
        return out;
    }
    std::vector<size_t> measured(const Program& p, size_t n) const { return p.bench ? bench : std::vector<size_t>{n}; }
    size_t most(const Program& p, size_t n) const { return p.bench ? *std::max_element(bench.begin(), bench.end()) : n; }
    // The option a size that does not fit is blamed on: --bench, or the size option.
    std::string blamed(const Program& p) const { return p.bench ? "--bench" : option; }
};

// ---- Options that several programs share ---------------------------------------------------

// The shape of a matrix product C = A * B (A: m x k, B: k x n), read from --m, --n and --k (default
// 2048 each, 1 to `most`, a power of two); --bench measures shapes of its own.
struct MatrixShape {
    int m, n, k;
};
inline std::vector<OptionDoc> matrix_shape_docs() {
    return {{"--m M", "rows of A and C"}, {"--n N", "columns of B and C"}, {"--k K", "columns of A, rows of B"}};
}
inline MatrixShape read_matrix_shape(Program& p, int most) {
    const int m = (int)p.size("--m", 2048, 1, most);
    const int n = (int)p.size("--n", 2048, 1, most);
    const int k = (int)p.size("--k", 2048, 1, most);
    p.not_with_bench({"--m", "--n", "--k"});
    return {m, n, k};
}

// The first lines of every benchmark: the GPU, its theoretical peaks, and how times are taken.
inline DeviceFacts print_bench_header(const std::string& what, const BenchConfig& cfg = {}) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark: %s\n", what.c_str());
    std::printf("GPU: %s, %d SMs; theoretical peaks (from its clocks): DRAM %.0f GB/s, FP32 %.1f TFLOP/s\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, dev.fp32_gflops / 1e3);
    std::printf("Method: %s; every result checked after timing.\n", timing_method(cfg).c_str());
    return dev;
}

// The first line of a run that is not the benchmark: what runs, on which GPU, with what settings.
inline DeviceFacts print_run_header(const std::string& what, const std::string& settings) {
    DeviceFacts dev = device_facts();
    std::printf("%s on %s (%d SMs): %s\n\n", what.c_str(), dev.name.c_str(), dev.sm_count, settings.c_str());
    return dev;
}

// A program's first lines: the benchmark's header with --bench (`bench_what`), else the run's line.
inline DeviceFacts print_header(const Program& p, const BenchConfig& cfg, const std::string& bench_what,
                                const std::string& what, const std::string& settings) {
    return p.bench ? print_bench_header(bench_what, cfg) : print_run_header(what, settings);
}

// ---- Checks before anything large is allocated: one line naming the option, exit 2 ----------

// The host side of a run must fit: inputs, downloaded outputs and the CPU reference live there.
// Needs no GPU, so a size that can never work is refused even on a machine without one.
inline void require_fits_in_host(const Options& opts, const std::string& name, double bytes) {
    const double total = host_memory_bytes();
    if (total > 0 && bytes > 0.9 * total)
        opts.fail(name, strf("needs %.2f GB of host memory but this machine has %.2f GB in all",
                             bytes / 1e9, total / 1e9));
    const double cap = address_space_limit_bytes();
    if (cap > 0 && bytes > 0.9 * cap)
        opts.fail(name, strf("needs %.2f GB of host memory but this process may use at most %.2f GB (ulimit -v)",
                             bytes / 1e9, cap / 1e9));
}

// The device side must fit in free GPU memory: say so before cudaMalloc fails.
inline void require_fits_in_gpu(const Options& opts, const std::string& name, double bytes) {
    const size_t free_b = free_gpu_bytes();
    if (bytes > 0.95 * (double)free_b)
        opts.fail(name, strf("needs %.2f GB of GPU memory but only %.2f GB is free", bytes / 1e9, free_b / 1e9));
}

// The order every program follows: the host check (no GPU needed), then is there a GPU at all
// (one line, exit 2), then free GPU memory. Call after every option has been read and checked.
inline void require_memory(const Options& opts, const std::string& name, double host_bytes, double gpu_bytes) {
    require_fits_in_host(opts, name, host_bytes);
    require_gpu(opts.program().c_str());
    require_fits_in_gpu(opts, name, gpu_bytes);
}

// A block size must fit the device (1024 threads on every GPU since 2010, but ask).
inline void require_block_size(const Options& opts, const std::string& name, int block) {
    int dev = 0, max_threads = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, dev));
    if (block > max_threads)
        opts.fail(name, std::to_string(block) + " threads per block is over this GPU's limit of " +
                            std::to_string(max_threads));
}
