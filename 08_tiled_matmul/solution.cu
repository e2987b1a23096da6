// BEGIN SOLUTION
// 08_tiled_matmul/solution.cu: the reference solution.
// starter.cu is generated from this file (awk -f common/make_starter.awk solution.cu): edit this
// file, regenerate the starter, and `make check` confirms the two agree.
// END SOLUTION
// STARTER: // 08_tiled_matmul/starter.cu: your file. Do the TODOs in order; after each step,
// STARTER: // `make test-08` shows which steps pass and `make run-08` shows the program's output.
//
// C = A * B (row-major float32, A m x k, B k x n, C m x n), three ways. Each step keeps the same
// arithmetic, 2mnk FLOP, and cuts the memory traffic per FLOP: the naive kernel asks global
// memory for 8 bytes per multiply-add; shared-memory tiles cut that; register blocking cuts the
// reads from shared memory.

#include <algorithm>
#include <cstdint>

#include "tiled_matmul.h"

#include "cuda_check.h"
#include "launch.h"  // ceil_div, one_wave_blocks

// ---- Step 1: naive, one thread per element of C ------------------------------------------------
// Thread (i, j) computes the dot product of row i of A with column j of B. A warp is 32 threads
// with consecutive threadIdx.x, and its 32 loads of one instruction are served together, in
// 32-byte sectors: the fewer different sectors they touch, the cheaper the load. So which index
// of C threadIdx.x walks along matters.

// threadIdx.x -> row i (what the source material does).
// BEGIN SOLUTION
// In one step p of the loop the warp reads A[i][p] for 32 different rows, K floats apart: 32
// sectors for 32 useful floats.
// END SOLUTION
__global__ void matmul_naive_x_row(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 1): thread (i, j) computes C[i][j], the row i from the .x indices and the column j
    //               from the .y ones; threads outside C do nothing. Accumulate in a float. Compute
    //               offsets such as i * K in size_t: a matrix may hold more than 2^31 floats.
    // BEGIN SOLUTION
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    const float* a = A + (size_t)i * K;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc += a[p] * B[(size_t)p * N + j];
    C[(size_t)i * N + j] = acc;
    // END SOLUTION
}

// threadIdx.x -> column j.
// BEGIN SOLUTION
// Now the warp reads ONE element of A (a broadcast) and 32 neighbouring elements of B (128
// bytes, 4 sectors), and its stores to C are neighbours too.
// END SOLUTION
__global__ void matmul_naive_x_col(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 1): the same product, but j comes from the .x parts and i from the .y parts.
    // BEGIN SOLUTION
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    const float* a = A + (size_t)i * K;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc += a[p] * B[(size_t)p * N + j];
    C[(size_t)i * N + j] = acc;
    // END SOLUTION
}

void run_naive(NaiveMap map, const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;  // nothing to compute; an empty grid is a launch error
    const dim3 block(32, 32);
    // TODO(step 1): launch the kernel that map names, with 32 x 32 blocks and enough of them to
    //               cover C: the grid's x dimension counts blocks along what threadIdx.x walks
    //               along. Check the launch.
    // BEGIN SOLUTION
    if (map == NaiveMap::x_to_row) {
        const dim3 grid(ceil_div(m, 32), ceil_div(n, 32));
        matmul_naive_x_row<<<grid, block>>>(A, B, C, m, n, k);
    } else {
        const dim3 grid(ceil_div(n, 32), ceil_div(m, 32));
        matmul_naive_x_col<<<grid, block>>>(A, B, C, m, n, k);
    }
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// TODO(step 1): predict on paper, for M = N = K = 1024 and a warp of 32 consecutive threadIdx.x
//               whose first row (x->row) or column (x->col) is a multiple of 32: how many
//               different 32-byte sectors does the warp's load of A touch, in one step p of
//               matmul_naive_x_row? And its load of B in matmul_naive_x_col?
// BEGIN SOLUTION
const long long kXRowSectorsA = 32;  // 32 rows, 4 KB apart: a sector each
const long long kXColSectorsB = 4;   // 32 neighbouring floats: 128 bytes
// END SOLUTION
// STARTER: const long long kXRowSectorsA = -1;  // your prediction
// STARTER: const long long kXColSectorsB = -1;  // your prediction

// ---- Step 2: shared-memory tiles ---------------------------------------------------------------
// C is cut into kTile x kTile tiles, one per block of kTile x kTile threads. The block walks
// along k one tile at a time: each thread copies ONE element of A's tile and ONE of B's into
// shared memory, then every thread reads kTile elements of each from there. Every float fetched
// from global memory is used kTile times instead of once.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 2): this block's kTile x kTile tile of C, threadIdx.x along columns. Walk along K
    //               one tile at a time: each thread copies one element of A's tile and one of B's
    //               into shared memory (0.0f outside A or B), then sums kTile products from there.
    //               One barrier against each of the two hazards on the shared tiles; every thread
    //               reaches every barrier, so bounds checks guard the loads and the store only.
    // BEGIN SOLUTION
    // Two barriers per tile, each for a different hazard:
    //   after the copy:  a thread reads elements that OTHER threads copied; it must wait until
    //                    they are all written (read-after-write).
    //   after the sums:  the next iteration overwrites the tiles; a fast thread must not do that
    //                    while a slow one still reads the current tiles (write-after-read).
    // Every thread of the block must reach both, so no thread may leave early (not even one
    // outside C): the bounds checks go around the loads and the final store, never a barrier.
    __shared__ float tile_a[kTile][kTile];
    __shared__ float tile_b[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        // A warp (fixed ty, tx = 0..31) reads 32 neighbours of one row of A and of one row of B.
        tile_a[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        tile_b[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        // tile_a[ty][p]: one address for the whole warp (broadcast); tile_b[p][tx]: 32
        // consecutive words, one per bank. No bank conflicts.
#pragma unroll
        for (int p = 0; p < kTile; ++p) acc += tile_a[ty][p] * tile_b[p][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
    // END SOLUTION
}

void run_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const dim3 block(kTile, kTile);
    const dim3 grid(ceil_div(n, kTile), ceil_div(m, kTile));
    matmul_tiled<<<grid, block>>>(A, B, C, m, n, k);
    CUDA_CHECK_LAUNCH();
}

// TODO(step 2): predict on paper: how many bytes does matmul_tiled request from global memory
//               per FMA (count the loads into the shared tiles, for large M, N, K)? The naive
//               kernels request 8.
// BEGIN SOLUTION
const double kTiledGlobalBytesPerFma = 0.25;  // per tile step: 2 x 32 x 32 floats for 32^3 FMAs
// END SOLUTION
// STARTER: const double kTiledGlobalBytesPerFma = -1;  // your prediction

// ---- Step 3: register blocking in 1D -----------------------------------------------------------
// In the tiled kernel every multiply-add still needs two shared-memory reads. Shared memory is
// fast, but an SM reads at most 32 words of it per clock while it can do 128 FMAs: at two reads
// per FMA, the FMA units wait. Fix: give each thread several outputs and keep what they share in
// a register. Here a thread computes k1dRowsPerThread = 8 elements of ONE column of C: per step p
// it reads b = B[p][col] once and uses it for all 8.
constexpr int k1dTileRows = 64, k1dTileCols = 64;  // the tile of C a block computes
constexpr int k1dTileK = 8;                        // the depth of the shared tiles of A and B
constexpr int k1dRowsPerThread = 8;                // a thread's elements, in one column of C
constexpr int k1dThreads = k1dTileRows * k1dTileCols / k1dRowsPerThread;  // 512
static_assert(k1dTileRows * k1dTileK == k1dThreads && k1dTileK * k1dTileCols == k1dThreads,
              "each thread copies exactly one element of each tile");

__global__ void __launch_bounds__(k1dThreads) matmul_blocked_1d(const float* A, const float* B, float* C,
                                                                int M, int N, int K) {
    // TODO(step 3): a k1dTileRows x k1dTileCols tile of C per block of k1dThreads threads, each
    //               thread computing k1dRowsPerThread elements of one column in float acc[], with
    //               the value of B's tile they share read once into a register. Shared tiles
    //               k1dTileK deep, one element of each copied per thread (zeros outside A and B).
    //               acc[] stays in registers only if every index into it is a compile-time constant.
    // BEGIN SOLUTION
    __shared__ float tile_a[k1dTileRows][k1dTileK];
    __shared__ float tile_b[k1dTileK][k1dTileCols];
    const int tid = threadIdx.x;
    const int tx = tid % k1dTileCols, ty = tid / k1dTileCols;
    const int row0 = blockIdx.y * k1dTileRows, col0 = blockIdx.x * k1dTileCols;
    const int a_r = tid / k1dTileK, a_c = tid % k1dTileK;  // 8 threads read 32 bytes of one row of A
    const int b_r = tid / k1dTileCols, b_c = tid % k1dTileCols;  // a warp reads 128 bytes of one row of B
    float acc[k1dRowsPerThread] = {};
    for (int k0 = 0; k0 < K; k0 += k1dTileK) {
        const int ar = row0 + a_r, ak = k0 + a_c;
        tile_a[a_r][a_c] = (ar < M && ak < K) ? A[(size_t)ar * K + ak] : 0.0f;
        const int bk = k0 + b_r, bc = col0 + b_c;
        tile_b[b_r][b_c] = (bk < K && bc < N) ? B[(size_t)bk * N + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < k1dTileK; ++p) {
            const float b = tile_b[p][tx];
#pragma unroll
            for (int r = 0; r < k1dRowsPerThread; ++r)
                acc[r] += tile_a[ty * k1dRowsPerThread + r][p] * b;  // one word for the warp: a broadcast
        }
        __syncthreads();
    }
    const int col = col0 + tx;
    if (col < N) {
#pragma unroll
        for (int r = 0; r < k1dRowsPerThread; ++r) {
            const int row = row0 + ty * k1dRowsPerThread + r;
            if (row < M) C[(size_t)row * N + col] = acc[r];
        }
    }
    // END SOLUTION
}

void run_register_blocked_1d(const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const dim3 grid(ceil_div(n, k1dTileCols), ceil_div(m, k1dTileRows));
    matmul_blocked_1d<<<grid, k1dThreads>>>(A, B, C, m, n, k);
    CUDA_CHECK_LAUNCH();
}

// TODO(step 3): predict on paper: how many bytes does one thread of matmul_blocked_1d read from
//               shared memory per FMA? (The tiled kernel reads 8: two floats per FMA.)
// BEGIN SOLUTION
const double kBlocked1dSharedBytesPerFma = 4.5;  // per step p: 8 values of A and 1 of B for 8 FMAs
// END SOLUTION
// STARTER: const double kBlocked1dSharedBytesPerFma = -1;  // your prediction

// ---- Step 4: register blocking in 2D -----------------------------------------------------------
// Each of 256 threads computes an 8 x 8 micro-tile of a 128 x 128 tile of C. Per step p it loads
// what its micro-tile needs of A's column and of B's row into registers, reading them as 16-byte
// words (LDS.128), and does all its FMAs of that step with them. To make its values of A
// contiguous, A's tile is stored TRANSPOSED in shared memory (tile_a[p][m]), and the copy from
// global memory does the transposition.
//
// A thread's 8 rows are ty*4 .. ty*4+3 and 64+ty*4 .. 64+ty*4+3 (its columns likewise with tx),
// not 8 adjacent ones: then the 16 threads with the same ty read 16 adjacent float4s of B's row
// (256 contiguous bytes, no bank conflicts) and the stores to C are contiguous too.
//
// Global loads are float4 (16 bytes) where the whole float4 is inside the matrix and the row is
// 16-byte aligned (its length a multiple of 4, the pointer aligned); elsewhere, at the edges or
// for odd sizes, four guarded scalar loads fill zeros. Same for the stores to C.
//
// While the FMAs run on one pair of tiles, the next pair is already on its way from global memory
// into registers, and goes to a second pair of shared buffers afterwards (double buffering): the
// load latency hides behind arithmetic, and one barrier per step suffices.
constexpr int k2dTileRows = 128, k2dTileCols = 128;        // the tile of C a block computes
constexpr int k2dTileK = 16;                               // the depth of the shared tiles of A and B
constexpr int k2dRowsPerThread = 8, k2dColsPerThread = 8;  // a thread's micro-tile of C
constexpr int k2dThreads = (k2dTileRows / k2dRowsPerThread) * (k2dTileCols / k2dColsPerThread);  // 256
// tile_a rows of 132 floats, not 128: rows stay 16-byte aligned for the float4 reads, and the
// transposed stores, which would put 4 threads of a warp on one bank, put at most 2.
constexpr int k2dTileAPad = 4;
constexpr int k2dAVecsPerThread = k2dTileRows * k2dTileK / 4 / k2dThreads;  // float4s of A's tile per thread
constexpr int k2dBVecsPerThread = k2dTileK * k2dTileCols / 4 / k2dThreads;  // float4s of B's tile per thread
static_assert(k2dAVecsPerThread >= 1 && k2dBVecsPerThread >= 1 && k2dTileK % 4 == 0,
              "whole float4s per thread");

// Four consecutive floats of row r of a rows x cols row-major matrix, from column c on (c is a
// multiple of 4); zeros for those outside. One 16-byte load when the whole float4 is inside and
// `vec` says rows are 16-byte aligned.
__device__ __forceinline__ float4 load4(const float* __restrict__ M, int rows, int cols, int r, int c, bool vec) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows && c < cols) {
        const float* p = M + (size_t)r * cols + c;
        if (vec && c + 3 < cols) {
            v = *reinterpret_cast<const float4*>(p);
        } else {
            v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

// The mirror image: stores the parts of v that lie inside the matrix.
__device__ __forceinline__ void store4(float* __restrict__ M, int rows, int cols, int r, int c, float4 v, bool vec) {
    if (r >= rows || c >= cols) return;
    float* p = M + (size_t)r * cols + c;
    if (vec && c + 3 < cols) {
        *reinterpret_cast<float4*>(p) = v;
    } else {
        p[0] = v.x;
        if (c + 1 < cols) p[1] = v.y;
        if (c + 2 < cols) p[2] = v.z;
        if (c + 3 < cols) p[3] = v.w;
    }
}

// Fetches this thread's share of the k2dTileRows x k2dTileK tile of A and the k2dTileK x
// k2dTileCols tile of B that start at column (A) / row (B) k0, into registers.
__device__ __forceinline__ void fetch_tiles_2d(const float* __restrict__ A, const float* __restrict__ B, int M,
                                               int N, int K, int row0, int col0, int k0, bool vec_a, bool vec_b,
                                               float4 (&a)[k2dAVecsPerThread], float4 (&b)[k2dBVecsPerThread]) {
    // TODO(step 4): fetch this thread's float4s of the two tiles (A's at (row0, k0), B's at
    //               (k0, col0)) with load4: k2dAVecsPerThread of A's and k2dBVecsPerThread of
    //               B's, chosen so that the 32 loads of a warp read neighbouring float4s.
    // BEGIN SOLUTION
#pragma unroll
    for (int l = 0; l < k2dAVecsPerThread; ++l) {
        const int e = threadIdx.x + l * k2dThreads;
        a[l] = load4(A, M, K, row0 + e / (k2dTileK / 4), k0 + 4 * (e % (k2dTileK / 4)), vec_a);
    }
#pragma unroll
    for (int l = 0; l < k2dBVecsPerThread; ++l) {
        const int e = threadIdx.x + l * k2dThreads;
        b[l] = load4(B, K, N, k0 + e / (k2dTileCols / 4), col0 + 4 * (e % (k2dTileCols / 4)), vec_b);
    }
    // END SOLUTION
}

// Writes what fetch_tiles_2d fetched into shared memory: B's float4s as they are, A's
// transposed (the four floats of row r, columns c..c+3, go to tile_a[c..c+3][r]).
__device__ __forceinline__ void store_tiles_2d(float (&tile_a)[k2dTileK][k2dTileRows + k2dTileAPad],
                                               float (&tile_b)[k2dTileK][k2dTileCols],
                                               const float4 (&a)[k2dAVecsPerThread],
                                               const float4 (&b)[k2dBVecsPerThread]) {
    // TODO(step 4): the float4s fetch_tiles_2d fetched, to their places: B's as they are (one
    //               16-byte store each), A's transposed (four scalar stores each).
    // BEGIN SOLUTION
#pragma unroll
    for (int l = 0; l < k2dAVecsPerThread; ++l) {
        const int e = threadIdx.x + l * k2dThreads;
        const int r = e / (k2dTileK / 4), c = 4 * (e % (k2dTileK / 4));
        tile_a[c + 0][r] = a[l].x;
        tile_a[c + 1][r] = a[l].y;
        tile_a[c + 2][r] = a[l].z;
        tile_a[c + 3][r] = a[l].w;
    }
#pragma unroll
    for (int l = 0; l < k2dBVecsPerThread; ++l) {
        const int e = threadIdx.x + l * k2dThreads;
        const int r = e / (k2dTileCols / 4), c = 4 * (e % (k2dTileCols / 4));
        *reinterpret_cast<float4*>(&tile_b[r][c]) = b[l];
    }
    // END SOLUTION
}

// The block's product over the k-tiles kt_first .. kt_last - 1 (k-tile t: columns t * k2dTileK..
// of A's rows from row0, the same rows of B's columns from col0), accumulated in each thread's
// acc[8][8], which it then hands to write(acc): the kernel that calls it says where the micro-tile
// goes. Every thread of the block calls it (it has barriers).
template <class Write>
__device__ __forceinline__ void tile_product_2d(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                                int K, int row0, int col0, int kt_first, int kt_last, bool vec_a,
                                                bool vec_b, Write write) {
    // TODO(step 4): the micro-tile of thread (tx, ty) = (threadIdx.x % 16, threadIdx.x / 16), laid
    //               out as described above, in float acc[8][8]. Two pairs of shared tiles
    //               (__align__(16), A's transposed): while the FMAs use one pair, the next tiles
    //               travel into registers, then go into the other pair; one barrier per step. The
    //               range may be empty (K = 0): acc stays zero.
    // BEGIN SOLUTION
    __shared__ __align__(16) float tile_a[2][k2dTileK][k2dTileRows + k2dTileAPad];
    __shared__ __align__(16) float tile_b[2][k2dTileK][k2dTileCols];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;

    float acc[k2dRowsPerThread][k2dColsPerThread] = {};
    float4 a_next[k2dAVecsPerThread], b_next[k2dBVecsPerThread];
    if (kt_first < kt_last) {
        fetch_tiles_2d(A, B, M, N, K, row0, col0, kt_first * k2dTileK, vec_a, vec_b, a_next, b_next);
        store_tiles_2d(tile_a[0], tile_b[0], a_next, b_next);
    }
    __syncthreads();

    for (int t = kt_first; t < kt_last; ++t) {
        const int buf = (t - kt_first) & 1;
        const bool more = t + 1 < kt_last;
        if (more) fetch_tiles_2d(A, B, M, N, K, row0, col0, (t + 1) * k2dTileK, vec_a, vec_b, a_next, b_next);
#pragma unroll
        for (int p = 0; p < k2dTileK; ++p) {
            const float4 a0 = *reinterpret_cast<const float4*>(&tile_a[buf][p][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&tile_a[buf][p][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&tile_b[buf][p][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&tile_b[buf][p][64 + tx * 4]);
            const float a[k2dRowsPerThread] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[k2dColsPerThread] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < k2dRowsPerThread; ++i)
#pragma unroll
                for (int j = 0; j < k2dColsPerThread; ++j) acc[i][j] += a[i] * b[j];
        }
        if (more) store_tiles_2d(tile_a[buf ^ 1], tile_b[buf ^ 1], a_next, b_next);
        __syncthreads();
    }
    write(acc);
    // END SOLUTION
}

// One block per 128 x 128 tile of C, over all of K's k-tiles.
__global__ void __launch_bounds__(k2dThreads, 2) matmul_blocked_2d(const float* __restrict__ A,
                                                                   const float* __restrict__ B,
                                                                   float* __restrict__ C, int M, int N, int K,
                                                                   bool vec_a, bool vec_b, bool vec_c) {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * k2dTileRows, col0 = blockIdx.x * k2dTileCols;
    const int k_tiles = (K + k2dTileK - 1) / k2dTileK;
    tile_product_2d(A, B, M, N, K, row0, col0, 0, k_tiles, vec_a, vec_b,
                    [&](const float (&acc)[k2dRowsPerThread][k2dColsPerThread]) {
        // TODO(step 4): write this thread's micro-tile into C with store4, each of its rows
        //               (which rows of C?) as two float4s.
        // BEGIN SOLUTION
#pragma unroll
        for (int i = 0; i < k2dRowsPerThread; ++i) {
            const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
            store4(C, M, N, row, col0 + tx * 4, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]), vec_c);
            store4(C, M, N, row, col0 + 64 + tx * 4, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]), vec_c);
        }
        // END SOLUTION
    });
}

// True when every row of a matrix whose rows hold `cols` floats starts on a 16-byte boundary.
static bool rows_16_byte_aligned(const void* p, int cols) {
    return cols % 4 == 0 && reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

void run_register_blocked_2d(const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const dim3 grid(ceil_div(n, k2dTileCols), ceil_div(m, k2dTileRows));
    matmul_blocked_2d<<<grid, k2dThreads>>>(A, B, C, m, n, k, rows_16_byte_aligned(A, k), rows_16_byte_aligned(B, n),
                                            rows_16_byte_aligned(C, n));
    CUDA_CHECK_LAUNCH();
}

// TODO(step 4): predict on paper: how many bytes does one thread of matmul_blocked_2d read from
//               shared memory per FMA?
// BEGIN SOLUTION
const double kBlocked2dSharedBytesPerFma = 1.0;  // per step p: 2 float4 of A and 2 of B (64 bytes) for 64 FMAs
// END SOLUTION
// STARTER: const double kBlocked2dSharedBytesPerFma = -1;  // your prediction

// ---- Step 5 (optional): small matrices, k split into slices ------------------------------------
// Step 4 gives each 128 x 128 tile of C one block. A GPU runs SMs x (blocks per SM) blocks at a
// time, one wave; a grid of fewer blocks than that leaves SMs idle, however fast each block is.
// Splitting k gives more blocks for the same tiles: block (x, y, z) computes slice z of the
// k-tiles of tile (y, x) and adds its partial micro-tile into C, which the launcher zeroes first.
// The launcher chooses the number of slices from the waves; with one slice, it is step 4.

// store4's twin for a C that several blocks add to: atomic adds, which land in any order. From
// compute capability 9.0 on, atomicAdd takes a float4 in global memory (CUDA C++ Programming
// Guide, atomicAdd(); PTX ISA, atom with a vector type): four adds in one instruction, each atomic
// on its own, at a 16-byte aligned address like any 16-byte access. Elsewhere four scalar ones.
__device__ __forceinline__ void add4(float* __restrict__ M, int rows, int cols, int r, int c, float4 v, bool vec) {
    if (r >= rows || c >= cols) return;
    float* p = M + (size_t)r * cols + c;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (vec && c + 3 < cols) {
        atomicAdd(reinterpret_cast<float4*>(p), v);
        return;
    }
#endif
    atomicAdd(p, v.x);
    if (c + 1 < cols) atomicAdd(p + 1, v.y);
    if (c + 2 < cols) atomicAdd(p + 2, v.z);
    if (c + 3 < cols) atomicAdd(p + 3, v.w);
}

__global__ void __launch_bounds__(k2dThreads, 2) matmul_split_k(const float* __restrict__ A,
                                                                const float* __restrict__ B,
                                                                float* __restrict__ C, int M, int N, int K,
                                                                bool vec_a, bool vec_b, bool vec_c,
                                                                int kt_per_slice) {
    // TODO(step 5): block (x, y, z): slice z of tile (y, x), the kt_per_slice k-tiles from
    //               z * kt_per_slice on (fewer in the last slice), through tile_product_2d as in
    //               matmul_blocked_2d, its micro-tile added into C with add4.
    // BEGIN SOLUTION
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * k2dTileRows, col0 = blockIdx.x * k2dTileCols;
    const int k_tiles = (K + k2dTileK - 1) / k2dTileK;
    const int kt_first = blockIdx.z * kt_per_slice;
    const int kt_last = min(k_tiles, kt_first + kt_per_slice);
    tile_product_2d(A, B, M, N, K, row0, col0, kt_first, kt_last, vec_a, vec_b,
                    [&](const float (&acc)[k2dRowsPerThread][k2dColsPerThread]) {
        // Step 4's places in C; the tile's other slices add to the same ones.
#pragma unroll
        for (int i = 0; i < k2dRowsPerThread; ++i) {
            const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
            add4(C, M, N, row, col0 + tx * 4, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]), vec_c);
            add4(C, M, N, row, col0 + 64 + tx * 4, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]), vec_c);
        }
    });
    // END SOLUTION
}

// At most `slices` slices (fewer where the k-tiles run out: no slice is empty).
void run_split_k_slices(int slices, const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const int k_tiles = ceil_div(k, k2dTileK);
    // TODO(step 5): the k-tiles per slice, then how many slices that makes; one slice (K = 0
    //               too) is step 4: run_register_blocked_2d. Otherwise zero C (cudaMemsetAsync)
    //               and launch matmul_split_k on a grid of (tiles along n, tiles along m, slices).
    //               Check both.
    // BEGIN SOLUTION
    const int per_slice = ceil_div(k_tiles, std::max(slices, 1));
    const int used = per_slice > 0 ? ceil_div(k_tiles, per_slice) : 1;  // 10 k-tiles in 4 slices: 3 + 3 + 3 + 1
    if (used <= 1) {
        run_register_blocked_2d(A, B, C, m, n, k);
        return;
    }
    CUDA_CHECK(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
    const dim3 grid(ceil_div(n, k2dTileCols), ceil_div(m, k2dTileRows), used);
    matmul_split_k<<<grid, k2dThreads>>>(A, B, C, m, n, k, rows_16_byte_aligned(A, k), rows_16_byte_aligned(B, n),
                                         rows_16_byte_aligned(C, n), per_slice);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

// How many slices to cut each tile's k_tiles k-tiles into, for a grid of `tiles` tiles of C on a
// GPU that runs `wave` blocks of matmul_split_k at a time (SMs x blocks per SM).
int slices_by_waves(long long tiles, int k_tiles, int wave) {
    // TODO(step 5): your rule, from the waves the grid would need with each number of slices.
    //               What does a slice cost, and when does one more gain nothing? Return 1 to
    //               leave the grid as step 4 has it.
    // BEGIN SOLUTION
    // The fewest slices whose grid uses at least 90% of the block slots of the waves it needs
    // (blocks / (waves rounded up x wave)); if no count up to 32 does, the one that uses the
    // most. At most one slice per 4 k-tiles (64 of k): thinner slices cost more in zeroing C,
    // atomics and each block's first tile than the idle SMs they fill.
    const int kMaxSlices = 32, kMinKTilesPerSlice = 4;
    const double kGoodUse = 0.9;
    auto use = [&](int s) {
        const long long blocks = tiles * s;
        return (double)blocks / ((double)ceil_div(blocks, wave) * wave);
    };
    int best = 1;
    for (int s = 1; s <= kMaxSlices && (s == 1 || s * kMinKTilesPerSlice <= k_tiles); ++s) {
        if (use(s) >= kGoodUse) return s;
        if (use(s) > use(best)) best = s;
    }
    return best;
    // END SOLUTION
    // STARTER: return 1;
}

// Split-K by waves: the slots of one wave from the occupancy calculator (launch.h), the number of
// slices from your rule.
void run_split_k(const float* A, const float* B, float* C, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    const long long tiles = (long long)ceil_div(n, k2dTileCols) * ceil_div(m, k2dTileRows);
    const int wave = one_wave_blocks((const void*)matmul_split_k, k2dThreads);
    run_split_k_slices(slices_by_waves(tiles, ceil_div(k, k2dTileK), wave), A, B, C, m, n, k);
}

// TODO(step 5): predict on paper, for an H100 (132 SMs), where matmul_split_k fits 2 blocks per
//               SM: the fewest slices S whose grid (tiles x S blocks) keeps at least 90% of the
//               block slots busy over the whole waves it needs (blocks / (waves rounded up x
//               slots per wave) >= 0.9), at m = n = k = 1024, and at m = n = k = 1536.
// BEGIN SOLUTION
const long long kSlices1024 = 4;  // 64 tiles: 256 blocks, 0.97 of one wave
const long long kSlices1536 = 5;  // 144 tiles: 720 blocks, 0.91 of three waves (2 slices: 0.55 of two)
// END SOLUTION
// STARTER: const long long kSlices1024 = -1;  // your prediction
// STARTER: const long long kSlices1536 = -1;  // your prediction
