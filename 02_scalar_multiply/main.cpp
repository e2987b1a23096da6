// 02_scalar_multiply/main.cpp: runs each step on random data, checks it against the CPU
// reference and times it beside a device-to-device copy of the same bytes, then shows what
// moving the same array between host and GPU costs; --bench does it from 2^12 to 2^28 floats.
#include "launch.h"
#include "program.h"
#include "scalar_multiply.h"

// Half an ulp of float, relative: the GPU's float product must round the exact one correctly.
// Plus half the smallest subnormal float, 2^-150, absolute: a product too small to be a normal
// float (say --a 1e-40) is rounded to a multiple of 2^-149, where a relative bound cannot hold.
static const Tolerance kTol{0x1.0p-24, 0x1.0p-150};

// Why a step cannot run at this size, or "" when it can: what its way of covering the array allows.
static std::string skip_reason(Coverage coverage, size_t n, int block, const DeviceFacts& dev) {
    if (coverage == Coverage::one_block && n > (size_t)dev.max_threads_per_block)
        return strf("one block holds at most %d threads", dev.max_threads_per_block);
    if (coverage == Coverage::block_per_chunk && ceil_div(n, block) > (size_t)INT32_MAX)  // grids: < 2^31 blocks in x
        return strf("needs more than 2^31 - 1 blocks of %d threads (use a larger --block)", block);
    return "";
}

// One size: every selected step, and the copy of x into out that is the 100%.
static void measure(Measurements& m, const Program& p, const std::string& title, size_t n, float a, int block,
                    uint64_t seed) {
    const DeviceFacts dev = device_facts();
    const std::vector<float> x = random_floats(n, seed, -10.0f, 10.0f);
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = scale_reference(a, x[i]);
    DeviceBuffer<float> d_x(x), d_out(n);
    std::vector<StepRow> rows;
    for (const auto& s : p.selected(kSteps))
        rows.push_back({std::to_string(s.number), s.name, [&, s] { s.run(a, d_x.get(), d_out.get(), n, block); },
                        [&] { return check_of(compare(d_out.download(), ref, kTol)); },
                        skip_reason(s.info.coverage, n, block, dev), [&] { d_out.poison(); }});
    rows.push_back(copy_row("cudaMemcpy device to device", d_out.get(), d_x.get(), x, RowKind::baseline));
    m.section(title, Work{8.0 * n, 1.0 * n}, rows);
}

// The same n floats copied host -> GPU and back, from ordinary (pageable) and from pinned memory,
// next to the fastest step measured in the last section, which moves the same bytes on the GPU.
static void print_transfers(const Measurements& m, size_t n) {
    const RowResult* kernel = nullptr;
    for (const RowResult* r : m.last_timed(RowKind::step))
        if (!kernel || r->ms < kernel->ms) kernel = r;
    const size_t bytes = n * sizeof(float);
    std::vector<float> pageable(n, 1.0f);
    float* pinned = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned, bytes));
    std::fill(pinned, pinned + n, 1.0f);
    DeviceBuffer<float> d_x(n);
    Table t({"copy", "time (ms)", "GB/s"});
    double round_trip = 0;
    auto copy = [&](const char* what, void* to, const void* from, cudaMemcpyKind kind) {
        const double ms = time_gpu([&] { CUDA_CHECK(cudaMemcpy(to, from, bytes, kind)); }, {2, 10, false}).median_ms;
        round_trip += (to == pinned || from == pinned) ? ms : 0;
        t.row({what, strf("%.4f", ms), strf("%.1f", gb_per_s(bytes, ms))});
    };
    copy("host to GPU, pageable", d_x.get(), pageable.data(), cudaMemcpyHostToDevice);
    copy("host to GPU, pinned", d_x.get(), pinned, cudaMemcpyHostToDevice);
    copy("GPU to host, pageable", pageable.data(), d_x.get(), cudaMemcpyDeviceToHost);
    copy("GPU to host, pinned", pinned, d_x.get(), cudaMemcpyDeviceToHost);
    CUDA_CHECK(cudaFreeHost(pinned));
    std::printf("\nhost <-> GPU copies of x (%zu floats, %.1f MB), each way:\n\n", n, bytes / 1e6);
    t.print();
    std::printf("\nGB/s counts the bytes copied once.\n");
    if (kernel)
        std::printf("The round trip (pinned) takes %.4f ms: %.0f times the %.4f ms of step %s %s above,\n"
                    "which reads and writes the same bytes in GPU memory.\n",
                    round_trip, round_trip / kernel->ms, kernel->ms, kernel->step.c_str(), kernel->name.c_str());
}

// The sizes --bench measures (and the copies of its largest) and the default run's.
static const Sizes kSizes = Sizes::powers_of_two(12, 28, 2);

// Every selected step at n, or with --bench at each of kSizes; then the host <-> GPU copies.
static int run(const Program& p, size_t n, float a, int block) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_header(p, cfg, strf("out[i] = a * x[i], a = %g, block = %d", a, block),
                                         "out[i] = a * x[i]", strf("n = %zu, a = %g, block = %d", n, a, block));
    TableSpec t;
    t.title = "out[i] = a * x[i]";
    t.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(t.rate), cols::of_baseline("% of copy"),
                 cols::of_peak("DRAM peak", dev.dram_gbs), cols::check()};
    t.footer = "GB/s counts 8 bytes per element (4 read, 4 written); % of copy compares with cudaMemcpy device to\n"
               "device of x into out (the same bytes) in this run, timed before and after the steps, the faster\n"
               "counting. The plot counts one FLOP (a multiply) per element.";
    Measurements m(t, cfg, p.outputs());
    for (size_t size : kSizes.measured(p, n))
        measure(m, p, p.bench ? strf("%s floats (%.1f MB moved)", count_text(size).c_str(), 8.0 * size / 1e6) : "", size,
                a, block, p.bench ? p.seed + (uint64_t)std::log2((double)size) : p.seed);
    const int failures = m.finish();
    if (p.kernel == "all" && !profiling_mode()) print_transfers(m, kSizes.most(p, n));
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"out[i] = a * x[i] on the GPU, checked on the CPU",
               {{"--n N", "elements"}, {"--a A", "the scalar"}, {"--block B", "threads per block"}},
               step_decls(kSteps), {},
               "the benchmark tables (sizes " + kSizes.text() + ", and copies of " + count_text(kSizes.bench.back()) +
                   " floats)"});
    const size_t n = p.size("--n", 1000000);
    const float a = (float)p.real("--a", 2.5, -1e30, 1e30);
    const int block = p.integer("--block", 256, 1, 1024);
    p.not_with_bench({"--n", "--a"});
    p.finish();
    // Host: the input, its double-precision reference, the output downloaded; then the copies' pinned
    // buffer. GPU: input and output.
    const size_t most = kSizes.most(p, n);
    require_memory(p, kSizes.blamed(p), 20.0 * most, 8.0 * most + (1 << 20));
    require_block_size(p, "--block", block);
    return run(p, n, a, block);
}
