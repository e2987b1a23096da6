// 02_scalar_multiply/main.cpp: runs each step on random data, checks it against the CPU
// reference, times it, and shows what moving the same array between host and GPU costs;
// --bench prints the benchmark tables.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "buffer.h"
#include "compare.h"
#include "launch.h"
#include "program.h"
#include "scalar_multiply.h"

// Half an ulp of float, relative: the GPU's float product must round the exact one correctly.
// Plus half the smallest subnormal float, 2^-150, absolute: a product too small to be a normal
// float (say --a 1e-40) is rounded to a multiple of 2^-149, where a relative bound cannot hold.
static const Tolerance kTol{0x1.0p-24, 0x1.0p-150};

static Comparison check(float a, const std::vector<float>& x, const DeviceBuffer<float>& out) {
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = scale_reference(a, x[i]);
    return compare(out.download(), ref, kTol);
}

// Why a step cannot run at this size, or "" when it can.
static std::string skip_reason(int step, size_t n, int block, const DeviceFacts& dev) {
    if (step == 1 && n > (size_t)dev.max_threads_per_block)
        return strf("one block holds at most %d threads", dev.max_threads_per_block);
    if (step == 2 && ceil_div(n, block) > (size_t)INT32_MAX)  // a grid has at most 2^31 - 1 blocks in x
        return strf("needs more than 2^31 - 1 blocks of %d threads (use a larger --block)", block);
    return "";
}

// The same n floats copied host -> GPU and back, from ordinary (pageable) memory and from
// pinned memory, next to the time of the kernel that scales them on the GPU.
static void print_transfers(size_t n, float a, int block, const BenchConfig& cfg) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> pageable(n, 1.0f);
    float* pinned = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned, bytes));
    for (size_t i = 0; i < n; ++i) pinned[i] = 1.0f;
    DeviceBuffer<float> d_x(n), d_out(n);
    auto copy = [&](void* to, const void* from, cudaMemcpyKind kind) {
        return time_gpu([&] { CUDA_CHECK(cudaMemcpy(to, from, bytes, kind)); }, cfg).median_ms;
    };
    const double up_pageable = copy(d_x.get(), pageable.data(), cudaMemcpyHostToDevice);
    const double up_pinned = copy(d_x.get(), pinned, cudaMemcpyHostToDevice);
    const double down_pageable = copy(pageable.data(), d_x.get(), cudaMemcpyDeviceToHost);
    const double down_pinned = copy(pinned, d_x.get(), cudaMemcpyDeviceToHost);
    const double kernel = time_gpu([&] { run_vectorized(a, d_x.get(), d_out.get(), n, block); }, cfg).median_ms;
    CUDA_CHECK(cudaFreeHost(pinned));

    std::printf("\nhost <-> GPU copies of x (%zu floats, %.1f MB), each way:\n\n", n, bytes / 1e6);
    Table t({"copy", "time (ms)", "GB/s"});
    t.row({"host to GPU, pageable", strf("%.4f", up_pageable), strf("%.1f", gb_per_s(bytes, up_pageable))});
    t.row({"host to GPU, pinned", strf("%.4f", up_pinned), strf("%.1f", gb_per_s(bytes, up_pinned))});
    t.row({"GPU to host, pageable", strf("%.4f", down_pageable), strf("%.1f", gb_per_s(bytes, down_pageable))});
    t.row({"GPU to host, pinned", strf("%.4f", down_pinned), strf("%.1f", gb_per_s(bytes, down_pinned))});
    t.print();
    std::printf("\nThe round trip (pinned) takes %.4f ms: %.0f times the %.4f ms of the vectorized kernel,\n"
                "which reads and writes the same bytes in GPU memory. GB/s counts the bytes copied once.\n",
                up_pinned + down_pinned, (up_pinned + down_pinned) / kernel, kernel);
}

static int run(const Program& p, size_t n, float a, int block) {
    const DeviceFacts dev = device_facts();
    std::printf("out[i] = a * x[i] on %s (%d SMs): n = %zu, a = %g, block = %d\n\n", dev.name.c_str(),
                dev.sm_count, n, a, block);
    const std::vector<float> x = random_floats(n, p.seed, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    std::vector<StepRow> rows;
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        rows.push_back({std::to_string(s.number), s.name,
                        [&, s] { s.run(a, d_x.get(), d_out.get(), n, block); },
                        [&] { const Comparison c = check(a, x, d_out); return Check{c.ok(), c.describe()}; },
                        skip_reason(s.number, n, block, dev), [&] { d_out.poison(); }});
    }
    const int failures = run_steps(rows, {"GB/s", 8.0 * n, {}, "GB/s counts 8 bytes per element (4 read, 4 written)."});
    if (p.kernel == "all" && n > 0 && !profiling_mode()) print_transfers(n, a, block, {2, 10, false});
    return failures ? 1 : 0;
}

static int run_bench(const Program& p, int block) {
    const DeviceFacts dev = print_bench_header(strf("out[i] = a * x[i], block = %d", block));
    std::printf("GB/s counts bytes read + written; %% of copy compares with cudaMemcpy device to device\n"
                "of the same bytes, measured in this run.\n\n");
    Table table({"n", "MB moved", "copy GB/s", "kernel", "time (ms)", "GB/s", "% of copy", "% of peak"});
    const float a = 2.5f;
    int failures = 0;
    for (int k = 12; k <= 28; k += 2) {
        const size_t n = (size_t)1 << k;
        const double bytes = 8.0 * n;
        const std::vector<float> x = random_floats(n, p.seed + k, -10.0f, 10.0f);
        DeviceBuffer<float> d_x(x), d_out(n);
        const double copy_gbs = gb_per_s(bytes, time_device_copy(4 * n).median_ms);
        for (const auto& step : kSteps) {
            if (step.number == 1) continue;  // one block cannot cover these sizes
            d_out.poison();
            const Timing t = time_gpu([&] { step.run(a, d_x.get(), d_out.get(), n, block); });
            const Comparison c = check(a, x, d_out);  // after timing: a fast wrong kernel is not a result
            const double gbs = gb_per_s(bytes, t.median_ms);
            if (!c.ok()) ++failures;
            table.row({strf("2^%d", k), strf("%.1f", bytes / 1e6), strf("%.0f", copy_gbs), step.name,
                       c.ok() ? strf("%.4f", t.median_ms) : "FAILED check", c.ok() ? strf("%.0f", gbs) : "-",
                       c.ok() ? strf("%.1f", 100 * gbs / copy_gbs) : "-",
                       c.ok() ? strf("%.1f", 100 * gbs / dev.dram_gbs) : "-"});
        }
    }
    table.print();
    print_transfers((size_t)1 << 28, a, block, {2, 10, false});
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"out[i] = a * x[i] on the GPU, checked on the CPU",
               "  --n N           elements (default 1000000; 2^K and 2^K+C work too)\n"
               "  --a A           the scalar (default 2.5)\n"
               "  --block B       threads per block for steps 2 to 4, 1 to 1024 (default 256)\n",
               step_names(kSteps), {}, "the benchmark tables (sizes 2^12 to 2^28, and copies of 2^28 floats)"});
    const size_t n = p.size("--n", 1000000);
    const float a = (float)p.real("--a", 2.5, -1e30, 1e30);
    const int block = p.integer("--block", 256, 1, 1024);
    p.not_with_bench({"--n", "--a"});
    p.only_for_kernels("--block", {"many_blocks", "grid_stride", "vectorized"});  // one_block: one block of n
    p.finish();
    if (p.bench) {
        // 2^28 floats: input, output and the copy test's two buffers; host: input, pinned copy.
        require_memory(p, "--bench", 5.0 * 4 * ((size_t)1 << 28), 4.0 * 4 * ((size_t)1 << 28));
        require_block_size(p, "--block", block);
        return run_bench(p, block);
    }
    // Host: the input, the double-precision reference, the downloaded output, the pinned copy.
    require_memory(p, "--n", 20.0 * n, 8.0 * n);
    require_block_size(p, "--block", block);
    return run(p, n, a, block);
}
