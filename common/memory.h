// memory.h: how much memory there is, on the GPU and on the host, before anything is allocated.
#pragma once

#include <cstddef>
#include <cuda_runtime.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuda_check.h"

// Free device memory in bytes.
inline size_t free_gpu_bytes() {
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    return free_b;
}

// Physical host memory in bytes (0 when the system does not say).
inline double host_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page_bytes > 0 ? (double)pages * page_bytes : 0.0;
}

// The address space this process may use (`ulimit -v`) in bytes; 0 when it is unlimited.
inline double address_space_limit_bytes() {
    struct rlimit r;
    return getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? (double)r.rlim_cur : 0.0;
}
