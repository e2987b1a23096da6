// 09_parallel_sort/answers.cpp: the answers to the predictions of parallel_sort.h, derived, and
// the model of the bytes each step moves (the program's B/key column), which is the working-out of
// those predictions. The tests check your constants against these (common/answers.h), and the
// program shows a step's B/key only once the prediction it answers is right. Open this file once a
// prediction passes, not before: it is the working-out on paper.
//
// Measured figures below: NVIDIA H100 80GB HBM3, CUDA 13.0 (LECTURE.md has the tables).
#include "answers.h"
#include "launch.h"  // next_pow2, ceil_div
#include "parallel_sort.h"

namespace {

// Step 1: block size 2^s runs one flip stage and the half-cleaners at distances 2^(s-2) ... 1, so
// s stages in all (the README's picture: block sizes 2, 4, 8 take 1, 2, 3 stages, 6 for 8 keys).
// A tile of 2048 = 2^11 keys goes through block sizes 2^1 ... 2^11: 1 + 2 + ... + 11 = 66 stages,
// each ending in a barrier. In general log n (log n + 1) / 2, the depth of Batcher's network:
// 351 stages for 2^26 keys, each of n / 2 independent comparators.
double tile_stages() {
    long long stages = 0;
    for (size_t k = 2; k <= kBitonicTile; k *= 2) {
        stages += 1;                                      // the flip stage of block size k
        for (size_t j = k / 4; j >= 1; j /= 2) ++stages;  // the half-cleaners
    }
    return (double)stages;
}

// Step 2: step 1's tile sort is one launch. Every larger block size k = 2^s (s = 12 ... log2 N, N =
// next_pow2(n)) runs its stages at distances k/2 ... 2048 as one launch each, because their pairs
// span two tiles and only the end of a kernel orders blocks: s - 11 launches; its stages 1024 ... 1
// stay inside a tile and run as one launch of bitonic_merge_tiles in shared memory. For n = 2^20:
// 1 + (1 + 2 + ... + 9) + 9 = 55. At 2^26: 1 + 120 + 15 = 136 launches.
long long bitonic_global_launches(size_t n) {
    long long launches = 1;  // step 1's tile sort
    for (size_t k = 2 * kBitonicTile; k <= next_pow2(n); k *= 2) {
        for (size_t j = k / 2; j >= kBitonicTile; j /= 2) launches += 1;  // a stage whose pairs span tiles
        launches += 1;                                                    // the rest of the merge, in shared memory
    }
    return launches;
}

}  // namespace

// The bytes each step must move per key, the program's B/key: a pass that reads and writes every
// key moves 8 bytes a key.
//
// Step 1: each tile read and written once, 8.
double bitonic_block_bytes_per_key(size_t, bool) { return 8; }

// Step 2: every launch of run_bitonic_global is such a pass, so 8 bytes per launch. At 2^20 keys:
// 440 bytes a key; at 2^24, 105 launches, 840; at 2^26, 1088; at 2^28, 171 launches, 1368.
// Measured, step 2 runs at 82% to 96% of copy speed on those bytes: a bandwidth-bound program
// doing too much work. At 2^20 it reads 4 MB per pass, which stays in the L2 cache, and runs
// *faster* than the DRAM model (123%). Doing several global stages per launch (each thread loads
// the 2, 4 or 8 keys of its sub-network into registers) would cut the passes by about three,
// still O(n log^2 n). make profile-09 at 2^22 keys counts 66 global stages and 11 merges moving
// 1108 + 187 MB for 16.8 MB of keys: passes x bytes, counted by the hardware.
double bitonic_global_bytes_per_key(size_t n, bool) { return 8.0 * (double)bitonic_global_launches(n); }

// Steps 3 to 5: a pass of the split or of the radix sort reads every key twice (split_count or
// radix_histogram to count, split_scatter or radix_scatter to place it) and writes it once:
// 12 bytes a key, and 8 more for a value read and written with each key. The counts and their
// scan are left out: 256 counts per tile of 4096 keys is 1/16 of a word per key each way, 0.5
// bytes per key in all, about 4% of the keys' 12 (the histogram's count stores and the scatter's
// count loads add as much again).
//
// Step 3: 32 passes, one per bit, 32 x 12 = 384 bytes a key. At 2^26 keys it runs at 66% of copy
// speed on those bytes, 5.2 G keys/s: 32 passes of a good kernel.
double split_bytes_per_key(size_t, bool) { return 32 * 12; }

// Step 4: 4 passes of 8-bit digits, 4 x 12 = 48 bytes a key; 4 x 20 = 80 for pairs (step 5).
// CUB's Onesweep moves 4 + 4 x 8 = 36 (LECTURE.md): if both reached the same share of copy speed,
// step 4 would run at 36/48 = 75% of CUB; measured, it reaches 80% at 2^26 keys: step 4 runs at
// 51.4% of copy speed on its 48 bytes, CUB at 48.1% on its 36. Pairs: 80 bytes against 48, and
// 19.9 G keys/s against 32.8: time follows bytes again (0.61 of the speed for 0.60 of the bytes).
// Step 3 and step 4 both move every key once per pass; step 3 makes 8 times as many passes, and
// its simpler passes run closer to copy speed (66% against 51%): step 4 is six times faster, not
// eight. Bitonic (step 2) moves 1088 bytes a key at 2^26, 23 times the radix sort's 48.
double radix_bytes_per_key(size_t, bool values) { return kRadixPasses * (values ? 20 : 12); }

// Step 6: one read of the keys counts every pass's digits (4), then each pass reads and writes
// every key once (4 x 8): 36 bytes a key, CUB's own model; 4 + 4 x 16 = 68 with values. Left out,
// as the counts are in steps 3 to 5: the status words (below), 8 bytes per tile and digit, each
// written twice and read by the next tiles' look-back, and zeroed once per sort: 256 x 8 / 8192
// = 0.25 bytes a key per pass and for the zeroing, 1.25 in all if none stays in L2, 3.5% of 36.
double onesweep_bytes_per_key(size_t, bool values) { return 4 + kRadixPasses * (values ? 16 : 8); }

// The status words one pass of step 6 publishes: a word per tile and digit. For 2^28 keys:
// 2^28 / 8192 = 2^15 tiles, 256 digits each, 2^23 = 8,388,608 words (64 MB at 8 bytes; CUB packs
// flag and count into 4 bytes, 32 MB, which needs its portions: LECTURE.md). Per key, 256 / 8192
// = 1/32 of a word: a bigger tile means fewer words, but more registers and shared memory per
// block and fewer blocks to hide latency.
static double sweep_status_words(size_t n) { return (double)ceil_div(n, kSweepTile) * kRadixDigits; }

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kTileStages", [] { return tile_stages(); }},
        {"kBitonicGlobalLaunches", [] { return (double)bitonic_global_launches((size_t)1 << 20); }},
        {"kSplitBytesPerKey", [] { return split_bytes_per_key((size_t)1 << 24, false); }},
        {"kRadixBytesPerKey", [] { return radix_bytes_per_key((size_t)1 << 24, false); }},
        {"kSweepStatusWords", [] { return sweep_status_words((size_t)1 << 28); }},
    };
    return answers;
}
