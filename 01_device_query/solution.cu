// BEGIN SOLUTION
// 01_device_query/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 01_device_query/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-01` shows which steps pass and `make run-01` shows the program's output.
//
// What is this GPU made of, and how fast could it possibly go? Steps 1-2 ask the CUDA runtime;
// steps 3-5 turn its answers into the two numbers every later exercise is measured against:
// peak DRAM bandwidth and peak FP32 FLOP/s.

#include "device_query.h"

#include <cuda_runtime.h>

#include "cuda_check.h"

// One attribute of one device. cudaDeviceGetAttribute asks for exactly one value, is cheap, and
// keeps working when fields disappear from cudaDeviceProp (CUDA 13 removed clockRate and
// memoryClockRate from the struct; the attributes cudaDevAttrClockRate and
// cudaDevAttrMemoryClockRate are still there). [[maybe_unused]]: unused until you start step 1.
[[maybe_unused]] static int attr(int device, cudaDeviceAttr what) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
    return value;
}

// ---- Step 1: the SMs and the launch limits -----------------------------------------------------
// TODO(step 1): predict, on paper, kBlocksPerSmAt64Registers (device_query.h states the kernel
//               and the H100's limits): which per-SM limit runs out first?
// BEGIN SOLUTION
const long long kBlocksPerSmAt64Registers = 4;  // registers: 65536 / (256 x 64); threads allow 8
// END SOLUTION
// STARTER: const long long kBlocksPerSmAt64Registers = -1;  // your prediction

static void fill_limits(int device, DeviceReport& r) {
    // TODO(step 1): fill every step-1 field of r (device_query.h lists them, with units) for
    //               this device, each from exactly one cudaDeviceAttr value read with attr().
    //               Mind the look-alikes: per block vs per SM, default vs opt-in vs reserved.
    // BEGIN SOLUTION
    r.cc_major = attr(device, cudaDevAttrComputeCapabilityMajor);
    r.cc_minor = attr(device, cudaDevAttrComputeCapabilityMinor);
    r.sm_count = attr(device, cudaDevAttrMultiProcessorCount);
    r.sm_clock_khz = attr(device, cudaDevAttrClockRate);
    r.warp_size = attr(device, cudaDevAttrWarpSize);
    r.max_threads_per_block = attr(device, cudaDevAttrMaxThreadsPerBlock);
    r.max_threads_per_sm = attr(device, cudaDevAttrMaxThreadsPerMultiProcessor);
    r.max_blocks_per_sm = attr(device, cudaDevAttrMaxBlocksPerMultiprocessor);
    r.max_block_dim[0] = attr(device, cudaDevAttrMaxBlockDimX);
    r.max_block_dim[1] = attr(device, cudaDevAttrMaxBlockDimY);
    r.max_block_dim[2] = attr(device, cudaDevAttrMaxBlockDimZ);
    r.max_grid_dim[0] = attr(device, cudaDevAttrMaxGridDimX);
    r.max_grid_dim[1] = attr(device, cudaDevAttrMaxGridDimY);
    r.max_grid_dim[2] = attr(device, cudaDevAttrMaxGridDimZ);
    r.regs_per_block = attr(device, cudaDevAttrMaxRegistersPerBlock);
    r.regs_per_sm = attr(device, cudaDevAttrMaxRegistersPerMultiprocessor);
    r.shared_per_block = attr(device, cudaDevAttrMaxSharedMemoryPerBlock);
    r.shared_per_block_optin = attr(device, cudaDevAttrMaxSharedMemoryPerBlockOptin);
    r.shared_reserved_per_block = attr(device, cudaDevAttrReservedSharedMemoryPerBlock);
    r.shared_per_sm = attr(device, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    // END SOLUTION
}

// ---- Step 2: the memory system -----------------------------------------------------------------
static void fill_memory(int device, DeviceReport& r) {
    // TODO(step 2): fill the step-2 fields of r: five are attributes; total and free memory come
    //               from cudaMemGetInfo, which answers for the calling thread's CURRENT device.
    //               Leave the current device as you found it; check every CUDA call.
    // BEGIN SOLUTION
    r.const_bytes = attr(device, cudaDevAttrTotalConstantMemory);
    r.l2_bytes = attr(device, cudaDevAttrL2CacheSize);
    r.persisting_l2_max_bytes = attr(device, cudaDevAttrMaxPersistingL2CacheSize);
    r.mem_bus_bits = attr(device, cudaDevAttrGlobalMemoryBusWidth);
    r.mem_clock_khz = attr(device, cudaDevAttrMemoryClockRate);
    int previous = 0;
    CUDA_CHECK(cudaGetDevice(&previous));
    CUDA_CHECK(cudaSetDevice(device));
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    CUDA_CHECK(cudaSetDevice(previous));
    r.global_total_bytes = (int64_t)total_b;
    r.global_free_bytes = (int64_t)free_b;
    // END SOLUTION
}

DeviceReport query_device(int device) {
    DeviceReport r;
    r.device = device;
    cudaDeviceProp prop;  // the name is not an attribute: take it from the struct
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    r.name = prop.name;
    fill_limits(device, r);
    fill_memory(device, r);
    return r;
}

// ---- Step 3: theoretical DRAM bandwidth --------------------------------------------------------
double theoretical_bandwidth_gbs(int mem_clock_khz, int bus_bits) {
    // TODO(step 3): the theoretical DRAM bandwidth in GB/s (1e9 bytes/s) of a double-data-rate
    //               bus: mem_clock_khz is in kHz, bus_bits in bits. An RTX 4090 (10501000 kHz,
    //               384 bits) gives 1008 GB/s. No int overflow for any inputs; 0 if either is 0.
    // BEGIN SOLUTION
    return 2.0 * (mem_clock_khz * 1e3) * (bus_bits / 8.0) / 1e9;
    // END SOLUTION
    // STARTER: return kNotDone;
}

// ---- Step 4: FP32 cores per SM -----------------------------------------------------------------
int fp32_cores_per_sm(int cc_major, int cc_minor) {
    // TODO(step 4): FP32 lanes per SM for compute capability cc_major.cc_minor, Maxwell (5.x) to
    //               Blackwell (10.x-12.x). CUDA does not report it: it is fixed per architecture
    //               (Programming Guide's throughput table). Unknown architecture: 0, never a guess.
    // BEGIN SOLUTION
    switch (cc_major) {
        case 5: return 128;                               // Maxwell
        case 6: return cc_minor == 0 ? 64 : 128;          // Pascal: GP100 64, the others 128
        case 7: return (cc_minor == 0 || cc_minor == 2 || cc_minor == 5) ? 64 : 0;  // Volta, Turing
        case 8:  // Ampere: A100 64; GA10x, Orin and Ada 128
            if (cc_minor == 0) return 64;
            return (cc_minor == 6 || cc_minor == 7 || cc_minor == 9) ? 128 : 0;
        case 9: return cc_minor == 0 ? 128 : 0;           // Hopper
        case 10: case 11: case 12: return 128;            // Blackwell
        default: return 0;
    }
    // END SOLUTION
    // STARTER: return (int)kNotDone;
}

// ---- Step 5: the roofline ----------------------------------------------------------------------
// TODO(step 5): predict, on paper, kSaxpyFlopPerByte (device_query.h): count the FLOP of one
//               element, and the DRAM bytes it moves.
// BEGIN SOLUTION
const double kSaxpyFlopPerByte = 2.0 / 12.0;  // one FMA; x[i] and y[i] read, y[i] written
// END SOLUTION
// STARTER: const double kSaxpyFlopPerByte = -1;  // your prediction

double peak_fp32_gflops(int sm_count, int cores_per_sm, int sm_clock_khz) {
    // TODO(step 5): peak FP32 in GFLOP/s if every lane finishes one FMA (2 FLOP) per clock; the
    //               clock is in kHz. An RTX 4090 (128 SMs x 128 lanes at 2520000 kHz) gives
    //               82.6 TFLOP/s.
    // BEGIN SOLUTION
    return 2.0 * sm_count * cores_per_sm * (sm_clock_khz * 1e3) / 1e9;
    // END SOLUTION
    // STARTER: return kNotDone;
}

double ridge_point(double peak_gflops, double bandwidth_gbs) {
    // TODO(step 5): the roofline's ridge point, in FLOP per DRAM byte: the arithmetic intensity
    //               at which a kernel needs the whole FLOP rate and the whole bandwidth at once.
    //               Return 0 when bandwidth_gbs is not positive.
    // BEGIN SOLUTION
    return bandwidth_gbs > 0 ? peak_gflops / bandwidth_gbs : 0.0;
    // END SOLUTION
    // STARTER: return kNotDone;
}
