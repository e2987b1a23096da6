// lattice.cu (support, not part of the exercise): advancing a lattice many generations with any
// step, and counting live cells on the GPU. Linked into both the program and the tests.
#include <climits>
#include <utility>

#include "game_of_life.h"

#include "cuda_check.h"

bool advance(Kernel k, DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
             long long generations, bool poison_each) {
    const size_t cells = width > 0 && height > 0 ? (size_t)width * height : 0;
    if (k == Kernel::single_block && cells > single_block_max_cells()) return false;
    if (cells == 0 || generations <= 0) return true;
    if (k == Kernel::single_block) {
        while (generations > 0) {  // one launch per INT_MAX generations: that is, one launch
            const int g = (int)std::min<long long>(generations, INT_MAX);
            if (poison_each) spare.poison();
            run_single_block(cur.get(), spare.get(), width, height, g);
            std::swap(cur, spare);
            generations -= g;
        }
    } else {
        // The host loop is the barrier between generations: a launch starts only after the
        // previous one (same stream) has finished, and the two buffers trade places each time.
        for (long long g = 0; g < generations; ++g) {
            if (poison_each) spare.poison();
            if (k == Kernel::global)
                run_global(cur.get(), spare.get(), width, height);
            else
                run_shared(cur.get(), spare.get(), width, height);
            std::swap(cur, spare);
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return true;
}

// Grid-stride sum of bytes, a warp-shuffle reduction, and one atomic per warp.
__global__ void count_alive_kernel(const uint8_t* __restrict__ cells, size_t n, unsigned long long* total) {
    unsigned long long sum = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sum += cells[i];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
    if (threadIdx.x % 32 == 0 && sum != 0) atomicAdd(total, sum);
}

unsigned long long count_alive(const uint8_t* cells, size_t n) {
    if (n == 0) return 0;
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int block = 256;
    const size_t blocks = std::min<size_t>((n + block - 1) / block, (size_t)sms * 8);
    DeviceBuffer<unsigned long long> total(1);
    CUDA_CHECK(cudaMemset(total.get(), 0, sizeof(unsigned long long)));
    count_alive_kernel<<<(unsigned)blocks, block>>>(cells, n, total.get());
    CUDA_CHECK_LAUNCH();
    return total.download()[0];
}
