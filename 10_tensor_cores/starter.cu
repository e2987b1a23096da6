// 10_tensor_cores/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-10` shows which steps pass and `make run-10` shows the program's output.
//
// C = A * B with BF16 inputs and FP32 sums, on the tensor cores, four ways. A is m x k, Bt is
// B transposed (n x k), both row-major: every operand runs along k in memory. The arithmetic is
// 2mnk FLOP as in exercise 08; what changes is who does it (a warp, then a warpgroup, issuing
// one instruction for thousands of multiply-adds) and how the operands reach it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>            // CUtensorMap and its enums (the function itself comes from the runtime, below)
#include <cudaTypedefs.h>    // PFN_cuTensorMapEncodeTiled
#include <cuda/ptx>
#include <mma.h>

#include "tensor_cores.h"

#include "cuda_check.h"
#include "launch.h"  // ceil_div, keep_pool_memory

namespace wmma = nvcuda::wmma;

// Kernel bodies that use BF16 tensor cores are compiled for compute capability 8.0 and newer only
// (the fat binary also carries 7.5 code, where these instructions do not exist). The steps'
// requirements (tensor_cores.h) keep the program and the tests from launching them elsewhere.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC_BF16_TENSOR_CORES 1
#endif

// ---- Given: the small pieces every step shares ------------------------------------------------

// A zero in BF16 (all bits clear, as for float).
__device__ __forceinline__ bf16 bf16_zero() { return __ushort_as_bfloat16(0); }

// Eight consecutive BF16 of row r of a rows x cols row-major matrix, from column c on, as one
// 16-byte value; zeros for those outside. One 16-byte load when `vec` says that rows are 16-byte
// aligned (cols a multiple of 8, the pointer aligned) and the eight are all inside.
__device__ __forceinline__ uint4 load8(const bf16* __restrict__ M, int rows, int cols, int r, int c, bool vec) {
    if (r < rows && vec && c + 8 <= cols) return *reinterpret_cast<const uint4*>(M + (size_t)r * cols + c);
    union {
        uint4 v;
        bf16 h[8];
    } u;
#pragma unroll
    for (int i = 0; i < 8; ++i) u.h[i] = (r < rows && c + i < cols) ? M[(size_t)r * cols + c + i] : bf16_zero();
    return u.v;
}

// The tile of C a block computes, so that blocks launched one after another share operands in
// L2: tiles are handed out down a band of kBandRows tile rows, column by column, instead of
// along whole rows of tiles (one band reads kBandRows tiles of A and one of Bt per column).
// tile_of_index gives tile number `id` of that order (the persistent kernel of step 5 walks it);
// tile_of_block the block's own, id = blockIdx.x (32-bit: C has fewer than 2^27 tiles).
constexpr int kBandRows = 8;
__device__ __forceinline__ void tile_of_index(int id, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int per_band = kBandRows * tiles_n;
    const int first = id / per_band * kBandRows;
    const int rows_here = min(kBandRows, tiles_m - first);
    const int in_band = id % per_band;
    tile_m = first + in_band % rows_here;
    tile_n = in_band / rows_here;
}
__device__ __forceinline__ void tile_of_block(int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    tile_of_index((int)blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
}

// Stores a thread's part of an m16n8 FP32 accumulator (mma.sync; each m64nN slice of wgmma has
// the same layout per warp): c[0], c[1] at (row, col), (row, col + 1) and c[2], c[3] eight rows
// further down, with row = lane / 4 and col = 2 * (lane % 4) from the fragment's corner (r0, c0).
// Two floats at once where n is even and C 8-byte aligned (`pairs`), else one at a time.
__device__ __forceinline__ void store_c_fragment(float* __restrict__ C, int M, int N, int r0, int c0,
                                                 const float (&c)[4], bool pairs) {
    const int lane = threadIdx.x % 32;
    const int col = c0 + 2 * (lane % 4);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        const int row = r0 + lane / 4 + 8 * half;
        if (row >= M || col >= N) continue;
        float* p = C + (size_t)row * N + col;
        if (pairs && col + 1 < N) {
            *reinterpret_cast<float2*>(p) = make_float2(c[2 * half], c[2 * half + 1]);
        } else {
            p[0] = c[2 * half];
            if (col + 1 < N) p[1] = c[2 * half + 1];
        }
    }
}

static bool aligned_to(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// ---- Step 1: WMMA, one warp per 16 x 16 tile of C ----------------------------------------------
// nvcuda::wmma hides the tensor-core instructions behind three fragment types: a 16 x 16 piece
// of A, one of B, and a 16 x 16 FP32 accumulator, each spread over the 32 lanes of a warp in a
// layout the library does not name. load_matrix_sync, mma_sync and store_matrix_sync are
// warp-wide: all 32 lanes call them together. Here every warp reads its operands straight from
// global memory; nothing is shared between warps except through the caches.
//
// load_matrix_sync(fragment, p, ldm) reads the 16 x 16 block whose element (0, 0) is at p, ldm
// elements from one row to the next (a row_major fragment) or from one column to the next
// (col_major): element (r, c) at p[r * ldm + c], or at p[c * ldm + r]. store_matrix_sync writes
// an accumulator the same way, its layout given as mem_row_major or mem_col_major. Both need a
// 32-byte-aligned p and an ldm that is a multiple of 16 bytes, and touch whole 16 x 16 blocks.
// Where that does not hold (edges of A, B or C, k not a multiple of 16, misaligned operands),
// the warp goes through a small staging tile in shared memory instead: stage_16x16 copies a
// block in with zeros outside the matrix, store_16x16_clipped copies a result block out,
// leaving out what lies outside C.
constexpr int k1WarpsM = 2, k1WarpsN = 4;  // a block: 2 x 4 warps, 32 x 64 elements of C
constexpr int k1Threads = 32 * k1WarpsM * k1WarpsN;

// Block (r0, c0) of a rows x cols row-major matrix -> tile (16 x 16, row-major), zeros outside.
__device__ void stage_16x16(bf16* tile, const bf16* M, int rows, int cols, int r0, int c0) {
    for (int e = threadIdx.x % 32; e < 256; e += 32) {
        const int r = r0 + e / 16, c = c0 + e % 16;
        tile[e] = (r < rows && c < cols) ? M[(size_t)r * cols + c] : bf16_zero();
    }
}

// tile (16 x 16 floats, row-major) -> block (r0, c0) of C, the part inside C only.
__device__ void store_16x16_clipped(float* C, int M, int N, int r0, int c0, const float* tile) {
    for (int e = threadIdx.x % 32; e < 256; e += 32) {
        const int r = r0 + e / 16, c = c0 + e % 16;
        if (r < M && c < N) C[(size_t)r * N + c] = tile[e];
    }
}

// direct_ab: A and Bt may be read with load_matrix_sync where a block lies inside (k % 16 == 0,
// 32-byte-aligned pointers); direct_c: C may be written with store_matrix_sync likewise.
__global__ void __launch_bounds__(k1Threads) wmma_global(const bf16* __restrict__ A, const bf16* __restrict__ Bt,
                                                         float* __restrict__ C, int M, int N, int K, bool direct_ab,
                                                         bool direct_c) {
#ifdef TC_BF16_TENSOR_CORES
    __shared__ __align__(32) bf16 stage_a[k1WarpsM * k1WarpsN][256];
    __shared__ __align__(32) bf16 stage_b[k1WarpsM * k1WarpsN][256];
    __shared__ __align__(32) float stage_c[k1WarpsM * k1WarpsN][256];
    const int warp = threadIdx.x / 32;
    const int row0 = (blockIdx.y * k1WarpsM + warp / k1WarpsN) * 16;  // this warp's tile of C
    const int col0 = (blockIdx.x * k1WarpsN + warp % k1WarpsN) * 16;
    if (row0 >= M || col0 >= N) return;  // the whole warp leaves: no block-wide barrier follows
    const bool inside = row0 + 16 <= M && col0 + 16 <= N;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    // TODO(step 1): sum this warp's 16 x 16 tile of C into acc, along K 16 at a time. Operand
    //               blocks come straight from A and Bt where direct_ab && inside, otherwise
    //               through stage_a[warp] and stage_b[warp] (stage_16x16). Decide each operand
    //               fragment's layout, pointer and ldm, and where the lanes must wait for each
    //               other around the reused staging tiles.

    // Given: the result, straight into C where it may (row-major, pitch N), otherwise through
    // stage_c[warp], complete before any lane copies it out.
    if (direct_c && inside) {
        wmma::store_matrix_sync(C + (size_t)row0 * N + col0, acc, N, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(stage_c[warp], acc, 16, wmma::mem_row_major);
        __syncwarp();
        store_16x16_clipped(C, M, N, row0, col0, stage_c[warp]);
    }
#endif
}

void run_wmma_global(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;  // nothing to compute; an empty grid is a launch error
    const bool direct_ab = k % 16 == 0 && aligned_to(A, 32) && aligned_to(Bt, 32);
    const bool direct_c = n % 4 == 0 && aligned_to(C, 32);
    const dim3 grid(ceil_div(n, 16 * k1WarpsN), ceil_div(m, 16 * k1WarpsM));
    wmma_global<<<grid, k1Threads>>>(A, Bt, C, m, n, k, direct_ab, direct_c);
    CUDA_CHECK_LAUNCH();
}

// TODO(step 1): predict, then write down: how many of the 256 elements of a 16 x 16 FP32
//               accumulator fragment does each lane of the warp hold?
const long long kAccumulatorElementsPerLane = -1;  // your prediction

// ---- Step 2: WMMA from tiles in shared memory --------------------------------------------------
// As exercise 08 moved from one thread per element to shared tiles and register blocking, here
// a block of 8 warps stages a 128 x 32 tile of A and one of Bt in shared memory, and each warp
// computes a 64 x 32 part of the 128 x 128 tile of C, reusing every fragment it loads for
// several products. The tiles are double buffered as in 08's step 4: the next pair's loads from
// global memory are in flight while the tensor cores work, with one barrier per tile.
//
// A tile row of k2TileK = 32 BF16 is 64 bytes. A fragment load from shared memory compiles to
// four 4-byte loads per lane (seen on Hopper, sm_90), each instruction reading 16 bytes from
// each of 8 consecutive rows; shared memory has 32 banks of 4 bytes, 128 bytes per row of banks.
// kPad extra elements per row move each row to other banks: run the two variants under
// `make profile-10` and compare their bank conflicts.
constexpr int k2Threads = 256;
constexpr int k2ChunksPerThread = k2TileM * k2TileK / 8 / k2Threads;  // 16-byte chunks of each tile
static_assert(k2TileM == k2TileN && k2ChunksPerThread >= 1, "A's and Bt's tiles have the same shape");

template <int kPad>
struct Tiles2 {
    static constexpr int kLd = k2TileK + kPad;  // the row pitch, in elements (a multiple of 8)
    __align__(128) bf16 a[2][k2TileM][kLd];
    __align__(128) bf16 b[2][k2TileN][kLd];
};

// This thread's chunks of the tiles of A (rows m0...) and Bt (rows n0...) at column k0, into
// registers; chunk e (numbered row by row, 4 per row) goes to thread e % k2Threads.
__device__ __forceinline__ void fetch_tiles_2(const bf16* A, const bf16* Bt, int M, int N, int K, int m0, int n0,
                                              int k0, bool vec, uint4 (&a)[k2ChunksPerThread],
                                              uint4 (&b)[k2ChunksPerThread]) {
#pragma unroll
    for (int i = 0; i < k2ChunksPerThread; ++i) {
        const int e = threadIdx.x + i * k2Threads, r = e / (k2TileK / 8), c = 8 * (e % (k2TileK / 8));
        a[i] = load8(A, M, K, m0 + r, k0 + c, vec);
        b[i] = load8(Bt, N, K, n0 + r, k0 + c, vec);
    }
}

template <int kPad>
__device__ __forceinline__ void store_tiles_2(Tiles2<kPad>& t, int buf, const uint4 (&a)[k2ChunksPerThread],
                                              const uint4 (&b)[k2ChunksPerThread]) {
#pragma unroll
    for (int i = 0; i < k2ChunksPerThread; ++i) {
        const int e = threadIdx.x + i * k2Threads, r = e / (k2TileK / 8), c = 8 * (e % (k2TileK / 8));
        *reinterpret_cast<uint4*>(&t.a[buf][r][c]) = a[i];
        *reinterpret_cast<uint4*>(&t.b[buf][r][c]) = b[i];
    }
}

template <int kPad>
__global__ void __launch_bounds__(k2Threads) wmma_shared(const bf16* __restrict__ A, const bf16* __restrict__ Bt,
                                                         float* __restrict__ C, int M, int N, int K, bool vec,
                                                         bool direct_c) {
#ifdef TC_BF16_TENSOR_CORES
    constexpr int kLd = Tiles2<kPad>::kLd;
    constexpr int kFragsM = k2WarpTileM / 16, kFragsN = k2WarpTileN / 16;  // the warp's accumulators
    __shared__ Tiles2<kPad> t;
    const int warp = threadIdx.x / 32;
    const int wm = warp / (k2TileN / k2WarpTileN), wn = warp % (k2TileN / k2WarpTileN);
    const int m0 = blockIdx.y * k2TileM, n0 = blockIdx.x * k2TileN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
    // TODO(step 2): zero acc; walk K one k2TileK-deep tile at a time through t's two buffers
    //               (fetch_tiles_2 into registers, store_tiles_2 into a buffer), the next tile's
    //               loads in flight during this one's math, one __syncthreads per tile. Per 16-deep
    //               slice, this warp's part of C (rows wm * 64..., columns wn * 32...) from
    //               fragments of t.a and t.b. Which order makes one barrier enough, and how few
    //               fragment loads can feed all of acc?

    // Given: the results. Whole fragments inside C go straight to C; the others through a
    // 16 x 16 staging tile per warp, in the shared tiles (free now: the loop ended on a barrier).
    float* stage = reinterpret_cast<float*>(&t.a[0][0][0]) + warp * 256;
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) {
            const int r = m0 + wm * k2WarpTileM + i * 16, c = n0 + wn * k2WarpTileN + j * 16;
            if (r >= M || c >= N) continue;
            if (direct_c && r + 16 <= M && c + 16 <= N) {
                wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                store_16x16_clipped(C, M, N, r, c, stage);
                __syncwarp();
            }
        }
#endif
}
static_assert(sizeof(Tiles2<0>::a) >= (k2Threads / 32) * 256 * sizeof(float), "the staging tiles fit in A's tiles");

template <int kPad>
static void launch_wmma_shared(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const bool vec = k % 8 == 0 && aligned_to(A, 16) && aligned_to(Bt, 16);
    const bool direct_c = n % 4 == 0 && aligned_to(C, 32);
    const dim3 grid(ceil_div(n, k2TileN), ceil_div(m, k2TileM));
    wmma_shared<kPad><<<grid, k2Threads>>>(A, Bt, C, m, n, k, vec, direct_c);
    CUDA_CHECK_LAUNCH();
}
void run_wmma_shared_unpadded(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    launch_wmma_shared<0>(A, Bt, C, m, n, k);
}
void run_wmma_shared_padded(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    launch_wmma_shared<k2TilePad>(A, Bt, C, m, n, k);
}

// TODO(step 2): predict, then write down: rows of 64 bytes, no padding; one instruction of a
//               fragment load reads 16 bytes from each of 8 consecutive rows. How many of
//               those 8 rows start on the same banks?
const long long kBankConflictWaysUnpadded = -1;  // your prediction

// ---- Given to steps 3 and 4: operands the copy engines can read --------------------------------
// Step 3 copies with cp.async 16 bytes at a time, and the TMA (step 4) describes rows whose pitch
// is a multiple of 16 bytes; both need 16-byte-aligned addresses. When k is not a multiple of 8 or
// an operand is misaligned, the launcher first copies A and Bt into scratch with rows padded to
// a multiple of 8 elements with zeros (which add nothing to any sum), as libraries do: a few
// percent of the product's time at large sizes, and only for shapes that need it.
__global__ void copy_rows_padded(const bf16* __restrict__ src, bf16* __restrict__ dst, int rows, int cols,
                                 int pitch) {
    const size_t total = (size_t)rows * pitch;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / pitch;
        const int c = (int)(e % pitch);
        dst[e] = c < cols ? src[r * cols + c] : bf16_zero();
    }
}

struct CopyableOperands {
    const bf16* A;
    const bf16* Bt;
    int k;  // the row pitch of both, in elements: a multiple of 8
    bf16* scratch = nullptr;
    CopyableOperands(const bf16* a, const bf16* bt, int m, int n, int k_) : A(a), Bt(bt), k(k_) {
        if (k % 8 == 0 && aligned_to(a, 16) && aligned_to(bt, 16)) return;
        k = (k_ + 7) / 8 * 8;
        keep_pool_memory();
        CUDA_CHECK(cudaMallocAsync(&scratch, ((size_t)m + n) * k * sizeof(bf16), 0));
        bf16* a_copy = scratch;
        bf16* bt_copy = scratch + (size_t)m * k;
        const int blocks = (int)std::min<size_t>(ceil_div(((size_t)m + n) * k, 256), 1 << 16);
        copy_rows_padded<<<blocks, 256>>>(a, a_copy, m, k_, k);
        CUDA_CHECK_LAUNCH();
        copy_rows_padded<<<blocks, 256>>>(bt, bt_copy, n, k_, k);
        CUDA_CHECK_LAUNCH();
        A = a_copy;
        Bt = bt_copy;
    }
    ~CopyableOperands() {
        if (scratch) cudaFreeAsync(scratch, 0);  // stream-ordered: after the product that reads it
    }
    CopyableOperands(const CopyableOperands&) = delete;
    CopyableOperands& operator=(const CopyableOperands&) = delete;
};

// ---- Step 3: a cp.async pipeline feeding mma.sync through ldmatrix ----------------------------
// Three instructions that WMMA wraps, used directly (PTX; each explained where it is issued):
//   cp.async.cg.shared.global [dst], [src], 16, n;   copies 16 bytes from global to shared memory
//       without passing through registers, and without the issuing thread waiting for it; with
//       n = 0 it reads nothing and writes 16 zero bytes (the edges of A and Bt). (cp.async copies
//       4, 8 or 16 bytes; the .cg form, which leaves L1 out, only 16.)
//   cp.async.commit_group; / cp.async.wait_group N;  close the copies issued so far into a group;
//       wait until at most N of this thread's groups are still in flight.
//   ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0, r1, r2, r3}, [addr];   four 8 x 8 matrices of
//       16-bit values from shared memory, each lane giving the address of one 16-byte row (lanes
//       0-7 the rows of matrix 0, 8-15 of matrix 1, ...), matrix i arriving in register ri, of
//       which lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1.
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32   D = A * B + C for a 16 x 16 piece of
//       A (4 registers of 2 BF16 per lane), a 16 x 8 piece of B (2 registers), 16 x 8 FP32 C and D
//       (4 registers): which register holds what is in the comment above mma_m16n8k16.
// k3Stages stages of shared memory form a ring: the copies of later tiles travel while the tensor
// cores work on one.
//
// A tile row is k3TileK = 64 BF16 = 128 bytes = 8 chunks of 16 bytes, all 32 banks. ldmatrix
// reads the same chunk of 8 consecutive rows: stored plainly, all 8 on the same 4 banks. So
// chunk c of row r is stored at chunk position c ^ (r % 8) (XOR swizzle): the 8 rows' chunks
// land on 8 different positions. (Step 4's TMA can store tiles in swizzled patterns itself.)
constexpr int k3Threads = 256;
constexpr int k3TileABytes = k3TileM * k3TileK * 2, k3TileBBytes = k3TileN * k3TileK * 2;
constexpr int k3StageBytes = k3TileABytes + k3TileBBytes;
constexpr int k3ChunksPerThread = k3TileM * (k3TileK / 8) / k3Threads;  // of A's tile, and of Bt's
static_assert(k3TileK == 64 && k3TileM == k3TileN, "rows of 128 bytes: the swizzle below assumes 8 chunks");

// Byte offset of 16-byte chunk c of row r in a swizzled tile.
__device__ __forceinline__ uint32_t swizzled(int r, int c) { return r * 128 + ((c ^ (r % 8)) << 4); }

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, bool inside) {
    // "cg": cache in L2 only (the data goes to shared memory, L1 would not see it again);
    // src-size 16 or 0: copy the 16 bytes, or write 16 zeros and read nothing.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kInFlight>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kInFlight) : "memory"); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t addr, uint32_t (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// d += a * b on a 16 x 8 piece of C. Which elements each lane holds (PTX ISA, "Matrix Fragments
// for mma.m16n8k16" with floating-point types), with g = lane / 4 and q = lane % 4; every
// register holds two BF16 neighbours along k, the lower k in the lower half:
//   a[0]: A row g,     k 2q and 2q + 1          a[1]: A row g + 8, k 2q and 2q + 1
//   a[2]: A row g,     k 2q + 8 and 2q + 9      a[3]: A row g + 8, k 2q + 8 and 2q + 9
//   b0:   B column g,  k 2q and 2q + 1          b1:   B column g,  k 2q + 8 and 2q + 9
//   d:    C rows g and g + 8, columns 2q and 2q + 1 (as store_c_fragment writes them)
// (Column g of B is row g of Bt: there b0 and b1 are two neighbours along a row, as for A.)
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Issues this thread's copies of the tiles of A (rows m0...) and Bt (rows n0...) at column k0
// into the stage at shared address `stage` (A's tile, then Bt's, k3TileABytes further); chunks
// outside the operands are zero-filled.
__device__ __forceinline__ void load_stage_3(uint32_t stage, const bf16* A, const bf16* Bt, int M, int N, int K,
                                             int m0, int n0, int k0) {
    // TODO(step 3): every 16-byte chunk of both tiles copied once, by one cp_async_16 to its
    //               swizzled() place, k3ChunksPerThread chunks of each tile per thread. K is a
    //               multiple of 8 here: a chunk lies wholly inside or wholly outside (then pass A
    //               as the source: nothing is read). Which chunks does thread t take, so that a
    //               warp's 32 copies read whole 128-byte rows of A and Bt?
}

// One warp's share of one stage: its 64 x 32 part of the tile of C, acc[i][j] the m16n8 piece
// at rows 16 i, columns 8 j of that part.
constexpr int k3FragsM = k3WarpTileM / kMmaM, k3FragsN = k3WarpTileN / kMmaN;
__device__ __forceinline__ void mma_stage_3(uint32_t stage, int wm, int wn, float (&acc)[k3FragsM][k3FragsN][4]) {
    const int lane = threadIdx.x % 32;
    // TODO(step 3): per 16-deep slice s (chunks 2 s and 2 s + 1 of every row): this warp's 16 x 16
    //               pieces of A and 16 x 8 pieces of B through ldmatrix_x4, then acc's products
    //               with mma_m16n8k16. Which row and chunk must each lane address so that the
    //               8 x 8 matrices land in the registers the comment above mma_m16n8k16 gives?
    //               (swizzled() turns a row and a chunk into the address.)
}

__global__ void __launch_bounds__(k3Threads, 2) mma_pipeline(const bf16* __restrict__ A, const bf16* __restrict__ Bt,
                                                             float* __restrict__ C, int M, int N, int K, bool pairs) {
#ifdef TC_BF16_TENSOR_CORES
    extern __shared__ __align__(128) unsigned char smem3[];
    const uint32_t stages = (uint32_t)__cvta_generic_to_shared(smem3);
    const int warp = threadIdx.x / 32;
    const int wm = warp / (k3TileN / k3WarpTileN), wn = warp % (k3TileN / k3WarpTileN);
    int tile_m, tile_n;
    tile_of_block((M + k3TileM - 1) / k3TileM, (N + k3TileN - 1) / k3TileN, tile_m, tile_n);
    const int m0 = tile_m * k3TileM, n0 = tile_n * k3TileN;
    float acc[k3FragsM][k3FragsN][4] = {};
    const int tiles = (K + k3TileK - 1) / k3TileK;
    // TODO(step 3): the pipeline: tile t in stage t % k3Stages (load_stage_3, then mma_stage_3),
    //               later tiles' copies in flight during each tile's math, one __syncthreads per
    //               tile. Decide: how many tiles start before the loop; which N in cp_async_wait<N>
    //               guarantees tile t; which tile starts in iteration t, and why its stage is free.

#pragma unroll
    for (int i = 0; i < k3FragsM; ++i)
#pragma unroll
        for (int j = 0; j < k3FragsN; ++j)
            store_c_fragment(C, M, N, m0 + wm * k3WarpTileM + i * kMmaM, n0 + wn * k3WarpTileN + j * kMmaN, acc[i][j],
                             pairs);
#endif
}

void run_mma_pipeline(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const CopyableOperands ops(A, Bt, m, n, k);
    const int smem = k3Stages * k3StageBytes;
    static bool configured = false;  // raising the shared-memory limit once is enough
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(mma_pipeline, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        configured = true;
    }
    const long long blocks = (long long)ceil_div(m, k3TileM) * ceil_div(n, k3TileN);
    mma_pipeline<<<(unsigned)blocks, k3Threads, smem>>>(ops.A, ops.Bt, C, m, n, ops.k,
                                                        n % 2 == 0 && aligned_to(C, 8));
    CUDA_CHECK_LAUNCH();
}

// TODO(step 3): predict, then write down: how many mma.sync.m16n8k16 does one warp issue for one
//               k3TileK-deep tile (its 64 x 32 part of C)?
const long long kMmaSyncPerWarpPerTile = -1;  // your prediction

// ---- Step 4: Hopper: wgmma fed by the Tensor Memory Accelerator (sm_90a) ------------------------
// Two Hopper units take over what the threads did in step 3:
// - The Tensor Memory Accelerator (TMA) copies a whole 2D tile from global to shared memory on
//   ONE thread's request, zero-filling what lies outside the matrix and, if asked, storing it
//   swizzled as step 3 did by hand. It is told the matrix's shape once, by a tensor map built on
//   the host (make_tensor_map below), and reports completion on an mbarrier: a barrier in shared
//   memory that counts arrivals and, here, bytes.
// - wgmma (warpgroup MMA): four warps (a warpgroup, 128 threads) issue one instruction together
//   for a 64 x N x 16 product, N up to 256, reading A and B straight from shared memory through
//   64-bit descriptors and accumulating in registers. It is asynchronous: issued, then committed
//   as a group, then waited for. mma.sync cannot feed Hopper's tensor cores fast enough; wgmma can.
// The block is specialised: warpgroup 0 is the producer (one of its threads issues the copies),
// warpgroups 1 and 2 are consumers (64 rows of the 128 x 256 tile of C each). They hand the
// k4Stages stages back and forth with two mbarriers per stage: full[s] (stage s holds its
// tiles: the consumers may read them) and empty[s] (the consumers are done with stage s: the
// producer may overwrite it).
// An mbarrier counts phases 0, 1, 2, ... from mbarrier_init. A phase completes once the arrivals
// it was initialised with, and every byte announced to it (expect_bytes), are in; the next phase
// begins at once. wait_barrier(bar, p) waits for a phase of parity p (0 even, 1 odd) to complete:
// p names either the current phase, and then it waits, or the phase just before the current
// one, and then it returns at once (PTX ISA, mbarrier.try_wait.parity).
constexpr int k4Consumers = 2;                         // warpgroups that multiply
constexpr int k4Threads = 128 * (1 + k4Consumers);     // and one that loads
static_assert(k4TileM == 64 * k4Consumers && k4TileK * 2 == 128, "64 rows per consumer; rows of 128 bytes");

struct Step4Shared {
    bf16 a[k4Stages][k4TileM * k4TileK];  // each tile 1024-byte aligned (see wgmma_descriptor)
    bf16 b[k4Stages][k4TileN * k4TileK];
    uint64_t full[k4Stages];
    uint64_t empty[k4Stages];
};
static_assert(sizeof(Step4Shared::a[0]) % 1024 == 0 && sizeof(Step4Shared::b[0]) % 1024 == 0,
              "every tile starts 1024-byte aligned");

// The descriptor wgmma reads an operand tile through: a K-major tile of rows of k4TileK BF16,
// one after another, as the TMA stored it (make_tensor_map), starting at `tile`.
__device__ __forceinline__ uint64_t smem_descriptor(const bf16* tile) {
    // TODO(step 4): the tile's wgmma_descriptor (tensor_cores.h): where it starts, how far apart
    //               its groups of 8 rows lie, and the swizzle the TMA stored it with.
    return 0;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // wgmma exists in sm_90a machine code only (setmaxnreg also
                                        // in later "a" targets, sm_100a on; this kernel needs both)
// wgmma.fence: the accumulator registers are ready to be read by the next wgmma (needed before
// the first wgmma and whenever other instructions touched them).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// Closes the wgmmas issued so far into one group.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N groups are still running: then their results are in the registers and
// their shared-memory operands are free.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// The compiler does not know that wgmma writes the accumulators later, asynchronously: this
// empty statement tells it each register may change here, so no read of one moves across it.
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[128]) {
#pragma unroll
    for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// d (64 x 256, FP32, in the registers of the warpgroup) += A (64 x 16) * B (16 x 256), A and B
// BF16 in shared memory, given by descriptors. Line by line:
//   .reg .pred p; setp.ne.b32 p, %130, 0;   p = "add to d" (scale-d): 1 here, d starts at zero
//   wgmma.mma_async     asynchronous warpgroup MMA ...
//   .sync.aligned       ... issued by all 128 threads together, at the same instruction
//   .m64n256k16         the shape: 64 rows, 256 columns, 16 deep
//   .f32.bf16.bf16      FP32 accumulators, BF16 A and B
//   {%0, ..., %127}     this thread's 128 accumulators (a warp holds 16 rows: see the epilogue)
//   %128, %129          the descriptors of A and B
//   p, 1, 1             scale-d, then scale-a and scale-b (1: not negated)
//   0, 0                A and B are not transposed: both K-major, as Bt is.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},"
        " %128, %129, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

// The mbarrier and TMA calls of this step with their fixed arguments filled in (PTX ISA:
// mbarrier, cp.async.bulk.tensor; libcu++'s cuda::ptx wrappers).
// Waits until a phase of parity `parity` of bar has completed (the rule above the kernel).
__device__ __forceinline__ void wait_barrier(uint64_t* bar, uint32_t parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
}
// Arrives once on bar, with release semantics: what this thread did before is visible to a
// thread whose wait returns on the phase this arrival helps complete.
__device__ __forceinline__ void arrive(uint64_t* bar) { (void)cuda::ptx::mbarrier_arrive(bar); }
// Arrives once on bar and adds `bytes` to what its current phase waits for.
__device__ __forceinline__ void expect_bytes(uint64_t* bar, uint32_t bytes) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               bar, bytes);
}
// Starts a TMA copy of the box of `map` whose first element has coordinates (c0, c1), in the
// map's dimension order (dimension 0 first), to dst. It writes the whole box, zeros outside the
// matrix included, and counts the bytes it wrote off bar's current phase. (The copy names
// shared::cluster memory: a block launched without a cluster is a cluster of one.)
__device__ __forceinline__ void tma_load_tile(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar) {
    const int32_t at[2] = {c0, c1};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, at, bar);
}

// The pipeline's parts, one k-tile at a time. The kernel below walks one tile of C with them;
// step 5 walks many. A block numbers the k-tiles it passes through its stages t = 0, 1, 2, ...
// over its whole life: k-tile t goes through stage t % k4Stages, whose use t / k4Stages it is.

// Sets up every stage's two barriers (one thread, before anyone uses them).
__device__ __forceinline__ void init_stage_barriers(Step4Shared& sh) {
    // TODO(step 4): initialise each stage's two barriers (cuda::ptx::mbarrier_init(bar, count))
    //               with the arrivals that complete one phase of each in your protocol.
}

// The producer's k-tile t: the tiles of A (rows m0...) and Bt (rows n0...) at k-tile kt along K
// into stage t % k4Stages.
__device__ __forceinline__ void load_stage_4(Step4Shared& sh, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                             uint32_t t, int kt, int m0, int n0) {
    // TODO(step 4): wait until the stage may be overwritten, announce on its full barrier the
    //               bytes the TMA will write (expect_bytes), and copy A's and Bt's tiles there
    //               (tma_load_tile). Which parity does the wait ask for?
}

// A consumer's k-tile t: d += its 64 rows of A's tile in stage t % k4Stages times all of Bt's.
__device__ __forceinline__ void mma_stage_4(Step4Shared& sh, float (&d)[128], uint32_t t, int consumer) {
    // TODO(step 4): wait until the stage is full; multiply this consumer's 64 rows of A's tile
    //               by all of Bt's, one wgmma_m64n256k16 per 16-deep slice (where does slice kk
    //               start?), committed as a group and waited for; then release the stage on its
    //               empty barrier, as many arrivals as you initialised it with. Where do
    //               wgmma_fence and wgmma_fence_operands go, and how many groups may still run
    //               when the stage is released?
}
#endif

__global__ void __launch_bounds__(k4Threads, 1) wgmma_tma(const __grid_constant__ CUtensorMap map_a,
                                                          const __grid_constant__ CUtensorMap map_b,
                                                          float* __restrict__ C, int M, int N, int K, bool pairs) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(1024) unsigned char smem4[];
    const uint32_t misalign = (uint32_t)__cvta_generic_to_shared(smem4) % 1024;
    Step4Shared& sh = *reinterpret_cast<Step4Shared*>(smem4 + (misalign ? 1024 - misalign : 0));
    const int warpgroup = threadIdx.x / 128;
    int tile_m, tile_n;
    tile_of_block((M + k4TileM - 1) / k4TileM, (N + k4TileN - 1) / k4TileN, tile_m, tile_n);
    const int m0 = tile_m * k4TileM, n0 = tile_n * k4TileN;
    const int tiles = (K + k4TileK - 1) / k4TileK;
    if (threadIdx.x == 0) {
        init_stage_barriers(sh);
        // The barriers' initial state must be visible to the TMA unit, not only to the threads.
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();

    if (warpgroup == 0) {
        // The producer needs few registers: give them to the consumers (setmaxnreg, in steps of
        // 8). The kernel starts with at most 168 per thread (65536 / 384 = 170.7, and registers
        // are allocated 8 per thread at a time): 40 + 2 x 232 adds up to 3 x 168.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0)  // the block's k-tile t is k-tile t of its one tile
            for (int t = 0; t < tiles; ++t) load_stage_4(sh, &map_a, &map_b, t, t, m0, n0);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int consumer = warpgroup - 1;  // rows consumer * 64 ... of the tile
        float d[128];
#pragma unroll
        for (int i = 0; i < 128; ++i) d[i] = 0.0f;
        for (int t = 0; t < tiles; ++t) mma_stage_4(sh, d, t, consumer);
        // Given: the results. Warp w of a warpgroup holds rows 16 w ... 16 w + 15 of its 64;
        // d[4 j ... 4 j + 3] is the m16n8 fragment (store_c_fragment) at columns 8 j ... 8 j + 7.
        const int row0 = m0 + consumer * 64 + (threadIdx.x % 128) / 32 * 16;
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const float c[4] = {d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]};
            store_c_fragment(C, M, N, row0, n0 + 8 * j, c, pairs);
        }
    }
#endif
}

// Machine code of this file for sm_90a carries the step-4 kernel; the plain sm_90 (and older)
// code has an empty one. This kernel says which of the two the GPU is running.
__global__ void probe_sm90a(int* has) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *has = 1;
#else
    *has = 0;
#endif
}
bool wgmma_code_loaded() {
    static int known = -1;
    if (known < 0) {
        int* d_has = nullptr;
        CUDA_CHECK(cudaMalloc(&d_has, sizeof(int)));
        probe_sm90a<<<1, 1>>>(d_has);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(&known, d_has, sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_has));
    }
    return known == 1;
}

// The driver's cuTensorMapEncodeTiled, found through the runtime (so that nothing links against
// the driver library itself).
[[maybe_unused]] static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (!fn) {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found;
#if CUDART_VERSION >= 12050
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
#else
        CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found));
#endif
        if (found != cudaDriverEntryPointSuccess || !p) {
            std::fprintf(stderr, "run_wgmma_tma: the CUDA driver has no cuTensorMapEncodeTiled (a driver for CUDA 12 or newer is needed)\n");
            std::exit(1);
        }
        fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }
    return fn;
}

// Given: a tensor map of a 2D BF16 matrix in global memory (CUDA driver API,
// cuTensorMapEncodeTiled). Dimension 0 is the one whose elements are adjacent in memory:
//   extent0, extent1   the matrix's size along dimensions 0 and 1, in elements
//   pitch_bytes        from one element to the next along dimension 1 (a multiple of 16)
//   box0, box1         the box one copy fetches, in elements: each at most 256, box0 * 2 bytes
//                      a multiple of 16 and, with a swizzle of R bytes, at most R
//   swizzle            how the box's 16-byte chunks are laid out in shared memory: as in global
//                      memory (CU_TENSOR_MAP_SWIZZLE_NONE) or swizzled in rows of 32, 64 or 128
//                      bytes (CU_TENSOR_MAP_SWIZZLE_32B, _64B, _128B)
// Fixed here: elements are BF16, read one after another (element strides 1), no interleaving,
// L2 fetches of 256 bytes, and zeros for what lies outside the matrix.
[[maybe_unused]] static CUtensorMap encode_bf16_tensor_map(const bf16* base, uint64_t extent0, uint64_t extent1,
                                                            uint64_t pitch_bytes, uint32_t box0, uint32_t box1,
                                                            CUtensorMapSwizzle swizzle) {
    CUtensorMap map{};
    const cuuint64_t extent[2] = {extent0, extent1};
    const cuuint64_t pitch[1] = {pitch_bytes};
    const cuuint32_t box[2] = {box0, box1};
    const cuuint32_t element_steps[2] = {1, 1};
    const CUresult r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16*>(base), extent, pitch,
                                      box, element_steps, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr,
                     "run_wgmma_tma: cuTensorMapEncodeTiled failed (CUresult %d): extents %llu x %llu, pitch %llu "
                     "bytes, box %u x %u, swizzle %d\n",
                     (int)r, (unsigned long long)extent0, (unsigned long long)extent1, (unsigned long long)pitch_bytes,
                     box0, box1, (int)swizzle);
        std::exit(1);
    }
    return map;
}

// A tensor map for a rows x k row-major BF16 matrix (k a multiple of 8, 16-byte aligned), from
// which one copy fetches one stage's tile of box_rows rows.
static CUtensorMap make_tensor_map(const bf16* M, int rows, int k, int box_rows) {
    // TODO(step 4): describe M to the TMA with encode_bf16_tensor_map: its extents, its pitch,
    //               the box one copy fetches, and the swizzle smem_descriptor expects. Which of
    //               M's dimensions is dimension 0?
    return CUtensorMap{};
}

void run_wgmma_tma(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum; a tensor map cannot describe a matrix with no columns
        CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
        return;
    }
    const CopyableOperands ops(A, Bt, m, n, k);
    const CUtensorMap map_a = make_tensor_map(ops.A, m, ops.k, k4TileM);
    const CUtensorMap map_b = make_tensor_map(ops.Bt, n, ops.k, k4TileN);
    const int smem = (int)sizeof(Step4Shared) + 1024;  // + room to align the tiles to 1024 bytes
    static bool configured = false;
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(wgmma_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        configured = true;
    }
    const long long blocks = (long long)ceil_div(m, k4TileM) * ceil_div(n, k4TileN);
    wgmma_tma<<<(unsigned)blocks, k4Threads, smem>>>(map_a, map_b, C, m, n, ops.k, n % 2 == 0 && aligned_to(C, 8));
    CUDA_CHECK_LAUNCH();
}

// TODO(step 4): predict, then write down: how many bytes does the TMA write into one stage?
const long long kTmaBytesPerStage = -1;  // your prediction

// ---- Step 5 (optional): the persistent kernel ----------------------------------------------------
// Step 4 launches one block per tile of C: every block sets up its barriers, fills its pipeline
// from empty, and at the end its SM's tensor cores idle while the consumers write 128 KB of C
// from registers and the next block starts. Here the grid is only as many blocks as fit on the
// GPU at once (one per SM: a block takes 193 KB of shared memory), and block b computes tiles b,
// b + G, b + 2G, ... (G = gridDim.x) in step 4's band order, with step 4's pipeline: the producer
// loads the k-tiles of all its tiles one after another through the same stages, so while the
// consumers store one tile's C from their registers, the next tile's first stages are already
// loading. The block sets up its stages and their barriers once, for all its tiles.
//
// The results leave through 16-byte stores (store_tile_5, given): neighbouring lanes exchange
// half their fragments so that each holds 4 adjacent floats of a row.

// A warp's 16 rows of a consumer's 64 x 256 part of C (rows r0 ..., columns c0 ...), from the
// accumulators of mma_stage_4 (d[4 j ... 4 j + 3]: the m16n8 fragment at columns 8 j). Lane l
// holds columns 2q, 2q + 1 (q = l % 4) of each fragment, in rows l / 4 and l / 4 + 8. With quads
// (n a multiple of 4, C 16-byte aligned), for each pair of fragments 2p, 2p + 1 (16 columns),
// lanes of even q take their own 2 floats of fragment 2p and their odd neighbour's, lanes of odd
// q their even neighbour's 2 of fragment 2p + 1 and their own: 4 adjacent floats each, one
// float4 store, and a warp writes 64 bytes of each of 8 rows per instruction (step 4: 32).
// Otherwise step 4's stores.
__device__ __forceinline__ void store_tile_5(float* __restrict__ C, int M, int N, int r0, int c0,
                                             const float (&d)[128], bool pairs, bool quads) {
    const int lane = threadIdx.x % 32, q = lane % 4, row = r0 + (threadIdx.x % 128) / 32 * 16 + lane / 4;
    if (!quads) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const float c[4] = {d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]};
            store_c_fragment(C, M, N, row - lane / 4, c0 + 8 * j, c, pairs);
        }
        return;
    }
    const bool even = q % 2 == 0;
    const int col_in_16 = even ? 2 * q : 8 + 2 * (q - 1);  // the first of this lane's 4 columns
#pragma unroll
    for (int p = 0; p < 16; ++p) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows row and row + 8
            const float* lo = &d[4 * (2 * p) + 2 * h];      // fragment 2p: columns 16p + 2q, + 1
            const float* hi = &d[4 * (2 * p + 1) + 2 * h];  // fragment 2p + 1: columns 16p + 8 + 2q, + 1
            // Even lanes give away their fragment 2p + 1 pair, odd lanes their fragment 2p pair.
            const float give0 = even ? hi[0] : lo[0], give1 = even ? hi[1] : lo[1];
            const float got0 = __shfl_xor_sync(0xffffffffu, give0, 1), got1 = __shfl_xor_sync(0xffffffffu, give1, 1);
            const float4 v = even ? make_float4(lo[0], lo[1], got0, got1) : make_float4(got0, got1, hi[0], hi[1]);
            const int r = row + 8 * h, col = c0 + 16 * p + col_in_16;
            // After the exchange (every lane takes part in it): N and col are multiples of 4, so
            // the 4 columns lie all inside C or all outside.
            if (r < M && col < N) *reinterpret_cast<float4*>(C + (size_t)r * N + col) = v;
        }
    }
}

// The first row and column of tile number `tile` of the band order (tile_of_index).
__device__ __forceinline__ void tile_corner(int tile, int tiles_m, int tiles_n, int& m0, int& n0) {
    int tile_m, tile_n;
    tile_of_index(tile, tiles_m, tiles_n, tile_m, tile_n);
    m0 = tile_m * k4TileM;
    n0 = tile_n * k4TileN;
}

__global__ void __launch_bounds__(k4Threads, 1) wgmma_persistent(const __grid_constant__ CUtensorMap map_a,
                                                                 const __grid_constant__ CUtensorMap map_b,
                                                                 float* __restrict__ C, int M, int N, int K,
                                                                 bool pairs, bool quads) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(1024) unsigned char smem5[];
    const uint32_t misalign = (uint32_t)__cvta_generic_to_shared(smem5) % 1024;
    Step4Shared& sh = *reinterpret_cast<Step4Shared*>(smem5 + (misalign ? 1024 - misalign : 0));
    const int warpgroup = threadIdx.x / 128;
    const int tiles_m = (M + k4TileM - 1) / k4TileM, tiles_n = (N + k4TileN - 1) / k4TileN;
    const int tiles = tiles_m * tiles_n;             // tiles of C, numbered in the band order
    const int k_tiles = (K + k4TileK - 1) / k4TileK;  // k-tiles of each
    if (threadIdx.x == 0) {
        init_stage_barriers(sh);
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();

    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");  // as step 4
        if (threadIdx.x == 0) {
            // TODO(step 5): this block's tiles (blockIdx.x, then every gridDim.x-th), each one's
            //               corner from tile_corner, each one's k-tiles through load_stage_4. Which
            //               count t does each load get?
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int consumer = warpgroup - 1;  // rows consumer * 64 ... of each tile
        float d[128];
        // TODO(step 5): the same tiles in the same order. Per tile: d from zero, its k-tiles
        //               through mma_stage_4, then store_tile_5 (rows m0 + consumer * 64 ...). Which
        //               count t does each k-tile get?
    }
#endif
}

// Launches the persistent kernel with at most `blocks` blocks (never more than there are tiles).
static void launch_wgmma_persistent(int blocks, const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
        return;
    }
    const CopyableOperands ops(A, Bt, m, n, k);
    const CUtensorMap map_a = make_tensor_map(ops.A, m, ops.k, k4TileM);
    const CUtensorMap map_b = make_tensor_map(ops.Bt, n, ops.k, k4TileN);
    const long long tiles = (long long)ceil_div(m, k4TileM) * ceil_div(n, k4TileN);
    const unsigned grid = (unsigned)std::min<long long>(tiles, std::max(blocks, 1));
    wgmma_persistent<<<grid, k4Threads, sizeof(Step4Shared) + 1024>>>(
        map_a, map_b, C, m, n, ops.k, n % 2 == 0 && aligned_to(C, 8), n % 4 == 0 && aligned_to(C, 16));
    CUDA_CHECK_LAUNCH();
}

// The blocks of the kernel that fit on this GPU at once: one wave (one per SM here).
static int persistent_blocks() {
    static bool configured = false;
    const int smem = (int)sizeof(Step4Shared) + 1024;
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(wgmma_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        configured = true;
    }
    return one_wave_blocks(reinterpret_cast<const void*>(wgmma_persistent), k4Threads, smem);
}

void run_wgmma_persistent(const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    launch_wgmma_persistent(persistent_blocks(), A, Bt, C, m, n, k);
}
void run_wgmma_persistent_blocks(int blocks, const bf16* A, const bf16* Bt, float* C, int m, int n, int k) {
    persistent_blocks();  // raises the kernel's shared-memory limit
    launch_wgmma_persistent(blocks, A, Bt, C, m, n, k);
}

// TODO(step 5): predict, then write down: m = n = 4096, k = 5000, on a GPU with 132 SMs (one
//               block each). How many k-tiles pass through block 0's stages, over all its tiles
//               (the count t its producer reaches)?
const long long kKTilesThroughBlock0 = -1;  // your prediction
