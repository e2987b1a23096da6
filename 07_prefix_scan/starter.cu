// 07_prefix_scan/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-07` shows which steps pass and `make run-07` shows the program's output.
//
// Prefix sums six ways, from one block to the whole GPU, stream compaction built on them, and
// (optional) a seventh scan that spends less than the sixth.
// Every scan is written once as a template and instantiated for int and float at the bottom.

#include "prefix_scan.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cuda/atomic>

#include "buffer.h"  // DeviceBuffer
#include "cuda_check.h"
#include "launch.h"  // ceil_div, next_pow2, keep_pool_memory, require_size

constexpr unsigned kFullMask = 0xffffffffu;  // every lane of a warp takes part in a shuffle

// Stream-ordered scratch memory for the multi-block scans. cudaMallocAsync takes memory from a
// pool in stream order, without the device-wide synchronisation of cudaMalloc. The pool gives
// its memory back to the system at each synchronisation unless told to keep it; keeping it makes
// the next allocation of the same size nearly free (the benchmark calls the scans repeatedly).
template <class T>
T* scratch_alloc(size_t count) {
    keep_pool_memory();
    void* p = nullptr;
    CUDA_CHECK(cudaMallocAsync(&p, count * sizeof(T), 0));
    return static_cast<T*>(p);
}
inline void scratch_free(void* p) { CUDA_CHECK(cudaFreeAsync(p, 0)); }

// ---- Step 1: naive (Hillis-Steele) scan in one block ----------------------------------------
// Step k adds to each element the one 2^k places to its left: after ceil(log2 n) steps element i
// holds the sum of everything up to it. Every thread reads its left neighbour's value of the
// PREVIOUS step, so a step must not overwrite values that other threads still have to read:
// read from one buffer, write the other, swap.
template <class T>
__global__ void scan_naive_block(const T* in, T* out, int n, ScanKind kind) {
    __shared__ T buf[2][kNaiveMaxN];
    const int i = threadIdx.x;  // one thread per element, blockDim.x == n
    // TODO(step 1): out[i] = the inclusive or exclusive scan of in, any n <= kNaiveMaxN, with buf
    //               growing it step by step: each element adds the one `offset` places to its left.
    //               A step must read only the previous step's values (two buffers), and every
    //               thread must meet every barrier.
}

template <class T>
void naive_block(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    require_size(n <= kNaiveMaxN, "run_naive_block", n, "one block scans at most 1024 elements");
    // TODO(step 1): launch scan_naive_block as one block of n threads; check the launch.
}

// TODO(step 1): predict on paper: how many additions of two data values does scan_naive_block
//               perform, over all its threads, for an inclusive scan of n = 1000?
const long long kNaiveAdditions = -1;  // your prediction

// ---- Step 2: work-efficient (Blelloch) scan in one block -------------------------------------
// The array (padded with zeros to m, a power of two) is a balanced binary tree. Up-sweep: each
// level adds every left child into its right sibling, so the last element ends up holding the
// total. Down-sweep: set the root to 0, then at each level from the top, a node passes its
// value to its left child and gives its right child (its value + the left child's old value).
// What comes out is the EXCLUSIVE scan; inclusive is exclusive + the element itself.
//
// Bank conflicts: shared memory has 32 banks, word w lives in bank w % 32. At the level where
// threads touch words `stride` apart, a stride of 32 or more puts every thread of a warp in the
// same bank, and the accesses are served one after another. Inserting one unused word after
// every 32 (index i is stored at i + i / 32) shifts each group of 32 into the next bank.
__device__ __forceinline__ int padded(int i) { return i + (i >> 5); }

template <class T>
__global__ void scan_blelloch_block(const T* in, T* out, int n, int m, ScanKind kind) {
    __shared__ T s[kBlellochMaxN + kBlellochMaxN / 32];
    const int t = threadIdx.x;  // blockDim.x == m / 2; thread t owns elements t and t + m/2
    // TODO(step 2): the exclusive scan, in place in s (every index through padded()): each of the
    //               m/2 threads loads elements t and t + m/2 (0 past n); up-sweep; clear the root;
    //               down-sweep; write out (inclusive = exclusive + own element). Every level reads
    //               words other threads wrote at the level before; so does the final write-out.
}

template <class T>
void blelloch_block(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    require_size(n <= kBlellochMaxN, "run_blelloch_block", n, "one block scans at most 2048 elements");
    const size_t m = next_pow2(n < 2 ? 2 : n);
    // TODO(step 2): launch scan_blelloch_block as one block of m / 2 threads; check the launch.
}

// TODO(step 2): predict on paper: with every index through padded() and m = 2048, what is the
//               largest number of DIFFERENT words of s that one warp's access puts in one bank,
//               over every level of both sweeps? (1 means no bank conflict anywhere.)
const long long kPaddedBankWays = -1;  // your prediction

// ---- Step 3: one launch per level ------------------------------------------------------------
// __syncthreads() waits for the threads of ONE block; the up-sweep and down-sweep need every
// level finished everywhere before the next begins. The end of a kernel is such a grid-wide
// barrier: launching one kernel per level lets the host order the levels.
constexpr int kLevelThreads = 256;

// y[0 .. m) = in, padded with zeros (the identity of +) up to the power of two m.
template <class T>
__global__ void levels_load(const T* in, T* y, size_t n, size_t m) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) y[i] = i < n ? in[i] : T(0);
}

// Level k of the up-sweep (k = 0 at the leaves): the level of step 2 whose partners are 2^k
// apart; thread t handles its pair t (left, right) and adds y[left] into y[right].
template <class T>
__global__ void upsweep_level(T* y, size_t pairs, int k) {
    // TODO(step 3): thread t < pairs does pair t of level k. Compute the indices in size_t: n may
    //               be up to 2^31 - 1, so m reaches 2^31 and the top level's indices overflow int.
}

// Level k of the down-sweep: the same pairs; left gets right, right gets right + old left.
template <class T>
__global__ void downsweep_level(T* y, size_t pairs, int k) {
    // TODO(step 3): as upsweep_level, but the down-sweep's swap-and-add.
}

// out = the exclusive scan in y, or for inclusive, y + in.
template <class T>
__global__ void levels_finish(const T* in, const T* y, T* out, size_t n, ScanKind kind) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = kind == ScanKind::inclusive ? y[i] + in[i] : y[i];
}

// TODO(step 3): predict on paper: how many kernel launches and memsets does run_host_levels
//               issue, in all, for n = 3000?
const long long kHostLevelsCalls = -1;  // your prediction

template <class T>
void host_levels(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    const size_t m = next_pow2(n);
    int levels = 0;
    while (((size_t)1 << levels) < m) ++levels;  // m == 2^levels
    T* y = scratch_alloc<T>(m);
    levels_load<<<(unsigned)ceil_div(m, kLevelThreads), kLevelThreads>>>(in, y, n, m);
    CUDA_CHECK_LAUNCH();
    // TODO(step 3): the up-sweep, level 0 first, one launch per level; zero the root y[m-1]
    //               (cudaMemsetAsync: all-zero bytes are 0 and 0.0f); the down-sweep, top level
    //               first. Check each launch. The host does not wait in between: kernels on one
    //               stream run in order, and that order is the grid-wide barrier.
    levels_finish<<<(unsigned)ceil_div(n, kLevelThreads), kLevelThreads>>>(in, y, out, n, kind);
    CUDA_CHECK_LAUNCH();
    scratch_free(y);
}

// ---- Tiles: what steps 4, 5 and 6 share ------------------------------------------------------
// A block scans a tile of kTileItems elements held in registers, kItemsPerThread per thread
// (prefix_scan.h shows the layout). Many items per thread and 16-byte loads keep enough bytes
// in flight to saturate memory; warp shuffles do the scan within a warp without shared memory.
template <class T> struct Vec4Of;
template <> struct Vec4Of<int> { using type = int4; };
template <> struct Vec4Of<float> { using type = float4; };

constexpr size_t kWarpItems = 32 * (size_t)kItemsPerThread;

// Element index of items[4 * v] of this thread, in a tile.
__device__ __forceinline__ size_t first_item(size_t tile, int v) {
    return tile * kTileItems + (threadIdx.x / 32) * kWarpItems + 128 * v + 4 * (threadIdx.x % 32);
}

// Given: loads the tile, zeros past the end of the array. A full tile of 16-byte-aligned data
// is read with vector loads; a partial tile or misaligned pointers element by element.
template <class T>
__device__ __forceinline__ void load_tile(const T* __restrict__ in, size_t n, size_t tile, bool vector_ok,
                                          T (&items)[kItemsPerThread]) {
    using V = typename Vec4Of<T>::type;
    if (vector_ok && (tile + 1) * kTileItems <= n) {
#pragma unroll
        for (int v = 0; v < kVecsPerThread; ++v) {
            const V q = *reinterpret_cast<const V*>(in + first_item(tile, v));
            items[4 * v] = q.x, items[4 * v + 1] = q.y, items[4 * v + 2] = q.z, items[4 * v + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int v = 0; v < kVecsPerThread; ++v)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const size_t i = first_item(tile, v) + j;
                items[4 * v + j] = i < n ? in[i] : T(0);
            }
    }
}

template <class T>
__device__ __forceinline__ void store_tile(T* __restrict__ out, size_t n, size_t tile, bool vector_ok,
                                           const T (&items)[kItemsPerThread]) {
    using V = typename Vec4Of<T>::type;
    if (vector_ok && (tile + 1) * kTileItems <= n) {
#pragma unroll
        for (int v = 0; v < kVecsPerThread; ++v) {
            V q;
            q.x = items[4 * v], q.y = items[4 * v + 1], q.z = items[4 * v + 2], q.w = items[4 * v + 3];
            *reinterpret_cast<V*>(out + first_item(tile, v)) = q;
        }
    } else {
#pragma unroll
        for (int v = 0; v < kVecsPerThread; ++v)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const size_t i = first_item(tile, v) + j;
                if (i < n) out[i] = items[4 * v + j];
            }
    }
}

inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The block-wide part of a tile's scan. On return, vec_offset[v] is the sum of the tile's
// elements before this thread's vector v, and block_total the sum of the whole tile.
// s_warp: kWarpsPerTile values of shared memory. Every thread of the block must call it.
template <class T>
__device__ __forceinline__ void scan_tile_partials(const T (&items)[kItemsPerThread], T* s_warp,
                                                   T (&vec_offset)[kVecsPerThread], T& block_total) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // TODO(step 4): fill vec_offset and block_total with the items kept in registers: scan the
    //               per-vector sums across each warp with shuffles (no shared memory, no barrier),
    //               then combine the kWarpsPerTile warp totals through s_warp with one barrier.
    //               Every lane of a warp must execute every shuffle, used or not.
    block_total = T(0);
    for (int v = 0; v < kVecsPerThread; ++v) vec_offset[v] = T(0);
}

// Turns the items into their scan, given the sum of everything before the tile.
template <class T, bool kInclusive>
__device__ __forceinline__ void finish_tile(T (&items)[kItemsPerThread], const T (&vec_offset)[kVecsPerThread],
                                            T tile_prefix) {
    // TODO(step 4): replace each item by its inclusive or exclusive prefix, given tile_prefix (the
    //               sum of all earlier tiles) and vec_offset (from scan_tile_partials).
}

// ---- Step 4: scan-then-propagate, the textbook multi-block scan -----------------------------
// Pass 1 (scan_each_tile): each block scans its tile as if it were the whole array, stores that
// local scan in out, and stores the tile's total in tile_sums. Pass 2: the totals are scanned
// (exclusive) by calling this same algorithm on them: 4096 times fewer elements, so any n takes
// a few levels. Pass 3 (add_tile_offsets): every element of tile t gets tile_offsets[t] added.
template <class T, bool kInclusive>
__global__ void __launch_bounds__(kTileThreads) scan_each_tile(const T* __restrict__ in, T* __restrict__ out,
                                                               size_t n, T* __restrict__ tile_sums, bool vector_ok) {
    __shared__ T s_warp[kWarpsPerTile];
    const size_t tile = blockIdx.x;
    T items[kItemsPerThread];
    load_tile(in, n, tile, vector_ok, items);
    // TODO(step 4): scan_tile_partials; finish_tile from 0 (the tile's local scan); store_tile;
    //               then thread 0 writes the tile's total to tile_sums[tile] (tile_sums is
    //               nullptr when there is a single tile: its local scan is the whole answer).
}

// Pass 3 is a pure streaming pass, like a copy: one block per tile, each thread reading
// kPropagateVecs 16-byte vectors, all of them before the first add, so that they are in flight
// together. Tile 0 has nothing to add and is skipped. The tiles go last to first: pass 1 stored
// them first to last, so the last ones are the likeliest to be still in L2.
constexpr int kPropagateThreads = 256;
constexpr int kPropagateVecs = (int)(kTileItems / 4 / kPropagateThreads);  // 4

template <class T>
__global__ void __launch_bounds__(kPropagateThreads)
    add_tile_offsets(T* out, size_t n, const T* __restrict__ tile_offsets, bool vector_ok) {
    using V = typename Vec4Of<T>::type;
    const size_t tile = gridDim.x - blockIdx.x;  // gridDim.x == tiles - 1: tiles - 1 down to 1
    const T offset = tile_offsets[tile];
    T* tile_out = out + tile * kTileItems;
    // TODO(step 4): add offset to every element of this tile of out, in place, as fast as a copy:
    //               for a full tile with vector_ok, 16-byte vectors (V), a thread's kPropagateVecs
    //               loads all issued before its first add. Otherwise (the last, partial tile, or a
    //               misaligned out) element by element, never past n.
}

template <class T>
void scan_then_propagate(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kTileItems);
    require_size(tiles <= INT_MAX, "run_scan_then_propagate", n, "more tiles than a grid holds");
    // TODO(step 4): pass 1, scan_each_tile<T, inclusive?> over all tiles. With more than one tile:
    //               tile_sums and tile_offsets in one scratch_alloc (keep both 16-byte aligned),
    //               pass 2 scans the sums into the offsets with this same function (exclusive),
    //               pass 3 add_tile_offsets on tiles 1 onwards. Vector accesses only where
    //               aligned16() holds. Check every launch; scratch_free what you allocated.
}

// ---- Step 5: reduce-then-scan: tile totals, scan of the totals, tiles scanned again ----------
// Step 4 stores each tile's local scan only to read it back and add a number to it. Here pass 1
// (reduce_tiles) sums each tile and stores only its total; pass 2 scans those totals as in step
// 4, recursively; pass 3 (rescan_tiles) scans each tile again, from its offset, and stores the
// final values once. Scanning a tile twice costs arithmetic, done in registers.
template <class T>
__global__ void __launch_bounds__(kTileThreads) reduce_tiles(const T* __restrict__ in, T* __restrict__ tile_sums,
                                                             size_t n, bool vector_ok) {
    __shared__ T s_warp[kWarpsPerTile];
    const size_t tile = blockIdx.x;
    T items[kItemsPerThread];
    load_tile(in, n, tile, vector_ok, items);
    // TODO(step 5): thread 0 writes tile_sums[tile], the sum of all the tile's items: within a
    //               warp with shuffles (no shared memory), then the warp totals through s_warp,
    //               with one barrier.
}

// tile_offsets: the exclusive scan of the tile totals, or nullptr when there is one tile.
template <class T, bool kInclusive>
__global__ void __launch_bounds__(kTileThreads) rescan_tiles(const T* __restrict__ in, T* __restrict__ out, size_t n,
                                                             const T* __restrict__ tile_offsets, bool vector_ok) {
    __shared__ T s_warp[kWarpsPerTile];
    // Tiles in reverse order: the last tiles reduce_tiles read are the likeliest still in L2.
    const size_t tile = gridDim.x - 1 - blockIdx.x;
    T items[kItemsPerThread];
    load_tile(in, n, tile, vector_ok, items);
    // TODO(step 5): store this tile's final scan, the values step 4's three passes give it, from
    //               its offset tile_offsets[tile] (0 with no tile_offsets).
}

template <class T>
void reduce_then_scan(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kTileItems);
    require_size(tiles <= INT_MAX, "run_reduce_then_scan", n, "more tiles than a grid holds");
    // TODO(step 5): the three passes (README), the scratch as in step 4 and pass 2 by this same
    //               function. One tile needs no passes 1 and 2 (tile_offsets = nullptr), but its
    //               pass 3 still runs. Vector loads only where aligned16() holds; check every
    //               launch; free the scratch.
}

// TODO(step 5): predict on paper: how many bytes per element does reduce_then_scan move between
//               DRAM and the chip, for int and a large n (count every pass's reads and writes of
//               whole arrays; the tile totals are too few to count)? A copy moves 8.
const long long kReduceThenScanBytes = -1;  // your prediction

// ---- Step 6: single pass with decoupled look-back --------------------------------------------
// Each tile publishes a status word: its flag and its value in ONE 64-bit word, written and read
// with single 64-bit atomic accesses, so a reader can never see a flag with a stale value (with
// two separate words it would need a release/acquire pair). Flags:
//   kTileInvalid    nothing published yet (the array is zeroed before the launch)
//   kTileAggregate  value = the sum of this tile alone
//   kTilePrefix     value = the sum of this tile and every tile before it
// A tile publishes its aggregate as soon as it has it, then walks back over its predecessors,
// adding aggregates, until it meets an inclusive prefix. Tiles are numbered by an atomic counter
// in the order blocks START, not by blockIdx (README, step 6, asks why that makes the wait end).
enum : unsigned { kTileInvalid = 0, kTileAggregate = 1, kTilePrefix = 2 };

template <class T> __device__ __forceinline__ unsigned bits_of(T v);
template <> __device__ __forceinline__ unsigned bits_of<int>(int v) { return (unsigned)v; }
template <> __device__ __forceinline__ unsigned bits_of<float>(float v) { return __float_as_uint(v); }
template <class T> __device__ __forceinline__ T value_of(unsigned long long word);
template <> __device__ __forceinline__ int value_of<int>(unsigned long long word) { return (int)(unsigned)word; }
template <> __device__ __forceinline__ float value_of<float>(unsigned long long word) {
    return __uint_as_float((unsigned)word);
}
__device__ __forceinline__ unsigned flag_of(unsigned long long word) { return (unsigned)(word >> 32); }

__device__ __forceinline__ void write_status(unsigned long long* status, unsigned tile, unsigned long long word) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(status[tile]).store(word, cuda::memory_order_relaxed);
}
template <class T>
__device__ __forceinline__ void publish(unsigned long long* status, unsigned tile, unsigned flag, T value) {
    write_status(status, tile, ((unsigned long long)flag << 32) | bits_of(value));
}
__device__ __forceinline__ unsigned long long read_status(unsigned long long* status, long long tile) {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(status[tile]).load(cuda::memory_order_relaxed);
}

// Run by one whole warp of tile `tile` (> 0). Returns the sum of all tiles before it.
template <class T>
__device__ T look_back(unsigned long long* status, unsigned tile) {
    // TODO(step 6): return the sum of all tiles before `tile` (> 0). All 32 lanes of one warp call
    //               it (full-mask intrinsics). Each round, lane l reads the status of tile
    //               window_end - l, re-reading until none is kTileInvalid; add the values back to
    //               the nearest kTilePrefix, that one included. Tiles before 0 count as a prefix of
    //               0; a window without a prefix moves 32 tiles back.
    return T(0);
}

template <class T, bool kInclusive>
__global__ void __launch_bounds__(kTileThreads)
    scan_decoupled_lookback(const T* __restrict__ in, T* __restrict__ out, size_t n, unsigned long long* status,
                            unsigned* tile_counter, bool vector_ok) {
    __shared__ unsigned s_tile;
    __shared__ T s_warp[kWarpsPerTile];
    __shared__ T s_prefix;
    // TODO(step 6): the tile number from tile_counter (shared through s_tile), never blockIdx.x;
    //               load and scan_tile_partials. Every tile publishes what it knows as soon as it
    //               knows it, and never waits before publishing its aggregate; warp 0 (all 32
    //               lanes) runs look_back; the prefix reaches the block through s_prefix. Then
    //               finish_tile and store_tile.
}

template <class T>
void decoupled_lookback(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kTileItems);
    require_size(tiles <= INT_MAX, "run_decoupled_lookback", n, "more tiles than a grid holds");
    // One status word per tile, then the tile counter, all zero before the launch.
    unsigned long long* status = scratch_alloc<unsigned long long>(tiles + 1);
    // TODO(step 6): zero the status words and the counter (cudaMemsetAsync); the counter is the
    //               word after the last status, reinterpret_cast<unsigned*>(status + tiles).
    //               Launch scan_decoupled_lookback<T, true or false> with one block per tile
    //               (vector loads only if both pointers are aligned16); check the launch.
    scratch_free(status);
}

// ---- Step 7: stream compaction ---------------------------------------------------------------
// keep[i] = 1 if element i stays. The exclusive scan of keep is, for each kept element, the
// number of kept elements before it: its position in the output.
__global__ void compact_flags(const int* in, int* keep, size_t n, int threshold) {
    // TODO(step 7): keep[i] = 1 where in[i] is above threshold, else 0 (size_t index, bounds check).
}

__global__ void compact_scatter(const int* in, const int* position, int* out, size_t n, int threshold,
                                size_t* kept) {
    // TODO(step 7): a kept element goes to out[position[i]]; one thread that can know the count
    //               writes it to *kept.
}

void run_compact(const int* in, int* out, size_t n, int threshold, size_t* kept) {
    if (n == 0) {
        CUDA_CHECK(cudaMemsetAsync(kept, 0, sizeof(size_t)));
        return;
    }
    require_size(n <= INT_MAX, "run_compact", n, "positions are ints");
    // TODO(step 7): scratch for keep and position (n ints each); compact_flags; an exclusive
    //               scan of keep into position with your reduce_then_scan (or any multi-block
    //               scan of step 3 or later); then compact_scatter. 256 threads per block; check
    //               every launch; free the scratch.
}

// ---- Step 8 (optional): a look-back that spends less ----------------------------------------
// Step 6 moves the bytes CUB moves. What else does one call spend?
//  - A memset before the kernel, so that no status word an earlier call left can pass for one of
//    this call. Here the words stay from call to call and are never cleared between calls (given
//    below: status_for_launch); every launch gets a number of its own, its epoch: 1, 2, 3, ...
//    The tile counter gets no memset either.
//  - The polling. A warp of step 6 that finds a predecessor not yet published reads its 32 words
//    again at once, and again, while the tiles it waits for are still loading. Here a waiting
//    warp backs off with __nanosleep(ns) (compute capability 7.0 on), which suspends the calling
//    thread for about ns nanoseconds (PTX ISA, nanosleep: anywhere from 0 to twice ns).

// The word launch `epoch` publishes for a flag (kTileAggregate or kTilePrefix) and a value: the
// value's bits in the low 32 bits, as in step 6; the flag and the epoch in the high 32 bits.
template <class T>
__device__ __forceinline__ unsigned long long epoch_word(unsigned epoch, unsigned flag, T value) {
    // TODO(step 8): pack the word. A word that another launch wrote, or one still zero from a
    //               clearing, must never read as a word of this launch (epochs: kLastEpoch).
    return 0;
}

// The flag that launch `epoch` reads in a word: kTileInvalid for a word it did not write.
__device__ __forceinline__ unsigned flag_in_epoch(unsigned long long word, unsigned epoch) {
    // TODO(step 8): unpack what epoch_word packed.
    return kTileInvalid;
}

// Given, for the tests: epoch_word and flag_in_epoch for every pair of a writing launch w and a
// reading launch r among a few epochs (the first, neighbours, the last), both flags, and values
// of each sign and size. Counts the reads that break the contract: r reads w's flag, and its
// value intact, when w == r, kTileInvalid otherwise; a word still zero reads kTileInvalid.
__global__ void count_misread_words(unsigned* misread) {
    const unsigned epochs[] = {1, 2, 3, 1000, kLastEpoch - 1, kLastEpoch};
    const unsigned flags[] = {kTileAggregate, kTilePrefix};
    const int ints[] = {0, 1, -1, INT_MIN, INT_MAX, 0x5A5A5A5A};
    const float floats[] = {0.0f, -0.0f, 1.5f, -3.25e30f};
    unsigned wrong = 0;
    for (unsigned r : epochs) {
        wrong += flag_in_epoch(0ull, r) != kTileInvalid;
        for (unsigned w : epochs)
            for (unsigned flag : flags) {
                const unsigned expected = w == r ? flag : (unsigned)kTileInvalid;
                for (int v : ints) {
                    const unsigned long long word = epoch_word(w, flag, v);
                    wrong += flag_in_epoch(word, r) != expected;
                    wrong += w == r && value_of<int>(word) != v;
                }
                for (float v : floats) {
                    const unsigned long long word = epoch_word(w, flag, v);
                    wrong += flag_in_epoch(word, r) != expected;
                    wrong += w == r && __float_as_uint(value_of<float>(word)) != __float_as_uint(v);
                }
            }
    }
    *misread = wrong;
}
int epoch_words_misread() {
    DeviceBuffer<unsigned> misread(1);
    count_misread_words<<<1, 1>>>(misread.get());
    CUDA_CHECK_LAUNCH();
    return (int)misread.download()[0];
}

// Run by one whole warp of tile `tile` (> 0) of launch `epoch`: the sum of all tiles before it.
template <class T>
__device__ T quiet_look_back(unsigned long long* status, unsigned tile, unsigned epoch) {
    // TODO(step 8): step 6's look_back, reading each flag through flag_in_epoch. A warp that finds
    //               a predecessor not yet published sleeps (__nanosleep) before it reads its window
    //               again, and may sleep before its first read too: how long, each time, is yours
    //               to decide (README, step 8).
    return T(0);
}

template <class T, bool kInclusive>
__global__ void __launch_bounds__(kTileThreads)
    scan_quiet_lookback(const T* __restrict__ in, T* __restrict__ out, size_t n, unsigned long long* status,
                        unsigned* tile_counter, unsigned epoch, bool vector_ok) {
    __shared__ unsigned s_tile;
    __shared__ T s_warp[kWarpsPerTile];
    __shared__ T s_prefix;
    // TODO(step 8): step 6's kernel, its words made by epoch_word, its look-back quiet_look_back.
    //               No memset runs before a launch: tile_counter is 0 when the first launch
    //               starts, and each launch must leave it at 0 for the next.
}

// Given: the words step 8 keeps between calls. words[0] holds the tile counter (an unsigned in a
// 64-bit slot), words[1 + t] the status of tile t. They are zeroed when allocated (or grown) and
// when the epochs run out, never between calls. Freed at exit (DeviceBuffer).
struct KeptStatus {
    DeviceBuffer<unsigned long long> words;
    unsigned epoch = 0;  // the last launch's (0: no launch yet)
};
static KeptStatus& kept_status() {
    static KeptStatus kept;  // created on the first call, after CUDA is up: freed before it goes
    return kept;
}

// The kept words, large enough for `tiles`, and the epoch of the launch about to use them.
static unsigned long long* status_for_launch(size_t tiles, unsigned& epoch) {
    KeptStatus& k = kept_status();
    if (k.words.size() < 1 + tiles) {
        CUDA_CHECK(cudaDeviceSynchronize());  // a launch in flight may still use the old words
        k.words = DeviceBuffer<unsigned long long>(std::max<size_t>(1 + tiles, (size_t)1 << 16));
        CUDA_CHECK(cudaMemset(k.words.get(), 0, k.words.bytes()));
    }
    if (k.epoch >= kLastEpoch) {  // every epoch used: clear once, and count again from 1
        CUDA_CHECK(cudaMemsetAsync(k.words.get(), 0, k.words.bytes()));
        k.epoch = 0;
    }
    epoch = ++k.epoch;
    return k.words.get();
}

// Forward only: an epoch whose words may still stand must never come back.
void set_next_epoch(unsigned epoch) {
    if (epoch < 1 || epoch > kLastEpoch || epoch <= kept_status().epoch) {
        std::fprintf(stderr, "set_next_epoch: %u is no later epoch in 1 .. kLastEpoch\n", epoch);
        std::exit(kExitBadInput);
    }
    kept_status().epoch = epoch - 1;
}

template <class T>
void quiet_lookback(const T* in, T* out, size_t n, ScanKind kind) {
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kTileItems);
    require_size(tiles <= INT_MAX, "run_quiet_lookback", n, "more tiles than a grid holds");
    unsigned epoch = 0;
    unsigned long long* words = status_for_launch(tiles, epoch);
    unsigned* tile_counter = reinterpret_cast<unsigned*>(words);
    const bool vector_ok = aligned16(in) && aligned16(out);
    if (kind == ScanKind::inclusive)
        scan_quiet_lookback<T, true><<<(unsigned)tiles, kTileThreads>>>(in, out, n, words + 1, tile_counter, epoch,
                                                                          vector_ok);
    else
        scan_quiet_lookback<T, false><<<(unsigned)tiles, kTileThreads>>>(in, out, n, words + 1, tile_counter, epoch,
                                                                           vector_ok);
    CUDA_CHECK_LAUNCH();
}

// TODO(step 8): predict on paper: how many bytes does step 6's cudaMemsetAsync write in one call
//               of run_decoupled_lookback with n = 2^28 ints (what step 8 no longer writes)?
const long long kLookbackMemsetBytes = -1;  // your prediction

// ---- The interface: each scan for int and for float ------------------------------------------
void run_naive_block(const int* in, int* out, size_t n, ScanKind kind) { naive_block(in, out, n, kind); }
void run_naive_block(const float* in, float* out, size_t n, ScanKind kind) { naive_block(in, out, n, kind); }
void run_blelloch_block(const int* in, int* out, size_t n, ScanKind kind) { blelloch_block(in, out, n, kind); }
void run_blelloch_block(const float* in, float* out, size_t n, ScanKind kind) { blelloch_block(in, out, n, kind); }
void run_host_levels(const int* in, int* out, size_t n, ScanKind kind) { host_levels(in, out, n, kind); }
void run_host_levels(const float* in, float* out, size_t n, ScanKind kind) { host_levels(in, out, n, kind); }
void run_scan_then_propagate(const int* in, int* out, size_t n, ScanKind kind) {
    scan_then_propagate(in, out, n, kind);
}
void run_scan_then_propagate(const float* in, float* out, size_t n, ScanKind kind) {
    scan_then_propagate(in, out, n, kind);
}
void run_reduce_then_scan(const int* in, int* out, size_t n, ScanKind kind) { reduce_then_scan(in, out, n, kind); }
void run_reduce_then_scan(const float* in, float* out, size_t n, ScanKind kind) {
    reduce_then_scan(in, out, n, kind);
}
void run_decoupled_lookback(const int* in, int* out, size_t n, ScanKind kind) {
    decoupled_lookback(in, out, n, kind);
}
void run_decoupled_lookback(const float* in, float* out, size_t n, ScanKind kind) {
    decoupled_lookback(in, out, n, kind);
}
void run_quiet_lookback(const int* in, int* out, size_t n, ScanKind kind) { quiet_lookback(in, out, n, kind); }
void run_quiet_lookback(const float* in, float* out, size_t n, ScanKind kind) { quiet_lookback(in, out, n, kind); }
