// 01_device_query/peak_kernels.cu: support for the benchmark (not a student step).
//
// A kernel that does nothing but FP32 FMAs, to see how close a real kernel gets to the peak
// FLOP/s of step 5, and its launch and check for the benchmark. Each thread runs kFmaChains
// independent chains: an FMA takes a few clocks before its result can feed the next FMA of the
// same chain, and independent chains fill those clocks. The loop is unrolled so loop counting
// costs almost no issue slots.

#include "device_query.h"

#include <vector>
#include <cuda_runtime.h>

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

FmaLaunch fma_benchmark_launch() {
    FmaLaunch l;
    l.blocks = 4 * (size_t)one_wave_blocks((const void*)fma_throughput, l.block);
    return l;
}

std::string fma_throughput_mismatch(const std::vector<float>& out, const FmaLaunch& l) {
    // The CPU does the same float FMAs in the same order, so the tolerance only allows for ulps.
    std::vector<float> sample;
    std::vector<double> ref;
    for (size_t i = 0; i < 64 && out.size() == l.threads() && !out.empty(); ++i) {
        const size_t thread = i * (out.size() - 1) / 63;
        sample.push_back(out[thread]);
        ref.push_back(fma_throughput_reference(thread, l.iterations, l.mul, l.add));
    }
    if (sample.empty()) return "no output to check";
    const Comparison c = compare(sample, ref, Tolerance{1e-6, 0.0});
    return c.ok() ? "" : c.describe();
}
