// 07_prefix_scan/racy_demo.cu: the source material's naive scan, kept ONLY to show what is wrong
// with it. No step uses it and no test runs it; `prefix_scan --racy-demo` runs it, and
// `make sanitize-07` requires racecheck to report it. Step 1's scan_naive_block is the fix.
#include <cstdio>
#include <vector>

#include "prefix_scan.h"

#include "buffer.h"
#include "cuda_check.h"

// The source's kernel, which updates ONE buffer in place. In a step, thread i reads
// buf[i - offset] while thread i - offset may already have overwritten it with this step's
// value: a read/write race. Whether the answer comes out wrong depends on how the warps happen
// to be scheduled, so a test can pass by luck; `compute-sanitizer --tool racecheck` reports the
// hazard every time. DO NOT COPY THIS.
__global__ void scan_naive_block_racy(const int* in, int* out, int n) {
    __shared__ int buf[kNaiveMaxN];
    const int i = threadIdx.x;
    buf[i] = in[i];
    for (int offset = 1; offset < n; offset *= 2) {
        __syncthreads();
        if (i >= offset) buf[i] += buf[i - offset];  // RACE: read and write of one step overlap
    }
    __syncthreads();
    out[i] = buf[i];
}

int run_racy_demo(uint64_t seed) {
    const size_t n = kNaiveMaxN;
    const std::vector<int> x = int_input(n, seed);
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    DeviceBuffer<int> d_in(x), d_out(n);
    const int runs = 100;
    int wrong_runs = 0;
    Comparison first_wrong;
    for (int r = 0; r < runs; ++r) {
        d_out.poison();
        scan_naive_block_racy<<<1, (unsigned)n>>>(d_in.get(), d_out.get(), (int)n);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        const Comparison c = compare_exact(d_out.download(), ref);
        if (!c.ok() && wrong_runs++ == 0) first_wrong = c;
    }
    std::printf("Racy naive scan (one shared buffer updated in place), n = %zu, %d runs:\n", n, runs);
    std::printf("  %d of %d runs gave a wrong result%s%s\n", wrong_runs, runs, wrong_runs ? "; the first: " : "",
                wrong_runs ? first_wrong.describe().c_str() : "");
    std::printf("A race need not show up in a test: whether it does depends on the order in which warps\n"
                "happen to run. compute-sanitizer finds it whatever the outcome:\n"
                "  compute-sanitizer --tool racecheck build/07_prefix_scan/solution/prefix_scan --racy-demo\n"
                "Step 1's double-buffered scan_naive_block has no such hazard (make sanitize-07).\n");
    return 0;
}
