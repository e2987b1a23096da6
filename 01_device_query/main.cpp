// 01_device_query/main.cpp: lists every GPU with its limits and theoretical peaks; --bench
// measures copy bandwidth and FMA throughput and compares them with those peaks.
#include "device_query.h"
#include "program.h"

// "(TODO step 3 bandwidth)" for one step, "(TODO steps 2, 3)" for several, "" when all are done:
// the steps `part` (a ListingPart) needs, as kSteps declares, that your code has not answered yet.
static std::string todo(const DeviceReport& r, unsigned part) {
    std::vector<const QueryStep*> left;
    for (const auto& s : kSteps)
        if ((s.info.needed_for & part) && !s.run(r)) left.push_back(&s);
    if (left.size() == 1) return "(TODO " + step_label(left[0]->number, left[0]->name) + ")";
    std::string numbers;
    for (const QueryStep* s : left) numbers += (numbers.empty() ? "" : ", ") + std::to_string(s->number);
    return left.empty() ? "" : "(TODO steps " + numbers + ")";
}

// A field's value, or `mark` (its step's TODO) while it is unfilled.
static std::string num(long long v, const std::string& mark) { return v < 0 ? mark : strf("%lld", v); }
static std::string mhz(int khz, const std::string& mark) { return khz < 0 ? mark : strf("%d MHz", khz / 1000); }
static std::string regs(int n, const std::string& mark) {
    return n < 0 ? mark : strf("%d x 32 bits = %d KiB", n, n / 256);
}
static std::string dims(const int* d, const std::string& mark) {
    return d[0] < 0 || d[1] < 0 || d[2] < 0 ? mark : strf("%d x %d x %d", d[0], d[1], d[2]);
}

// 49152 -> "48 KiB (49152 bytes)" (below 1 MiB, also the number cudaFuncSetAttribute takes);
// 52428800 -> "50 MiB"; 150121545728 -> "139.81 GiB".
static std::string bytes_text(long long b, const std::string& mark = "") {
    if (b < 0) return mark;
    if (b < 1024) return strf("%lld bytes", b);
    return size_text((double)b) + (b < (1 << 20) ? strf(" (%lld bytes)", b) : "");
}

static const char* architecture(int major, int minor) {
    const char* by_major[] = {"Maxwell", "Pascal", minor == 5 ? "Turing" : "Volta",  // 5, 6, 7
                              minor == 9 ? "Ada Lovelace" : "Ampere", "Hopper",      // 8, 9
                              "Blackwell", "Blackwell", "Blackwell"};                // 10, 11, 12
    return major >= 5 && major <= 12 ? by_major[major - 5] : "an architecture this program does not know";
}

static void line(const char* name, const std::string& value) { std::printf("  %-34s %s\n", name, value.c_str()); }

// The theoretical peaks; a negative value: cannot say yet (a step it needs is not done).
struct Derived { double bandwidth = -1, peak = -1, ridge = -1; int cores = -1; };
static Derived derive(const DeviceReport& r) {
    Derived d;
    if (todo(r, kBandwidthFigure).empty()) d.bandwidth = theoretical_bandwidth_gbs(r.mem_clock_khz, r.mem_bus_bits);
    if (todo(r, kCoresFigure).empty()) d.cores = fp32_cores_per_sm(r.cc_major, r.cc_minor);
    if (d.cores > 0 && todo(r, kPeakFigure).empty()) d.peak = peak_fp32_gflops(r.sm_count, d.cores, r.sm_clock_khz);
    if (d.peak >= 0 && d.bandwidth > 0) d.ridge = ridge_point(d.peak, d.bandwidth);
    return d;
}

static void print_device(const DeviceReport& r) {
    std::string title = strf("== Device %d: %s ", r.device, r.name.c_str());
    if (title.size() < 78) title += std::string(78 - title.size(), '=');
    std::printf("%s\n", title.c_str());

    const std::string t1 = todo(r, kLimitFields), t2 = todo(r, kMemoryFields);
    std::printf(" The SMs and the launch limits (step 1)\n");
    line("compute capability", r.cc_major < 0 || r.cc_minor < 0 ? t1
         : strf("%d.%d (%s)", r.cc_major, r.cc_minor, architecture(r.cc_major, r.cc_minor)));
    line("streaming multiprocessors (SMs)", num(r.sm_count, t1));
    line("SM clock (highest)", mhz(r.sm_clock_khz, t1));
    line("warp size", r.warp_size < 0 ? t1 : strf("%d threads", r.warp_size));
    line("threads per block (max)", num(r.max_threads_per_block, t1));
    line("threads per SM (max)", r.max_threads_per_sm < 0 || r.warp_size <= 0 ? num(r.max_threads_per_sm, t1)
         : strf("%d = %d warps", r.max_threads_per_sm, r.max_threads_per_sm / r.warp_size));
    line("blocks per SM (max)", num(r.max_blocks_per_sm, t1));
    line("block dimensions (max x, y, z)", dims(r.max_block_dim, t1));
    line("grid dimensions (max x, y, z)", dims(r.max_grid_dim, t1));
    line("registers per block (max)", regs(r.regs_per_block, t1));
    line("registers per SM", regs(r.regs_per_sm, t1));
    line("shared memory per block", r.shared_per_block < 0 ? t1
         : bytes_text(r.shared_per_block) + " without opting in");
    line("  ... with opt-in (max)", bytes_text(r.shared_per_block_optin, t1));
    line("  ... reserved per block", bytes_text(r.shared_reserved_per_block, t1));
    line("shared memory per SM", bytes_text(r.shared_per_sm, t1));

    std::printf(" The memory system (step 2)\n");
    line("constant memory", bytes_text(r.const_bytes, t2));
    line("global memory, total", bytes_text(r.global_total_bytes, t2));
    line("global memory, free now", bytes_text(r.global_free_bytes, t2));
    line("L2 cache", bytes_text(r.l2_bytes, t2));
    line("L2 set-aside for persisting (max)", bytes_text(r.persisting_l2_max_bytes, t2));
    line("memory bus width", r.mem_bus_bits < 0 ? t2 : strf("%d bits", r.mem_bus_bits));
    line("memory clock (as CUDA reports it)", mhz(r.mem_clock_khz, t2));

    std::printf(" Derived: the theoretical peaks (steps 3-5)\n");
    const Derived d = derive(r);
    const std::string t3 = todo(r, kBandwidthFigure), t4 = todo(r, kCoresFigure), t5 = todo(r, kPeakFigure),
                      t6 = todo(r, kRidgeFigure);
    line("DRAM bandwidth", !t3.empty() ? t3
         : strf("%.1f GB/s = 2 x %.3f GHz x %d bits / 8", d.bandwidth, r.mem_clock_khz / 1e6, r.mem_bus_bits));
    line("FP32 cores per SM", !t4.empty() ? t4
         : d.cores == 0 ? strf("unknown for compute capability %d.%d", r.cc_major, r.cc_minor)
                        : strf("%d (%d in all)", d.cores, d.cores * r.sm_count));
    line("peak FP32", !t5.empty() ? t5 : d.peak < 0 ? "unknown (no core count)"
         : strf("%.0f GFLOP/s = 2 x %d SMs x %d cores x %.3f GHz", d.peak, r.sm_count, d.cores, r.sm_clock_khz / 1e6));
    line("ridge point", !t6.empty() ? t6 : d.ridge < 0 ? "unknown"
         : strf("%.1f FLOP/byte (below it memory-bound, above it compute-bound)", d.ridge));
    std::printf("\n");
}

static int list_devices(int count, int only) {
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("%d CUDA device%s. The driver supports CUDA up to %d.%d; runtime %d.%d; built with CUDA Toolkit %s.\n\n",
                count, count == 1 ? "" : "s", driver / 1000, driver % 1000 / 10, runtime / 1000,
                runtime % 1000 / 10, cuda_toolkit_version().c_str());
    DeviceReport last;
    for (int dev = 0; dev < count; ++dev)
        if (only < 0 || dev == only) print_device(last = query_device(dev));
    std::string left;
    for (const auto& s : kSteps)
        if (!s.run(last)) left += (left.empty() ? "" : ", ") + step_label(s.number, s.name);
    if (left.empty())
        std::printf("All five steps are done: `make test-01` checks them against the runtime.\n");
    else
        std::printf("Still to do in starter.cu: %s.\n`make test-01` shows which steps pass; `make run-01 USE=solution` "
                    "shows the finished listing.\n", left.c_str());
    return 0;
}

// ---- The benchmark: the device's roofs, measured ---------------------------------------------------
// Every byte a copy wrote must be the source's 0x5A (copy_row poisons the destination first).
static Check check_copy(const DeviceBuffer<char>& dst, size_t bytes) {
    std::vector<char> got(bytes);
    CUDA_CHECK(cudaMemcpy(got.data(), dst.get(), bytes, cudaMemcpyDeviceToHost));
    const size_t wrong = bytes - (size_t)std::count(got.begin(), got.end(), (char)0x5A);
    return {wrong == 0, wrong == 0 ? "every byte is the source's" : strf("%zu bytes differ from the source", wrong)};
}

// Copies of 16 MiB to 1 GiB (the measured memory roof) and the FMA kernel (a point near the compute
// roof) against your peaks of steps 3-5. The last section is the plot: the roofline every other
// exercise's plot is read against.
static int run_bench(const Program& p, int device) {
    CUDA_CHECK(cudaSetDevice(device));
    const DeviceReport r = query_device(device);
    const Derived d = derive(r);
    const BenchConfig cfg;
    print_bench_header(strf("device %d measured against the theoretical peaks of steps 3-5", device), cfg);
    std::printf("Your theoretical peaks: DRAM %s, FP32 %s.\n\n",
                d.bandwidth > 0 ? strf("%.0f GB/s", d.bandwidth).c_str() : todo(r, kBandwidthFigure).c_str(),
                d.peak > 0 ? strf("%.0f GFLOP/s", d.peak).c_str() : todo(r, kPeakFigure).c_str());
    TableSpec t;
    t.title = strf("device %d", device);
    t.rate = ops_rate("GFLOP/s", 1e9, "FLOP", "%.0f");  // the plot's compute roof: this GPU's FP32 peak, from its clocks
    t.columns = {cols::step(), cols::kernel(), cols::own("one run"), cols::time(), cols::rate(t.rate), cols::gb_per_s()};
    if (d.peak > 0) t.columns.push_back(cols::of_peak("FP32 peak", d.peak));  // your peaks, once steps 3-5 are done
    if (d.bandwidth > 0) t.columns.push_back(cols::of_bytes_peak("DRAM peak", d.bandwidth));
    t.columns.push_back(cols::check());
    t.footer = "GB/s counts the bytes read plus the bytes written; an FMA counts as 2 FLOP.";
    Measurements m(t, cfg, p.outputs());

    // One buffer pair for every copy, as large as free memory allows: a copy uses its first bytes.
    const size_t sizes[] = {(size_t)1 << 24, (size_t)1 << 26, (size_t)1 << 28, (size_t)1 << 30};
    size_t largest = 0;
    for (size_t bytes : sizes)
        if (2.0 * bytes <= 0.8 * (double)free_gpu_bytes()) largest = bytes;
    DeviceBuffer<char> src(largest), dst(largest);
    if (largest) CUDA_CHECK(cudaMemset(src.get(), 0x5A, largest));
    auto copy = [&](size_t bytes) {
        StepRow r = copy_row("cudaMemcpy " + bytes_text((long long)bytes), dst.get(), src.get(), bytes,
                             [&, bytes] { return check_copy(dst, bytes); });
        r.skip = bytes > largest ? "too little free GPU memory" : "";
        r.cells = {"reads and writes " + bytes_text((long long)bytes)};
        return r;
    };
    m.section("device-to-device copies of 16 to 256 MiB", Work{}, {copy(sizes[0]), copy(sizes[1]), copy(sizes[2])});

    const FmaLaunch f = fma_benchmark_launch();
    DeviceBuffer<float> out(f.threads());
    StepRow fma{"-", "FP32 FMA kernel",
                [&] { run_fma_throughput(out.get(), f.blocks, f.block, f.iterations, f.mul, f.add); },
                [&] { const std::string wrong = fma_throughput_mismatch(out.download(), f);
                      return Check{wrong.empty(), wrong.empty() ? "64 threads match the CPU" : wrong}; },
                "", [&] { out.poison(); }, RowKind::step,  // a kernel the exercise gives: make profile-01 profiles it
                Work{4.0 * f.threads(), fma_throughput_flop(f.threads(), f.iterations)},
                {strf("%zu threads x %d chains x %d FMAs", f.threads(), kFmaChains, f.iterations)}};
    m.section("the roofs: a 1 GiB copy and the FMA kernel", Work{}, {copy(sizes[3]), fma});
    const int failures = m.finish();
    if (d.ridge > 0)
        std::printf("\nRidge point %.1f FLOP/byte: a kernel doing fewer FLOP per DRAM byte is limited by bandwidth,\n"
                    "one doing more by the FP32 peak.\n", d.ridge);
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv, {"what each GPU is made of, and how fast it could go",
                           {{"--device D", "show only device D", "every device; device 0 for --bench"}}, {}, {},
                           "one device's measured copy bandwidth and FP32 FMA throughput next to the theoretical "
                           "peaks of steps 3-5,"});
    const int device = p.integer("--device", -1, 0, 1 << 20);
    for (const char* output : {"--csv", "--plot"}) p.only_with(output, {"--bench"}, "the listing measures nothing to write");
    p.finish();
    const int count = require_gpu(p.program().c_str());
    if (device >= count)
        p.fail("--device", strf("there is no device %d (this machine has %d: 0 to %d)", device, count, count - 1));
    return p.bench ? run_bench(p, device < 0 ? 0 : device) : list_devices(count, device);
}
