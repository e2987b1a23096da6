// 04_naive_reduce/main.cpp: runs each step on seeded random data, checks it against the CPU
// reference in double precision, and times it; --bench prints the benchmark table, --demo
// runs the broken barrier of the README.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cub_sum.h"
#include "naive_reduce.h"
#include "program.h"

// The CPU's answers: the sum and the summary of x, the sums of the matrix (each when needed).
struct References { ReferenceSum sum; StatsReference stats; RowsColsReference matrix; };

static Check check_sum(float got, const ReferenceSum& ref, size_t n) {
    const Tolerance tol = sum_tolerance(n, ref);
    const bool ok = within(got, ref.sum, tol);
    return {ok, strf("|error| %.2g %s %.2g", std::fabs((double)got - ref.sum), ok ? "<=" : "exceeds", tol.atol),
            {strf("%.9g", got)}};
}

static void print_stats_table(const Summary& got, const StatsReference& ref) {
    const Summary& e = ref.exact;
    const StatsVerdict v = judge_stats(got, ref);
    Table t({"stats", "GPU", "CPU (double)", "|error|", "tolerance", "check"});
    auto line = [&](const char* name, double g, double want, double tol, bool ok) {  // tol < 0: exact
        t.row({name, strf("%.9g", g), strf("%.9g", want), tol < 0 ? "-" : strf("%.2g", std::fabs(g - want)),
               tol < 0 ? "exact" : strf("%.2g", tol), ok ? "ok" : "FAILED"});
    };
    t.row({"count", strf("%zu", got.count), strf("%zu", e.count), "-", "exact", v.count ? "ok" : "FAILED"});
    line("mean", got.mean, e.mean, mean_tolerance(ref).atol, v.mean);
    line("variance", got.variance, e.variance, variance_tolerance(ref).atol, v.variance);
    line("min", got.min, e.min, -1, v.min);
    line("max", got.max, e.max, -1, v.max);
    std::printf("\n");
    t.print();
}

// Checks the answer of an output against the references (step 5: its row and column sums too).
static Check check_answer(const Answer& a, const ReduceBuffers& b, Output out, const References& ref) {
    if (out == Output::block_stats) {
        const StatsVerdict v = judge_stats(a.summary, ref.stats);
        return {v.ok(), (v.ok() ? "count, mean, variance, min, max" : v.wrong()) + " (table below)",
                {strf("mean %.6g", a.summary.mean)}};
    }
    if (out != Output::matrix_sums) return check_sum(a.total, ref.sum, b.n);
    const Comparison rs = compare_sums(b.row_sums.download(), ref.matrix.row_sums, ref.matrix.row_abs, b.cols);
    const Comparison cs = compare_sums(b.col_sums.download(), ref.matrix.col_sums, ref.matrix.col_abs, b.rows);
    const Check total = check_sum(a.total, ref.matrix.total, b.rows * b.cols);
    const bool ok = rs.ok() && cs.ok() && total.ok;
    const std::string wrong = "rows " + rs.describe() + "; columns " + cs.describe() + "; total " +
                              (total.ok ? "ok: " : "FAILED: ") + total.detail;
    return {ok, ok ? strf("%zu row sums, %zu column sums, total", b.rows, b.cols) : wrong, {"total " + total.cells[0]}};
}

// ---- The default run: every step once, checked and timed --------------------------------------
static int run(const Program& p, size_t n, size_t rows, size_t cols, int block, Values values) {
    const DeviceFacts dev = device_facts();
    const bool want_matrix = p.selected("rows_cols");
    std::printf("Reductions on %s (%d SMs, %.0f GB/s theoretical): n = %zu, block = %d, grid = %u blocks\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, n, block, reduce_blocks(n, block));
    std::printf("values: %s, seed %llu%s\n", values_name(values), (unsigned long long)p.seed,
                want_matrix ? strf("; rows_cols: a %zu x %zu matrix", rows, cols).c_str() : "");
    const std::vector<float> x = make_values(values, n, p.seed);
    const std::vector<float> m = want_matrix ? make_values(values, rows * cols, p.seed + 1) : std::vector<float>();
    References ref{sum_reference(x), {}, {}};
    std::printf("CPU reference (double): sum %.9g; a float sum passes within 4 * 2^-24 * sqrt(n + 1) * sum|x| = %.3g\n\n",
                ref.sum.sum, sum_tolerance(n, ref.sum).atol);
    if (p.selected("stats")) ref.stats = stats_reference(x);
    if (want_matrix) ref.matrix = rows_cols_reference(m, rows, cols);
    ReduceBuffers b(x, block, m, want_matrix ? rows : 0, want_matrix ? cols : 0);  // no matrix unless used
    CubSum cub(n);

    std::optional<Summary> stats_got;  // for the table below the steps
    auto check = [&](Output out) {
        const Answer a = finish(b, out);
        if (out == Output::block_stats) stats_got = a.summary;
        return check_answer(a, b, out, ref);
    };
    std::vector<StepRow> steps = {{"-", "cub::DeviceReduce::Sum (library)", [&] { cub.run(b.x.get(), n, b.sum.get()); },
                                   [&] { return check(Output::one_sum); }, "", [&] { b.poison(); }}};
    if (p.selected("atomic_per_thread"))
        steps.push_back({"-", "atomic_per_thread (given)", [&] { run_atomic_per_thread(b.x.get(), n, b.sum.get(), block); },
                         [&] { return check(Output::one_sum); }, "", [&] { b.poison(); }});
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        steps.push_back({std::to_string(s.number), s.name, [&, s] { s.run.launch(b); },
                         [&, s] { return check(s.run.output); }, "", [&] { b.poison(); }});
        if (s.run.output == Output::matrix_sums) steps.back().work = Work{4.0 * rows * cols, 4.0 * rows * cols};
    }
    StepTable table{"GB/s", 4.0 * n, {"result"},
                    "GB/s counts the input read once (4 bytes per element; rows_cols reads its matrix twice).\n"
                    "Times are of the kernels alone: steps 2-4 then copy their partial results to the host,\n"
                    "which finishes the sum (not timed here; see --bench)."};
    table.leading_columns = table.extra_columns.size();
    table.peak = dev.dram_gbs;
    const int failures = run_steps(steps, table);
    if (stats_got) print_stats_table(*stats_got, ref.stats);
    return failures ? 1 : 0;
}

// ---- --bench ---------------------------------------------------------------------------------
static int run_bench(const Program& p, int block) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_bench_header(strf("sums of n floats, block = %d", block), cfg);
    std::printf("GB/s counts the input read once (4 bytes per float). %% of CUB compares with\n"
                "cub::DeviceReduce::Sum on the same input, measured in this run. 'answer on host' adds the\n"
                "copy back and the host's finishing.\n\n");
    Table table({"n", "kernel", "time (ms)", "GB/s", "% of CUB", "% of peak", "answer on host (ms)", "check"});
    int failures = 0;
    const size_t cols = 4096;
    for (int k : {20, 25}) {
        const size_t n = (size_t)1 << k, rows = n / cols;
        const std::vector<float> x = make_values(Values::mixed, n, p.seed + k);
        const References ref{sum_reference(x), stats_reference(x), rows_cols_reference(x, rows, cols)};
        ReduceBuffers b(x, block, x, rows, cols);  // the matrix is x, 4096 floats a row
        CubSum cub(n);
        double cub_ms = 0;  // the library runs first: its time is the 100% of "% of CUB"
        auto measure = [&](const std::string& label, const std::function<void()>& launch, Output out) {
            b.poison();
            const Timing t = time_gpu(launch, cfg);
            const Timing full = time_gpu([&] { launch(); finish(b, out); }, cfg);
            const Check c = check_answer(finish(b, out), b, out, ref);  // re-checked after timing
            if (cub_ms == 0) cub_ms = t.median_ms;
            if (!c.ok) ++failures;
            const double gbs = gb_per_s(4.0 * n, t.median_ms);
            table.row({strf("2^%d", k), label, strf("%.4f", t.median_ms), strf("%.1f", gbs),
                       strf("%.2f", 100 * cub_ms / t.median_ms), strf("%.1f", 100 * gbs / dev.dram_gbs),
                       strf("%.4f", full.median_ms), c.ok ? "ok" : "FAILED: " + c.detail});
        };
        measure("cub::DeviceReduce::Sum", [&] { cub.run(b.x.get(), n, b.sum.get()); }, Output::one_sum);
        measure("atomic_per_thread (given)", [&] { run_atomic_per_thread(b.x.get(), n, b.sum.get(), block); },
                Output::one_sum);
        for (const auto& s : kSteps)
            measure(s.run.output == Output::matrix_sums ? strf("%s (%zu x %zu)", s.name, rows, cols) : s.name,
                    [&, s] { s.run.launch(b); }, s.run.output);
    }
    table.print();
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"sum (and statistics) of n floats, checked on the CPU",
               "  --n N           elements (default 2^24, at most 2^40; 2^K and 2^K+C work too)\n"
               "  --block B       threads per block, 1 to 1024 (default 256)\n"
               "  --values V      mixed [-1, 1) (default), positive [0, 1), negative [-1, 0), ones,\n"
               "                  large [-1e15, 1e15)\n"
               "  --rows R        rows of the rows_cols matrix (default: as many as cover n)\n"
               "  --cols C        its columns (default: 4096, or n if smaller; n / rows if --rows is given)\n"
               "  --demo barrier_in_if   run the README's broken tree (__syncthreads() inside an if) on\n"
               "                  n ones (block a power of two), with a 10 s watchdog, instead\n",
               step_names(kSteps), {"atomic_per_thread"}, "the benchmark table (2^20 and 2^25 floats)"});
    const size_t max_dim = (size_t)1 << 40;  // more than any host memory holds, and no overflow below
    const size_t n = p.size("--n", (size_t)1 << 24, 1, max_dim);
    const int block = p.integer("--block", 256, 1, kMaxBlock);
    const Values values = values_named(p.choice("--values", "mixed", kValuesNames));
    size_t rows = p.size("--rows", 0, 1, max_dim), cols = p.size("--cols", 0, 1, max_dim);  // 0: from n
    const bool demo = p.choice("--demo", "none", {"none", "barrier_in_if"}) == "barrier_in_if";
    p.not_with_bench({"--n", "--values", "--rows", "--cols", "--demo"});
    p.only_for_kernels("--rows", {"rows_cols"});
    p.only_for_kernels("--cols", {"rows_cols"});
    p.not_with("--kernel", "--demo", "the demo runs no step");
    for (const char* input : {"--values", "--rows", "--cols", "--seed"})
        p.not_with(input, "--demo", "the demo sums n ones");
    for (const char* file : {"--csv", "--plot"}) p.not_with(file, "--demo", "the demo prints no table");
    p.finish();
    if (cols == 0) cols = rows ? ceil_div(n, rows) : std::min<size_t>(n, 4096);
    if (rows == 0) rows = ceil_div(n, cols);
    // Checked before anything is allocated: host memory (inputs, references), then the GPU's.
    std::string size_option = "--n";
    double host = 0, gpu = 0;
    if (p.bench) {  // 2^25 floats: the input and the matrix (a copy of it), CUB's storage, partials
        size_option = "--bench";
        host = gpu = 8.0 * ((size_t)1 << 25) + (1 << 20);
    } else if (demo) {
        if (block & (block - 1)) p.fail("--block", "the demo's tree needs a power of two");
        if (n > (size_t)INT32_MAX * block)  // one block per --block elements: at most 2^31 - 1 of them
            p.fail("--n", "the demo launches one block per --block elements, at most 2^31 - 1 blocks");
        host = gpu = 8.0 * n + 4.0 * ceil_div(n, block);  // the ones, each thread's total, the block totals
    } else {
        // Host: input, references, matrix and its sums (a generous 16 bytes per element). GPU: all
        // once, and CUB's storage. The matrix, when the larger part, is named by its options.
        const std::string shape = p.given("--rows") ? (p.given("--cols") ? "--rows x --cols" : "--rows")
                                  : p.given("--cols") ? "--cols" : "--n";
        if (p.selected("rows_cols") && rows > max_dim / cols)
            p.fail(shape, strf("the %zu x %zu matrix is too large (at most 2^40 elements)", rows, cols));
        const double matrix = p.selected("rows_cols") ? (double)rows * cols : 0.0;
        if (matrix > (double)n) size_option = shape;
        host = 16.0 * n + 16.0 * matrix;
        gpu = 4.0 * n + 4.0 * (matrix + rows + cols) + (1 << 20);
    }
    require_memory(p, size_option, host, gpu);
    require_block_size(p, "--block", block);
    return p.bench ? run_bench(p, block) : demo ? run_barrier_demo(n, block) : run(p, n, rows, cols, block, values);
}
