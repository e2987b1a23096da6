// l2_flush.cu: evicts L2 by reading a buffer larger than it (bench.h's flush_l2() calls this).
//
// Reading, not writing: a memset would leave L2 full of dirty lines, and writing those back to
// DRAM would happen during the next timed kernel, charging it for traffic that is not its own.
// After this kernel L2 holds only clean lines of the scratch buffer, as if cold.
#include <cstddef>
#include <cuda_runtime.h>

#include "cuda_check.h"

__global__ void read_to_evict(const int4* buffer, size_t count, int* never_written) {
    int acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = buffer[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff) *never_written = acc;  // keeps the loads; the buffer holds zeros
}

void l2_flush_by_reading(const void* buffer, size_t bytes, int* sink) {
    read_to_evict<<<1024, 256>>>(static_cast<const int4*>(buffer), bytes / sizeof(int4), sink);
    CUDA_CHECK_LAUNCH();
}
