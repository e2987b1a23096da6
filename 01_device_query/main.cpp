// 01_device_query/main.cpp: lists every GPU with its limits and theoretical peaks; --bench
// measures copy bandwidth and FMA throughput and compares them with those peaks.
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "device_query.h"
#include "program.h"

// ---- Which steps are done: kSteps (steps 1 to 5, in order) asks your code -------------------
// The steps of `needs` (in order) that your code has not answered yet.
static std::vector<int> not_done(const DeviceReport& r, std::initializer_list<int> needs) {
    std::vector<int> left;
    for (int n : needs)
        if (!kSteps[n - 1].run(r)) left.push_back(n);
    return left;
}

static std::string label(int step) { return step_label(step, kSteps[step - 1].name); }  // "step 3 bandwidth"
// "(TODO step 3 bandwidth)" for one step, "(TODO steps 2, 3)" for several.
static std::string todo(const std::vector<int>& steps) {
    if (steps.size() == 1) return "(TODO " + label(steps[0]) + ")";
    std::string s;
    for (int n : steps) s += (s.empty() ? "" : ", ") + std::to_string(n);
    return "(TODO steps " + s + ")";
}

// ---- Formatting: a field's value, or its step's TODO mark while it is unfilled ----------------
static std::string num(long long v, int step) { return v < 0 ? todo({step}) : strf("%lld", v); }
static std::string mhz(int khz, int step) { return khz < 0 ? todo({step}) : strf("%d MHz", khz / 1000); }
static std::string regs(int n) { return n < 0 ? todo({1}) : strf("%d x 32 bits = %d KiB", n, n / 256); }
static std::string dims(const int* d) {
    return d[0] < 0 || d[1] < 0 || d[2] < 0 ? todo({1}) : strf("%d x %d x %d", d[0], d[1], d[2]);
}

// 49152 -> "48 KiB (49152 bytes)"; 52428800 -> "50 MiB"; 150121545728 -> "139.81 GiB".
static std::string bytes_text(long long b, int step) {
    if (b < 0) return todo({step});
    if (b < 1024) return strf("%lld bytes", b);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)b / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) v /= 1024, ++u;
    std::string s = strf("%.2f", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    s += std::string(" ") + units[u];
    if (b < (1 << 20)) s += strf(" (%lld bytes)", b);  // the number cudaFuncSetAttribute takes
    return s;
}

// The architecture's name, for the listing only.
static const char* architecture(int major, int minor) {
    const char* by_major[] = {"Maxwell", "Pascal", minor == 5 ? "Turing" : "Volta",  // 5, 6, 7
                              minor == 9 ? "Ada Lovelace" : "Ampere", "Hopper",      // 8, 9
                              "Blackwell", "Blackwell", "Blackwell"};                // 10, 11, 12
    return major >= 5 && major <= 12 ? by_major[major - 5] : "an architecture this program does not know";
}

static void line(const char* name, const std::string& value) { std::printf("  %-34s %s\n", name, value.c_str()); }

// ---- The derived figures --------------------------------------------------------------------
// A negative value: cannot say yet (a step it needs is not done).
struct Derived { double bandwidth = -1, peak = -1, ridge = -1; int cores = -1; };
static Derived derive(const DeviceReport& r) {
    Derived d;
    if (not_done(r, {2, 3}).empty()) d.bandwidth = theoretical_bandwidth_gbs(r.mem_clock_khz, r.mem_bus_bits);
    if (not_done(r, {1, 4}).empty()) d.cores = fp32_cores_per_sm(r.cc_major, r.cc_minor);
    if (d.cores > 0 && not_done(r, {5}).empty()) d.peak = peak_fp32_gflops(r.sm_count, d.cores, r.sm_clock_khz);
    if (d.peak >= 0 && d.bandwidth > 0) d.ridge = ridge_point(d.peak, d.bandwidth);
    return d;
}

// ---- The listing ----------------------------------------------------------------------------
static void print_device(const DeviceReport& r) {
    std::string title = strf("== Device %d: %s ", r.device, r.name.c_str());
    if (title.size() < 78) title += std::string(78 - title.size(), '=');
    std::printf("%s\n", title.c_str());

    std::printf(" The SMs and the launch limits (step 1)\n");
    line("compute capability", r.cc_major < 0 || r.cc_minor < 0 ? todo({1})
         : strf("%d.%d (%s)", r.cc_major, r.cc_minor, architecture(r.cc_major, r.cc_minor)));
    line("streaming multiprocessors (SMs)", num(r.sm_count, 1));
    line("SM clock (highest)", mhz(r.sm_clock_khz, 1));
    line("warp size", r.warp_size < 0 ? todo({1}) : strf("%d threads", r.warp_size));
    line("threads per block (max)", num(r.max_threads_per_block, 1));
    line("threads per SM (max)", r.max_threads_per_sm < 0 || r.warp_size <= 0 ? num(r.max_threads_per_sm, 1)
         : strf("%d = %d warps", r.max_threads_per_sm, r.max_threads_per_sm / r.warp_size));
    line("blocks per SM (max)", num(r.max_blocks_per_sm, 1));
    line("block dimensions (max x, y, z)", dims(r.max_block_dim));
    line("grid dimensions (max x, y, z)", dims(r.max_grid_dim));
    line("registers per block (max)", regs(r.regs_per_block));
    line("registers per SM", regs(r.regs_per_sm));
    line("shared memory per block", r.shared_per_block < 0 ? todo({1})
         : bytes_text(r.shared_per_block, 1) + " without opting in");
    line("  ... with opt-in (max)", bytes_text(r.shared_per_block_optin, 1));
    line("  ... reserved per block", bytes_text(r.shared_reserved_per_block, 1));
    line("shared memory per SM", bytes_text(r.shared_per_sm, 1));

    std::printf(" The memory system (step 2)\n");
    line("constant memory", bytes_text(r.const_bytes, 2));
    line("global memory, total", bytes_text(r.global_total_bytes, 2));
    line("global memory, free now", bytes_text(r.global_free_bytes, 2));
    line("L2 cache", bytes_text(r.l2_bytes, 2));
    line("L2 set-aside for persisting (max)", bytes_text(r.persisting_l2_max_bytes, 2));
    line("memory bus width", r.mem_bus_bits < 0 ? todo({2}) : strf("%d bits", r.mem_bus_bits));
    line("memory clock (as CUDA reports it)", mhz(r.mem_clock_khz, 2));

    std::printf(" Derived: the theoretical peaks (steps 3-5)\n");
    const Derived d = derive(r);
    std::vector<int> need = not_done(r, {2, 3});
    line("DRAM bandwidth", !need.empty() ? todo(need)
         : strf("%.1f GB/s = 2 x %.3f GHz x %d bits / 8", d.bandwidth, r.mem_clock_khz / 1e6, r.mem_bus_bits));
    need = not_done(r, {1, 4});
    line("FP32 cores per SM", !need.empty() ? todo(need)
         : d.cores == 0 ? strf("unknown for compute capability %d.%d", r.cc_major, r.cc_minor)
                        : strf("%d (%d in all)", d.cores, d.cores * r.sm_count));
    need = not_done(r, {1, 4, 5});
    line("peak FP32", !need.empty() ? todo(need) : d.peak < 0 ? "unknown (no core count)"
         : strf("%.0f GFLOP/s = 2 x %d SMs x %d cores x %.3f GHz", d.peak, r.sm_count, d.cores, r.sm_clock_khz / 1e6));
    need = not_done(r, {1, 2, 3, 4, 5});
    line("ridge point", !need.empty() ? todo(need) : d.ridge < 0 ? "unknown"
         : strf("%.1f FLOP/byte (below it memory-bound, above it compute-bound)", d.ridge));
    std::printf("\n");
}

static int list_devices(int count, int only) {
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("%d CUDA device%s. The driver supports CUDA up to %d.%d; runtime %d.%d; built with CUDA Toolkit %s.\n\n",
                count, count == 1 ? "" : "s", driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10,
                cuda_toolkit_version().c_str());
    DeviceReport last;
    for (int dev = 0; dev < count; ++dev)
        if (only < 0 || dev == only) print_device(last = query_device(dev));
    std::string left;
    for (int n : not_done(last, {1, 2, 3, 4, 5})) left += (left.empty() ? "" : ", ") + label(n);
    if (left.empty())
        std::printf("All five steps are done: `make test-01` checks them against the runtime.\n");
    else
        std::printf("Still to do in starter.cu: %s.\n`make test-01` shows which steps pass; `make run-01 USE=solution` "
                    "shows the finished listing.\n", left.c_str());
    return 0;
}

// ---- The benchmark --------------------------------------------------------------------------
static int run_bench(int device) {
    CUDA_CHECK(cudaSetDevice(device));
    const DeviceReport r = query_device(device);
    const Derived d = derive(r);
    print_bench_header(strf("device %d measured against the theoretical peaks of steps 3-5", device));
    std::printf("Copy GB/s counts the bytes read plus the bytes written.\n\n");
    Table table({"measurement", "size", "time (ms)", "measured", "theoretical", "% of theoretical"});

    const std::string bw = d.bandwidth > 0 ? strf("%.0f GB/s", d.bandwidth) : todo(not_done(r, {2, 3}));
    const size_t free_b = free_gpu_bytes();
    for (int k = 24; k <= 30; k += 2) {
        const size_t bytes = (size_t)1 << k;
        const std::string size = bytes_text((long long)bytes, 0), copy = "cudaMemcpy device to device";
        if (2.0 * bytes > 0.8 * (double)free_b) {
            table.row({copy, size, "-", "-", bw, "skipped: too little free memory"});
            continue;
        }
        const Timing t = time_device_copy(bytes);
        const double gbs = gb_per_s(2.0 * bytes, t.median_ms);
        table.row({copy, size, strf("%.4f", t.median_ms), strf("%.0f GB/s", gbs), bw,
                   d.bandwidth > 0 ? strf("%.1f", 100 * gbs / d.bandwidth) : "-"});
    }
    const FmaMeasurement f = measure_fma_throughput();
    const double gflops = gflop_per_s(fma_throughput_flop(f.threads, f.iterations), f.median_ms);
    const std::string peak = d.peak > 0 ? strf("%.0f GFLOP/s", d.peak) : todo(not_done(r, {1, 4, 5}));
    table.row({strf("FP32 FMA kernel, %d chains x %d FMAs per thread", kFmaChains, f.iterations),
               strf("%zu threads", f.threads), f.ok ? strf("%.4f", f.median_ms) : "FAILED check",
               f.ok ? strf("%.0f GFLOP/s", gflops) : "-", peak,
               f.ok && d.peak > 0 ? strf("%.1f", 100 * gflops / d.peak) : "-"});
    table.print();
    if (!f.ok) std::printf("\nThe FMA kernel's results are wrong: %s\n", f.problem.c_str());
    if (d.ridge > 0)
        std::printf("\nRidge point %.1f FLOP/byte: a kernel doing fewer FLOP per DRAM byte is limited by bandwidth,\n"
                    "one doing more by the FP32 peak.\n", d.ridge);
    return f.ok ? 0 : 1;
}

int main(int argc, char** argv) {
    Program p(argc, argv, {"what each GPU is made of, and how fast it could go",
                           "  --device D      show only device D (default: every device; device 0 for --bench)\n",
                           {}, {}, "one device's measured copy bandwidth and FP32 FMA throughput next\n"
                                   "                  to the theoretical peaks of steps 3-5,"});
    const int device = p.integer("--device", -1, 0, 1 << 20);
    p.finish();
    require_gpu(p.program().c_str());
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count)
        p.fail("--device", strf("there is no device %d (this machine has %d: 0 to %d)", device, count, count - 1));
    return p.bench ? run_bench(device < 0 ? 0 : device) : list_devices(count, device);
}
