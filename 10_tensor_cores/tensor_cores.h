// tensor_cores.h: the interface of exercise 10, C = A * B on the tensor cores.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
//
// Layouts (row-major throughout, as in exercise 08, with one difference):
//   A  is m x k BF16, element (i, p) at A[i * k + p];
//   Bt is n x k BF16: B is given TRANSPOSED, element (p, j) of B at Bt[j * k + p]. Row j of Bt is
//      column j of B, so both operands run along k in memory ("K-major"), the layout every
//      tensor-core instruction reads without a transpose (and the layout of a linear layer's
//      weights: y = x * W^T);
//   C  is m x n FP32, element (i, j) at C[i * n + j].
// Products of BF16 numbers are summed in FP32. Pointers are device pointers, aligned at least as
// their element type; each run_* function launches its work and returns without waiting (the
// caller synchronises). m == 0 or n == 0 does nothing; k == 0 writes zeros (an empty sum). Every
// dimension is at most kMaxDim; offsets are size_t, since C may hold more than 2^31 elements.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include <cuda_bf16.h>

#include "compare.h"
#include "cpu_threads.h"
#include "gpu.h"
#include "steps.h"

using bf16 = __nv_bfloat16;

constexpr int kMaxDim = 1 << 20;

using MatmulFn = void (*)(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// ---- Step 1: WMMA, one warp per 16 x 16 tile of C, operands from global memory -----------------
// A block of 8 warps covers a 32 x 64 patch of C (2 x 4 tiles).
void run_wmma_global(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// ---- Step 2: WMMA from tiles in shared memory ------------------------------------------------------
// A block of 256 threads (8 warps as 2 x 4) computes a 128 x 128 tile of C; each warp a 64 x 32
// part of it, 4 x 2 fragments. The shared tiles are k2TileK = 32 deep (64 bytes a row); the
// padded variant makes each row k2TilePad elements longer.
constexpr int k2TileM = 128, k2TileN = 128, k2TileK = 32, k2TilePad = 8;
constexpr int k2WarpTileM = 64, k2WarpTileN = 32;
void run_wmma_shared_unpadded(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);
void run_wmma_shared_padded(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// ---- Step 3: a cp.async pipeline feeding mma.sync through ldmatrix ------------------------------
// 128 x 128 tiles of C, k3TileK = 64 deep (128-byte rows, XOR-swizzled), k3Stages in flight;
// 8 warps as 2 x 4, each a 64 x 32 part, with m16n8k16 instructions.
constexpr int k3TileM = 128, k3TileN = 128, k3TileK = 64, k3Stages = 3;
constexpr int k3WarpTileM = 64, k3WarpTileN = 32;
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;  // mma.sync.m16n8k16 with BF16 inputs
void run_mma_pipeline(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// ---- Step 4: Hopper: wgmma fed by the Tensor Memory Accelerator (sm_90a) ---------------------
// 128 x 256 tiles of C, k4TileK = 64 deep, k4Stages in flight. Three warpgroups of 128 threads:
// one producer (one thread issues the TMA copies), two consumers (64 rows of C each, with
// wgmma.m64n256k16).
constexpr int k4TileM = 128, k4TileN = 256, k4TileK = 64, k4Stages = 4;
void run_wgmma_tma(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// Whether the machine code this GPU runs has Hopper's architecture-specific instructions
// (built for sm_90a and running on compute capability 9.0). Given in starter.cu.
bool wgmma_code_loaded();

// Given to step 4: a wgmma matrix descriptor, packed (PTX ISA, "Matrix Descriptor Format" of the
// asynchronous warpgroup-level matrix instructions). wgmma reads an operand tile in shared memory
// as core matrices of 8 rows x 16 bytes; the descriptor says where the tile starts and how they lie:
//   start          the tile's address in the shared window (__cvta_generic_to_shared(pointer))
//   leading_bytes  from one core matrix to the next along k; in a K-major swizzled tile one
//                  wgmma's 16 elements along k stay within a swizzled row, so it is unused (pass 16)
//   stride_bytes   from one group of 8 rows to the next along m (A) or n (B)
//   swizzle        the pattern the tile's 16-byte chunks were stored in. A swizzle of R bytes XORs
//                  the chunk bits of each address wgmma forms with its row bits, repeating every
//                  8 x R bytes: the tile starts aligned to that, and a start further along the
//                  first row (a later slice along k) stays in step with the pattern.
// Fields: bits 0-13 start / 16, 16-29 leading_bytes / 16, 32-45 stride_bytes / 16, 49-51 base
// offset (0: the tile is aligned to its pattern), 62-63 the swizzle mode.
enum class WgmmaSwizzle : uint64_t { none = 0, bytes128 = 1, bytes64 = 2, bytes32 = 3 };
__host__ __device__ constexpr uint64_t wgmma_descriptor(uint32_t start, uint32_t leading_bytes, uint32_t stride_bytes,
                                                        WgmmaSwizzle swizzle) {
    return (uint64_t)((start & 0x3FFFF) >> 4) | (uint64_t)((leading_bytes >> 4) & 0x3FFF) << 16 |
           (uint64_t)((stride_bytes >> 4) & 0x3FFF) << 32 | (uint64_t)swizzle << 62;
}

// ---- Step 5 (optional): the persistent kernel (sm_90a) ---------------------------------------
// Step 4's block and pipeline, launched once per SM rather than once per tile: block b computes
// tiles b, b + G, b + 2G, ... (G blocks; step 4's band order) through stages whose barriers and
// phases run on from one tile to the next, so the next tile's loads overlap this tile's stores.
// C leaves through 16-byte stores where n is a multiple of 4 and C 16-byte aligned.
// run_wgmma_persistent launches as many blocks as fit on the GPU at once; the tests also launch
// it with fewer (run_wgmma_persistent_blocks), so that every block walks many tiles.
void run_wgmma_persistent(const bf16* A, const bf16* Bt, float* C, int m, int n, int k);
void run_wgmma_persistent_blocks(int blocks, const bf16* A, const bf16* Bt, float* C, int m, int n, int k);

// The library reference is CublasGemmBf16 (common/baselines/cublas_gemm_bf16.h), same contract.

// ---- Predictions (predict on paper, write them in starter.cu; the tests check them) ----------
// Step 1: how many of the 256 elements of a 16 x 16 FP32 accumulator fragment each lane holds.
extern const long long kAccumulatorElementsPerLane;
// Step 2: tile rows of 64 bytes (k2TileK BF16) with no padding. One instruction of a fragment
// load reads 16 bytes from each of 8 consecutive rows (4 bytes per lane, lanes 4r ... 4r + 3
// on row r); how many of those 8 rows start on the same banks (the n-way bank conflict)?
extern const long long kBankConflictWaysUnpadded;
// Step 3: mma.sync.m16n8k16 instructions one warp issues per k3TileK-deep tile (64 x 32 warp tile).
extern const long long kMmaSyncPerWarpPerTile;
// Step 4: bytes the Tensor Memory Accelerator writes into one pipeline stage (A's tile and Bt's
// tile): the count the stage's barrier expects before the consumers may read it.
extern const long long kTmaBytesPerStage;
// Step 5: m = n = 4096, k = 5000, a persistent grid of one block per SM on a GPU with 132 SMs:
// how many k-tiles pass through block 0's pipeline, over all the tiles it computes?
extern const long long kKTilesThroughBlock0;

// ---- The steps, in order: the program, the tests and their summary all read this list --------

// What the device must offer for a step to run at all.
struct Requirement {
    int min_cc;                 // 80 (8.0): BF16 tensor cores; 90: wgmma and the TMA
    int max_major;              // the newest major version the instructions exist on (99: any)
    const char* why;            // the reason a skipped step gives
    bool (*code_loaded)();      // nullptr, or: is the machine code for it in the running binary?
    const char* missing_code;   // the reason when code_loaded() says no
};

// Another launcher of the same TODO, shown and tested beside the step's own (step 2: its kernel
// without the padding).
struct Variant {
    const char* label = nullptr;
    MatmulFn run = nullptr;
};

// What a step is besides its launcher.
struct StepInfo {
    const char* label;   // its row in the tables, and its NVTX range (make profile-10): letters and spaces
    Requirement needs;
    Variant variant{};
};

constexpr Requirement kNeedsBf16TensorCores{80, 99, "BF16 tensor cores need compute capability 8.0 or newer",
                                            nullptr, ""};
constexpr Requirement kNeedsHopper{90, 9,
                                   "wgmma and the Tensor Memory Accelerator exist on compute capability 9.x "
                                   "(Hopper) only",
                                   wgmma_code_loaded,
                                   "this binary has no sm_90a machine code for this GPU (rebuild: the exercise's "
                                   "exercise.mk adds it)"};

inline const Step<MatmulFn, StepInfo> kSteps[] = {
    {1, "wmma_global", run_wmma_global, {"wmma from global", kNeedsBf16TensorCores}},
    {2, "wmma_shared", run_wmma_shared_padded,
     {"wmma shared padded", kNeedsBf16TensorCores, {"wmma shared unpadded", run_wmma_shared_unpadded}}},
    {3, "mma_pipeline", run_mma_pipeline, {"mma sync pipeline", kNeedsBf16TensorCores}},
    {4, "wgmma_tma", run_wgmma_tma, {"wgmma with TMA", kNeedsHopper}},
    {5, "wgmma_persistent", run_wgmma_persistent, {"wgmma persistent", kNeedsHopper}},  // optional: complete at 4
};

// Why a step cannot run on this device ("" when it can). Asks the device; call with a GPU.
inline std::string unsupported_reason(const Requirement& r, const DeviceFacts& dev) {
    const int cc = dev.major * 10 + dev.minor;
    if (cc < r.min_cc || dev.major > r.max_major)
        return std::string(r.why) + "; this GPU is " + std::to_string(dev.major) + "." + std::to_string(dev.minor);
    if (r.code_loaded && !r.code_loaded()) return r.missing_code;
    return "";
}

// ---- BF16 on the host -----------------------------------------------------------------------
// BF16 keeps float's 8 exponent bits and 7 of its 23 mantissa bits: 8 significant bits, so a
// float rounds to BF16 (to nearest, ties to even) with a relative error of at most 2^-8, half a
// unit in the 8th significant bit.
inline std::vector<bf16> to_bf16(const std::vector<float>& x) {
    std::vector<bf16> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = __float2bfloat16(x[i]);
    return y;
}
inline std::vector<float> to_float(const std::vector<bf16>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = __bfloat162float(x[i]);
    return y;
}

// ---- CPU reference ---------------------------------------------------------------------------
// C = A * B in double precision, with B given as Bt (n x k). The product of two BF16 numbers is
// exact in double (and in float: 8 + 8 significant bits); the sums nearly so. Inputs are float
// arrays, so the same function gives the exact product of the BF16 inputs (pass their float
// values) and of the float numbers before rounding. Rows are shared out among CPU threads.
inline std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& Bt, int m, int n,
                                            int k) {
    std::vector<double> C((size_t)m * n, 0.0);
    auto rows = [&](int first, int last) {
        for (int i = first; i < last; ++i) {
            const float* a = &A[(size_t)i * k];
            for (int j = 0; j < n; ++j) {
                const float* b = &Bt[(size_t)j * k];
                double acc = 0.0;
                for (int p = 0; p < k; ++p) acc += (double)a[p] * b[p];
                C[(size_t)i * n + j] = acc;
            }
        }
    };
    for_row_ranges(m, (double)m * n * k, rows);
    return C;
}

// Bt from B: the k x n row-major matrix as n x k (for the FP32 comparison with exercise 08).
inline std::vector<float> transpose(const std::vector<float>& X, int rows, int cols) {
    std::vector<float> T((size_t)rows * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) T[(size_t)c * rows + r] = X[(size_t)r * cols + c];
    return T;
}

// The largest |x| in a matrix (for the tolerance below).
template <class T>
double max_abs(const std::vector<T>& x) {
    double m = 0;
    for (const T& v : x) m = std::max(m, std::fabs((double)(float)v));
    return m;
}

// ---- The tolerance of an FP32 sum of exact BF16 products ----------------------------------------
// Each product a_ip * b_pj of two BF16 numbers is exact in FP32. The tensor cores add them in
// groups of kMmaK = 16 (one k16 instruction) to the FP32 accumulator, and the rounding of each
// such addition is not specified as round-to-nearest: published measurements show truncation,
// with the addends aligned to the largest before they are added. Allow each of the ceil(k/16)
// additions, plus one more for a final sum in FP32, an error of 2^-21 of the running sum's
// largest possible magnitude, sum_p |a_ip b_pj| <= k max|A| max|B| (four units in the last place
// of FP32: one for truncation, three for the aligned addends). So
//     |c - c_ref| <= (ceil(k / 16) + 1) * 2^-21 * k * max|A| * max|B|,
// a bound in the worst case, not an estimate: on random inputs the error is far smaller (the
// program prints it). For inputs in [-1, 1) and k = 1024: 0.032, while a missing or repeated
// product moves an element by 0.25 on average; integer inputs are checked exactly.
inline Tolerance bf16_matmul_tolerance(int k, double max_abs_a, double max_abs_b) {
    const double additions = std::ceil(k / (double)kMmaK) + 1.0;
    return Tolerance{0.0, additions * 0x1p-21 * (double)k * max_abs_a * max_abs_b + 1e-30};
}

// The tolerance of exercise 08's FP32 kernels (an FP32 sum of k FP32 products, any order).
inline Tolerance fp32_matmul_tolerance(int k, double max_abs_a, double max_abs_b) {
    return float_sum_tolerance((size_t)k, (double)k * max_abs_a * max_abs_b);
}
