// BEGIN SOLUTION
// 10_tensor_cores/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 10_tensor_cores/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-10` shows which steps pass and `make run-10` shows the program's output.
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
constexpr int kBandRows = 8;
__device__ __forceinline__ void tile_of_block(int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const long long id = blockIdx.x, per_band = (long long)kBandRows * tiles_n;
    const int first = (int)(id / per_band) * kBandRows;
    const int rows_here = min(kBandRows, tiles_m - first);
    const int in_band = (int)(id % per_band);
    tile_m = first + in_band % rows_here;
    tile_n = in_band / rows_here;
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
// load_matrix_sync and store_matrix_sync need a 32-byte-aligned pointer and a row pitch (ldm)
// that is a multiple of 16 bytes, and they read whole 16 x 16 blocks. Where that does not hold
// (edges of A, B or C, k not a multiple of 16, misaligned operands), the warp goes through a
// small staging tile in shared memory instead: stage_16x16 copies a block in with zeros
// outside the matrix, store_16x16_clipped copies a result block out, leaving out what lies
// outside C.
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
    // TODO(step 1): three fragments: A's (row_major), B's (Bt's rows are B's columns: col_major)
    //               and the FP32 accumulator, zeroed. Walk K 16 at a time: load both operand
    //               fragments (from global memory where direct_ab && inside, otherwise through
    //               this warp's stage_a / stage_b, filled by stage_16x16), then multiply-add.
    //               The staging tiles are reused every step: which lanes must be done with them,
    //               and when? (__syncwarp)
    // BEGIN SOLUTION
    wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        if (direct_ab && inside) {
            wmma::load_matrix_sync(a, A + (size_t)row0 * K + k0, K);
            wmma::load_matrix_sync(b, Bt + (size_t)col0 * K + k0, K);
        } else {
            stage_16x16(stage_a[warp], A, M, K, row0, k0);
            stage_16x16(stage_b[warp], Bt, N, K, col0, k0);
            __syncwarp();  // every lane's part of the tiles is written
            wmma::load_matrix_sync(a, stage_a[warp], 16);
            wmma::load_matrix_sync(b, stage_b[warp], 16);
            __syncwarp();  // every lane has read them before the next step overwrites them
        }
        wmma::mma_sync(acc, a, b, acc);
    }
    // END SOLUTION
    // TODO(step 1): store the accumulator at (row0, col0): straight into C where direct_c &&
    //               inside, otherwise into stage_c[warp] and from there with store_16x16_clipped.
    // BEGIN SOLUTION
    if (direct_c && inside) {
        wmma::store_matrix_sync(C + (size_t)row0 * N + col0, acc, N, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(stage_c[warp], acc, 16, wmma::mem_row_major);
        __syncwarp();
        store_16x16_clipped(C, M, N, row0, col0, stage_c[warp]);
    }
    // END SOLUTION
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
// BEGIN SOLUTION
const long long kAccumulatorElementsPerLane = 8;  // 256 elements over 32 lanes
// END SOLUTION
// STARTER: const long long kAccumulatorElementsPerLane = -1;  // your prediction

// ---- Step 2: WMMA from tiles in shared memory --------------------------------------------------
// As exercise 08 moved from one thread per element to shared tiles and register blocking, here
// a block of 8 warps stages a 128 x 32 tile of A and one of Bt in shared memory, and each warp
// computes a 64 x 32 part of the 128 x 128 tile of C: 4 x 2 accumulator fragments, so that each
// A fragment it loads is used twice and each B fragment four times. The tiles are double
// buffered as in 08's step 4: while the tensor cores work on one pair, the next pair travels
// from global memory into registers, and one barrier per tile suffices.
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
    constexpr int kFragsM = k2WarpTileM / 16, kFragsN = k2WarpTileN / 16;  // 4 x 2 fragments per warp
    __shared__ Tiles2<kPad> t;
    const int warp = threadIdx.x / 32;
    const int wm = warp / (k2TileN / k2WarpTileN), wn = warp % (k2TileN / k2WarpTileN);
    const int m0 = blockIdx.y * k2TileM, n0 = blockIdx.x * k2TileN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
    // TODO(step 2): zero acc, then the double-buffered walk along K (fetch_tiles_2 into registers,
    //               store_tiles_2 into buffer 0 or 1, one __syncthreads per tile, as in 08's step
    //               4). Per tile, for each 16-deep slice: this warp's 4 A fragments from rows
    //               wm * 64 ... and 2 B fragments from Bt's rows wn * 32 ... (pitch kLd), then
    //               the 4 x 2 products. Which fragments does each one reuse?
    // BEGIN SOLUTION
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    uint4 a_next[k2ChunksPerThread], b_next[k2ChunksPerThread];
    const int tiles = (K + k2TileK - 1) / k2TileK;
    if (tiles > 0) {
        fetch_tiles_2(A, Bt, M, N, K, m0, n0, 0, vec, a_next, b_next);
        store_tiles_2(t, 0, a_next, b_next);
    }
    __syncthreads();
    for (int tile = 0; tile < tiles; ++tile) {
        const int buf = tile & 1;
        const bool more = tile + 1 < tiles;
        if (more) fetch_tiles_2(A, Bt, M, N, K, m0, n0, (tile + 1) * k2TileK, vec, a_next, b_next);
#pragma unroll
        for (int kk = 0; kk < k2TileK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[kFragsM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b[kFragsN];
#pragma unroll
            for (int i = 0; i < kFragsM; ++i) wmma::load_matrix_sync(a[i], &t.a[buf][wm * k2WarpTileM + i * 16][kk], kLd);
#pragma unroll
            for (int j = 0; j < kFragsN; ++j) wmma::load_matrix_sync(b[j], &t.b[buf][wn * k2WarpTileN + j * 16][kk], kLd);
#pragma unroll
            for (int i = 0; i < kFragsM; ++i)
#pragma unroll
                for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (more) store_tiles_2(t, buf ^ 1, a_next, b_next);
        __syncthreads();
    }
    // END SOLUTION

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
// BEGIN SOLUTION
const long long kBankConflictWaysUnpadded = 4;  // rows 0, 2, 4, 6 (and 1, 3, 5, 7) start 128 bytes apart
// END SOLUTION
// STARTER: const long long kBankConflictWaysUnpadded = -1;  // your prediction

// ---- Given to steps 3 and 4: operands the copy engines can read --------------------------------
// cp.async (step 3) copies 16 bytes at a time and the TMA (step 4) describes rows whose pitch is
// a multiple of 16 bytes; both need 16-byte-aligned addresses. When k is not a multiple of 8 or
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
//       n = 0 it reads nothing and writes 16 zero bytes (the edges of A and Bt).
//   cp.async.commit_group; / cp.async.wait_group N;  close the copies issued so far into a group;
//       wait until at most N of this thread's groups are still in flight.
//   ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0, r1, r2, r3}, [addr];   four 8 x 8 matrices of
//       16-bit values from shared memory, each lane giving the address of one 16-byte row (lanes
//       0-7 the rows of matrix 0, 8-15 of matrix 1, ...), each lane receiving two values of each
//       matrix: lane l gets row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, exactly the layout
//       mma.sync wants for its operands.
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32   D = A * B + C for a 16 x 16 piece of
//       A (4 registers of 2 BF16 per lane), a 16 x 8 piece of B (2 registers), 16 x 8 FP32 C and D
//       (4 registers).
// k3Stages tiles are in flight at once: while the tensor cores work on tile t, the copies of
// tiles t + 1 and t + 2 are on their way.
//
// A tile row is k3TileK = 64 BF16 = 128 bytes = 8 chunks of 16 bytes, all 32 banks. ldmatrix
// reads the same chunk of 8 consecutive rows: stored plainly, all 8 on the same 4 banks. So
// chunk c of row r is stored at chunk position c ^ (r % 8) (XOR swizzle): the 8 rows' chunks
// land on 8 different positions. Step 4's TMA stores its tiles in exactly this pattern.
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

// d += a * b on a 16 x 8 piece of C (the register layouts are described at store_c_fragment).
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Issues this thread's copies of the tiles of A (rows m0...) and Bt (rows n0...) at column k0
// into the stage at shared address `stage` (A's tile, then Bt's). Chunk e (8 per row, numbered
// row by row) is thread e % k3Threads's; chunks outside the operands are zero-filled.
__device__ __forceinline__ void load_stage_3(uint32_t stage, const bf16* A, const bf16* Bt, int M, int N, int K,
                                             int m0, int n0, int k0) {
    // TODO(step 3): for each of this thread's chunks (k3ChunksPerThread of each tile), one
    //               cp_async_16 to its swizzled place. K is a multiple of 8 here, so a chunk is
    //               either wholly inside or wholly outside; for one outside, pass any valid
    //               address (A itself): nothing is read from it.
    // BEGIN SOLUTION
#pragma unroll
    for (int i = 0; i < k3ChunksPerThread; ++i) {
        const int e = threadIdx.x + i * k3Threads, r = e / 8, c = e % 8, k = k0 + 8 * c;
        const bool a_in = m0 + r < M && k < K, b_in = n0 + r < N && k < K;
        cp_async_16(stage + swizzled(r, c), a_in ? A + (size_t)(m0 + r) * K + k : A, a_in);
        cp_async_16(stage + k3TileABytes + swizzled(r, c), b_in ? Bt + (size_t)(n0 + r) * K + k : Bt, b_in);
    }
    // END SOLUTION
}

// One warp's share of one stage: its 64 x 32 part of the tile of C, acc[i][j] the m16n8 piece
// at rows 16 i, columns 8 j of that part.
constexpr int k3FragsM = k3WarpTileM / kMmaM, k3FragsN = k3WarpTileN / kMmaN;  // 4 x 4
__device__ __forceinline__ void mma_stage_3(uint32_t stage, int wm, int wn, float (&acc)[k3FragsM][k3FragsN][4]) {
    const int lane = threadIdx.x % 32;
    // TODO(step 3): for each 16-deep slice (chunks 2 s and 2 s + 1 of every row): the 4 A pieces
    //               (16 x 16, one ldmatrix_x4 each) and the 4 B pieces (8 x 16; one ldmatrix_x4
    //               reads two of them), then the 4 x 4 mma_m16n8k16. Which row and chunk must
    //               each lane address so that the four 8 x 8 matrices arrive as the registers
    //               mma.sync expects? (README, step 3; swizzled() gives the address.)
    // BEGIN SOLUTION
#pragma unroll 1
    for (int s = 0; s < k3TileK / kMmaK; ++s) {
        uint32_t b[k3FragsN / 2][4];
#pragma unroll
        for (int j = 0; j < k3FragsN / 2; ++j)  // matrices: (n 0-7, chunk 2s), (0-7, 2s+1), (8-15, 2s), (8-15, 2s+1)
            ldmatrix_x4(stage + k3TileABytes +
                            swizzled(wn * k3WarpTileN + j * 16 + lane % 8 + 8 * (lane / 16), 2 * s + (lane / 8) % 2),
                        b[j]);
#pragma unroll
        for (int i = 0; i < k3FragsM; ++i) {
            uint32_t a[4];  // lanes 0-15: rows 0-15 at chunk 2s; lanes 16-31: the same rows at chunk 2s + 1
            ldmatrix_x4(stage + swizzled(wm * k3WarpTileM + i * 16 + lane % 16, 2 * s + lane / 16), a);
#pragma unroll
            for (int j = 0; j < k3FragsN; ++j) mma_m16n8k16(acc[i][j], a, b[j / 2][2 * (j % 2)], b[j / 2][2 * (j % 2) + 1]);
        }
    }
    // END SOLUTION
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
    // TODO(step 3): the pipeline. First start tiles 0 ... k3Stages - 2 (one commit per tile, even
    //               when there is no such tile: the group count must stay in step). Then per tile
    //               t: wait until its copies have landed, one __syncthreads, start tile
    //               t + k3Stages - 1 into the stage that tile t - 1 used, and compute on stage
    //               t % k3Stages. What does that one barrier guarantee, in both directions?
    // BEGIN SOLUTION
#pragma unroll
    for (int s = 0; s < k3Stages - 1; ++s) {
        if (s < tiles) load_stage_3(stages + s * k3StageBytes, A, Bt, M, N, K, m0, n0, s * k3TileK);
        cp_async_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        cp_async_wait<k3Stages - 2>();  // this thread's copies of tile t have landed
        __syncthreads();                // everyone's have; and everyone is done with tile t - 1's stage
        const int next = t + k3Stages - 1;
        if (next < tiles)
            load_stage_3(stages + (next % k3Stages) * k3StageBytes, A, Bt, M, N, K, m0, n0, next * k3TileK);
        cp_async_commit();
        mma_stage_3(stages + (t % k3Stages) * k3StageBytes, wm, wn, acc);
    }
    // END SOLUTION
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
// BEGIN SOLUTION
const long long kMmaSyncPerWarpPerTile = (64 / 16) * (32 / 8) * (64 / 16);  // 64
// END SOLUTION
// STARTER: const long long kMmaSyncPerWarpPerTile = -1;  // your prediction

// ---- Step 4: Hopper: wgmma fed by the Tensor Memory Accelerator (sm_90a) ------------------------
// Two Hopper units take over what the threads did in step 3:
// - The Tensor Memory Accelerator (TMA) copies a whole 2D tile from global to shared memory on
//   ONE thread's request (the copy names shared::cluster memory: a block launched without a
//   cluster is a cluster of one, and its own shared memory is the cluster's), zero-filling what lies outside the matrix and storing it with the
//   128-byte swizzle of step 3. It is told the matrix's shape once, by a tensor map built on the
//   host (make_tensor_map below), and reports completion on an mbarrier: a barrier in shared
//   memory that counts arrivals and, here, bytes.
// - wgmma (warpgroup MMA): four warps (a warpgroup, 128 threads) issue one instruction together
//   for a 64 x N x 16 product, N up to 256, reading A and B straight from shared memory through
//   64-bit descriptors and accumulating in registers. It is asynchronous: issued, then committed
//   as a group, then waited for. mma.sync cannot feed Hopper's tensor cores fast enough; wgmma can.
// The block is specialised: warpgroup 0 is the producer (one of its threads issues the copies),
// warpgroups 1 and 2 are consumers (64 rows of the 128 x 256 tile of C each). They hand the
// k4Stages stages back and forth with two mbarriers per stage:
//   full[s]:  the producer arrives once, announcing how many bytes the TMA will deliver; the
//             phase completes when those bytes have landed. Consumers wait on it.
//   empty[s]: each of the 8 consumer warps arrives when its wgmmas on stage s are finished; the
//             producer waits on it before refilling stage s.
// An mbarrier's phases alternate parity 0, 1, 0, ...: the k-th use of a stage (k = t / k4Stages
// for tile t) waits for parity k % 2. A fresh barrier counts as having just completed a phase of
// parity 1, so the producer's first wait on empty[s] (parity (k % 2) ^ 1 = 1) passes at once.
constexpr int k4Consumers = 2;                         // warpgroups that multiply
constexpr int k4Threads = 128 * (1 + k4Consumers);     // and one that loads
constexpr int k4TileABytes = k4TileM * k4TileK * 2;    // 16 KB
constexpr int k4TileBBytes = k4TileN * k4TileK * 2;    // 32 KB
static_assert(k4TileM == 64 * k4Consumers && k4TileK * 2 == 128, "64 rows per consumer; rows of 128 bytes");
static_assert(k4TileABytes % 1024 == 0 && k4TileBBytes % 1024 == 0, "every tile starts 1024-byte aligned");

struct Step4Shared {
    bf16 a[k4Stages][k4TileM * k4TileK];  // each 1024-byte aligned: the swizzle pattern repeats every 1024 bytes
    bf16 b[k4Stages][k4TileN * k4TileK];
    uint64_t full[k4Stages];
    uint64_t empty[k4Stages];
};

// The 64-bit descriptor wgmma reads an operand tile through: a K-major tile whose rows are 128
// bytes (64 BF16), stored by the TMA with the 128-byte swizzle, starting at `tile` (1024-byte
// aligned). Fields (PTX ISA, "matrix descriptor"): bits 0-13 start address / 16; 16-29 leading
// byte offset / 16; 32-45 stride byte offset / 16; 49-51 base offset; 62-63 swizzle mode.
__device__ __forceinline__ uint64_t smem_descriptor(const bf16* tile) {
    // TODO(step 4): the start address (its shared-memory address, __cvta_generic_to_shared);
    //               leading byte offset 1 (unused: a 16-deep slice never leaves its 128-byte row);
    //               stride byte offset: from one group of 8 rows to the next; base offset 0;
    //               swizzle mode 1 (128 bytes). Each byte offset is stored divided by 16.
    // BEGIN SOLUTION
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(tile);
    return (uint64_t)((addr & 0x3FFFF) >> 4)  // start address
           | (uint64_t)1 << 16                // leading byte offset (unused here)
           | (uint64_t)(8 * 128 >> 4) << 32   // stride byte offset: 8 rows of 128 bytes
           | (uint64_t)1 << 62;               // 128-byte swizzle
    // END SOLUTION
    // STARTER: return 0;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // wgmma and setmaxnreg: sm_90a machine code only
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

__device__ __forceinline__ void wait_barrier(uint64_t* bar, uint32_t parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
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
        for (int s = 0; s < k4Stages; ++s) {
            cuda::ptx::mbarrier_init(&sh.full[s], 1);                  // the producer's one arrival
            cuda::ptx::mbarrier_init(&sh.empty[s], 4 * k4Consumers);  // one per consumer warp
        }
        // The barriers' initial state must be visible to the TMA unit, not only to the threads.
        cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();

    if (warpgroup == 0) {
        // The producer needs few registers: give them to the consumers (setmaxnreg; the kernel
        // starts with 65536 / 384 = 170 per thread, here 40 for the producer, 232 for consumers).
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            // TODO(step 4): for each tile t along K: wait until stage t % k4Stages is empty (the
            //               parity rule above), announce on its full barrier the bytes to expect
            //               (cuda::ptx::mbarrier_arrive_expect_tx), then start two TMA copies
            //               (cuda::ptx::cp_async_bulk_tensor): A's tile at coordinates {k, m0} and
            //               Bt's at {k, n0}, innermost first, both completing on that barrier.
            // BEGIN SOLUTION
            for (int t = 0; t < tiles; ++t) {
                const int s = t % k4Stages;
                wait_barrier(&sh.empty[s], ((t / k4Stages) & 1) ^ 1);
                (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                           cuda::ptx::space_shared, &sh.full[s],
                                                           k4TileABytes + k4TileBBytes);
                const int32_t at_a[2] = {t * k4TileK, m0}, at_b[2] = {t * k4TileK, n0};
                cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sh.a[s], &map_a,
                                                at_a, &sh.full[s]);
                cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sh.b[s], &map_b,
                                                at_b, &sh.full[s]);
            }
            // END SOLUTION
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int consumer = warpgroup - 1;  // rows consumer * 64 ... of the tile
        float d[128];
#pragma unroll
        for (int i = 0; i < 128; ++i) d[i] = 0.0f;
        // TODO(step 4): for each tile t: wait until its stage is full; descriptors of this
        //               consumer's 64 rows of A's tile and of Bt's whole tile; wgmma_fence, four
        //               wgmma_m64n256k16 (the k-th 16-deep slice starts 32 bytes further along
        //               each row: add 32 / 16 to a descriptor per slice), commit, wait for them;
        //               then lane 0 of each warp arrives on the stage's empty barrier. Where does
        //               wgmma_fence_operands belong?
        // BEGIN SOLUTION
        for (int t = 0; t < tiles; ++t) {
            const int s = t % k4Stages;
            wait_barrier(&sh.full[s], (t / k4Stages) & 1);
            const uint64_t desc_a = smem_descriptor(sh.a[s] + consumer * 64 * k4TileK);
            const uint64_t desc_b = smem_descriptor(sh.b[s]);
            wgmma_fence_operands(d);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < k4TileK / 16; ++kk) wgmma_m64n256k16(d, desc_a + 2 * kk, desc_b + 2 * kk);
            wgmma_commit();
            wgmma_wait<0>();
            wgmma_fence_operands(d);
            __syncwarp();
            if (threadIdx.x % 32 == 0) (void)cuda::ptx::mbarrier_arrive(&sh.empty[s]);
        }
        // END SOLUTION
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

// A tensor map for a rows x k row-major BF16 matrix (k a multiple of 8, 16-byte aligned), read in
// boxes of box_rows x k4TileK.
static CUtensorMap make_tensor_map(const bf16* M, int rows, int k, int box_rows) {
    CUtensorMap map{};
    // TODO(step 4): describe M to the TMA: its extent per dimension, innermost (k) first; the
    //               byte stride from one row to the next; the box one copy fetches (k4TileK
    //               along k, box_rows rows); element steps of 1; then encode_tiled() with BF16,
    //               no interleave, CU_TENSOR_MAP_SWIZZLE_128B, L2 promotion of 256 bytes and
    //               zeros outside (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE). Check the result.
    // BEGIN SOLUTION
    const cuuint64_t extent[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    const cuuint64_t row_stride[1] = {(cuuint64_t)k * sizeof(bf16)};
    const cuuint32_t box[2] = {(cuuint32_t)k4TileK, (cuuint32_t)box_rows};
    const cuuint32_t element_steps[2] = {1, 1};
    const CUresult r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16*>(M), extent,
                                      row_stride, box, element_steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "run_wgmma_tma: cuTensorMapEncodeTiled failed (CUresult %d) for %d x %d\n", (int)r, rows, k);
        std::exit(1);
    }
    // END SOLUTION
    return map;
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
// BEGIN SOLUTION
const long long kTmaBytesPerStage = (128 + 256) * 64 * 2;  // 49152: A's 128 x 64 tile and Bt's 256 x 64
// END SOLUTION
// STARTER: const long long kTmaBytesPerStage = -1;  // your prediction
