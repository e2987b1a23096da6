// gpu.h: is there a usable GPU, and what are its theoretical limits?
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "exit_codes.h"

// ---- GPU presence -------------------------------------------------------------------------
// No driver (cudaErrorInsufficientDriver) and no device (cudaErrorNoDevice) both mean "no
// usable GPU": programs say so in one line and exit with code 2; tests skip (testing.h).
struct GpuPresence {
    bool usable = false;
    int count = 0;       // the devices CUDA shows, when usable
    std::string reason;  // empty when usable
};

inline GpuPresence probe_gpu() {
    GpuPresence p;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) {
        p.usable = true;
        p.count = count;
        return p;
    }
    cudaGetLastError();  // clear the sticky error so later calls start clean
    if (err == cudaErrorInsufficientDriver)
        p.reason = "no NVIDIA driver is loaded (or it is older than this CUDA runtime)";
    else if (err == cudaErrorNoDevice || err == cudaSuccess)
        p.reason = "no CUDA-capable GPU was found";
    else
        p.reason = std::string("the CUDA runtime cannot start: ") + cudaGetErrorName(err) + " (" +
                   cudaGetErrorString(err) + ")";
    return p;
}

// The version of the CUDA Toolkit this program was built with, e.g. "13.0".
inline std::string cuda_toolkit_version() {
    return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
}

// Programs call this first: one clear line and exit code 2 when there is no usable GPU.
// Returns how many devices CUDA shows (at least 1).
inline int require_gpu(const char* program) {
    GpuPresence p = probe_gpu();
    if (!p.usable) {
        std::fprintf(stderr, "%s: no usable GPU: %s (built with CUDA Toolkit %s)\n", program,
                     p.reason.c_str(), cuda_toolkit_version().c_str());
        std::exit(kExitNoGpu);
    }
    return p.count;
}

// ---- Device facts -------------------------------------------------------------------------
// Theoretical peaks are derived from what the device reports, never typed in. CUDA 13 removed
// cudaDeviceProp::clockRate and ::memoryClockRate; cudaDeviceGetAttribute still has both.
// (Students write these same formulas themselves, in the course's first exercise.)

// FP32 lanes ("CUDA cores") per SM: not reported by CUDA, fixed per architecture.
inline int fp32_lanes_per_sm(int major, int minor) {
    if (major == 6) return minor == 0 ? 64 : 128;  // Pascal: GP100 64, others 128
    if (major == 7) return 64;                     // Volta, Turing
    if (major == 8) return minor == 0 ? 64 : 128;  // A100 64; Ampere consumer, Ada 128
    if (major >= 9) return 128;                    // Hopper, Blackwell
    return 0;                                      // unknown: peaks read as 0
}

// Dense BF16 multiply-adds (FP32 accumulation) the tensor cores of one SM finish per clock: not
// reported by CUDA, fixed per architecture (NVIDIA's architecture whitepapers; an FMA is 2 FLOP).
// 0 where there are no BF16 tensor cores (before 8.0) or the generation is unknown. The GeForce
// cards of 8.6, 8.9 and 12.0 run FP32 accumulation at half this rate.
inline int bf16_tensor_fma_per_sm_per_clock(int major, int minor) {
    if (major == 8) return minor == 0 ? 1024 : 512;  // A100; Ampere GA10x, Ada (professional cards)
    if (major == 9) return 2048;                     // Hopper
    if (major == 10) return 4096;                    // Blackwell B200/B300
    if (major == 12) return 512;                     // Blackwell RTX (professional cards)
    return 0;
}

struct DeviceFacts {
    std::string name;
    int major = 0, minor = 0;
    int sm_count = 0;
    int max_threads_per_block = 0;
    int sm_clock_khz = 0;
    int mem_clock_khz = 0;
    int mem_bus_bits = 0;
    double dram_gbs = 0;      // theoretical DRAM bandwidth, GB/s (1e9 bytes)
    double fp32_gflops = 0;   // theoretical FP32 peak (an FMA counts as 2 FLOP), GFLOP/s
    double bf16_tensor_gflops = 0;  // theoretical dense BF16 tensor-core peak, FP32 sums, GFLOP/s (0: none)
};

// The facts of `device`; by default of the current device, the one kernels are launched on.
inline DeviceFacts device_facts(int device = -1) {
    if (device < 0) CUDA_CHECK(cudaGetDevice(&device));
    auto attr = [device](cudaDeviceAttr a) {
        int v = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
        return v;
    };
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    DeviceFacts f;
    f.name = prop.name;
    f.major = prop.major;
    f.minor = prop.minor;
    f.sm_count = attr(cudaDevAttrMultiProcessorCount);
    f.max_threads_per_block = attr(cudaDevAttrMaxThreadsPerBlock);
    f.sm_clock_khz = attr(cudaDevAttrClockRate);
    f.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
    f.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
    // Double data rate: two transfers per memory clock, bus width in bits / 8 bytes each.
    f.dram_gbs = 2.0 * f.mem_clock_khz * 1e3 * (f.mem_bus_bits / 8.0) / 1e9;
    f.fp32_gflops =
        2.0 * f.sm_count * fp32_lanes_per_sm(f.major, f.minor) * (f.sm_clock_khz * 1e3) / 1e9;
    f.bf16_tensor_gflops =
        2.0 * f.sm_count * bf16_tensor_fma_per_sm_per_clock(f.major, f.minor) * (f.sm_clock_khz * 1e3) / 1e9;
    return f;
}
