// BEGIN SOLUTION
// 02_scalar_multiply/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 02_scalar_multiply/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-02` shows which steps pass and `make run-02` shows the program's output.
//
// out[i] = a * x[i], four ways. Each kernel shows one idea about mapping threads to data.

#include "scalar_multiply.h"

#include <cstdint>

#include "cuda_check.h"
#include "launch.h"

// ---- Step 1: one block ------------------------------------------------------------------------
// A block is a group of up to 1024 threads that run on one SM. With a single block, a thread's
// position in its block, threadIdx.x, is already a unique element index.
__global__ void scale_one_block(float a, const float* x, float* out, size_t n) {
    // TODO(step 1): thread threadIdx.x of the single block writes out[threadIdx.x] = a * x[...].
    //               A thread without an element (index >= n) must not touch memory.
    // BEGIN SOLUTION
    unsigned i = threadIdx.x;
    if (i < n) out[i] = a * x[i];
    // END SOLUTION
}

void run_one_block(float a, const float* x, float* out, size_t n) {
    if (n == 0) return;  // a launch of zero threads is an error, not an empty launch
    // TODO(step 1): launch scale_one_block as ONE block with a thread per element (n <= 1024),
    //               then check the launch (common/cuda_check.h has the check).
    // BEGIN SOLUTION
    scale_one_block<<<1, (unsigned)n>>>(a, x, out, n);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// ---- Step 2: many blocks ----------------------------------------------------------------------
// One thread per element across a 1D grid of blocks. The grid is rounded up to whole blocks, so
// the last block may have threads with no element: they must do nothing.
__global__ void scale_many_blocks(float a, const float* x, float* out, size_t n) {
    // TODO(step 2): one element per thread across the whole grid: find this thread's element
    //               from its block's and its own position, and write it only if it exists.
    //               n may exceed 2^31: the index must neither go negative nor wrap around.
    // BEGIN SOLUTION
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i];
    // END SOLUTION
}

// TODO(step 2): predict, on paper, kBlocksAt2To31Plus5 (scalar_multiply.h).
// BEGIN SOLUTION
const long long kBlocksAt2To31Plus5 = 8388609;  // 2^23 full blocks and one with 5 elements
// END SOLUTION
// STARTER: const long long kBlocksAt2To31Plus5 = -1;  // your prediction

void run_many_blocks(float a, const float* x, float* out, size_t n, int block_size) {
    if (n == 0) return;
    // TODO(step 2): launch enough blocks of block_size threads that every element gets a thread
    //               (n need not be a multiple of block_size), and check the launch.
    // BEGIN SOLUTION
    size_t blocks = (n + block_size - 1) / block_size;
    scale_many_blocks<<<(unsigned)blocks, block_size>>>(a, x, out, n);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// ---- Step 3: grid-stride loop ----------------------------------------------------------------
// A grid just large enough to fill every SM, each thread looping over the array in steps of the
// grid's total thread count. Works for any n with a grid of fixed size, and consecutive threads
// still touch consecutive elements on every pass (coalesced).
__global__ void scale_grid_stride(float a, const float* x, float* out, size_t n) {
    // TODO(step 3): cover all n elements whatever the grid's size: each thread handles several
    //               elements, and on every pass the grid's threads touch consecutive elements.
    //               No 32-bit overflow anywhere.
    // BEGIN SOLUTION
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a * x[i];
    // END SOLUTION
}

// TODO(step 3): predict, on paper, kElementsOfThread0At2To25 (scalar_multiply.h).
// BEGIN SOLUTION
const long long kElementsOfThread0At2To25 = 125;  // 0, S, ..., 124 S < 2^25 with S = 1056 x 256
// END SOLUTION
// STARTER: const long long kElementsOfThread0At2To25 = -1;  // your prediction

void run_grid_stride(float a, const float* x, float* out, size_t n, int block_size) {
    if (n == 0) return;
    // The blocks of this size that fill every SM once, given the kernel's registers (launch.h).
    const size_t one_wave = one_wave_blocks((const void*)scale_grid_stride, block_size);
    // TODO(step 3): launch one full wave (one_wave blocks: as many as all SMs hold at once), but
    //               never more blocks than the elements need; check the launch.
    // BEGIN SOLUTION
    size_t needed = ceil_div(n, block_size);
    unsigned blocks = (unsigned)(needed < one_wave ? needed : one_wave);
    scale_grid_stride<<<blocks, block_size>>>(a, x, out, n);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// ---- Step 4: 16-byte accesses -----------------------------------------------------------------
// DRAM is far away: a load takes several hundred nanoseconds to come back, so to keep the memory
// system busy each SM needs tens of kilobytes requested and not yet returned. One float per
// thread per loop pass is 4 bytes in flight; a float4 is 16, in a single instruction.
__global__ void scale_vectorized(float a, const float* x, float* out, size_t n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* out4 = reinterpret_cast<float4*>(out);
    const size_t n4 = n / 4;  // whole float4s; the last n % 4 floats are done one by one
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // TODO(step 4): the step-3 pattern with one 16-byte access per float4 (x4, out4) for the n4
    //               whole float4s; then the last n % 4 floats, which fill no float4, one by one.
    //               Every element written exactly once, for any n and any grid size.
    // BEGIN SOLUTION
    for (size_t i = first; i < n4; i += stride) {
        float4 v = x4[i];
        v.x *= a;
        v.y *= a;
        v.z *= a;
        v.w *= a;
        out4[i] = v;
    }
    for (size_t i = 4 * n4 + first; i < n; i += stride) out[i] = a * x[i];
    // END SOLUTION
}

// TODO(step 4): predict, on paper, kBytesInFlightPerSm (scalar_multiply.h).
// BEGIN SOLUTION
const long long kBytesInFlightPerSm = 32768;  // 2048 threads x one 16-byte float4 each
// END SOLUTION
// STARTER: const long long kBytesInFlightPerSm = -1;  // your prediction

void run_vectorized(float a, const float* x, float* out, size_t n, int block_size) {
    if (n == 0) return;
    // A float4 load from an address that is not a multiple of 16 is a misaligned-address fault.
    if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(out)) % 16 != 0) {
        run_grid_stride(a, x, out, n, block_size);
        return;
    }
    const size_t one_wave = one_wave_blocks((const void*)scale_vectorized, block_size);
    const size_t needed = ceil_div(n / 4, block_size);
    unsigned blocks = (unsigned)(needed == 0 ? 1 : needed < one_wave ? needed : one_wave);
    scale_vectorized<<<blocks, block_size>>>(a, x, out, n);
    CUDA_CHECK_LAUNCH();
}
