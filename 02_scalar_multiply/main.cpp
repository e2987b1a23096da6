// 02_scalar_multiply/main.cpp: runs each step on random data, checks it against the CPU
// reference, and times it; --bench prints the benchmark table.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "options.h"
#include "scalar_multiply.h"

static const char* kUsage =
    "usage: scalar_multiply [options]      out[i] = a * x[i] on the GPU, checked on the CPU\n"
    "  --n N           elements (default 1000000; 2^K and 2^K+C work too)\n"
    "  --a A           the scalar (default 2.5)\n"
    "  --kernel NAME   one_block, many_blocks, grid_stride, vectorized or all (default all)\n"
    "  --block B       threads per block for steps 2 to 4 (default 256)\n"
    "  --seed S        seed of the random input (default 1)\n"
    "  --bench         print the benchmark table (sizes 2^12 to 2^28) instead\n";

struct Step {
    const char* name;
    void (*run)(float a, const float* x, float* out, size_t n, int block);
};
static const Step kSteps[] = {
    {"one_block", [](float a, const float* x, float* out, size_t n, int) { run_one_block(a, x, out, n); }},
    {"many_blocks", run_many_blocks},
    {"grid_stride", run_grid_stride},
    {"vectorized", run_vectorized},
};
static const int kStepCount = sizeof kSteps / sizeof kSteps[0];

// Half an ulp of float, relative: the GPU's float product must round the exact one correctly.
// Plus half the smallest subnormal float, 2^-150, absolute: a product too small to be a normal
// float (say --a 1e-40) is rounded to a multiple of 2^-149, where a relative bound cannot hold.
static const Tolerance kTol{0x1.0p-24, 0x1.0p-150};

static Comparison check(float a, const std::vector<float>& x, const DeviceBuffer<float>& out) {
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = scale_reference(a, x[i]);
    return compare(out.download(), ref, kTol);
}

static int run_steps(const std::string& which, size_t n, float a, int block, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("out[i] = a * x[i] on %s (%d SMs): n = %zu, a = %g, block = %d\n\n",
                dev.name.c_str(), dev.sm_count, n, a, block);
    std::vector<float> x = random_floats(n, seed, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    Table table({"step", "kernel", "time (ms)", "GB/s", "check"});
    int failures = 0;
    int number = 0;
    for (const Step& s : kSteps) {
        ++number;
        if (which != "all" && which != s.name) continue;
        std::string step = std::to_string(number);
        if (number == 1 && n > (size_t)dev.max_threads_per_block) {
            table.row({step, s.name, "-", "-",
                       strf("skipped: one block holds at most %d threads", dev.max_threads_per_block)});
            continue;
        }
        // One thread per element: a grid has at most 2^31 - 1 blocks in x.
        if (number == 2 && (n + block - 1) / block > (size_t)INT32_MAX) {
            table.row({step, s.name, "-", "-",
                       strf("skipped: needs more than 2^31 - 1 blocks of %d threads (use a larger --block)", block)});
            continue;
        }
        d_out.poison();
        s.run(a, d_x.get(), d_out.get(), n, block);
        CUDA_CHECK(cudaDeviceSynchronize());
        Comparison c = check(a, x, d_out);
        if (!c.ok()) {
            ++failures;
            table.row({step, s.name, "-", "-", "FAILED: " + c.describe() + " (is TODO step " + step + " done?)"});
            continue;
        }
        Timing t = time_gpu([&] { s.run(a, d_x.get(), d_out.get(), n, block); });
        table.row({step, s.name, strf("%.4f", t.median_ms), strf("%.1f", gb_per_s(8.0 * n, t.median_ms)),
                   "ok: " + c.describe()});
    }
    table.print();
    std::printf("\nGB/s counts 8 bytes per element (4 read, 4 written); time is the median of 20 runs.\n");
    return failures ? 1 : 0;
}

static int run_bench(int block, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s, block = %d\n",
                dev.name.c_str(), dev.sm_count, dev.dram_gbs, block);
    std::printf("GB/s counts bytes read + written; %% of copy compares with cudaMemcpy device to device\n"
                "of the same bytes, measured in this run. Median of 20 runs, L2 flushed between runs.\n\n");
    Table table({"n", "MB moved", "copy GB/s", "kernel", "time (ms)", "GB/s", "% of copy", "% of peak"});
    const float a = 2.5f;
    int failures = 0;
    for (int k = 12; k <= 28; k += 2) {
        size_t n = (size_t)1 << k;
        double bytes = 8.0 * n;
        std::vector<float> x = random_floats(n, seed + k, -10.0f, 10.0f);
        DeviceBuffer<float> d_x(x), d_out(n);
        double copy_gbs = gb_per_s(bytes, time_device_copy(4 * n).median_ms);
        for (int s = 1; s < kStepCount; ++s) {  // one_block cannot cover these sizes
            const Step& step = kSteps[s];
            d_out.poison();
            Timing t = time_gpu([&] { step.run(a, d_x.get(), d_out.get(), n, block); });
            // Re-check after timing: a fast wrong kernel is not a result.
            Comparison c = check(a, x, d_out);
            double gbs = gb_per_s(bytes, t.median_ms);
            if (!c.ok()) ++failures;
            table.row({strf("2^%d", k), strf("%.1f", bytes / 1e6), strf("%.0f", copy_gbs), step.name,
                       c.ok() ? strf("%.4f", t.median_ms) : "FAILED check",
                       c.ok() ? strf("%.0f", gbs) : "-", c.ok() ? strf("%.1f", 100 * gbs / copy_gbs) : "-",
                       c.ok() ? strf("%.1f", 100 * gbs / dev.dram_gbs) : "-"});
        }
    }
    table.print();
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    size_t n = opts.size("--n", 1000000);
    float a = (float)opts.real("--a", 2.5, -1e30, 1e30);
    std::string kernel = opts.choice("--kernel", "all", {"all", "one_block", "many_blocks", "grid_stride", "vectorized"});
    int block = opts.integer("--block", 256, 1, 1 << 30);
    uint64_t seed = opts.size("--seed", 1, 0);
    bool bench = opts.flag("--bench");
    opts.finish();
    // Host: the input, the double-precision reference and the downloaded output.
    if (!bench) require_fits_in_host(opts, "--n", 16.0 * n);

    require_gpu(opts.program().c_str());
    require_block_size(opts, "--block", block);
    if (bench) {
        require_fits_in_gpu(opts, "--bench", 4.0 * 4 * ((size_t)1 << 28));
        return run_bench(block, seed);
    }
    require_fits_in_gpu(opts, "--n", 8.0 * n);
    return run_steps(kernel, n, a, block, seed);
}
