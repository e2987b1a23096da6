// 05_tree_reduce/legacy_tail.cu: the source material's warp-synchronous tail, kept ONLY to show
// what is wrong with it. No step uses it, no test runs it, and `make sanitize-05` leaves it out.
// `tree_reduce --volatile-demo` runs it; README.md, step 5, shows what racecheck says.
//
// The old tail relied on the 32 threads of a warp executing each instruction together
// ("lockstep"), so that every lane's read of buf[tid + s] happened before any lane's write of
// buf[tid]. `volatile` only stops the compiler from keeping buf[] in registers; it orders
// nothing between threads. Since Volta (2017) each thread has its own program counter and the
// warp may run in any interleaving: the reads and writes of neighbouring lanes race. It may
// still print the right number on a given GPU and compiler; that is luck, not correctness.
// It also reads buf[tid + 32], which does not exist for a block of 32 threads.
#include "tree_reduce.h"

#include <cstdio>

#include "cuda_check.h"

// As published, apart from the name and the unsigned index. DO NOT COPY THIS.
__device__ void legacy_warp_reduce(volatile float* buf, unsigned tid) {
    buf[tid] += buf[tid + 32];
    buf[tid] += buf[tid + 16];
    buf[tid] += buf[tid + 8];
    buf[tid] += buf[tid + 4];
    buf[tid] += buf[tid + 2];
    buf[tid] += buf[tid + 1];
}

// Step 5's kernel with the old tail (and with the bounds checks the source lacked, so that the
// tail is the only thing wrong with it).
__global__ void reduce_legacy_volatile_tail(const float* __restrict__ x, size_t n,
                                            float* __restrict__ partials) {
    extern __shared__ float buf[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    buf[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid < 32) legacy_warp_reduce(buf, tid);
    if (tid == 0) partials[blockIdx.x] = buf[0];
}

size_t legacy_tail_blocks(size_t n, int block) { return (n + 2 * (size_t)block - 1) / (2 * (size_t)block); }

void run_legacy_volatile_tail(const float* x, size_t n, float* partials, int block) {
    const size_t blocks = legacy_tail_blocks(n, block);
    if (blocks == 0) return;
    reduce_legacy_volatile_tail<<<(unsigned)blocks, block, block * sizeof(float)>>>(x, n, partials);
    CUDA_CHECK_LAUNCH();
}

int run_volatile_demo(size_t n, int block, uint64_t seed) {
    std::vector<float> x = random_whole_floats(n, seed);
    const double ref = sum_reference(x.data(), n).sum;
    DeviceBuffer<float> d_x(x);
    DeviceBuffer<float> partials(legacy_tail_blocks(n, block));
    partials.poison();
    run_legacy_volatile_tail(d_x.get(), n, partials.get(), block);
    CUDA_CHECK(cudaDeviceSynchronize());
    double got = 0;
    for (float v : partials.download()) got += v;  // whole numbers: exact in double
    std::printf("old volatile warp tail, %zu blocks of %d threads, block sums added on the CPU:\n"
                "  GPU %.1f, reference %.1f: %s\n",
                partials.size(), block, got, ref, got == ref ? "the same (this time)" : "DIFFERENT");
    std::printf("A right answer proves nothing: the lanes of a warp are not guaranteed to run in\n"
                "lockstep (Volta and later), so their reads and writes of buf[] race. See it with\n"
                "  compute-sanitizer --tool racecheck build/05_tree_reduce/solution/tree_reduce --volatile-demo --n 4096\n");
    return got == ref ? 0 : 1;
}
