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

// The table both the default run and --bench print: GB/s of the 4n bytes read, against CUB's
// sum of the same input measured in the same run, and against the DRAM peak.
static TableSpec table_spec(const DeviceFacts& dev) {
    TableSpec t;
    t.title = "sum of n floats";
    t.columns = {"GPU sum", "error"};
    t.baseline_column = "% of CUB";
    t.vs_previous = true;
    t.peak = dev.dram_gbs;
    t.peak_name = "DRAM peak";
    t.compute_roof = dev.fp32_gflops * 1e9;
    t.compute_roof_name = strf("FP32 peak %.1f TFLOP/s", dev.fp32_gflops / 1e3);
    t.footer = "GB/s counts the 4n bytes read (the copy's, the 4n read and the 4n written); the plot counts\n"
               "one FLOP (an add) per element.";
    return t;
}

// One size: every selected step and CUB on x, each result within `tol` of `ref`.
static void measure(Measurements& m, const Program& p, const std::string& title, const std::vector<float>& x,
                    double ref, Tolerance tol, int block) {
    const size_t n = x.size();
    DeviceBuffer<float> d_x(x), d_out(1), d_copy(n);
    ScratchBuffers scratch(n, block);
    CubSum cub(n);
    auto check = [&] {
        const float got = download_one(d_out);
        const bool ok = within(got, ref, tol);
        const std::string error = got == ref ? "0" : strf("%.3g", std::fabs(got - ref));
        return Check{ok, ok ? (tol.atol == 0 ? "exact" : "within the tolerance") : "outside the tolerance",
                     {strf("%.9g", got), ok ? error : "-"}};
    };
    auto poison = [&] { d_out.poison(); };
    std::vector<StepRow> rows;
    for (const auto& s : kSteps)
        if (p.selected(s.name))
            rows.push_back({std::to_string(s.number), s.name,
                            [&, s] { s.run(d_x.get(), n, d_out.get(), block, scratch.view()); }, check, "", poison});
    if (p.selected("cub"))
        rows.push_back({"-", "cub::DeviceReduce::Sum", [&] { cub.run(d_x.get(), n, d_out.get()); }, check, "", poison,
                        RowKind::baseline});
    if (p.kernel == "all")  // the memory roof this GPU reaches: a copy reads and writes 4n bytes
        rows.push_back({"-", "cudaMemcpy (device to device)",
                        [&] { CUDA_CHECK(cudaMemcpyAsync(d_copy.get(), d_x.get(), 4 * n, cudaMemcpyDeviceToDevice)); },
                        [] { return Check{true, "a copy"}; }, n ? "" : "nothing to copy", {}, RowKind::reference,
                        Work{8.0 * n, 0}});
    m.section(title, Work{4.0 * n, 1.0 * n}, rows);
}

static int run(const Program& p, size_t n, int block) {
    const DeviceFacts dev = device_facts();
    std::printf("sum of n floats on %s (%d SMs): n = %zu, block = %d, input uniform in [-1, 2)\n\n",
                dev.name.c_str(), dev.sm_count, n, block);
    const std::vector<float> x = random_floats(n, p.seed, -1.0f, 2.0f);
    const ReferenceSum ref = sum_reference(x.data(), n);
    const Tolerance tol = float_sum_tolerance(n, ref.sum_abs);
    Measurements m(table_spec(dev), BenchConfig{2, 10, true}, p.outputs());
    measure(m, p, "", x, ref.sum, tol, block);
    const int failures = m.finish();
    std::printf("reference (double precision, on the CPU): %.9g; tolerance +-%.3g, that is\n"
                "4 * 2^-24 * sqrt(n + 1) * sum|x[i]|, a few standard deviations of the rounding\n"
                "error of a float sum in any order.\n",
                ref.sum, tol.atol);
    return failures ? 1 : 0;
}

static int run_bench(const Program& p, int block) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_bench_header(strf("the sum of n floats, block = %d", block), cfg);
    std::printf("Input: whole numbers from -8 to 8, so every sum is exact and each result is checked\n"
                "exactly, before and after its timing. CUB is timed before and after the steps; the\n"
                "faster is the 100%%.\n\n");
    Measurements m(table_spec(dev), cfg, p.outputs());
    for (int k : {25, 28}) {
        const size_t n = (size_t)1 << k;
        std::vector<float> x = random_whole_floats(n, p.seed + k);
        const double ref = sum_reference(x.data(), n).sum;
        measure(m, p, strf("2^%d floats (%.0f MB read)", k, 4.0 * n / 1e6), x, ref, Tolerance{0, 0}, block);
    }
    return m.finish() ? 1 : 0;
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
    for (const char* file : {"--csv", "--plot"}) p.not_with(file, "--volatile-demo", "the demo prints no table");
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
    // Host: the input (and the copy DeviceBuffer uploads from). GPU: input, its copy, scratch, CUB's storage
    // (about as large as the scratch).
    require_memory(p, "--n", 8.0 * n, 8.0 * n + 8.0 * scratch_floats(n, block) + (1 << 20));
    return run(p, n, block);
}
