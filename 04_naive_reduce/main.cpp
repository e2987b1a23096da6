// 04_naive_reduce/main.cpp: runs each step on seeded random data, checks it against the CPU
// reference in double precision, and times it; --bench prints the benchmark table, --demo
// runs the broken barrier of the README.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "naive_reduce.h"
#include "program.h"

static const char* kUsage =
    "usage: naive_reduce [options]      sum (and statistics) of n floats, checked on the CPU\n"
    "  --n N           elements (default 2^24; 2^K and 2^K+C work too)\n"
    "  --kernel NAME   atomic_each, block_serial, block_tree, stats, rows_cols or all (default all)\n"
    "  --block B       threads per block, 1 to 1024 (default 256)\n"
    "  --values V      mixed [-1, 1) (default), positive [0, 1), negative [-1, 0), ones,\n"
    "                  large [-1e15, 1e15)\n"
    "  --rows R        rows of the rows_cols matrix (default: n / cols, rounded up)\n"
    "  --cols C        its columns (default: n / rows rounded up if --rows is given, else\n"
    "                  4096, or n if smaller)\n"
    "  --seed S        seed of the random input (default 1)\n"
    "  --bench         print the benchmark table (2^20 and 2^25 floats) instead\n"
    "  --demo barrier_in_if   run the README's broken tree (__syncthreads() inside an if) on\n"
    "                  n ones (block a power of two), with a 10 s watchdog, instead\n";

static const std::vector<std::string> kKernels = {"atomic_each", "block_serial", "block_tree", "stats", "rows_cols"};

// ---- Running each step to its answer on the host ----------------------------------------------
// Device buffers for one size, reused by every step.
struct Work {
    size_t n = 0, rows = 0, cols = 0;
    int block = 256;
    DeviceBuffer<float> x, partials, sum, matrix, row_sums, col_sums;
    DeviceBuffer<Stats> stats;
    DeviceBuffer<char> cub_temp;

    Work(const std::vector<float>& host_x, const std::vector<float>& host_m, size_t r, size_t c, int b)
        : n(host_x.size()), rows(r), cols(c), block(b), x(host_x),
          partials(std::max(1u, reduce_blocks(host_x.size(), b))), sum(1), matrix(host_m),
          row_sums(r), col_sums(c), stats(std::max(1u, reduce_blocks(host_x.size(), b))),
          cub_temp(std::max<size_t>(1, cub_sum_temp_bytes(host_x.size()))) {}

    // GPU work only, asynchronous: what the timings measure.
    void launch(const std::string& k) {
        if (k == "cub") run_cub_sum(x.get(), n, sum.get(), cub_temp.get(), cub_temp.bytes());
        else if (k == "atomic_each") run_atomic_each(x.get(), n, sum.get(), block);
        else if (k == "block_serial") run_block_serial(x.get(), n, partials.get(), block);
        else if (k == "block_tree") run_block_tree(x.get(), n, partials.get(), block);
        else if (k == "stats") run_stats(x.get(), n, stats.get(), block);
        else if (k == "rows_cols")
            run_rows_cols(matrix.get(), rows, cols, row_sums.get(), col_sums.get(), sum.get(), block);
    }
    void poison() {
        sum.poison();
        partials.poison();
        stats.poison();
        row_sums.poison();
        col_sums.poison();
    }
    // The host's part: copy back what the kernel left and finish. For rows_cols: the total.
    float sum_on_host(const std::string& k) {
        const unsigned blocks = reduce_blocks(n, block);
        if (k == "block_serial" || k == "block_tree") {
            std::vector<float> p(blocks);
            if (blocks) CUDA_CHECK(cudaMemcpy(p.data(), partials.get(), blocks * sizeof(float), cudaMemcpyDeviceToHost));
            return finish_sum(p);
        }
        float s = 0;
        CUDA_CHECK(cudaMemcpy(&s, sum.get(), sizeof(float), cudaMemcpyDeviceToHost));
        return s;
    }
    Summary stats_on_host() {
        const unsigned blocks = reduce_blocks(n, block);
        std::vector<Stats> p(blocks);
        if (blocks) CUDA_CHECK(cudaMemcpy(p.data(), stats.get(), blocks * sizeof(Stats), cudaMemcpyDeviceToHost));
        return finish_stats(p);
    }
    // GPU work plus the copy back and the host's finishing: the time to the answer.
    void to_answer(const std::string& k) {
        launch(k);
        if (k == "stats") stats_on_host();
        else sum_on_host(k);
    }
};

// Checks whatever step k left in w against the references; returns "" when right.
struct StatsCheck {
    bool ok = false;
    std::string result, detail;
};

static StatsCheck check_sum(float got, const SumReference& ref, size_t n) {
    StatsCheck c;
    const Tolerance tol = sum_tolerance(n, ref);
    const double err = std::fabs((double)got - ref.sum);
    c.ok = within(got, ref.sum, tol);
    c.result = strf("%.9g", got);
    c.detail = strf("%s: |error| %.2g %s %.2g", c.ok ? "ok" : "FAILED", err, c.ok ? "<=" : "exceeds", tol.atol);
    return c;
}

static StatsCheck check_stats(const Summary& got, const StatsReference& ref, bool verbose) {
    const Summary& e = ref.exact;
    const Tolerance mt = mean_tolerance(ref), vt = variance_tolerance(ref);
    const bool count_ok = got.count == e.count;
    const bool mean_ok = e.count == 0 ? std::isnan(got.mean) : within(got.mean, e.mean, mt);
    const bool var_ok = e.count == 0 ? std::isnan(got.variance) : within(got.variance, e.variance, vt);
    const bool min_ok = got.min == e.min || (std::isnan(got.min) && std::isnan(e.min));
    const bool max_ok = got.max == e.max || (std::isnan(got.max) && std::isnan(e.max));
    StatsCheck c;
    c.ok = count_ok && mean_ok && var_ok && min_ok && max_ok;
    c.result = strf("mean %.6g", got.mean);
    std::string bad;
    if (!count_ok) bad += " count";
    if (!mean_ok) bad += " mean";
    if (!var_ok) bad += " variance";
    if (!min_ok) bad += " min";
    if (!max_ok) bad += " max";
    c.detail = c.ok ? "ok: count, mean, variance, min, max (table below)" : "FAILED:" + bad + " (table below)";
    if (verbose) {
        Table t({"stats", "GPU", "CPU (double)", "|error|", "tolerance", "check"});
        t.row({"count", strf("%zu", got.count), strf("%zu", e.count), "-", "exact", count_ok ? "ok" : "FAILED"});
        t.row({"mean", strf("%.9g", got.mean), strf("%.9g", e.mean), strf("%.2g", std::fabs(got.mean - e.mean)),
               strf("%.2g", mt.atol), mean_ok ? "ok" : "FAILED"});
        t.row({"variance", strf("%.9g", got.variance), strf("%.9g", e.variance),
               strf("%.2g", std::fabs(got.variance - e.variance)), strf("%.2g", vt.atol), var_ok ? "ok" : "FAILED"});
        t.row({"min", strf("%.9g", got.min), strf("%.9g", e.min), "-", "exact", min_ok ? "ok" : "FAILED"});
        t.row({"max", strf("%.9g", got.max), strf("%.9g", e.max), "-", "exact", max_ok ? "ok" : "FAILED"});
        std::printf("\n");
        t.print();
    }
    return c;
}

static StatsCheck check_rows_cols(Work& w, const RowsColsReference& ref) {
    StatsCheck c;
    const Comparison rows = compare_sums(w.row_sums.download(), ref.row_sums, ref.row_abs, w.cols);
    const Comparison cols = compare_sums(w.col_sums.download(), ref.col_sums, ref.col_abs, w.rows);
    const StatsCheck total = check_sum(w.sum_on_host("rows_cols"), ref.total, w.rows * w.cols);
    c.ok = rows.ok() && cols.ok() && total.ok;
    c.result = "total " + total.result;
    if (c.ok)
        c.detail = strf("ok: %zu row sums, %zu column sums, total", w.rows, w.cols);
    else
        c.detail = "FAILED: rows " + rows.describe() + "; columns " + cols.describe() + "; total " + total.detail;
    return c;
}

// ---- The default run: every step once, checked and timed --------------------------------------
static int run_steps(const std::string& which, size_t n, size_t rows, size_t cols, int block, Values values,
                     uint64_t seed) {
    const DeviceFacts dev = device_facts();
    const bool want_matrix = which == "all" || which == "rows_cols";
    std::printf("Reductions on %s (%d SMs, %.0f GB/s theoretical): n = %zu, block = %d, grid = %u blocks\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, n, block, reduce_blocks(n, block));
    std::printf("values: %s, seed %llu%s\n", values_name(values), (unsigned long long)seed,
                want_matrix ? strf("; rows_cols: a %zu x %zu matrix", rows, cols).c_str() : "");

    const std::vector<float> x = make_values(values, n, seed);
    const std::vector<float> m = want_matrix ? make_values(values, rows * cols, seed + 1) : std::vector<float>();
    const SumReference ref = sum_reference(x);
    std::printf("CPU reference (double): sum %.9g; a float sum passes within 4 * 2^-24 * sqrt(n + 1) * sum|x| = %.3g\n\n",
                ref.sum, sum_tolerance(n, ref).atol);
    Work w(x, m, want_matrix ? rows : 0, want_matrix ? cols : 0, block);  // no matrix buffers unless used

    Table table({"step", "kernel", "result", "time (ms)", "GB/s", "% of peak", "check"});
    std::vector<std::pair<std::string, std::string>> order = {{"-", "cub"}};
    for (size_t i = 0; i < kKernels.size(); ++i) order.push_back({std::to_string(i + 1), kKernels[i]});
    int failures = 0;
    bool stats_ran = false;
    Summary stats_got;
    for (const auto& [step, k] : order) {
        if (which != "all" && which != k && k != "cub") continue;
        w.poison();
        w.launch(k);
        CUDA_CHECK(cudaDeviceSynchronize());
        StatsCheck c;
        double bytes = 4.0 * n;
        if (k == "stats") {
            stats_got = w.stats_on_host();
            stats_ran = true;
            c = check_stats(stats_got, stats_reference(x), false);
        } else if (k == "rows_cols") {
            c = check_rows_cols(w, rows_cols_reference(m, rows, cols));
            bytes = 4.0 * rows * cols;
        } else {
            c = check_sum(w.sum_on_host(k), ref, n);
        }
        const std::string name = k == "cub" ? "cub::DeviceReduce::Sum (library)" : k;
        if (!c.ok) {
            ++failures;
            table.row({step, name, c.result, "-", "-", "-",
                       c.detail + (step != "-" ? " (is TODO step " + step + " done?)" : "")});
            continue;
        }
        const Timing t = time_gpu([&] { w.launch(k); });
        const double gbs = gb_per_s(bytes, t.median_ms);
        table.row({step, name, c.result, strf("%.4f", t.median_ms), strf("%.1f", gbs),
                   strf("%.1f", 100 * gbs / dev.dram_gbs), c.detail});
    }
    table.print();
    if (stats_ran) check_stats(stats_got, stats_reference(x), true);
    std::printf("\nGB/s counts the input read once (4 bytes per element; rows_cols reads its matrix twice).\n"
                "Times: median of 20 runs of the kernels alone, L2 flushed; steps 2-4 then copy their\n"
                "partial results to the host, which finishes the sum (not timed here; see --bench).\n");
    return failures ? 1 : 0;
}

// ---- --bench ---------------------------------------------------------------------------------
static int run_bench(int block, uint64_t seed) {
    const DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s, block = %d\n", dev.name.c_str(),
                dev.sm_count, dev.dram_gbs, block);
    std::printf("GB/s counts the input read once (4 bytes per float). %% of CUB compares with\n"
                "cub::DeviceReduce::Sum on the same input, measured in this run. Median of 20 runs, L2\n"
                "flushed between runs. 'answer on host' adds the copy back and the host's finishing.\n\n");
    Table table({"n", "kernel", "time (ms)", "GB/s", "% of CUB", "% of peak", "answer on host (ms)", "check"});
    int failures = 0;
    const size_t cols = 4096;
    for (int k : {20, 25}) {
        const size_t n = (size_t)1 << k, rows = n / cols;
        const std::vector<float> x = make_values(Values::mixed, n, seed + k);
        const SumReference ref = sum_reference(x);
        const StatsReference sref = stats_reference(x);
        const RowsColsReference mref = rows_cols_reference(x, rows, cols);
        Work w(x, x, rows, cols, block);
        double cub_ms = 0;
        for (const std::string name : {"cub", "atomic_each", "block_serial", "block_tree", "stats", "rows_cols"}) {
            w.poison();
            const Timing t = time_gpu([&] { w.launch(name); });
            const Timing full = time_gpu([&] { w.to_answer(name); });
            // Re-check after timing: a fast wrong kernel is not a result.
            StatsCheck c = name == "stats" ? check_stats(w.stats_on_host(), sref, false)
                      : name == "rows_cols" ? check_rows_cols(w, mref)
                                            : check_sum(w.sum_on_host(name), ref, n);
            if (name == "cub") cub_ms = t.median_ms;
            if (!c.ok) ++failures;
            const double gbs = gb_per_s(4.0 * n, t.median_ms);
            const std::string label = name == "rows_cols" ? strf("rows_cols (%zu x %zu)", rows, cols)
                                      : name == "cub"     ? std::string("cub::DeviceReduce::Sum")
                                                          : name;
            table.row({strf("2^%d", k), label, strf("%.4f", t.median_ms), strf("%.1f", gbs),
                       strf("%.2f", 100 * cub_ms / t.median_ms), strf("%.1f", 100 * gbs / dev.dram_gbs),
                       strf("%.4f", full.median_ms), c.ok ? "ok" : c.detail});
        }
    }
    table.print();
    return failures ? 1 : 0;
}

// ---- --demo barrier_in_if ----------------------------------------------------------------------
static int run_demo(size_t n, int block) {
    const DeviceFacts dev = device_facts();
    const unsigned blocks = barrier_demo_blocks(n, block);
    std::printf("The tree with __syncthreads() inside `if (t < half)`, on %s: %zu ones, %u blocks of %d\n",
                dev.name.c_str(), n, blocks, block);
    DeviceBuffer<float> x(std::vector<float>(n, 1.0f)), partials(blocks), seen(n);
    partials.poison();
    seen.poison();
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreate(&done));
    run_barrier_in_if(x.get(), n, partials.get(), seen.get(), block);
    CUDA_CHECK(cudaEventRecord(done));
    const auto start = std::chrono::steady_clock::now();
    cudaError_t state;
    while ((state = cudaEventQuery(done)) == cudaErrorNotReady) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
            std::printf("still running after 10 s: threads are waiting at a barrier that the rest of their\n"
                        "block never reaches (a deadlock). Exiting; the driver ends the kernel with the process.\n");
            std::fflush(stdout);
            std::_Exit(1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CUDA_CHECK(state);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<float> p = partials.download(), s = seen.download();
    size_t wrong_blocks = 0, wrong_threads = 0, example = n;
    for (unsigned b = 0; b < blocks; ++b) {
        const size_t first = (size_t)b * block, count = std::min<size_t>(block, n - first);
        if (p[b] != (float)count) ++wrong_blocks;
        for (size_t i = first; i < first + count; ++i)
            if (s[i] != (float)count && wrong_threads++ == 0) example = i;
    }
    std::printf("finished after %.1f ms (no deadlock on this GPU)\n", ms);
    std::printf("thread 0's block totals: %zu of %u wrong; their sum %.9g (expected %zu)\n", wrong_blocks, blocks,
                finish_sum(p), n);
    std::printf("the block total as each thread read it: %zu of %zu wrong", wrong_threads, n);
    if (wrong_threads)
        std::printf(" (e.g. thread %zu of block %zu read %g, not %d)", example % block, example / block, s[example],
                    block);
    std::printf("\n%s\n", wrong_threads ? "Threads that skipped the barrier ran ahead and read the total before it was complete."
                                         : "Right this time, by luck of this GPU and compiler: the code is still wrong.");
    CUDA_CHECK(cudaEventDestroy(done));
    return 0;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const size_t n = opts.size("--n", (size_t)1 << 24);
    std::vector<std::string> kernel_names = {"all"};
    kernel_names.insert(kernel_names.end(), kKernels.begin(), kKernels.end());
    const std::string kernel = opts.choice("--kernel", "all", kernel_names);
    const int block = opts.integer("--block", 256, 1, kMaxBlock);
    const std::string values_text = opts.choice("--values", "mixed", {"mixed", "positive", "negative", "ones", "large"});
    const size_t max_dim = (size_t)1 << 40;
    // 0 = not given: the missing side follows from n (4096 columns when neither is given).
    size_t rows = opts.size("--rows", 0, 1, max_dim);
    size_t cols = opts.size("--cols", 0, 1, max_dim);
    const uint64_t seed = opts.size("--seed", 1, 0);
    const bool bench = opts.flag("--bench");
    const std::string demo = opts.choice("--demo", "none", {"none", "barrier_in_if"});
    opts.finish();
    if (cols == 0) cols = rows ? (n + rows - 1) / rows : std::min<size_t>(n, 4096);
    if (rows == 0) rows = (n + cols - 1) / cols;

    const Values values = values_text == "positive" ? Values::positive
                          : values_text == "negative" ? Values::negative
                          : values_text == "ones"     ? Values::ones
                          : values_text == "large"    ? Values::large
                                                      : Values::mixed;

    // Everything that needs no GPU is checked first, so bad input gets its own message anywhere.
    if (rows > max_dim / cols) opts.fail("--rows", "rows x cols is too large (at most 2^40 elements)");
    if (demo == "barrier_in_if") {
        if (block & (block - 1)) opts.fail("--block", "the demo's tree needs a power of two");
        // One block per `block` elements, and gridDim.x is at most 2^31 - 1.
        if ((n + block - 1) / block > 2147483647u)
            opts.fail("--n", "the demo launches one block per --block elements, at most 2^31 - 1 blocks");
    }
    const bool want_matrix = kernel == "all" || kernel == "rows_cols";
    // Host: the input and its copies for the references, and the matrix with its sums (a
    // generous 16 bytes per element each).
    if (!bench && demo != "barrier_in_if")
        require_fits_in_host(opts, "--n", 16.0 * n + (want_matrix ? 16.0 * rows * cols : 0.0));
    require_gpu(opts.program().c_str());
    require_block_size(opts, "--block", block);
    if (demo == "barrier_in_if") {
        require_fits_in_gpu(opts, "--n", 8.0 * n);
        return run_demo(n, block);
    }
    if (bench) {
        require_fits_in_gpu(opts, "--bench", 2 * 4.0 * ((size_t)1 << 25));
        return run_bench(block, seed);
    }
    require_fits_in_gpu(opts, "--n", 4.0 * n + (want_matrix ? 4.0 * (rows * cols + rows + cols) : 0.0));
    return run_steps(kernel, n, rows, cols, block, values, seed);
}
