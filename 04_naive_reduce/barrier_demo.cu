// 04_naive_reduce/barrier_demo.cu: what goes wrong when __syncthreads() sits inside an if.
// Run it with `make run-04 USE=solution ARGS="--demo barrier_in_if"`; the README explains it.
//
// The tree below is the source material's, with the barrier moved into the branch, as its
// warning describes: in round `half`, only threads t < half reach the barrier. After the tree,
// every thread reads the block's total (as a kernel would that scales its element by it).
// A barrier that part of the block never reaches is undefined behaviour: the waiting threads
// may wait forever (a deadlock), or be released while the others run ahead. Never copy this.
#include "cuda_check.h"
#include "naive_reduce.h"

__global__ void sum_barrier_in_if(const float* x, size_t n, float* partials, float* seen) {
    extern __shared__ float values[];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + t;
    values[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) {
            values[t] += values[t + half];
            __syncthreads();  // WRONG: threads t >= half never arrive here
        }
    }
    const float total = values[0];  // the block's total, as this thread sees it
    if (i < n) seen[i] = total;
    if (t == 0) partials[blockIdx.x] = total;
}

void run_barrier_in_if(const float* x, size_t n, float* partials, float* seen, int block_size) {
    if (n == 0) return;
    sum_barrier_in_if<<<barrier_demo_blocks(n, block_size), block_size, block_size * sizeof(float)>>>(
        x, n, partials, seen);
    CUDA_CHECK_LAUNCH();
}
