// device_query.h: the interface of exercise 01, what is this GPU made of and how fast could it be?
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
// Names differ on purpose from common/gpu.h (device_facts, fp32_lanes_per_sm), which computes
// the same peaks for the other exercises: here you write them yourself, and both headers can be
// included together.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "steps.h"

// Every numeric field starts at kNotFilled, so the program can print "(TODO step N)" for a field
// the starter has not filled in yet. Byte counts are int64_t so they can hold it too.
constexpr int kNotFilled = -1;

struct DeviceReport {
    int device = kNotFilled;
    std::string name;  // filled in for you (the starter already shows it)

    // Step 1: what one SM offers, and the launch limits.
    int cc_major = kNotFilled, cc_minor = kNotFilled;  // compute capability
    int sm_count = kNotFilled;                         // streaming multiprocessors
    int sm_clock_khz = kNotFilled;                     // the SMs' highest clock, kHz
    int warp_size = kNotFilled;
    int max_threads_per_block = kNotFilled;
    int max_threads_per_sm = kNotFilled;
    int max_blocks_per_sm = kNotFilled;
    int max_block_dim[3] = {kNotFilled, kNotFilled, kNotFilled};  // x, y, z
    int max_grid_dim[3] = {kNotFilled, kNotFilled, kNotFilled};   // x, y, z
    int regs_per_block = kNotFilled;  // 32-bit registers
    int regs_per_sm = kNotFilled;
    int64_t shared_per_block = kNotFilled;        // bytes, without opting in
    int64_t shared_per_block_optin = kNotFilled;  // bytes, after cudaFuncSetAttribute
    int64_t shared_reserved_per_block = kNotFilled;  // bytes the driver keeps per block
    int64_t shared_per_sm = kNotFilled;           // bytes

    // Step 2: the memory system.
    int64_t const_bytes = kNotFilled;          // __constant__ memory
    int64_t global_total_bytes = kNotFilled;   // device memory (cudaMemGetInfo's total)
    int64_t global_free_bytes = kNotFilled;    // free when queried
    int64_t l2_bytes = kNotFilled;
    int64_t persisting_l2_max_bytes = kNotFilled;  // L2 that may be set aside for persisting data
    int mem_bus_bits = kNotFilled;             // memory interface width
    int mem_clock_khz = kNotFilled;            // memory clock as CUDA reports it, kHz
};

// Steps 1 and 2: the report for one device (0 <= device < cudaGetDeviceCount()). Leaves the
// calling thread's current device as it found it.
DeviceReport query_device(int device);

// Step 3: theoretical DRAM bandwidth in GB/s (1e9 bytes per second) from the memory clock in kHz
// and the bus width in bits: two transfers per reported clock (double data rate), bus_bits / 8
// bytes per transfer.
double theoretical_bandwidth_gbs(int mem_clock_khz, int bus_bits);

// Step 4: FP32 lanes ("CUDA cores") per SM for a compute capability; 0 when the architecture is
// not known to the function.
int fp32_cores_per_sm(int cc_major, int cc_minor);

// Step 5: peak FP32 GFLOP/s (an FMA counts as 2 FLOP, one per lane per clock), and the roofline's
// ridge point in FLOP per byte of DRAM traffic (0 when the bandwidth is not positive).
double peak_fp32_gflops(int sm_count, int cores_per_sm, int sm_clock_khz);
double ridge_point(double peak_gflops, double bandwidth_gbs);

// The starter's placeholders return this from the step 3-5 functions, so the program can tell
// "not done yet" from a real answer.
constexpr double kNotDone = -1.0;

// Predictions: numbers you work out on paper before you run anything, written in starter.cu
// (its placeholders are -1); the tests of the step they belong to check them against
// answers.cpp, which holds the working-out (open it once a prediction passes).
// Step 1: a kernel runs blocks of 256 threads and uses 64 registers per thread. How many of its
// blocks can one H100 SM hold at once (2048 threads, 32 blocks, 65536 registers per SM)?
extern const long long kBlocksPerSmAt64Registers;
// Step 5: SAXPY in FP32, y[i] = a * x[i] + y[i] for large n (too large for any cache): its
// arithmetic intensity, in FLOP per byte of DRAM traffic.
extern const double kSaxpyFlopPerByte;

// ---- The steps, declared once: the program's "(TODO step N name)" marks, the tests and their
// summary all read this list. Each step's `run` asks your code whether the step has an answer
// yet: steps 1-2 leave kNotFilled in the fields they have not set, and the starter's step 3-5
// placeholders return kNotDone whatever the input.
inline bool all_filled(std::initializer_list<int64_t> fields) {
    for (int64_t f : fields)
        if (f < 0) return false;
    return true;
}
// What each step's answer is needed for in the program's listing, a bit each: the report's fields
// it fills and the derived figures that cannot be shown without it. A field or figure whose steps
// are not all done is shown as "(TODO step N name)".
enum ListingPart : unsigned {
    kLimitFields = 1, kMemoryFields = 2, kBandwidthFigure = 4, kCoresFigure = 8, kPeakFigure = 16, kRidgeFigure = 32
};
struct QueryInfo {
    unsigned needed_for;  // ListingPart bits
};
using StepDoneFn = bool (*)(const DeviceReport& report);
using QueryStep = Step<StepDoneFn, QueryInfo>;
inline const QueryStep kSteps[] = {
    {1, "limits",
     [](const DeviceReport& r) {
         return all_filled({r.cc_major, r.cc_minor, r.sm_count, r.sm_clock_khz, r.warp_size, r.max_threads_per_block,
                            r.max_threads_per_sm, r.max_blocks_per_sm, r.max_block_dim[0], r.max_block_dim[1],
                            r.max_block_dim[2], r.max_grid_dim[0], r.max_grid_dim[1], r.max_grid_dim[2],
                            r.regs_per_block, r.regs_per_sm, r.shared_per_block, r.shared_per_block_optin,
                            r.shared_reserved_per_block, r.shared_per_sm});
     },
     {kLimitFields | kCoresFigure | kPeakFigure | kRidgeFigure}},
    {2, "memory",
     [](const DeviceReport& r) {
         return all_filled({r.const_bytes, r.global_total_bytes, r.global_free_bytes, r.l2_bytes,
                            r.persisting_l2_max_bytes, r.mem_bus_bits, r.mem_clock_khz});
     },
     {kMemoryFields | kBandwidthFigure | kRidgeFigure}},
    {3, "bandwidth", [](const DeviceReport&) { return theoretical_bandwidth_gbs(1000, 64) != kNotDone; },
     {kBandwidthFigure | kRidgeFigure}},
    {4, "fp32_cores", [](const DeviceReport&) { return fp32_cores_per_sm(9, 0) != (int)kNotDone; },
     {kCoresFigure | kPeakFigure | kRidgeFigure}},
    {5, "roofline",
     [](const DeviceReport&) { return peak_fp32_gflops(1, 64, 1000) != kNotDone && ridge_point(1, 1) != kNotDone; },
     {kPeakFigure | kRidgeFigure}},
};

// ---- Support (peak_kernels.cu), not a student step -------------------------------------------
// A kernel that does nothing but FP32 FMAs: each thread runs kFmaChains independent chains
// x = x * mul + add for `iterations` steps and writes the sum of its chains to out[thread].
// Independent chains keep the FMA pipes busy while each FMA waits for the previous one in its
// chain; writing the result keeps the compiler from deleting the work.
constexpr int kFmaChains = 8;
// Launches blocks x block threads (out holds blocks * block floats, device memory).
// Asynchronous; blocks == 0 does nothing.
void run_fma_throughput(float* out, size_t blocks, int block, int iterations, float mul, float add);

// The benchmark's FMA launch on the current device: four full waves of 256-thread blocks, each
// thread kFmaChains x 16384 FMAs of x -> x * mul + add (mul and add keep x finite and normal).
struct FmaLaunch {
    size_t blocks = 0;
    int block = 256;
    int iterations = 16384;
    float mul = 0.999f, add = 0.001f;
    size_t threads() const { return blocks * (size_t)block; }
};
FmaLaunch fma_benchmark_launch();
// Its output checked at 64 threads spread over the grid against the CPU reference: "" when they
// match, else what differs (a fast wrong kernel is no result).
std::string fma_throughput_mismatch(const std::vector<float>& out, const FmaLaunch& launch);

// FLOP done by one launch.
inline double fma_throughput_flop(size_t threads, int iterations) {
    return 2.0 * kFmaChains * (double)iterations * (double)threads;
}
// The CPU reference for one thread's output: the same float FMAs in the same order (std::fma is
// correctly rounded, as the GPU's FFMA is), so the GPU's value should match to the last bit.
inline float fma_throughput_reference(size_t thread, int iterations, float mul, float add) {
    const float start = (float)(thread % 1024) * (1.0f / 1024.0f);
    float sum = 0.0f;
    for (int c = 0; c < kFmaChains; ++c) {
        float x = start + (float)c;
        for (int i = 0; i < iterations; ++i) x = std::fma(x, mul, add);
        sum += x;
    }
    return sum;
}
