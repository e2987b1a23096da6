// 09_parallel_sort/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-09` shows which steps pass and `make run-09` shows the program's output.
//
// Sorting 32-bit keys five ways: a sorting network in one block, the same network across the
// whole array, a radix sort one bit at a time, one eight bits at a time, and that last one for
// int and float keys and for keys that carry values; then, optionally, a sixth: the same sort
// reading the keys once per digit (onesweep). LECTURE.md explains each design.
//
// Rules every kernel keeps, whatever n is:
//   - keys at or past n do not exist: never read or write them (a tile that runs past n pads
//     itself in shared memory or in registers);
//   - every thread of a block reaches every __syncthreads();
//   - indices into the arrays are size_t: n may exceed 2^31.

#include <cstdint>
#include <cstdlib>

#include "parallel_sort.h"

#include <cuda/atomic>

#include "cuda_check.h"
#include "launch.h"  // ceil_div, next_pow2, keep_pool_memory

// ---- Plumbing (given) -------------------------------------------------------------------------

constexpr uint32_t kLargestKey = 0xFFFFFFFFu;
constexpr unsigned kAllLanes = 0xFFFFFFFFu;

// Temporary device memory from the stream-ordered pool, which keeps it between calls (launch.h).
template <class T>
static T* pool_alloc(size_t count) {
    keep_pool_memory();
    void* p = nullptr;
    CUDA_CHECK(cudaMallocAsync(&p, count * sizeof(T), 0));
    return static_cast<T*>(p);
}
static void pool_free(void* p) { CUDA_CHECK(cudaFreeAsync(p, 0)); }

// Puts the smaller of s[a] and s[b] at s[a] (a < b): one comparator of a sorting network.
__device__ void compare_exchange(uint32_t* s, unsigned a, unsigned b) {
    const uint32_t x = s[a], y = s[b];
    if (x > y) {
        s[a] = y;
        s[b] = x;
    }
}

// The exclusive prefix sum of v over the kThreads threads of the block (thread 0 gets 0).
// Every thread must call it, at most once per kernel (it has shared memory of its own).
template <int kThreads = kRadixThreads>
__device__ uint32_t block_exclusive_sum(uint32_t v) {
    __shared__ uint32_t warp_totals[kThreads / 32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t inclusive = v;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const uint32_t below = __shfl_up_sync(kAllLanes, inclusive, d);
        if (lane >= (unsigned)d) inclusive += below;
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    uint32_t before = 0;
    for (unsigned w = 0; w < warp; ++w) before += warp_totals[w];
    return before + inclusive - v;
}

// ---- Step 1: a bitonic sorting network in one block ---------------------------------------------
// A sorting network compares fixed pairs of positions in a fixed order, whatever the keys: each
// thread knows its pair at every stage, and the only data-dependent thing is the swap. This one
// sorts 2^m keys ascending. For block sizes k = 2, 4, ..., 2^m: one "flip" stage, in which
// position i of each block of k meets its mirror image i ^ (k - 1), then "half-cleaners" at
// distances j = k/4, k/8, ..., 1, in which i meets i + j. (README, Key concepts, draws it for 8
// keys.) A tile is kBitonicTile keys in shared memory, and each of the kBitonicThreads =
// kBitonicTile / 2 threads orders one pair per stage.

// Copies this block's tile of keys into s, two keys per thread; a position at or past n holds
// kLargestKey, which sorts to the end of the tile. Ends with the tile visible to every thread.
__device__ void load_tile(uint32_t* s, const uint32_t* keys, size_t n) {
    // TODO(step 1): fill s[0 .. kBitonicTile) as described: consecutive threads, consecutive keys.
}

// Writes s back over this block's tile: only the positions before n.
__device__ void store_tile(const uint32_t* s, uint32_t* keys, size_t n) {
    // TODO(step 1): the opposite of load_tile, for the keys that exist.
}

// The half-cleaners at distances j_first, j_first / 2, ..., 1 over the whole tile in s (none if
// j_first is 0). Called by every thread with the tile visible to all; returns the same way.
__device__ void half_cleaners(uint32_t* s, unsigned j_first) {
    // TODO(step 1): at each distance j, thread t orders the t-th pair (i, i + j) of the tile,
    //               where the pairs start at the positions i with i & j == 0 (j is a power of two:
    //               the bit whose value is j is clear). A stage reads what the stage before wrote.
}

// Sorts every tile of kBitonicTile keys of keys_in into the same place in keys_out.
__global__ void __launch_bounds__(kBitonicThreads) bitonic_sort_tiles(const uint32_t* __restrict__ keys_in,
                                                                    uint32_t* __restrict__ keys_out, size_t n) {
    __shared__ uint32_t s[kBitonicTile];
    // TODO(step 1): load the tile, run the network (for k = 2, 4, ..., kBitonicTile: the flip
    //               stage of k, each thread one pair, then half_cleaners from k / 4), store it.
}

void run_bitonic_block(const SortJob& job) {
    if (job.n == 0) return;
    bitonic_sort_tiles<<<(unsigned)ceil_div(job.n, kBitonicTile), kBitonicThreads>>>(job.keys_in, job.keys_out,
                                                                                     job.n);
    CUDA_CHECK_LAUNCH();
}

// TODO(step 1): predict on paper: how many stages (rounds of compare-exchanges, each ending in a
//               barrier) does bitonic_sort_tiles run on one tile of kBitonicTile = 2048 keys?
const long long kTileStages = -1;  // your prediction

// ---- Step 2: bitonic merges across the whole array ----------------------------------------------
// Pad n in thought to a power of two N with keys larger than any key. Such padding never moves
// (nothing is larger), so a pair whose upper position is at or past n needs no work and the
// padding needs no memory. Block sizes k up to kBitonicTile are step 1's kernel. Each larger k
// runs the same stages as in a tile: the flip stage (j = k/2), then the half-cleaners j = k/4,
// ..., 1, over the whole array, with the two kernels below.
constexpr int kStageThreads = 256;

// One stage over the whole array: thread t orders pair t of the N / 2 pairs at distance j of the
// merge of size k; j == k / 2 is the flip stage.
__global__ void bitonic_stage_global(uint32_t* keys, size_t n, size_t pairs, size_t k, size_t j) {
    // TODO(step 2): thread t orders its pair of stage (k, j), found as in step 1, in size_t;
    //               nothing to do past the pairs, or where the upper key is padding.
}

// Stages of one merge run on each tile on its own, in shared memory.
__global__ void __launch_bounds__(kBitonicThreads) bitonic_merge_tiles(uint32_t* keys, size_t n) {
    __shared__ uint32_t s[kBitonicTile];
    // TODO(step 2): the stages of the merge that this kernel can do tile by tile (step 1's helpers
    //               serve), each tile in place in keys.
}

void run_bitonic_global(const SortJob& job) {
    // TODO(step 2): step 1 sorts the tiles into keys_out; then every block size k from
    //               2 * kBitonicTile up to next_pow2(n), in keys_out, with the two kernels above,
    //               in as few launches as the barriers allow. Check every launch.
}

// TODO(step 2): predict on paper: how many kernel launches does run_bitonic_global make, in all
//               (step 1's tile sort included), for n = 2^20 keys?
const long long kBitonicGlobalLaunches = -1;  // your prediction

// ---- Step 3: split by one bit, 32 times ----------------------------------------------------------
// The split by bit b is a stable partition: the keys with bit b clear first, in their input
// order, then those with it set, in theirs. Splitting by b = 0, 1, ..., 31 in turn sorts (LSD
// radix sort with 1-bit digits): each split keeps the order the earlier ones made among keys
// whose bit b is equal. One pass per bit, given below: (a) split_count: each tile counts its keys
// with the bit clear; (b) exclusive_scan_counts turns the counts into each tile's first position
// for its zeros; (c) split_scatter: every key finds its place, which is exercise 07's compaction
// done twice, once for the zeros and once for the ones.
// Warp w of a block owns the kSplitRows rows of 32 consecutive keys from tile position
// w * 32 * kSplitRows on: lane l holds position w * 32 * kSplitRows + 32 * r + l of row r. Every
// load reads 128 contiguous bytes, and a warp's keys, row after row, are in input order.

// zeros[tile] = how many of the tile's keys have `bit` clear.
__global__ void __launch_bounds__(kSplitThreads) split_count(const uint32_t* __restrict__ keys, size_t n, int bit,
                                                             uint32_t* __restrict__ zeros) {
    // TODO(step 3): count this block's keys with `bit` clear (none past n) and write the count.
    //               __syncthreads_count(p) returns, to every thread, how many threads had p true.
}

// Writes each key of the tile to its place after the split by `bit`. zero_offsets[tile] is
// where the tile's first key with the bit clear goes (zeros in earlier tiles come first).
__global__ void __launch_bounds__(kSplitThreads) split_scatter(const uint32_t* __restrict__ keys_in,
                                                               uint32_t* __restrict__ keys_out, size_t n, int bit,
                                                               const uint32_t* __restrict__ zeros,
                                                               const uint32_t* __restrict__ zero_offsets,
                                                               size_t tiles) {
    __shared__ uint32_t warp_zeros[kSplitThreads / 32], warp_ones[kSplitThreads / 32];
    // TODO(step 3): write each key that exists to its place after the split by `bit`, stably.
    //               A warp can rank its own keys with __ballot_sync and __popc; the warps of the
    //               tile meet in warp_zeros and warp_ones; zeros and zero_offsets say what the
    //               other tiles hold.
}

void run_split_sort(const SortJob& job) {
    const size_t n = job.n;
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kSplitTile);
    uint32_t* other = pool_alloc<uint32_t>(n);  // the passes alternate between this and keys_out
    uint32_t* zeros = pool_alloc<uint32_t>(2 * tiles);
    uint32_t* zero_offsets = zeros + tiles;
    const uint32_t* from = job.keys_in;
    for (int bit = 0; bit < 32; ++bit) {
        uint32_t* to = bit % 2 == 0 ? other : job.keys_out;  // an even number of passes: the last writes keys_out
        split_count<<<(unsigned)tiles, kSplitThreads>>>(from, n, bit, zeros);
        CUDA_CHECK_LAUNCH();
        exclusive_scan_counts(zeros, zero_offsets, tiles);
        split_scatter<<<(unsigned)tiles, kSplitThreads>>>(from, to, n, bit, zeros, zero_offsets, tiles);
        CUDA_CHECK_LAUNCH();
        from = to;
    }
    pool_free(zeros);
    pool_free(other);
}

// TODO(step 3): predict on paper: how many bytes per key does run_split_sort move between DRAM
//               and the chip over its 32 passes, for a large n? Count every kernel's reads and
//               writes of keys; leave out the per-tile counts and their scan.
const long long kSplitBytesPerKey = -1;  // your prediction

// ---- Step 4: radix sort, eight bits at a time ----------------------------------------------------
// Four passes, one per digit (bits shift .. shift + 7, shift = 0, 8, 16, 24), each a stable
// counting sort by that digit:
//   (a) radix_histogram: every tile counts its keys of each digit, into counts[d * tiles + tile]
//       (digit-major: all tiles' counts of digit 0, then of digit 1, ...);
//   (b) exclusive_scan_counts over that whole array: entry (d, tile) becomes the number of keys
//       that go before the tile's keys of digit d, all keys of smaller digits and those of digit
//       d in earlier tiles: where the tile's run of digit d starts in the output;
//   (c) radix_scatter: every tile sorts itself by digit in shared memory, stably, then writes
//       each digit's run to its place, consecutive threads to consecutive addresses.
// Keys are read through ordered_bits(key, load_as) and written through raw_bits(key, store_as):
// on the first and last pass these turn int or float keys into unsigned ones and back (step 5);
// for unsigned keys, and between those passes, they change nothing.
__device__ uint32_t digit_of(uint32_t key, int shift) { return (key >> shift) & (kRadixDigits - 1); }

__global__ void __launch_bounds__(kRadixThreads) radix_histogram(const uint32_t* __restrict__ keys, size_t n,
                                                                 int shift, KeyType load_as,
                                                                 uint32_t* __restrict__ counts, size_t tiles) {
    __shared__ uint32_t warp_counts[kRadixWarps][kRadixDigits];  // a histogram per warp: fewer collisions
    // TODO(step 4): counts[d * tiles + tile] = how many of this tile's keys have digit d, for all
    //               256 d. Read rows of kRadixThreads consecutive keys; count with atomicAdd into
    //               the warp's own histogram (zeroed first); then thread d adds up digit d.
}

// The lanes of the calling warp whose digit is the same as this lane's, as a bit mask (this lane
// included). All 32 lanes must call it.
__device__ uint32_t lanes_with_digit(uint32_t digit) {
    // TODO(step 4): with warp votes (__ballot_sync) only. (__match_any_sync does it in one
    //               instruction; CUB's authors found votes faster for a digit of a few bits.)
    return 1u << (threadIdx.x % 32);
}

// Loads this thread's keys (row r of its warp: keys_in[first + 32 * r]) and ranks each within
// its warp, on the warp's own kRadixDigits counters. radix_scatter (step 4) and onesweep_pass
// (step 6) both call it.
template <int kRows>
__device__ void load_and_rank(const uint32_t* __restrict__ keys_in, size_t n, size_t first, KeyType load_as,
                              int shift, uint32_t* counts, uint32_t (&key)[kRows], uint32_t (&pos)[kRows]) {
    const unsigned lane = threadIdx.x % 32;
    for (unsigned d = lane; d < kRadixDigits; d += 32) counts[d] = 0;
    __syncwarp();
    // TODO(step 4): load the keys (through ordered_bits; a key past n is kLargestKey, so it ends
    //               up at the very end of the sorted tile) and rank them: row by row, pos[r] =
    //               how many of the warp's keys of the same digit come before it (earlier rows,
    //               then lower lanes), counted in counts[digit]. Lanes that share a digit must
    //               not race on its count.
    for (int r = 0; r < kRows; ++r) key[r] = pos[r] = 0;  // keeps step 6's given stores inside the tile
}

// One pass of the scatter: tile position p of warp w, row r, lane l is w * 32 * kRadixRows +
// 32 * r + l, as in step 3. offsets is the scanned counts array of (b).
template <bool kPairs>
__global__ void __launch_bounds__(kRadixThreads) radix_scatter(const uint32_t* __restrict__ keys_in,
                                                               uint32_t* __restrict__ keys_out,
                                                               const uint32_t* __restrict__ values_in,
                                                               uint32_t* __restrict__ values_out, size_t n,
                                                               int shift, KeyType load_as, KeyType store_as,
                                                               const uint32_t* __restrict__ offsets, size_t tiles) {
    __shared__ uint32_t sorted_keys[kRadixTile];                  // the tile, sorted by digit
    __shared__ uint32_t sorted_values[kPairs ? kRadixTile : 1];   // their values, in the same places
    __shared__ uint32_t digit_pos[kRadixWarps][kRadixDigits];     // counts, then positions in the sorted tile
    __shared__ uint32_t out_minus_pos[kRadixDigits];              // output index - sorted-tile position, per digit
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t tile_start = (size_t)blockIdx.x * kRadixTile;
    const size_t first = tile_start + (size_t)warp * 32 * kRadixRows + lane;  // this thread's row 0
    const unsigned tile_keys = (unsigned)(n - tile_start < kRadixTile ? n - tile_start : kRadixTile);
    uint32_t key[kRadixRows];  // this thread's keys, row by row,
    uint32_t pos[kRadixRows];  // and their positions in the sorted tile

    load_and_rank<kRadixRows>(keys_in, n, first, load_as, shift, digit_pos[warp], key, pos);  // counts in digit_pos[warp]

    // TODO(step 4): thread d turns digit d's counts into positions: digit_pos[w][d] = where warp
    //               w's first key of digit d goes in the sorted tile (the keys of smaller digits,
    //               from block_exclusive_sum, then those of digit d in lower warps); and
    //               out_minus_pos[d] = offsets[d * tiles + tile] minus where digit d starts.

    // TODO(step 4): put each key at its place in sorted_keys: its rank pos[r] plus its warp's
    //               start for its digit. Keep that place in pos[r] (step 5 puts the key's value
    //               there). Then store sorted positions p = threadIdx.x + kRadixThreads * i below
    //               tile_keys to keys_out[out_minus_pos[digit] + p], through raw_bits.

    // TODO(step 5): with kPairs, each value goes where its key went: into sorted_values at the
    //               place its key took in sorted_keys (values past n do not exist), then out to
    //               values_out as the keys went out.
}

void run_radix_sort(const SortJob& job) {
    static_assert(kRadixPasses % 2 == 0, "the passes alternate buffers: the last must write the output");
    const size_t n = job.n;
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kRadixTile);
    const bool pairs = job.values_in != nullptr;
    uint32_t* other_keys = pool_alloc<uint32_t>(n);  // the passes alternate between these and the outputs
    uint32_t* other_values = pairs ? pool_alloc<uint32_t>(n) : nullptr;
    uint32_t* counts = pool_alloc<uint32_t>(tiles * kRadixDigits);
    const uint32_t* keys_from = job.keys_in;
    const uint32_t* values_from = job.values_in;
    for (int pass = 0; pass < kRadixPasses; ++pass) {
        const int shift = pass * kRadixBits;
        uint32_t* keys_to = pass % 2 == 0 ? other_keys : job.keys_out;
        uint32_t* values_to = pass % 2 == 0 ? other_values : job.values_out;
        const KeyType load_as = pass == 0 ? job.type : KeyType::u32;
        const KeyType store_as = pass == kRadixPasses - 1 ? job.type : KeyType::u32;
        radix_histogram<<<(unsigned)tiles, kRadixThreads>>>(keys_from, n, shift, load_as, counts, tiles);
        CUDA_CHECK_LAUNCH();
        exclusive_scan_counts(counts, counts, tiles * kRadixDigits);
        if (pairs)
            radix_scatter<true><<<(unsigned)tiles, kRadixThreads>>>(keys_from, keys_to, values_from, values_to, n,
                                                                    shift, load_as, store_as, counts, tiles);
        else
            radix_scatter<false><<<(unsigned)tiles, kRadixThreads>>>(keys_from, keys_to, nullptr, nullptr, n, shift,
                                                                     load_as, store_as, counts, tiles);
        CUDA_CHECK_LAUNCH();
        keys_from = keys_to;
        values_from = values_to;
    }
    pool_free(counts);
    if (pairs) pool_free(other_values);
    pool_free(other_keys);
}

// TODO(step 4): predict on paper: how many bytes per key does run_radix_sort move between DRAM
//               and the chip, unsigned keys alone, large n? Count the kernels' reads and writes
//               of keys; leave out the per-tile counts and their scan.
const long long kRadixBytesPerKey = -1;  // your prediction

// ---- Step 5: int and float keys, and values --------------------------------------------------------
// Radix sort orders bit patterns as unsigned numbers. A key type sorts with it if every key is
// first turned into a pattern whose unsigned order is the key's order, and back at the end. int
// keys are two's complement, float keys IEEE 754 binary32 (a sign bit, 8 exponent bits, 23
// fraction bits). parallel_sort.h (key_less) states the order: -0.0 before +0.0, every NaN after
// +inf. Both functions are one to one on all 2^32 patterns, so no key is lost or changed.
constexpr uint32_t kSignBit = 0x80000000u;
// The patterns of the NaNs with the sign bit set: 0xFF800001 .. 0xFFFFFFFF.
constexpr uint32_t kNegativeNaNs = 0x007FFFFFu;

SORT_HOST_DEVICE uint32_t ordered_bits(uint32_t raw, KeyType type) {
    // TODO(step 5): the pattern whose unsigned order is the order of `type` (key_less); unsigned
    //               keys stay as they are. Mind -0.0 and the NaNs with the sign bit set.
    return raw;
}

SORT_HOST_DEVICE uint32_t raw_bits(uint32_t ordered, KeyType type) {
    // TODO(step 5): undo ordered_bits: raw_bits(ordered_bits(x, t), t) == x for every pattern x.
    return ordered;
}

// ---- Step 6 (optional): onesweep, the keys read once per digit --------------------------------------
// Step 4 reads every key twice per pass: radix_histogram to count, radix_scatter to place it.
// Two observations remove the first read:
//   - the whole array's count of each digit does not depend on the order earlier passes leave
//     the keys in, so one kernel (sweep_count_digits) counts the digits of all four passes in a
//     single read, and sweep_digit_starts turns them into where each digit's run starts;
//   - what a tile still needs, the keys of its digit in earlier tiles, is a prefix sum over
//     tiles: 07's decoupled look-back does it inside the pass, one chain per digit.
// So a pass (onesweep_pass) is one kernel that reads each key once and writes it once: rank the
// tile (step 4's way), publish its count of each digit, look back, scatter.
//
// Status words: one per tile and digit, 64 bits, a flag in the high half and a count in the low
// half (07's step 6: flag and count travel together, so a relaxed atomic load sees both or
// neither). The array is zeroed once per sort and used by all four passes.
struct SweepFlags {
    uint32_t aggregate;  // the count of this tile alone
    uint32_t prefix;     // the count of this tile and every tile before it
};
__device__ unsigned long long status_word(uint32_t flag, uint32_t count) {
    return (unsigned long long)flag << 32 | count;
}
__device__ uint32_t flag_of(unsigned long long word) { return (uint32_t)(word >> 32); }
__device__ uint32_t count_of(unsigned long long word) { return (uint32_t)word; }
__device__ void publish(unsigned long long* status, size_t i, unsigned long long word) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(status[i]).store(word, cuda::memory_order_relaxed);
}

// Given: how long a wait may last before it is a bug (nothing will ever publish there) and not a
// slow neighbour: a tile publishes its counts within microseconds of starting. Under
// compute-sanitizer (make sanitize sets COURSE_SANITIZE) a tile can take seconds: run_onesweep
// then allows a minute.
__device__ unsigned long long sweep_patience_ns = 2'000'000'000ull;

__device__ unsigned long long nanoseconds_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Re-reads status[i] until it holds one of this pass's flags, and returns that word. A wait that
// outlasts sweep_patience_ns gives up, and so does every later wait of the sort (gave_up): it
// returns a prefix of 0, so a broken look-back ends in a wrong sort, never in a hang.
__device__ unsigned long long wait_published(unsigned long long* status, size_t i, SweepFlags flags,
                                             unsigned* gave_up) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(status[i]);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> given_up(*gave_up);
    unsigned long long since = 0;
    while (true) {
        const unsigned long long w = word.load(cuda::memory_order_relaxed);
        if (flag_of(w) == flags.aggregate || flag_of(w) == flags.prefix) return w;
        const unsigned long long now = nanoseconds_now();
        if (since == 0) since = now;
        if (given_up.load(cuda::memory_order_relaxed) != 0 || now - since > sweep_patience_ns) {
            given_up.store(1, cuda::memory_order_relaxed);
            return status_word(flags.prefix, 0);
        }
    }
}

// The flags a word carries in pass `pass` (0 .. kRadixPasses - 1).
__device__ SweepFlags sweep_flags(int pass) {
    // TODO(step 6): two flags per pass, neither of them 0 (what the zeroing leaves). The status
    //               words are zeroed once per sort, not once per pass: decide what keeps a word
    //               an earlier pass left from reading as published in this one.
    return {0, 0};
}

// Run by thread `digit` of tile `tile`, which has already published `count`, its keys of that
// digit, as an aggregate (tile 0: as a prefix). Returns how many keys of `digit` the tiles
// before `tile` hold in this pass, and publishes what the tiles after it need from it.
__device__ uint32_t look_back(unsigned long long* status, size_t tile, unsigned digit, uint32_t count,
                              SweepFlags flags, unsigned* gave_up) {
    // TODO(step 6): status[j * kRadixDigits + digit] is tile j's word for this digit. Read only
    //               words that earlier tiles published (wait_published waits for one of this
    //               pass), nearest first, and stop as soon as what you have read settles the sum.
    //               Before returning, publish (status_word) what the tiles after this one need.
    return 0;
}

// Given: every key's digits of all passes, counted in one read of the keys: counts[pass][digit]
// (zeroed before), of the ordered patterns (step 5's ordered_bits). A histogram per block in
// shared memory, then one global atomicAdd per digit and pass per block.
constexpr int kCountThreads = 256;
__global__ void __launch_bounds__(kCountThreads) sweep_count_digits(const uint32_t* __restrict__ keys, size_t n,
                                                                    KeyType type, uint32_t* __restrict__ counts) {
    __shared__ uint32_t hist[kRadixPasses][kRadixDigits];
    for (unsigned i = threadIdx.x; i < kRadixPasses * kRadixDigits; i += kCountThreads) (&hist[0][0])[i] = 0;
    __syncthreads();
    auto count = [&](uint32_t raw) {
        const uint32_t key = ordered_bits(raw, type);
#pragma unroll
        for (int p = 0; p < kRadixPasses; ++p) atomicAdd(&hist[p][digit_of(key, p * kRadixBits)], 1u);
    };
    const size_t stride = (size_t)gridDim.x * kCountThreads, me = (size_t)blockIdx.x * kCountThreads + threadIdx.x;
    size_t scalar_from = 0;
    if (reinterpret_cast<uintptr_t>(keys) % 16 == 0) {  // 16-byte loads: the order of the keys does not matter here
        const uint4* groups = reinterpret_cast<const uint4*>(keys);
        const size_t group_count = n / 4;
        constexpr int kInFlight = 4;  // loads issued before the first is counted: latency hidden
        for (size_t g = me; g < group_count; g += kInFlight * stride) {
            uint4 q[kInFlight];
#pragma unroll
            for (int u = 0; u < kInFlight; ++u)
                if (g + u * stride < group_count) q[u] = groups[g + u * stride];
#pragma unroll
            for (int u = 0; u < kInFlight; ++u)
                if (g + u * stride < group_count) {
                    count(q[u].x);
                    count(q[u].y);
                    count(q[u].z);
                    count(q[u].w);
                }
        }
        scalar_from = 4 * group_count;
    }
    for (size_t i = scalar_from + me; i < n; i += stride) count(keys[i]);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < kRadixPasses * kRadixDigits; i += kCountThreads)
        if ((&hist[0][0])[i] != 0) atomicAdd(&counts[i], (&hist[0][0])[i]);
}

// Given: starts[pass][d] = the keys of digits below d in that pass: where digit d's run starts
// in the output. One block per pass, one thread per digit.
__global__ void __launch_bounds__(kRadixThreads) sweep_digit_starts(const uint32_t* __restrict__ counts,
                                                                    uint32_t* __restrict__ starts) {
    const size_t i = (size_t)blockIdx.x * kRadixDigits + threadIdx.x;
    starts[i] = block_exclusive_sum(counts[i]);
}

struct SweepPass {
    const uint32_t* keys_in;
    uint32_t* keys_out;
    const uint32_t* values_in;  // pairs only
    uint32_t* values_out;
    size_t n;
    int pass;
    KeyType load_as, store_as;    // as in step 4: the key transform on the first load and the last store
    const uint32_t* starts;       // [pass][digit], from sweep_digit_starts
    unsigned long long* status;   // [tile][digit], zeroed once per sort
    unsigned* tile_counter;       // this pass's, zeroed
    unsigned* gave_up;            // wait_published's, zeroed
};

// Given, but for sweep_flags and look_back (and step 4's load_and_rank): one pass. Tile
// positions as in step 4: warp w, row r, lane l holds tile position w * 32 * kSweepRows + 32 * r + l.
template <bool kPairs>
__global__ void __launch_bounds__(kSweepThreads, 2) onesweep_pass(SweepPass a) {
    static_assert(kSweepWarps * kRadixDigits <= kSweepTile && kRadixDigits <= kSweepThreads, "the shared layout");
    __shared__ uint32_t tile_smem[kSweepTile];  // the warps' counts of each digit, then the tile sorted by digit
    __shared__ uint32_t digit_start[kRadixDigits];      // where each digit's keys start in the sorted tile
    __shared__ uint32_t out_minus_start[kRadixDigits];  // output index - sorted-tile position, per digit
    __shared__ unsigned tile_number;
    auto warp_counts = reinterpret_cast<uint32_t (*)[kRadixDigits]>(tile_smem);  // [kSweepWarps][kRadixDigits]
    const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;

    // Tiles are numbered in the order blocks start, not by blockIdx (07's step 6): a tile only
    // ever waits for tiles that have started, so the look-back always ends.
    if (t == 0) tile_number = atomicAdd(a.tile_counter, 1u);
    __syncthreads();
    const size_t tile = tile_number;
    const size_t tile_first = tile * kSweepTile;
    const unsigned tile_keys = (unsigned)(a.n - tile_first < kSweepTile ? a.n - tile_first : kSweepTile);
    const size_t first = tile_first + (size_t)warp * 32 * kSweepRows + lane;  // this thread's row 0
    const int shift = a.pass * kRadixBits;

    uint32_t key[kSweepRows], pos[kSweepRows];
    load_and_rank<kSweepRows>(a.keys_in, a.n, first, a.load_as, shift, warp_counts[warp], key, pos);  // as step 4
    __syncthreads();

    // Thread d (< kRadixDigits) owns digit d: the warps' counts become each warp's start within
    // the digit, and the tile's count is published at once, since later tiles may be waiting.
    const SweepFlags flags = sweep_flags(a.pass);
    uint32_t count = 0;
    if (t < kRadixDigits) {
        for (int w = 0; w < kSweepWarps; ++w) {
            const uint32_t c = warp_counts[w][t];
            warp_counts[w][t] = count;
            count += c;
        }
        publish(a.status, tile * kRadixDigits + t, status_word(tile == 0 ? flags.prefix : flags.aggregate, count));
    }
    const uint32_t start = block_exclusive_sum<kSweepThreads>(count);  // the threads without a digit add 0
    if (t < kRadixDigits) digit_start[t] = start;
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kSweepRows; ++r) {
        const uint32_t d = digit_of(key[r], shift);
        pos[r] += warp_counts[warp][d] + digit_start[d];
    }
    __syncthreads();  // the counts are read: their memory becomes the sorted tile
#pragma unroll
    for (int r = 0; r < kSweepRows; ++r) tile_smem[pos[r]] = key[r];

    // The look-back comes after the tile's own work, which gave the earlier tiles time to publish.
    if (t < kRadixDigits) {
        const uint32_t before = look_back(a.status, tile, t, count, flags, a.gave_up);
        out_minus_start[t] = a.starts[a.pass * kRadixDigits + t] + before - start;  // never below 0
    }
    __syncthreads();

    // Store: consecutive threads, consecutive sorted positions, so each digit's run goes out as
    // consecutive addresses; positions past tile_keys hold padding and are never stored.
    // A place at or past n only comes from a wrong look-back: that key is not stored (the tests
    // find it missing) rather than written past the output.
    constexpr uint32_t kNowhere = 0xFFFFFFFFu;  // no place: n <= 2^32 - 1, so places end at 2^32 - 2
    uint32_t to[kPairs ? kSweepRows : 1];       // pairs: where each key went, for its value
#pragma unroll
    for (int i = 0; i < kSweepRows; ++i) {
        const unsigned p = i * kSweepThreads + t;
        if constexpr (kPairs) to[i] = kNowhere;
        if (p < tile_keys) {
            const uint32_t k = tile_smem[p];
            const size_t o = (size_t)out_minus_start[digit_of(k, shift)] + p;
            if (o < a.n) {
                a.keys_out[o] = raw_bits(k, a.store_as);
                if constexpr (kPairs) to[i] = (uint32_t)o;
            }
        }
    }
    if constexpr (kPairs) {  // the values take the keys' path through the same shared memory
        uint32_t value[kSweepRows];
#pragma unroll
        for (int r = 0; r < kSweepRows; ++r) value[r] = first + 32 * r < a.n ? a.values_in[first + 32 * r] : 0;
        __syncthreads();  // every key has left tile_smem
#pragma unroll
        for (int r = 0; r < kSweepRows; ++r)
            if (first + 32 * r < a.n) tile_smem[pos[r]] = value[r];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < kSweepRows; ++i) {
            const unsigned p = i * kSweepThreads + t;
            if (p < tile_keys && to[i] != kNowhere) a.values_out[to[i]] = tile_smem[p];
        }
    }
}

void run_onesweep(const SortJob& job) {
    static_assert(kRadixPasses % 2 == 0, "the passes alternate buffers: the last must write the output");
    const size_t n = job.n;
    if (n == 0) return;
    const size_t tiles = ceil_div(n, kSweepTile);
    const bool pairs = job.values_in != nullptr;
    static const bool sanitized = [] {  // once per process (make sanitize: one GPU)
        if (!std::getenv("COURSE_SANITIZE")) return false;
        const unsigned long long minute = 60'000'000'000ull;
        CUDA_CHECK(cudaMemcpyToSymbol(sweep_patience_ns, &minute, sizeof minute));
        return true;
    }();
    (void)sanitized;
    // One zeroed block, one memset per sort: the digit counts, a tile counter per pass, the
    // give-up word and a spare (so the status words start 8-byte aligned), the status words.
    const size_t head = kRadixPasses * kRadixDigits + kRadixPasses + 2;
    uint32_t* zeroed = pool_alloc<uint32_t>(head + 2 * tiles * kRadixDigits);
    uint32_t* counts = zeroed;
    unsigned* tile_counters = counts + kRadixPasses * kRadixDigits;
    unsigned* gave_up = tile_counters + kRadixPasses;
    auto* status = reinterpret_cast<unsigned long long*>(zeroed + head);
    CUDA_CHECK(cudaMemsetAsync(zeroed, 0, (head + 2 * tiles * kRadixDigits) * sizeof(uint32_t)));
    uint32_t* starts = pool_alloc<uint32_t>(kRadixPasses * kRadixDigits);
    uint32_t* other_keys = pool_alloc<uint32_t>(n);  // the passes alternate between these and the outputs
    uint32_t* other_values = pairs ? pool_alloc<uint32_t>(n) : nullptr;

    // Enough blocks to fill the GPU twice over, no more: each ends with 1024 global atomics.
    const size_t count_blocks = std::min(ceil_div(n, 16 * kCountThreads), (size_t)2 * sm_count());
    sweep_count_digits<<<(unsigned)count_blocks, kCountThreads>>>(job.keys_in, n, job.type, counts);
    CUDA_CHECK_LAUNCH();
    sweep_digit_starts<<<kRadixPasses, kRadixThreads>>>(counts, starts);
    CUDA_CHECK_LAUNCH();
    const uint32_t* keys_from = job.keys_in;
    const uint32_t* values_from = job.values_in;
    for (int pass = 0; pass < kRadixPasses; ++pass) {
        uint32_t* keys_to = pass % 2 == 0 ? other_keys : job.keys_out;
        uint32_t* values_to = pass % 2 == 0 ? other_values : job.values_out;
        const SweepPass a{keys_from, keys_to, values_from, values_to, n, pass,
                          pass == 0 ? job.type : KeyType::u32, pass == kRadixPasses - 1 ? job.type : KeyType::u32,
                          starts, status, tile_counters + pass, gave_up};
        if (pairs)
            onesweep_pass<true><<<(unsigned)tiles, kSweepThreads>>>(a);
        else
            onesweep_pass<false><<<(unsigned)tiles, kSweepThreads>>>(a);
        CUDA_CHECK_LAUNCH();
        keys_from = keys_to;
        values_from = values_to;
    }
    if (pairs) pool_free(other_values);
    pool_free(other_keys);
    pool_free(starts);
    pool_free(zeroed);
}

// TODO(step 6): predict on paper: how many status words (one per tile and digit) does one pass
//               of run_onesweep publish for n = 2^28 keys?
const long long kSweepStatusWords = -1;  // your prediction
