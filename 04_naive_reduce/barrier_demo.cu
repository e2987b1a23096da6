// 04_naive_reduce/barrier_demo.cu: what goes wrong when __syncthreads() sits inside an if.
// Run it with `make run-04 USE=solution ARGS="--demo barrier_in_if"`; the README explains it.
//
// The tree below is the source material's, with the barrier moved into the branch, as its
// warning describes: in round `half`, only threads t < half reach the barrier. After the tree,
// every thread reads the block's total (as a kernel would that scales its element by it).
// A barrier that part of the block never reaches is undefined behaviour: the waiting threads
// may wait forever (a deadlock), or be released while the others run ahead. Never copy this.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cuda_check.h"
#include "gpu.h"
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

// One block per block_size elements.
static void run_barrier_in_if(const float* x, size_t n, float* partials, float* seen, int block_size) {
    if (n == 0) return;
    sum_barrier_in_if<<<(unsigned)ceil_div(n, block_size), block_size, block_size * sizeof(float)>>>(x, n, partials,
                                                                                                   seen);
    CUDA_CHECK_LAUNCH();
}

// Runs the kernel once, with a watchdog, and reports what thread 0 and every other thread saw.
int run_barrier_demo(size_t n, int block) {
    const DeviceFacts dev = device_facts();
    const unsigned blocks = (unsigned)ceil_div(n, block);
    std::printf("The tree with __syncthreads() inside `if (t < half)`, on %s: %zu ones, %u blocks of %d\n",
                dev.name.c_str(), n, blocks, block);
    DeviceBuffer<float> x(std::vector<float>(n, 1.0f)), partials(blocks), seen(n);
    partials.poison();
    seen.poison();
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreate(&done));
    run_barrier_in_if(x.get(), n, partials.get(), seen.get(), block);
    CUDA_CHECK(cudaEventRecord(done));
    const auto start = std::chrono::steady_clock::now();
    cudaError_t state;
    while ((state = cudaEventQuery(done)) == cudaErrorNotReady) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
            std::printf("still running after 10 s: threads are waiting at a barrier that the rest of their\n"
                        "block never reaches (a deadlock). Exiting; the driver ends the kernel with the process.\n");
            std::fflush(stdout);
            std::_Exit(1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CUDA_CHECK(state);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<float> p = partials.download(), s = seen.download();
    size_t wrong_blocks = 0, wrong_threads = 0, example = n;
    for (unsigned b = 0; b < blocks; ++b) {
        const size_t first = (size_t)b * block, count = std::min<size_t>(block, n - first);
        if (p[b] != (float)count) ++wrong_blocks;
        for (size_t i = first; i < first + count; ++i)
            if (s[i] != (float)count && wrong_threads++ == 0) example = i;
    }
    std::printf("finished after %.1f ms (no deadlock on this GPU)\n", ms);
    std::printf("thread 0's block totals: %zu of %u wrong; their sum %.9g (expected %zu)\n", wrong_blocks, blocks,
                finish_sum(p), n);
    std::printf("the block total as each thread read it: %zu of %zu wrong", wrong_threads, n);
    if (wrong_threads)
        std::printf(" (e.g. thread %zu of block %zu read %g, not %d)", example % block, example / block, s[example],
                    block);
    std::printf("\n%s\n", wrong_threads ? "Threads that skipped the barrier ran ahead and read the total before it was complete."
                                         : "Right this time, by luck of this GPU and compiler: the code is still wrong.");
    CUDA_CHECK(cudaEventDestroy(done));
    return 0;
}
