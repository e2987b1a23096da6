// 01_device_query/peak_kernels.cu: support for the benchmark (not a student step).
//
// A kernel that does nothing but FP32 FMAs, to see how close a real kernel gets to the peak
// FLOP/s of step 5, and its measurement for the benchmark. Each thread runs kFmaChains
// independent chains: an FMA takes a few clocks before its result can feed the next FMA of the
// same chain, and independent chains fill those clocks. The loop is unrolled so loop counting
// costs almost no issue slots.

#include "device_query.h"

#include <vector>
#include <cuda_runtime.h>

#include "bench.h"
#include "compare.h"
#include "cuda_check.h"
#include "launch.h"

__global__ void fma_throughput(float* out, int iterations, float mul, float add) {
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // Start values differ per thread (k / 1024 is exact in float, so the CPU reference agrees).
    const float start = (float)(thread % 1024) * (1.0f / 1024.0f);
    float x[kFmaChains];
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) x[c] = start + (float)c;
    // mul and add are arguments, not constants: the compiler cannot fold the chain away.
#pragma unroll 16
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < kFmaChains; ++c) x[c] = fmaf(x[c], mul, add);
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) sum += x[c];
    out[thread] = sum;  // a result nobody stores is work the compiler may delete
}

void run_fma_throughput(float* out, size_t blocks, int block, int iterations, float mul,
                        float add) {
    if (blocks == 0) return;
    fma_throughput<<<(unsigned)blocks, block>>>(out, iterations, mul, add);
    CUDA_CHECK_LAUNCH();
}

FmaMeasurement measure_fma_throughput() {
    const int block = 256;
    const float mul = 0.999f, add = 0.001f;  // x -> x * 0.999 + 0.001 tends to 1: finite, normal
    FmaMeasurement m;
    m.iterations = 16384;
    m.threads = 4 * (size_t)one_wave_blocks((const void*)fma_throughput, block) * block;
    DeviceBuffer<float> out(m.threads);
    out.poison();
    m.median_ms =
        time_gpu([&] { run_fma_throughput(out.get(), m.threads / block, block, m.iterations, mul, add); }).median_ms;
    // The CPU does the same float FMAs in the same order, so the tolerance only allows for ulps.
    const std::vector<float> got = out.download();
    std::vector<float> sample;
    std::vector<double> ref;
    for (size_t i = 0; i < 64; ++i) {
        const size_t thread = i * (m.threads - 1) / 63;
        sample.push_back(got[thread]);
        ref.push_back(fma_throughput_reference(thread, m.iterations, mul, add));
    }
    const Comparison c = compare(sample, ref, Tolerance{1e-6, 0.0});
    m.ok = c.ok();
    m.problem = c.describe();
    return m;
}
