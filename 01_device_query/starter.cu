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
// TODO(step 1): predict, on paper, kBlocksPerSmAt64Registers (device_query.h states the kernel
//               and the H100's limits): which per-SM limit runs out first?
const long long kBlocksPerSmAt64Registers = -1;  // your prediction

static void fill_limits(int device, DeviceReport& r) {
    // TODO(step 1): fill every step-1 field of r (device_query.h lists them, with units) for
    //               this device, each from exactly one cudaDeviceAttr value read with attr().
    //               Mind the look-alikes: per block vs per SM, default vs opt-in vs reserved.
}

// ---- Step 2: the memory system -----------------------------------------------------------------
static void fill_memory(int device, DeviceReport& r) {
    // TODO(step 2): fill the step-2 fields of r: five are attributes; total and free memory come
    //               from cudaMemGetInfo, which answers for the calling thread's CURRENT device.
    //               Leave the current device as you found it; check every CUDA call.
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
    return kNotDone;
}

// ---- Step 4: FP32 cores per SM -----------------------------------------------------------------
int fp32_cores_per_sm(int cc_major, int cc_minor) {
    // TODO(step 4): FP32 lanes per SM for compute capability cc_major.cc_minor, Maxwell (5.x) to
    //               Blackwell (10.x-12.x). CUDA does not report it: it is fixed per architecture
    //               (Programming Guide's throughput table). Unknown architecture: 0, never a guess.
    return (int)kNotDone;
}

// ---- Step 5: the roofline ----------------------------------------------------------------------
// TODO(step 5): predict, on paper, kSaxpyFlopPerByte (device_query.h): count the FLOP of one
//               element, and the DRAM bytes it moves.
const double kSaxpyFlopPerByte = -1;  // your prediction

double peak_fp32_gflops(int sm_count, int cores_per_sm, int sm_clock_khz) {
    // TODO(step 5): peak FP32 in GFLOP/s if every lane finishes one FMA (2 FLOP) per clock; the
    //               clock is in kHz. An RTX 4090 (128 SMs x 128 lanes at 2520000 kHz) gives
    //               82.6 TFLOP/s.
    return kNotDone;
}

double ridge_point(double peak_gflops, double bandwidth_gbs) {
    // TODO(step 5): the roofline's ridge point, in FLOP per DRAM byte: the arithmetic intensity
    //               at which a kernel needs the whole FLOP rate and the whole bandwidth at once.
    //               Return 0 when bandwidth_gbs is not positive.
    return kNotDone;
}
