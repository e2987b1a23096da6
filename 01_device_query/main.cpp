// 01_device_query/main.cpp: lists every GPU with its limits and theoretical peaks; --bench
// measures copy bandwidth and FMA throughput and compares them with those peaks.
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "device_query.h"
#include "gpu.h"
#include "program.h"

static const char* kUsage =
    "usage: device_query [options]      what each GPU is made of, and how fast it could go\n"
    "  --device D      show only device D (default: every device; device 0 for --bench)\n"
    "  --bench         measure device-to-device copy bandwidth and FP32 FMA throughput on one\n"
    "                  device, and compare them with the theoretical peaks of steps 3-5\n";

static const char* kStepNames[] = {"", "limits", "memory", "bandwidth", "fp32_cores", "roofline"};

// ---- Which steps are done -------------------------------------------------------------------
// Steps 1-2 leave kNotFilled (-1) in the fields they have not set. Steps 3-5 are pure functions
// whose starter placeholders answer kNotDone whatever the input.
static bool all_set(std::initializer_list<long long> fields) {
    for (long long f : fields)
        if (f < 0) return false;
    return true;
}
static bool limits_filled(const DeviceReport& r) {
    return all_set({r.cc_major, r.cc_minor, r.sm_count, r.sm_clock_khz, r.warp_size,
                    r.max_threads_per_block, r.max_threads_per_sm, r.max_blocks_per_sm,
                    r.max_block_dim[0], r.max_block_dim[1], r.max_block_dim[2], r.max_grid_dim[0],
                    r.max_grid_dim[1], r.max_grid_dim[2], r.regs_per_block, r.regs_per_sm,
                    r.shared_per_block, r.shared_per_block_optin, r.shared_reserved_per_block,
                    r.shared_per_sm});
}
static bool memory_filled(const DeviceReport& r) {
    return all_set({r.const_bytes, r.global_total_bytes, r.global_free_bytes, r.l2_bytes,
                    r.persisting_l2_max_bytes, r.mem_bus_bits, r.mem_clock_khz});
}
static bool step_done(const DeviceReport& r, int step) {
    switch (step) {
        case 1: return limits_filled(r);
        case 2: return memory_filled(r);
        case 3: return theoretical_bandwidth_gbs(1000, 64) != kNotDone;
        case 4: return fp32_cores_per_sm(9, 0) != (int)kNotDone;
        default: return peak_fp32_gflops(1, 64, 1000) != kNotDone && ridge_point(1, 1) != kNotDone;
    }
}
// The steps of `needs` that are not done yet.
static std::vector<int> not_done(const DeviceReport& r, std::vector<int> needs) {
    std::vector<int> left;
    for (int n : needs)
        if (!step_done(r, n)) left.push_back(n);
    return left;
}

// ---- Formatting -----------------------------------------------------------------------------
static std::string todo(int step) { return strf("(TODO step %d %s)", step, kStepNames[step]); }

// "(TODO step 3 bandwidth)" for one step, "(TODO steps 2, 3)" for several.
static std::string todo(const std::vector<int>& steps) {
    if (steps.size() == 1) return todo(steps[0]);
    std::string s;
    for (int n : steps) s += (s.empty() ? "" : ", ") + std::to_string(n);
    return "(TODO steps " + s + ")";
}

static std::string num(long long v, int step) { return v < 0 ? todo(step) : strf("%lld", v); }

// 49152 -> "48 KiB (49152 bytes)"; 52428800 -> "50 MiB"; 150121545728 -> "139.81 GiB".
static std::string bytes_text(long long b, int step) {
    if (b < 0) return todo(step);
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

static std::string mhz(int khz, int step) {
    return khz < 0 ? todo(step) : strf("%d MHz", khz / 1000);
}

// The architecture's name, for the listing only.
static const char* architecture(int major, int minor) {
    switch (major) {
        case 5: return "Maxwell";
        case 6: return "Pascal";
        case 7: return minor == 5 ? "Turing" : "Volta";
        case 8: return minor == 9 ? "Ada Lovelace" : "Ampere";
        case 9: return "Hopper";
        case 10: case 11: case 12: return "Blackwell";
        default: return "an architecture this program does not know";
    }
}

static void line(const char* label, const std::string& value) {
    std::printf("  %-34s %s\n", label, value.c_str());
}

// ---- The derived figures --------------------------------------------------------------------
// A negative value: cannot say yet (a step it needs is not done).
struct Derived {
    double bandwidth = -1, peak = -1, ridge = -1;
    int cores = -1;
};
static Derived derive(const DeviceReport& r) {
    Derived d;
    if (not_done(r, {2, 3}).empty())
        d.bandwidth = theoretical_bandwidth_gbs(r.mem_clock_khz, r.mem_bus_bits);
    if (not_done(r, {1, 4}).empty()) d.cores = fp32_cores_per_sm(r.cc_major, r.cc_minor);
    if (d.cores > 0 && not_done(r, {5}).empty())
        d.peak = peak_fp32_gflops(r.sm_count, d.cores, r.sm_clock_khz);
    if (d.peak >= 0 && d.bandwidth > 0) d.ridge = ridge_point(d.peak, d.bandwidth);
    return d;
}

// ---- The listing ----------------------------------------------------------------------------
static void print_device(const DeviceReport& r) {
    std::string title = strf("== Device %d: %s ", r.device, r.name.c_str());
    if (title.size() < 78) title += std::string(78 - title.size(), '=');
    std::printf("%s\n", title.c_str());

    std::printf(" The SMs and the launch limits (step 1)\n");
    line("compute capability", r.cc_major < 0 || r.cc_minor < 0 ? todo(1)
         : strf("%d.%d (%s)", r.cc_major, r.cc_minor, architecture(r.cc_major, r.cc_minor)));
    line("streaming multiprocessors (SMs)", num(r.sm_count, 1));
    line("SM clock (highest)", mhz(r.sm_clock_khz, 1));
    line("warp size", r.warp_size < 0 ? todo(1) : strf("%d threads", r.warp_size));
    line("threads per block (max)", num(r.max_threads_per_block, 1));
    line("threads per SM (max)", r.max_threads_per_sm < 0 || r.warp_size <= 0
         ? num(r.max_threads_per_sm, 1)
         : strf("%d = %d warps", r.max_threads_per_sm, r.max_threads_per_sm / r.warp_size));
    line("blocks per SM (max)", num(r.max_blocks_per_sm, 1));
    const int* b = r.max_block_dim;
    const int* g = r.max_grid_dim;
    line("block dimensions (max x, y, z)", b[0] < 0 || b[1] < 0 || b[2] < 0 ? todo(1)
         : strf("%d x %d x %d", b[0], b[1], b[2]));
    line("grid dimensions (max x, y, z)", g[0] < 0 || g[1] < 0 || g[2] < 0 ? todo(1)
         : strf("%d x %d x %d", g[0], g[1], g[2]));
    line("registers per block (max)", r.regs_per_block < 0 ? todo(1)
         : strf("%d x 32 bits = %d KiB", r.regs_per_block, r.regs_per_block / 256));
    line("registers per SM", r.regs_per_sm < 0 ? todo(1)
         : strf("%d x 32 bits = %d KiB", r.regs_per_sm, r.regs_per_sm / 256));
    line("shared memory per block", r.shared_per_block < 0 ? todo(1)
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
    line("memory bus width", r.mem_bus_bits < 0 ? todo(2) : strf("%d bits", r.mem_bus_bits));
    line("memory clock (as CUDA reports it)", mhz(r.mem_clock_khz, 2));

    std::printf(" Derived: the theoretical peaks (steps 3-5)\n");
    const Derived d = derive(r);
    std::vector<int> need = not_done(r, {2, 3});
    line("DRAM bandwidth", !need.empty() ? todo(need)
         : strf("%.1f GB/s = 2 x %.3f GHz x %d bits / 8", d.bandwidth, r.mem_clock_khz / 1e6,
                r.mem_bus_bits));
    need = not_done(r, {1, 4});
    line("FP32 cores per SM", !need.empty() ? todo(need)
         : d.cores == 0 ? strf("unknown for compute capability %d.%d", r.cc_major, r.cc_minor)
                        : strf("%d (%d in all)", d.cores, d.cores * r.sm_count));
    need = not_done(r, {1, 4, 5});
    line("peak FP32", !need.empty() ? todo(need) : d.peak < 0 ? "unknown (no core count)"
         : strf("%.0f GFLOP/s = 2 x %d SMs x %d cores x %.3f GHz", d.peak, r.sm_count, d.cores,
                r.sm_clock_khz / 1e6));
    need = not_done(r, {1, 2, 3, 4, 5});
    line("ridge point", !need.empty() ? todo(need) : d.ridge < 0 ? "unknown"
         : strf("%.1f FLOP/byte (below it memory-bound, above it compute-bound)", d.ridge));
    std::printf("\n");
}

static int list_devices(int only) {
    int count = 0, driver = 0, runtime = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("%d CUDA device%s. The driver supports CUDA up to %d.%d; runtime %d.%d; built with "
                "CUDA Toolkit %s.\n\n", count, count == 1 ? "" : "s", driver / 1000,
                driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10,
                cuda_toolkit_version().c_str());
    DeviceReport last;
    for (int dev = 0; dev < count; ++dev) {
        if (only >= 0 && dev != only) continue;
        last = query_device(dev);
        print_device(last);
    }
    std::vector<int> left = not_done(last, {1, 2, 3, 4, 5});
    if (left.empty()) {
        std::printf("All five steps are done: `make test-01` checks them against the runtime.\n");
        return 0;
    }
    std::string steps;
    for (int n : left) steps += (steps.empty() ? "" : ", ") + strf("step %d %s", n, kStepNames[n]);
    std::printf("Still to do in starter.cu: %s.\n"
                "`make test-01` shows which steps pass; `make run-01 USE=solution` shows the "
                "finished listing.\n", steps.c_str());
    return 0;
}

// ---- The benchmark --------------------------------------------------------------------------
static const char* kCopy = "cudaMemcpy device to device";

static int run_bench(int device) {
    CUDA_CHECK(cudaSetDevice(device));
    const DeviceReport r = query_device(device);
    const Derived d = derive(r);
    std::printf("Benchmark on device %d, %s: measured against theoretical.\n", device,
                r.name.c_str());
    std::printf("Median of 20 runs after 3 warm-up runs, L2 flushed before each run "
                "(common/bench.h).\nCopy GB/s counts the bytes read plus the bytes written.\n\n");
    Table table(
        {"measurement", "size", "time (ms)", "measured", "theoretical", "% of theoretical"});

    const std::string bw =
        d.bandwidth > 0 ? strf("%.0f GB/s", d.bandwidth) : todo(not_done(r, {2, 3}));
    const size_t free_b = free_gpu_bytes();
    for (int k = 24; k <= 30; k += 2) {
        const size_t bytes = (size_t)1 << k;
        const std::string size = bytes_text((long long)bytes, 0);
        if (2.0 * bytes > 0.8 * (double)free_b) {
            table.row({kCopy, size, "-", "-", bw, "skipped: too little free memory"});
            continue;
        }
        const Timing t = time_device_copy(bytes);
        const double gbs = gb_per_s(2.0 * bytes, t.median_ms);
        table.row({kCopy, size, strf("%.4f", t.median_ms), strf("%.0f GB/s", gbs), bw,
                   d.bandwidth > 0 ? strf("%.1f", 100 * gbs / d.bandwidth) : "-"});
    }

    // Four full waves of 256-thread blocks, each thread 8 chains x 16384 FMAs.
    const int block = 256, iterations = 16384;
    const float mul = 0.999f, add = 0.001f;  // x -> x * 0.999 + 0.001 tends to 1: finite, normal
    int sm_count = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    const size_t blocks = (size_t)sm_count * fma_blocks_per_sm(block) * 4;
    const size_t threads = blocks * block;
    DeviceBuffer<float> out(threads);
    out.poison();
    const Timing t =
        time_gpu([&] { run_fma_throughput(out.get(), blocks, block, iterations, mul, add); });
    const double gflops = gflop_per_s(fma_throughput_flop(threads, iterations), t.median_ms);
    // Re-check after timing, 64 threads spread over the grid: a fast wrong kernel is no result.
    // The CPU does the same float FMAs in the same order, so the tolerance only allows for ulps.
    const std::vector<float> got = out.download();
    std::vector<float> sample;
    std::vector<double> ref;
    for (size_t i = 0; i < 64; ++i) {
        const size_t th = i * (threads - 1) / 63;
        sample.push_back(got[th]);
        ref.push_back(fma_throughput_reference(th, iterations, mul, add));
    }
    const Comparison c = compare(sample, ref, Tolerance{1e-6, 0.0});
    const std::string peak =
        d.peak > 0 ? strf("%.0f GFLOP/s", d.peak) : todo(not_done(r, {1, 4, 5}));
    table.row({strf("FP32 FMA kernel, %d chains x %d FMAs per thread", kFmaChains, iterations),
               strf("%zu threads", threads), c.ok() ? strf("%.4f", t.median_ms) : "FAILED check",
               c.ok() ? strf("%.0f GFLOP/s", gflops) : "-", peak,
               c.ok() && d.peak > 0 ? strf("%.1f", 100 * gflops / d.peak) : "-"});
    table.print();
    if (!c.ok()) std::printf("\nThe FMA kernel's results are wrong: %s\n", c.describe().c_str());
    if (d.ridge > 0)
        std::printf("\nRidge point %.1f FLOP/byte: a kernel doing fewer FLOP per DRAM byte is "
                    "limited by bandwidth,\none doing more by the FP32 peak.\n", d.ridge);
    return c.ok() ? 0 : 1;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const int device = opts.integer("--device", -1, 0, 1 << 20);
    const bool bench = opts.flag("--bench");
    opts.finish();

    require_gpu(opts.program().c_str());
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count)
        opts.fail("--device", strf("there is no device %d (this machine has %d: 0 to %d)", device,
                                   count, count - 1));
    if (bench) return run_bench(device < 0 ? 0 : device);
    return list_devices(device);
}
