// 01_device_query/tests.cpp: one group of test cases per step of kSteps, named "step N name: ...";
// each group tests only its own step's code, so finishing a step turns exactly that step to ok.
// Steps 1-2 are checked against the CUDA runtime on every GPU of the machine; steps 3-5 are pure
// functions, checked on the host against figures NVIDIA publishes for four GPUs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "device_query.h"
#include "testing.h"

namespace {

int attr(int device, cudaDeviceAttr what) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, what, device));
    return v;
}

int device_count() {
    int n = 0;
    CUDA_CHECK(cudaGetDeviceCount(&n));
    return n;
}

struct MemInfo {
    size_t free_b = 0, total_b = 0;
};
MemInfo mem_info(int device) {
    int previous = 0;
    CUDA_CHECK(cudaGetDevice(&previous));
    CUDA_CHECK(cudaSetDevice(device));
    MemInfo m;
    CUDA_CHECK(cudaMemGetInfo(&m.free_b, &m.total_b));
    CUDA_CHECK(cudaSetDevice(previous));
    return m;
}

// A published figure is rounded: `value` matches it when it rounds to the same digits, i.e. lies
// within half a unit of the published figure's last digit (`unit`).
bool rounds_to(double value, double published, double unit) {
    return std::isfinite(value) && std::fabs(value - published) <= 0.5 * unit;
}

// Published data (NVIDIA spec sheets and whitepapers; clocks and bus widths as deviceQuery and
// cudaDeviceGetAttribute report them on these GPUs).
struct Gpu {
    const char* name;
    int mem_clock_khz, bus_bits;
    double bandwidth_gbs, bandwidth_unit;  // published, and its last digit's unit
    int sm_count, cc_major, cc_minor, total_cores, sm_clock_khz;
    double tflops, tflops_unit;
};
const Gpu kGpus[] = {
    // RTX 4090 (Ada whitepaper, appendix A): 1008 GB/s; 82.6 TFLOPS at the 2520 MHz boost clock.
    {"RTX 4090", 10501000, 384, 1008, 1, 128, 8, 9, 16384, 2520000, 82.6, 0.1},
    // H100 SXM5 80 GB: 3352 GB/s (3.35 TB/s); 66.9 TFLOPS FP32 at 1980 MHz.
    {"H100 SXM", 2619000, 5120, 3352, 1, 132, 9, 0, 16896, 1980000, 66.9, 0.1},
    // A100 SXM4 40 GB: 1555 GB/s; 19.5 TFLOPS FP32 at 1410 MHz.
    {"A100 40GB", 1215000, 5120, 1555, 1, 108, 8, 0, 6912, 1410000, 19.5, 0.1},
    // T4: 320 GB/s (GDDR6, 256-bit); 8.1 TFLOPS FP32 at 1590 MHz.
    {"T4", 5001000, 256, 320, 1, 40, 7, 5, 2560, 1590000, 8.1, 0.1},
};

}  // namespace

DECLARE_STEPS(kSteps);  // the summary lists all five steps, in order, run or not

// ---- step 1 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "limits", "every field equals cudaDeviceGetAttribute, on every device") {
    for (int d = 0; d < device_count(); ++d) {
        CAPTURE(d);
        DeviceReport r = query_device(d);
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
        CHECK(r.device == d);
        CHECK(r.name == std::string(prop.name));
        CHECK(r.cc_major == attr(d, cudaDevAttrComputeCapabilityMajor));
        CHECK(r.cc_minor == attr(d, cudaDevAttrComputeCapabilityMinor));
        CHECK(r.sm_count == attr(d, cudaDevAttrMultiProcessorCount));
        CHECK(r.sm_clock_khz == attr(d, cudaDevAttrClockRate));
        CHECK(r.warp_size == attr(d, cudaDevAttrWarpSize));
        CHECK(r.max_threads_per_block == attr(d, cudaDevAttrMaxThreadsPerBlock));
        CHECK(r.max_threads_per_sm == attr(d, cudaDevAttrMaxThreadsPerMultiProcessor));
        CHECK(r.max_blocks_per_sm == attr(d, cudaDevAttrMaxBlocksPerMultiprocessor));
        CHECK(r.max_block_dim[0] == attr(d, cudaDevAttrMaxBlockDimX));
        CHECK(r.max_block_dim[1] == attr(d, cudaDevAttrMaxBlockDimY));
        CHECK(r.max_block_dim[2] == attr(d, cudaDevAttrMaxBlockDimZ));
        CHECK(r.max_grid_dim[0] == attr(d, cudaDevAttrMaxGridDimX));
        CHECK(r.max_grid_dim[1] == attr(d, cudaDevAttrMaxGridDimY));
        CHECK(r.max_grid_dim[2] == attr(d, cudaDevAttrMaxGridDimZ));
        CHECK(r.regs_per_block == attr(d, cudaDevAttrMaxRegistersPerBlock));
        CHECK(r.regs_per_sm == attr(d, cudaDevAttrMaxRegistersPerMultiprocessor));
        CHECK(r.shared_per_block == attr(d, cudaDevAttrMaxSharedMemoryPerBlock));
        CHECK(r.shared_per_block_optin == attr(d, cudaDevAttrMaxSharedMemoryPerBlockOptin));
        CHECK(r.shared_reserved_per_block == attr(d, cudaDevAttrReservedSharedMemoryPerBlock));
        CHECK(r.shared_per_sm == attr(d, cudaDevAttrMaxSharedMemoryPerMultiprocessor));
    }
}

STEP_HOST_CASE(kSteps, "limits", "prediction: blocks of 256 threads at 64 registers each on one H100 SM") {
    check_prediction("kBlocksPerSmAt64Registers", (double)kBlocksPerSmAt64Registers,
                     "per-SM limits: a block needs room for all its threads, a block slot and all its threads' registers");
}

// ---- step 2 ---------------------------------------------------------------------------------
STEP_CASE(kSteps, "memory", "every field equals cudaDeviceGetAttribute and cudaMemGetInfo, on every device") {
    for (int d = 0; d < device_count(); ++d) {
        CAPTURE(d);
        MemInfo before = mem_info(d);
        DeviceReport r = query_device(d);
        MemInfo after = mem_info(d);
        CHECK(r.const_bytes == attr(d, cudaDevAttrTotalConstantMemory));
        CHECK(r.l2_bytes == attr(d, cudaDevAttrL2CacheSize));
        CHECK(r.persisting_l2_max_bytes == attr(d, cudaDevAttrMaxPersistingL2CacheSize));
        CHECK(r.mem_bus_bits == attr(d, cudaDevAttrGlobalMemoryBusWidth));
        CHECK(r.mem_clock_khz == attr(d, cudaDevAttrMemoryClockRate));
        CHECK(r.global_total_bytes == (int64_t)after.total_b);
        // Free memory moves as other programs allocate: it must lie between the two readings
        // taken just before and after, give or take 64 MiB.
        const int64_t slack = 64 << 20;
        const int64_t lo = (int64_t)std::min(before.free_b, after.free_b) - slack;
        const int64_t hi = (int64_t)std::max(before.free_b, after.free_b) + slack;
        CAPTURE(before.free_b);
        CAPTURE(after.free_b);
        CHECK(r.global_free_bytes > 0);
        CHECK(r.global_free_bytes >= lo);
        CHECK(r.global_free_bytes <= hi);
        CHECK(r.global_free_bytes <= r.global_total_bytes);
    }
}

STEP_CASE(kSteps, "memory", "the calling thread's current device is unchanged afterwards") {
    const int n = device_count();
    const int current = n - 1;  // with two or more GPUs, query another device than the current one
    CUDA_CHECK(cudaSetDevice(current));
    DeviceReport r = query_device(0);
    int now = -1;
    CUDA_CHECK(cudaGetDevice(&now));
    CHECK(now == current);
    CHECK(r.global_total_bytes == (int64_t)mem_info(0).total_b);
    CUDA_CHECK(cudaSetDevice(0));
}

// ---- step 3 ---------------------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "bandwidth", "RTX 4090, 10501 MHz x 384 bits = 1008 GB/s") {
    CHECK(rounds_to(theoretical_bandwidth_gbs(10501000, 384), 1008, 1));
}
STEP_HOST_CASE(kSteps, "bandwidth", "H100 SXM, 2619 MHz x 5120 bits = 3352 GB/s") {
    CHECK(rounds_to(theoretical_bandwidth_gbs(2619000, 5120), 3352, 1));
}
STEP_HOST_CASE(kSteps, "bandwidth", "all four GPUs, with A100 40GB 1555 GB/s and T4 320 GB/s") {
    for (const Gpu& g : kGpus) {
        const std::string gpu = g.name;  // doctest would print a const char* as a pointer
        CAPTURE(gpu);
        double got = theoretical_bandwidth_gbs(g.mem_clock_khz, g.bus_bits);
        CAPTURE(got);
        CHECK(rounds_to(got, g.bandwidth_gbs, g.bandwidth_unit));
    }
}
STEP_HOST_CASE(kSteps, "bandwidth", "the exact formula, no int overflow, 0 for a zero clock or bus") {
    // 2 * 3201000 kHz * 6144 bits overflows 32-bit ints many times over.
    CHECK(theoretical_bandwidth_gbs(3201000, 6144) ==
          doctest::Approx(2 * 3.201e9 * 768 / 1e9).epsilon(1e-12));
    CHECK(theoretical_bandwidth_gbs(1000, 8) == doctest::Approx(0.002).epsilon(1e-12));
    CHECK(theoretical_bandwidth_gbs(0, 384) == 0.0);
    CHECK(theoretical_bandwidth_gbs(10501000, 0) == 0.0);
}

// ---- step 4 ---------------------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "fp32_cores", "published core counts (RTX 4090, H100 SXM, A100, T4)") {
    for (const Gpu& g : kGpus) {
        const std::string gpu = g.name;  // doctest would print a const char* as a pointer
        CAPTURE(gpu);
        CHECK(fp32_cores_per_sm(g.cc_major, g.cc_minor) * g.sm_count == g.total_cores);
    }
}
STEP_HOST_CASE(kSteps, "fp32_cores", "every architecture from Maxwell to Blackwell; 0 when unknown") {
    struct Case {
        int major, minor, cores;
    };
    const Case cases[] = {{5, 0, 128}, {5, 2, 128}, {6, 0, 64},   {6, 1, 128},  {6, 2, 128},
                          {7, 0, 64},  {7, 2, 64},  {7, 5, 64},   {8, 0, 64},   {8, 6, 128},
                          {8, 7, 128}, {8, 9, 128}, {9, 0, 128},  {10, 0, 128}, {10, 3, 128},
                          {11, 0, 128}, {12, 0, 128}, {12, 1, 128}, {99, 0, 0}, {0, 0, 0}};
    for (const Case& c : cases) {
        CAPTURE(c.major);
        CAPTURE(c.minor);
        CHECK(fp32_cores_per_sm(c.major, c.minor) == c.cores);
    }
}

// ---- step 5 ---------------------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "roofline", "RTX 4090, 128 SMs x 128 cores x 2.52 GHz = 82.6 TFLOP/s") {
    CHECK(rounds_to(peak_fp32_gflops(128, 128, 2520000) / 1000, 82.6, 0.1));
}
STEP_HOST_CASE(kSteps, "roofline", "H100 SXM 66.9, A100 19.5 and T4 8.1 TFLOP/s") {
    for (const Gpu& g : kGpus) {
        const std::string gpu = g.name;  // doctest would print a const char* as a pointer
        CAPTURE(gpu);
        const int cores = g.total_cores / g.sm_count;  // from the published counts, not step 4
        double tflops = peak_fp32_gflops(g.sm_count, cores, g.sm_clock_khz) / 1000;
        CAPTURE(tflops);
        CHECK(rounds_to(tflops, g.tflops, g.tflops_unit));
    }
}
STEP_HOST_CASE(kSteps, "roofline", "the exact formula, and ridge points in FLOP per byte") {
    CHECK(peak_fp32_gflops(132, 128, 1980000) ==
          doctest::Approx(2.0 * 132 * 128 * 1.98).epsilon(1e-12));
    CHECK(peak_fp32_gflops(0, 128, 1980000) == 0.0);
    // RTX 4090: 82.6 TFLOP/s over 1008 GB/s is about 82 FLOP per byte; H100 SXM about 20.
    CHECK(ridge_point(82575.36, 1008.096) == doctest::Approx(82575.36 / 1008.096).epsilon(1e-12));
    CHECK(rounds_to(ridge_point(66908.16, 3352.32), 20, 1));
    CHECK(ridge_point(1000.0, 0.0) == 0.0);
    CHECK(ridge_point(1000.0, -5.0) == 0.0);
}

STEP_HOST_CASE(kSteps, "roofline", "prediction: SAXPY's FLOP per DRAM byte") {
    check_prediction("kSaxpyFlopPerByte", kSaxpyFlopPerByte,
                     "arithmetic intensity: an FMA counts 2 FLOP; count every float read from or written to DRAM");
}

// ---- steps 3 and 5 on this GPU ---------------------------------------------------------------
STEP_CASE(kSteps, "bandwidth", "this GPU's figure equals common/gpu.h's device_facts()") {
    DeviceFacts f = device_facts(0);
    CHECK(theoretical_bandwidth_gbs(f.mem_clock_khz, f.mem_bus_bits) ==
          doctest::Approx(f.dram_gbs).epsilon(1e-9));
}
STEP_CASE(kSteps, "roofline", "this GPU's peak equals common/gpu.h's device_facts()") {
    DeviceFacts f = device_facts(0);
    const int lanes = fp32_lanes_per_sm(f.major, f.minor);
    if (lanes == 0) SKIP_CASE("common/gpu.h does not know this architecture's lanes per SM");
    CHECK(peak_fp32_gflops(f.sm_count, lanes, f.sm_clock_khz) ==
          doctest::Approx(f.fp32_gflops).epsilon(1e-9));
}

// ---- support --------------------------------------------------------------------------------
TEST_CASE("support: the FMA kernel computes what the CPU computes, in every thread" * needs_gpu()) {
    const int iterations = 1000;
    const float mul = 0.999f, add = 0.001f;
    for (int block : {32, 96, 256}) {
        const size_t blocks = 7;
        const size_t threads = blocks * block;
        CAPTURE(block);
        DeviceBuffer<float> out(threads);
        out.poison();
        run_fma_throughput(out.get(), blocks, block, iterations, mul, add);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<double> ref(threads);
        for (size_t t = 0; t < threads; ++t)
            ref[t] = fma_throughput_reference(t, iterations, mul, add);
        CHECK_MATCH(compare(out.download(), ref, Tolerance{1e-6, 0.0}));
    }
    run_fma_throughput(nullptr, 0, 256, iterations, mul, add);  // zero blocks: nothing, no error
    CUDA_CHECK(cudaDeviceSynchronize());
}
