// 04_naive_reduce/atomic_per_thread.cu: the source blog's first improvement on atomic_each,
// given (not a step): each thread adds its share of x in a register, reading 16 bytes (a float4)
// at a time, and only then sends ONE atomicAdd to the single result. The atomics on that one
// address drop from n to the number of threads, but they still happen one after another.
#include <cstdint>

#include "naive_reduce.h"

__global__ void sum_atomic_per_thread(const float* __restrict__ x, size_t n, float* sum) {
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    float mine = 0.0f;
    // cudaMalloc'd buffers are aligned for float4; any other pointer takes the float loop.
    const bool aligned = (reinterpret_cast<uintptr_t>(x) % sizeof(float4)) == 0;
    const size_t quads = aligned ? n / 4 : 0;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (size_t q = first; q < quads; q += stride) {
        const float4 v = x4[q];
        mine += (v.x + v.y) + (v.z + v.w);
    }
    for (size_t i = 4 * quads + first; i < n; i += stride) mine += x[i];  // the last 0 to 3 (or all)
    atomicAdd(sum, mine);
}

void run_atomic_per_thread(const float* x, size_t n, float* sum, int block_size) {
    CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(float)));
    if (n == 0) return;
    sum_atomic_per_thread<<<reduce_blocks(ceil_div(n, 4), block_size), block_size>>>(x, n, sum);
    CUDA_CHECK(cudaGetLastError());
}
