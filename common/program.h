// program.h: what every exercise program shares: its usage text, the options every program
// has (--kernel, --seed, --bench, --help), and the header of its benchmark.
//
//   Program p(argc, argv, {"out[i] = a * x[i] on the GPU, checked on the CPU",
//                          "  --n N           elements (default 1000000)\n",
//                          step_names(kSteps), {}, "the benchmark table (2^12 to 2^28 floats)"});
//   size_t n = p.size("--n", 1000000);   // a Program is an Options: read every option, then
//   p.not_with_bench({"--n"});           // the rules (options that cannot affect the run), then
//   p.finish();
//   if (p.selected("vectorized")) ...
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

struct ProgramSpec {
    std::string synopsis;              // one line: what the program does
    std::string options;               // the program's own option lines, each ending in \n
    std::vector<std::string> steps;    // --kernel choices, in step order (step_names(kSteps)); empty: a
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

inline std::string program_usage(const std::string& program, const ProgramSpec& spec) {
    std::vector<std::string> kernels = spec.steps;
    kernels.insert(kernels.end(), spec.extra_kernels.begin(), spec.extra_kernels.end());
    kernels.push_back("all");
    std::string u = "usage: " + program + " [options]      " + spec.synopsis + "\n" + spec.options;
    if (!spec.steps.empty()) {
        u += "  --kernel NAME   the step to run (default all):\n                  " + or_list(kernels, "                  ") + "\n";
        u += "  --seed S        seed of the random input (default 1)\n";
    }
    if (!spec.bench.empty()) u += "  --bench         print " + spec.bench + " instead\n";
    u += "  --csv FILE      also write every table's rows to FILE (a .csv file)\n";
    u += "  --plot FILE     also draw the measured rows on this GPU's roofline, in FILE (an .svg file)\n";
    u += "  --help          this text (--list-options: every option's kind and range, one a line)\n";
    return u;
}

class Program : public Options {
public:
    Program(int argc, char** argv, const ProgramSpec& spec)
        : Options(argc, argv, program_usage(program_name(argc, argv), spec)) {
        std::vector<std::string> kernels = spec.steps;
        kernels.insert(kernels.end(), spec.extra_kernels.begin(), spec.extra_kernels.end());
        kernels.push_back("all");
        if (!spec.steps.empty()) {
            kernel = choice("--kernel", "all", kernels);
            seed = size("--seed", 1, 0);
            declared("--seed").kind = "seed";  // a count, but of nothing that takes memory or time
        }
        bench = spec.bench.empty() ? false : flag("--bench");
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
        if (!spec.steps.empty() && !spec.bench.empty())
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

private:
    static std::string program_name(int argc, char** argv) {
        std::string path = argc > 0 ? argv[0] : "program";
        return path.substr(path.find_last_of('/') + 1);
    }
};

// ---- Options that several programs share ---------------------------------------------------

// The shape of a matrix product C = A * B (A: m x k, B: k x n), read from --m, --n and --k (default
// 2048 each, 1 to `most`, a power of two); --bench measures shapes of its own.
struct MatrixShape {
    int m, n, k;
};
inline std::string matrix_shape_usage(int most) {
    int log2_most = 0;
    while ((1 << log2_most) < most) ++log2_most;
    return "  --m M           rows of A and C (default 2048)\n"
           "  --n N           columns of B and C (default 2048)\n"
           "  --k K           columns of A, rows of B (default 2048)\n"
           "                  each at most 2^" + std::to_string(log2_most) + "; 2^K and 2^K+C work too\n";
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
