// 04_naive_reduce/main.cpp: runs each step on seeded random data, checks it against the CPU
// reference in double precision, and times it; --bench prints the benchmark table, --demo
// runs the broken barrier of the README.
#include <optional>

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
static Check check_answer(const HostResult& a, const ReduceBuffers& b, Output out, const References& ref) {
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

// What one run of a step costs at the least: its input read once (rows_cols: the matrix, and its
// row and column sums written) and its FLOP per element.
static Work work_of(const ReduceInfo& info, const ReduceBuffers& b) {
    const bool matrix = info.output == Output::matrix_sums;
    const double elements = matrix ? (double)b.rows * b.cols : (double)b.n;
    return {4.0 * elements + (matrix ? 4.0 * (b.rows + b.cols + 1) : 0.0), info.flop_per_element * elements};
}

// One size: every selected step, the given atomic_per_thread and CUB (the 100%). With on_host, a
// run also copies its answer back and finishes it on the host, as a program that wants the sum
// must. The stats step's last checked summary goes to *stats.
static void measure(Measurements& m, const Program& p, const std::string& title, ReduceBuffers& b,
                    const References& ref, bool on_host, std::optional<Summary>* stats = nullptr) {
    CubSum cub(b.n);
    auto row = [&](std::string step, std::string name, std::function<void()> launch, Output out, RowKind kind,
                   Work work) {
        auto run = on_host ? std::function<void()>([launch, out, &b] { launch(); finish(b, out); }) : launch;
        auto check = [&b, &ref, out, stats] {
            const HostResult a = finish(b, out);
            if (stats && out == Output::block_stats) *stats = a.summary;
            return check_answer(a, b, out, ref);
        };
        return StepRow{step, name, run, check, "", [&b] { b.poison(); }, kind, work};
    };
    const Work sum{4.0 * b.n, 1.0 * b.n};
    std::vector<StepRow> rows;
    for (const auto& s : p.selected(kSteps))
        rows.push_back(row(std::to_string(s.number), s.name, [&b, s] { s.run(b); }, s.info.output, RowKind::step,
                           work_of(s.info, b)));
    if (p.selected("atomic_per_thread"))
        rows.push_back(row("-", "atomic_per_thread (given)",
                           [&] { run_atomic_per_thread(b.x.get(), b.n, b.sum.get(), b.block); }, Output::one_sum,
                           RowKind::step, sum));  // a kernel the exercise gives: a share of CUB, and profiled
    rows.push_back(row("-", "cub::DeviceReduce::Sum", [&] { cub.run(b.x.get(), b.n, b.sum.get()); }, Output::one_sum,
                       RowKind::baseline, sum));
    m.section(title, sum, rows);
}

// Is a step with this output selected (the matrix's or the statistics' step)?
static bool selected_output(const Program& p, Output out) {
    for (const auto& s : p.selected(kSteps))
        if (s.info.output == out) return true;
    return false;
}

// The default run (one size, each kernel alone) or --bench (2^20 and 2^25 floats, each answer on
// the host and then each kernel alone), in one table layout: GB/s of the input read, against CUB.
static int run(const Program& p, size_t n, size_t rows, size_t cols, int block, Values values) {
    const BenchConfig cfg;
    const DeviceFacts dev =
        p.bench ? print_bench_header(strf("sums of n floats, block = %d", block), cfg) : device_facts();
    TableSpec t;
    t.title = "sums of n floats";
    t.columns = {cols::step(), cols::kernel(), cols::own("result"), cols::time(), cols::rate(t.rate),
                 cols::of_baseline("% of CUB"), cols::of_peak("DRAM peak", dev.dram_gbs), cols::check()};
    t.footer = "GB/s counts the input read once, 4 bytes per element (rows_cols: its matrix, and its sums written).\n"
               "CUB is timed before and after the steps; the faster is the 100%. The plot counts the least FLOP\n"
               "per element: 1 for a sum, 5 for stats, 2 for rows_cols.";
    if (!p.bench)
        t.footer += "\nTimes are of the kernels alone: steps 2-4 then copy their partial results to the host, which\n"
                    "finishes the sum (--bench times that too).";
    Measurements m(t, cfg, p.outputs());
    if (p.bench) {
        std::printf("Each size twice: first each answer on the host (the kernel, the copy back, the host's finish),\n"
                    "then the kernels alone. Input: mixed signs; rows_cols sums the same floats as a matrix.\n\n");
        for (int k : {20, 25}) {
            const size_t size = (size_t)1 << k, height = size / 4096;  // the matrix is x, 4096 floats a row
            const std::vector<float> x = make_values(Values::mixed, size, p.seed + k);
            const References ref{sum_reference(x), stats_reference(x), rows_cols_reference(x, height, 4096)};
            ReduceBuffers b(x, block, x, height, 4096);
            const std::string title = strf("2^%d floats (rows_cols: %zu x 4096)", k, height);
            measure(m, p, title + ", each answer on the host", b, ref, true);
            measure(m, p, title + ", the kernels alone", b, ref, false);
        }
        return m.finish() ? 1 : 0;
    }
    const bool want_matrix = selected_output(p, Output::matrix_sums);
    std::printf("Reductions on %s (%d SMs, %.0f GB/s theoretical): n = %zu, block = %d, grid = %u blocks\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, n, block, reduce_blocks(n, block));
    std::printf("values: %s, seed %llu%s\n", values_name(values), (unsigned long long)p.seed,
                want_matrix ? strf("; rows_cols: a %zu x %zu matrix", rows, cols).c_str() : "");
    const std::vector<float> x = make_values(values, n, p.seed);
    const std::vector<float> matrix = want_matrix ? make_values(values, rows * cols, p.seed + 1) : std::vector<float>();
    References ref{sum_reference(x), {}, {}};
    std::printf("CPU reference (double): sum %.9g; a float sum passes within 4 * 2^-24 * sqrt(n + 1) * sum|x| = %.3g\n\n",
                ref.sum.sum, sum_tolerance(n, ref.sum).atol);
    if (selected_output(p, Output::block_stats)) ref.stats = stats_reference(x);
    if (want_matrix) ref.matrix = rows_cols_reference(matrix, rows, cols);
    ReduceBuffers b(x, block, matrix, want_matrix ? rows : 0, want_matrix ? cols : 0);  // no matrix unless used
    std::optional<Summary> stats_got;  // for the table below the steps
    measure(m, p, "", b, ref, false, &stats_got);
    const int failures = m.finish();
    if (stats_got) print_stats_table(*stats_got, ref.stats);
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"sum (and statistics) of n floats, checked on the CPU",
               {{"--n N", "elements"},
                {"--block B", "threads per block"},
                {"--values V", "the input: mixed [-1, 1), positive [0, 1), negative [-1, 0), ones, large [-1e15, 1e15)"},
                {"--rows R", "rows of the rows_cols matrix", "as many as cover n"},
                {"--cols C", "its columns", "4096, or n if smaller; n / rows if --rows is given"},
                {"--demo barrier_in_if", "run the README's broken tree (__syncthreads() inside an if) on n ones "
                                         "(block a power of two), with a 10 s watchdog, instead"}},
               step_decls(kSteps), {"atomic_per_thread"}, "the benchmark table (2^20 and 2^25 floats)"});
    const size_t max_dim = (size_t)1 << 40;  // more than any host memory holds, and no overflow below
    const size_t n = p.size("--n", (size_t)1 << 24, 1, max_dim);
    const int block = p.integer("--block", 256, 1, kMaxBlock);
    const Values values = values_named(p.choice("--values", "mixed", kValuesNames));
    size_t rows = p.size("--rows", 0, 1, max_dim), cols = p.size("--cols", 0, 1, max_dim);  // 0: from n
    const bool demo = p.choice("--demo", "none", {"none", "barrier_in_if"}) == "barrier_in_if";
    p.not_with_bench({"--n", "--values", "--rows", "--cols", "--demo"});
    p.not_with_demo("--demo", {"--values", "--rows", "--cols", "--seed"}, "the demo sums n ones");
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
        const bool matrix_step = selected_output(p, Output::matrix_sums);
        if (matrix_step && rows > max_dim / cols)
            p.fail(shape, strf("the %zu x %zu matrix is too large (at most 2^40 elements)", rows, cols));
        const double matrix = matrix_step ? (double)rows * cols : 0.0;
        if (matrix > (double)n) size_option = shape;
        host = 16.0 * n + 16.0 * matrix;
        gpu = 4.0 * n + 4.0 * (matrix + rows + cols) + (1 << 20);
    }
    require_memory(p, size_option, host, gpu);
    require_block_size(p, "--block", block);
    return demo ? run_barrier_demo(n, block) : run(p, n, rows, cols, block, values);
}
