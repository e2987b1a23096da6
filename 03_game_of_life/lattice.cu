// lattice.cu (support, not part of the exercise): advancing a lattice many generations with each
// step (kSteps in game_of_life.h), and counting live cells on the GPU. Linked into both the
// program and the tests.
#include <algorithm>
#include <climits>
#include <utility>

#include "game_of_life.h"

#include "cuda_check.h"
#include "launch.h"

// global and shared: one launch per generation. The host loop is the barrier between
// generations: a launch starts only after the previous one (same stream) has finished, and the
// two buffers trade places each time.
static long long advance_one_per_launch(void (*run)(const uint8_t*, uint8_t*, int, int), DeviceBuffer<uint8_t>& cur,
                                        DeviceBuffer<uint8_t>& spare, int width, int height, long long generations,
                                        bool poison_each) {
    if (width <= 0 || height <= 0 || generations <= 0) return 0;
    for (long long g = 0; g < generations; ++g) {
        if (poison_each) spare.poison();
        run(cur.get(), spare.get(), width, height);
        std::swap(cur, spare);
    }
    return generations;
}

long long advance_global(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                         long long generations, bool poison_each) {
    return advance_one_per_launch(run_global, cur, spare, width, height, generations, poison_each);
}

long long advance_shared(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                         long long generations, bool poison_each) {
    return advance_one_per_launch(run_shared, cur, spare, width, height, generations, poison_each);
}

long long advance_single_block(DeviceBuffer<uint8_t>& cur, DeviceBuffer<uint8_t>& spare, int width, int height,
                               long long generations, bool poison_each) {
    const size_t cells = width > 0 && height > 0 ? (size_t)width * height : 0;
    if (cells > single_block_max_cells()) return -1;
    long long launches = 0;
    for (; cells > 0 && generations > 0; ++launches) {  // one launch per INT_MAX generations: that is, one
        const int g = (int)std::min<long long>(generations, INT_MAX);
        if (poison_each) spare.poison();
        run_single_block(cur.get(), spare.get(), width, height, g);
        std::swap(cur, spare);
        generations -= g;
    }
    return launches;
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
    const int block = 256;
    const size_t blocks = std::min<size_t>(ceil_div(n, block), (size_t)sm_count() * 8);
    DeviceBuffer<unsigned long long> total(1);
    CUDA_CHECK(cudaMemset(total.get(), 0, sizeof(unsigned long long)));
    count_alive_kernel<<<(unsigned)blocks, block>>>(cells, n, total.get());
    CUDA_CHECK_LAUNCH();
    return total.download()[0];
}
