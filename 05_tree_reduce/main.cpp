// 05_tree_reduce/main.cpp: runs each step on random data, checks its sum against the CPU
// reference, and times it; --bench prints the ladder at 2^25 and 2^28 floats next to CUB.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_sum.h"
#include "program.h"
#include "tree_reduce.h"

static float download_one(const DeviceBuffer<float>& out) { return out.download()[0]; }

static int run(const Program& p, size_t n, int block) {
    const DeviceFacts dev = device_facts();
    std::printf("sum of n floats on %s (%d SMs): n = %zu, block = %d, input uniform in [-1, 2)\n\n",
                dev.name.c_str(), dev.sm_count, n, block);
    const std::vector<float> x = random_floats(n, p.seed, -1.0f, 2.0f);
    const ReferenceSum ref = sum_reference(x.data(), n);
    const Tolerance tol = float_sum_tolerance(n, ref.sum_abs);
    DeviceBuffer<float> d_x(x), d_out(1);
    ScratchBuffers scratch(n, block);
    CubSum cub(n);

    auto check = [&] {
        const float got = download_one(d_out);
        const bool ok = within(got, ref.sum, tol);
        return Check{ok, ok ? "within the tolerance" : "outside the tolerance",
                     {strf("%.9g", got), ok ? strf("%.3g", std::fabs(got - ref.sum)) : "-"}};
    };
    std::vector<StepRow> rows;
    for (const auto& s : kSteps)
        if (p.selected(s.name))
            rows.push_back({std::to_string(s.number), s.name,
                            [&, s] { s.run(d_x.get(), n, d_out.get(), block, scratch.view()); }, check, "",
                            [&] { d_out.poison(); }});
    if (p.selected("cub"))
        rows.push_back({"-", "cub::DeviceReduce::Sum", [&] { cub.run(d_x.get(), n, d_out.get()); }, check, "",
                        [&] { d_out.poison(); }});
    const int failures = run_steps(
        rows, {"GB/s", 4.0 * n, {"GPU sum", "error"}, "GB/s counts the 4n bytes read."}, BenchConfig{2, 10, true});
    std::printf("reference (double precision, on the CPU): %.9g; tolerance +-%.3g, that is\n"
                "4 * 2^-24 * sqrt(n + 1) * sum|x[i]|, a few standard deviations of the rounding\n"
                "error of a float sum in any order.\n",
                ref.sum, tol.atol);
    return failures ? 1 : 0;
}

static int run_bench(const Program& p, int block) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_bench_header(strf("the sum of n floats, block = %d", block), cfg);
    std::printf("GB/s counts the 4n bytes read. Input: whole numbers from -8 to 8, so every sum is\n"
                "exact and each result is checked exactly after its timing.\n");
    int failures = 0;
    for (int k : {25, 28}) {
        const size_t n = (size_t)1 << k;
        const double bytes = 4.0 * n;
        std::vector<float> x = random_whole_floats(n, p.seed + k);
        const double ref = sum_reference(x.data(), n).sum;
        DeviceBuffer<float> d_x(x), d_out(1);
        x = std::vector<float>();  // free the host copy before the next size
        ScratchBuffers scratch(n, block);
        CubSum cub(n);
        const double copy_gbs = gb_per_s(2.0 * bytes, time_device_copy((size_t)bytes).median_ms);

        auto measure = [&](const std::function<void()>& launch, Timing& t) {
            d_out.poison();
            t = time_gpu(launch, cfg);
            CUDA_CHECK(cudaDeviceSynchronize());
            return (double)download_one(d_out) == ref;  // re-checked after timing
        };
        // CUB is timed before and after the ladder and the faster time is the 100%: one slow
        // measurement of the baseline must not flatter the kernels.
        Timing cub_t, cub_again;
        bool cub_ok = measure([&] { cub.run(d_x.get(), n, d_out.get()); }, cub_t);

        std::printf("\n2^%d floats (%.0f MB read); cudaMemcpy device to device of the same bytes: "
                    "%.0f GB/s (read + written)\n\n", k, bytes / 1e6, copy_gbs);
        std::vector<Timing> times;
        std::vector<bool> ok;
        for (const auto& step : kSteps) {
            times.emplace_back();
            ok.push_back(measure([&] { step.run(d_x.get(), n, d_out.get(), block, scratch.view()); }, times.back()));
            if (!ok.back()) ++failures;
        }
        cub_ok = measure([&] { cub.run(d_x.get(), n, d_out.get()); }, cub_again) && cub_ok;
        if (!cub_ok) ++failures;
        const double cub_ms = std::min(cub_t.median_ms, cub_again.median_ms);
        const double cub_gbs = gb_per_s(bytes, cub_ms);

        Table table({"step", "kernel", "time (ms)", "GB/s", "vs previous", "% of CUB", "% of DRAM peak", "check"});
        for (size_t s = 0; s < times.size(); ++s) {
            const double ms = times[s].median_ms, gbs = gb_per_s(bytes, ms);
            table.row({std::to_string(kSteps[s].number), kSteps[s].name, strf("%.4f", ms), strf("%.0f", gbs),
                       s > 0 ? strf("%.2fx", times[s - 1].median_ms / ms) : "-", strf("%.1f", 100 * gbs / cub_gbs),
                       strf("%.1f", 100 * gbs / dev.dram_gbs), ok[s] ? "exact" : "WRONG"});
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
static int run_volatile_demo(const Program& p, size_t n, int block) {
    std::vector<float> x = random_whole_floats(n, p.seed);
    const double ref = sum_reference(x.data(), n).sum;
    DeviceBuffer<float> d_x(x);
    DeviceBuffer<float> partials(legacy_tail_blocks(n, block));
    partials.poison();
    run_legacy_volatile_tail(d_x.get(), n, partials.get(), block);
    CUDA_CHECK(cudaDeviceSynchronize());
    double got = 0;
    for (float v : partials.download()) got += v;  // whole numbers: exact in double
    std::printf("old volatile warp tail, %zu blocks of %d threads, block sums added on the CPU:\n"
                "  GPU %.1f, reference %.1f: %s\n",
                partials.size(), block, got, ref, got == ref ? "the same (this time)" : "DIFFERENT");
    std::printf("A right answer proves nothing: the lanes of a warp are not guaranteed to run in\n"
                "lockstep (Volta and later), so their reads and writes of buf[] race. See it with\n"
                "  compute-sanitizer --tool racecheck build/05_tree_reduce/solution/tree_reduce --volatile-demo --n 4096\n");
    return got == ref ? 0 : 1;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"the sum of n floats on the GPU, checked on the CPU",
               "  --n N            elements (default 2^24+3; 0 is allowed; 2^K and 2^K+C work too)\n"
               "  --block B        threads per block: 32, 64, 128, 256, 512 or 1024 (default 256)\n"
               "  --volatile-demo  run the source material's old `volatile` warp tail once and say what\n"
               "                   it gave (README, step 5); try it under compute-sanitizer --tool racecheck\n",
               step_names(kSteps), {"cub"}, "the benchmark tables (2^25 and 2^28 floats)"});
    const size_t n = p.size("--n", ((size_t)1 << 24) + 3, 0);
    const int block = p.integer("--block", 256, 32, 1024);
    const bool demo = p.flag("--volatile-demo");
    p.not_with_bench({"--n", "--volatile-demo"});
    p.only_for_kernels("--block", step_names(kSteps));  // CUB picks its own
    p.not_with("--kernel", "--volatile-demo", "the demo runs no step");
    p.finish();
    if (!valid_block_size(block))
        p.fail("--block", "must be a power of two: 32, 64, 128, 256, 512 or 1024 (got " + std::to_string(block) + ")");
    if (demo && block < 64) p.fail("--block", "the old volatile tail needs at least 64 threads per block");
    if (demo && n == 0) p.fail("--n", "the demonstration needs at least one element");

    if (p.bench) {
        // 2^28 floats: the input, the copy test's two buffers, scratch; host: input and its copy.
        const double bytes = 4.0 * ((size_t)1 << 28);
        require_memory(p, "--bench", 2.0 * bytes, 3.0 * bytes + 4.0 * scratch_floats((size_t)1 << 28, block));
        return run_bench(p, block);
    }
    if (demo) {
        require_memory(p, "--n", 8.0 * n, 4.0 * n + 4.0 * legacy_tail_blocks(n, block));
        return run_volatile_demo(p, n, block);
    }
    // Host: the input (and the copy DeviceBuffer uploads from). GPU: input, scratch, CUB's storage
    // (about as large as the scratch).
    require_memory(p, "--n", 8.0 * n, 4.0 * n + 8.0 * scratch_floats(n, block) + (1 << 20));
    return run(p, n, block);
}
