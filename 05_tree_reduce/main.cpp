// 05_tree_reduce/main.cpp: runs each step on random data, checks its sum against the CPU
// reference, and times it; --bench prints the ladder at 2^25 and 2^28 floats next to CUB.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "options.h"
#include "tree_reduce.h"

static const char* kUsage =
    "usage: tree_reduce [options]      the sum of n floats on the GPU, checked on the CPU\n"
    "  --n N            elements (default 2^24+3; 0 is allowed; 2^K and 2^K+C work too)\n"
    "  --kernel NAME    interleaved_divergent, interleaved_strided, sequential, first_add,\n"
    "                   unrolled_warp, shuffle, grid_stride_vec, one_pass, cub or all (default all)\n"
    "  --block B        threads per block: 32, 64, 128, 256, 512 or 1024 (default 256)\n"
    "  --seed S         seed of the random input (default 1)\n"
    "  --bench          print the benchmark tables (2^25 and 2^28 floats) instead\n"
    "  --volatile-demo  run the source material's old `volatile` warp tail once and say what\n"
    "                   it gave (README, step 5); try it under compute-sanitizer --tool racecheck\n";

// The library baseline, with its temporary storage allocated once, outside any timing.
struct CubSum {
    DeviceBuffer<char> temp;
    explicit CubSum(size_t n) : temp(cub_sum_temp_bytes(n) + 1) {}
    void run(const float* x, size_t n, float* out) { run_cub_sum(x, n, out, temp.get(), temp.bytes()); }
};

static float download_one(const DeviceBuffer<float>& out) { return out.download()[0]; }

static int run_steps(const std::string& which, size_t n, int block, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("sum of n floats on %s (%d SMs): n = %zu, block = %d, input uniform in [-1, 2)\n\n",
                dev.name.c_str(), dev.sm_count, n, block);
    std::vector<float> x = random_floats(n, seed, -1.0f, 2.0f);
    const ReferenceSum ref = sum_reference(x.data(), n);
    const Tolerance tol = float_sum_tolerance(n, ref.sum_abs);
    DeviceBuffer<float> d_x(x), d_out(1);
    ReduceWorkspace ws(n, block);
    CubSum cub(n);
    const BenchConfig quick{2, 10, true};

    Table table({"step", "kernel", "time (ms)", "GB/s", "GPU sum", "error", "check"});
    int failures = 0;
    auto report = [&](const std::string& step, const std::string& name, const std::function<void()>& run) {
        d_out.poison();
        run();
        CUDA_CHECK(cudaDeviceSynchronize());
        const float got = download_one(d_out);
        const bool ok = within(got, ref.sum, tol);
        if (!ok) {
            ++failures;
            const std::string hint = step == "-" ? "" : " (is TODO step " + step + " done?)";
            table.row({step, name, "-", "-", strf("%.9g", got), "-", "FAILED: outside the tolerance" + hint});
            return;
        }
        Timing t = time_gpu(run, quick);
        table.row({step, name, strf("%.4f", t.median_ms), strf("%.1f", gb_per_s(4.0 * n, t.median_ms)),
                   strf("%.9g", got), strf("%.3g", std::fabs(got - ref.sum)), "ok"});
    };
    for (int k = 0; k < kStepCount; ++k) {
        const ReduceStep& s = kReduceSteps[k];
        if (which != "all" && which != s.name) continue;
        report(std::to_string(k + 1), s.name, [&] { s.run(d_x.get(), n, d_out.get(), block, ws.view()); });
    }
    if ((which == "all" || which == "cub") && n > 0)
        report("-", "cub::DeviceReduce::Sum", [&] { cub.run(d_x.get(), n, d_out.get()); });
    table.print();
    std::printf("\nreference (double precision, on the CPU): %.9g; tolerance +-%.3g, that is\n"
                "4 * 2^-24 * sqrt(n + 1) * sum|x[i]|, a few standard deviations of the rounding\n"
                "error of a float sum in any order. GB/s counts the 4n bytes read; time is the\n"
                "median of 10 runs.\n",
                ref.sum, tol.atol);
    return failures ? 1 : 0;
}

static int run_bench(int block, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s, block = %d\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, block);
    std::printf("GB/s counts the 4n bytes read. Median of 20 runs, L2 flushed between runs. Input:\n"
                "whole numbers from -8 to 8, so every sum is exact and each result is checked\n"
                "exactly after its timing.\n");
    int failures = 0;
    for (int k : {25, 28}) {
        const size_t n = (size_t)1 << k;
        const double bytes = 4.0 * n;
        const double need = 3.0 * bytes + 4.0 * scratch_floats(n, block);  // input + copy test
        if (need > 0.9 * (double)free_gpu_bytes()) {
            std::printf("\n2^%d floats: skipped, the GPU has too little free memory\n", k);
            continue;
        }
        std::vector<float> x = random_whole_floats(n, seed + k);
        const double ref = sum_reference(x.data(), n).sum;
        DeviceBuffer<float> d_x(x), d_out(1);
        x = std::vector<float>();  // free the host copy before the next size
        ReduceWorkspace ws(n, block);
        CubSum cub(n);
        const double copy_gbs = gb_per_s(2.0 * bytes, time_device_copy((size_t)bytes).median_ms);

        auto measure = [&](const std::function<void()>& run, Timing& t) {
            d_out.poison();
            t = time_gpu(run);
            CUDA_CHECK(cudaDeviceSynchronize());
            return (double)download_one(d_out) == ref;  // re-check after timing
        };
        // CUB is timed before and after the ladder and the faster time is the 100%: one slow
        // measurement of the baseline must not flatter the kernels.
        Timing cub_t, cub_again;
        bool cub_ok = measure([&] { cub.run(d_x.get(), n, d_out.get()); }, cub_t);

        std::printf("\n2^%d floats (%.0f MB read); cudaMemcpy device to device of the same bytes: "
                    "%.0f GB/s (read + written)\n\n", k, bytes / 1e6, copy_gbs);
        std::vector<Timing> times(kStepCount);
        std::vector<bool> ok(kStepCount);
        for (int s = 0; s < kStepCount; ++s) {
            const ReduceStep& step = kReduceSteps[s];
            ok[s] = measure([&] { step.run(d_x.get(), n, d_out.get(), block, ws.view()); }, times[s]);
            if (!ok[s]) ++failures;
        }
        cub_ok = measure([&] { cub.run(d_x.get(), n, d_out.get()); }, cub_again) && cub_ok;
        if (!cub_ok) ++failures;
        const double cub_ms = std::min(cub_t.median_ms, cub_again.median_ms);
        const double cub_gbs = gb_per_s(bytes, cub_ms);

        Table table({"step", "kernel", "time (ms)", "GB/s", "vs previous", "% of CUB", "% of DRAM peak",
                     "check"});
        for (int s = 0; s < kStepCount; ++s) {
            const double ms = times[s].median_ms, gbs = gb_per_s(bytes, ms);
            table.row({std::to_string(s + 1), kReduceSteps[s].name, strf("%.4f", ms), strf("%.0f", gbs),
                       s > 0 ? strf("%.2fx", times[s - 1].median_ms / ms) : "-",
                       strf("%.1f", 100 * gbs / cub_gbs), strf("%.1f", 100 * gbs / dev.dram_gbs),
                       ok[s] ? "exact" : "WRONG"});
        }
        table.row({"-", "cub::DeviceReduce::Sum", strf("%.4f", cub_ms), strf("%.0f", cub_gbs), "-", "100.0",
                   strf("%.1f", 100 * cub_gbs / dev.dram_gbs), cub_ok ? "exact" : "WRONG"});
        table.print();
        std::printf("\nCUB timed before and after the ladder: %.4f and %.4f ms; the faster is the 100%%.\n",
                    cub_t.median_ms, cub_again.median_ms);
    }
    return failures ? 1 : 0;
}

// The source material's `volatile` warp tail (legacy_tail.cu), once.
static int run_volatile_demo(size_t n, int block, uint64_t seed) {
    std::vector<float> x = random_whole_floats(n, seed);
    const double ref = sum_reference(x.data(), n).sum;
    DeviceBuffer<float> d_x(x);
    DeviceBuffer<float> partials(legacy_tail_blocks(n, block));
    partials.poison();
    run_legacy_volatile_tail(d_x.get(), n, partials.get(), block);
    CUDA_CHECK(cudaDeviceSynchronize());
    double got = 0;
    for (float p : partials.download()) got += p;  // whole numbers: exact in double
    std::printf("old volatile warp tail, %zu blocks of %d threads, block sums added on the CPU:\n"
                "  GPU %.1f, reference %.1f: %s\n",
                partials.size(), block, got, ref, got == ref ? "the same (this time)" : "DIFFERENT");
    std::printf("A right answer proves nothing: the lanes of a warp are not guaranteed to run in\n"
                "lockstep (Volta and later), so their reads and writes of buf[] race. See it with\n"
                "  compute-sanitizer --tool racecheck build/05_tree_reduce/solution/tree_reduce --volatile-demo --n 4096\n");
    return got == ref ? 0 : 1;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    size_t n = opts.size("--n", ((size_t)1 << 24) + 3, 0);
    std::vector<std::string> kernels = {"all"};
    for (const ReduceStep& s : kReduceSteps) kernels.push_back(s.name);
    kernels.push_back("cub");
    std::string kernel = opts.choice("--kernel", "all", kernels);
    int block = opts.integer("--block", 256, 32, 1024);
    uint64_t seed = opts.size("--seed", 1, 0);
    bool bench = opts.flag("--bench");
    bool demo = opts.flag("--volatile-demo");
    opts.finish();
    if (!valid_block_size(block))
        opts.fail("--block", "must be a power of two: 32, 64, 128, 256, 512 or 1024 (got " +
                                 std::to_string(block) + ")");
    if (bench && demo) opts.fail("--volatile-demo", "cannot be combined with --bench");
    if (demo && block < 64) opts.fail("--block", "the old volatile tail needs at least 64 threads per block");
    if (demo && n == 0) opts.fail("--n", "the demonstration needs at least one element");

    require_gpu(opts.program().c_str());
    require_block_size(opts, "--block", block);
    try {
        if (bench) return run_bench(block, seed);
        if (demo) {
            require_fits_in_gpu(opts, "--n", 4.0 * n + 4.0 * legacy_tail_blocks(n, block));
            return run_volatile_demo(n, block, seed);
        }
        require_fits_in_gpu(opts, "--n",
                            4.0 * n + 4.0 * scratch_floats(n, block) + (double)cub_sum_temp_bytes(n));
        return run_steps(kernel, n, block, seed);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: error: --n: not enough host memory for %zu floats\n",
                     opts.program().c_str(), n);
        return kExitBadInput;
    }
}
