// 01_device_query/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-01` shows which steps pass and `make run-01` shows the program's output.
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
static void fill_limits(int device, DeviceReport& r) {
    // TODO(step 1): fill every step-1 field of r (see device_query.h), one attribute each:
    //               r.sm_count = attr(device, cudaDevAttrMultiProcessorCount); and so on. The
    //               names are in the runtime API's cudaDeviceAttr list (driver_types.h), e.g.
    //               cudaDevAttrComputeCapabilityMajor, cudaDevAttrClockRate (kHz),
    //               cudaDevAttrMaxBlockDimX, cudaDevAttrMaxGridDimZ, cudaDevAttrWarpSize,
    //               cudaDevAttrMaxRegistersPerMultiprocessor,
    //               cudaDevAttrMaxSharedMemoryPerBlockOptin, cudaDevAttrReservedSharedMemoryPerBlock.
}

// ---- Step 2: the memory system -----------------------------------------------------------------
static void fill_memory(int device, DeviceReport& r) {
    // TODO(step 2): fill the step-2 fields. Constant memory, L2, persisting-L2 maximum, bus width
    //               and memory clock (kHz) are attributes. Total and free device memory come from
    //               cudaMemGetInfo(&free, &total), which answers for the CURRENT device: remember
    //               it (cudaGetDevice), switch with cudaSetDevice(device), ask, and switch back.
    //               Check every call with CUDA_CHECK.
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
    // TODO(step 3): bytes per second = 2 transfers per clock x clock in Hz x bus_bits / 8 bytes;
    //               return it in GB/s (1e9 bytes/s, as memory vendors count). An RTX 4090
    //               (10501000 kHz, 384 bits) gives 1008 GB/s. Mind the units: kHz, bits.
    return kNotDone;
}

// ---- Step 4: FP32 cores per SM -----------------------------------------------------------------
int fp32_cores_per_sm(int cc_major, int cc_minor) {
    // TODO(step 4): CUDA does not report this; it is fixed per architecture (the CUDA C++
    //               Programming Guide's "arithmetic instructions" throughput table, or the
    //               architecture whitepapers). 64 for Volta 7.0, Xavier 7.2, Turing 7.5 and the
    //               A100 (8.0); 128 for the other Ampere chips (8.6, 8.7), Ada (8.9), Hopper (9.0)
    //               and Blackwell (10.x, 11.x, 12.x). Older: Pascal 6.0 is 64, 6.1 and 6.2 are
    //               128, Maxwell 5.x 128. Anything else: return 0 (unknown), never a guess.
    return (int)kNotDone;
}

// ---- Step 5: the roofline ----------------------------------------------------------------------
double peak_fp32_gflops(int sm_count, int cores_per_sm, int sm_clock_khz) {
    // TODO(step 5): every FP32 lane can finish one FMA (a * b + c, 2 FLOP) per clock:
    //               2 x SMs x lanes per SM x clock in Hz, in GFLOP/s. 128 SMs x 128 lanes at
    //               2520 MHz (an RTX 4090) gives 82.6 TFLOP/s = 82600 GFLOP/s.
    return kNotDone;
}

double ridge_point(double peak_gflops, double bandwidth_gbs) {
    // TODO(step 5): the arithmetic intensity (FLOP per byte of DRAM traffic) at which a kernel
    //               needs the whole bandwidth and the whole FLOP rate at once: peak / bandwidth.
    //               Return 0 when bandwidth_gbs is not positive (no division by zero).
    return kNotDone;
}
