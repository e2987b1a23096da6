// launch.h: the small sums and checks every launcher does, written once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "exit_codes.h"

// Blocks of `per_block` needed to cover `count` items: the last block may be partly empty.
constexpr size_t ceil_div(size_t count, size_t per_block) { return (count + per_block - 1) / per_block; }

// Multiprocessors of the current device, asked once.
inline int sm_count() {
    static int count = 0;
    if (count == 0) {
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    }
    return count;
}

// Blocks that fill the GPU exactly once ("one wave"): as many as can be resident on every SM at
// the same time, for this kernel at this block size. Asked once per (kernel, block, shared
// memory) and remembered: the occupancy query costs microseconds, and a launcher that asked on
// every call would have that counted in its timings.
inline int one_wave_blocks(const void* kernel, int block, size_t dynamic_smem = 0) {
    static std::map<std::pair<const void*, uint64_t>, int> known;
    const auto key = std::make_pair(kernel, ((uint64_t)block << 32) | (uint64_t)dynamic_smem);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_smem));
    const int blocks = (per_sm > 0 ? per_sm : 1) * sm_count();
    known[key] = blocks;
    return blocks;
}

// Scratch memory from cudaMallocAsync comes from the device's stream-ordered pool. By default
// the pool hands freed memory back to the driver at every synchronisation, so the next call
// pays for a fresh allocation; this keeps it, making a per-call allocation nearly free.
inline void keep_pool_memory() {
    static bool done = false;
    if (done) return;
    int dev = 0;
    cudaMemPool_t pool;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
    uint64_t keep_all = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    done = true;
}

// A launcher's limit on its size (one block holds at most 1024 threads, say). The programs never
// pass more, but a test or a student's call might: one line naming the launcher and the limit,
// and exit code 2, as for any size a program refuses.
inline void require_size(bool ok, const char* launcher, size_t n, const char* limit) {
    if (ok) return;
    std::fprintf(stderr, "%s: n = %zu is too large (%s)\n", launcher, n, limit);
    std::exit(kExitBadInput);
}

// The smallest power of two >= n (1 for n = 0): the size a tree over n items works on.
constexpr size_t next_pow2(size_t n) {
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}
