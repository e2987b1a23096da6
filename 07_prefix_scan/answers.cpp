// 07_prefix_scan/answers.cpp: the answers to the predictions of prefix_scan.h, derived. The tests
// check your constants against these (common/answers.h), and the program shows a model cell that
// answers a prediction only once your constant is right. Open this file once a prediction passes,
// not before: it is the working-out on paper.
#include <algorithm>
#include <vector>

#include "answers.h"
#include "prefix_scan.h"

namespace {

// Step 1: at the step whose offset is d, the elements i >= d have a left neighbour d places away
// and add it: n - d additions. The offsets are 1, 2, 4, ... while d < n: for n = 1000 that is
// d = 1 ... 512, ten steps, 10 x 1000 - (1 + 2 + ... + 512) = 10000 - 1023. The program prints
// the same count for n = 32 (the source material's question): 5 x 32 - 31.
double naive_additions(long long n) {
    long long additions = 0;
    for (long long offset = 1; offset < n; offset *= 2) additions += n - offset;
    return (double)additions;
}

// Step 2: at the level whose partners are `offset` apart, threads t < m / (2 offset) touch words
// offset (2t + 1) - 1 and offset (2t + 2) - 1 (one instruction each), stored at i + i / 32. For
// each warp and instruction, count the different words that share a bank (word w: bank w % 32).
// Up to a stride (2 offset) of 32 the padded words of a warp fall in 32 different banks. At
// stride 64, word 64t + 63 is stored at 66t + 64, in bank 2t mod 32: lanes t and t + 16 share a
// bank, 2-way. At stride 128 the bank repeats every 8 lanes, but only 16 threads are still working
// (m = 2048): 2-way again; and so on up the tree, where fewer and fewer threads work. Without
// padded() the same levels would be 32-way (every lane in one bank from stride 32 on). The
// padding costs 64 words for 2048 elements.
double padded_bank_ways(long long m) {
    long long worst = 0;
    for (long long offset = 1; offset < m; offset *= 2) {
        const long long active = m / (2 * offset);
        for (long long which = 1; which <= 2; ++which)
            for (long long warp = 0; warp * 32 < active; ++warp) {
                std::vector<std::vector<long long>> words(32);
                for (long long t = warp * 32; t < std::min(active, warp * 32 + 32); ++t) {
                    const long long i = offset * (2 * t + which) - 1, stored = i + i / 32;
                    auto& bank = words[stored % 32];
                    if (std::find(bank.begin(), bank.end(), stored) == bank.end()) bank.push_back(stored);
                }
                for (const auto& bank : words) worst = std::max(worst, (long long)bank.size());
            }
    }
    return (double)worst;
}

// Step 3: m = next_pow2(3000) = 4096 = 2^12, so the tree has 12 levels. run_host_levels issues
// the given levels_load, one up-sweep launch per level, the memset of the root, one down-sweep
// launch per level and the given levels_finish: 1 + 12 + 1 + 12 + 1. In general 2 ceil(log2 n) + 3
// calls, of which 2 ceil(log2 n) + 2 are kernel launches: at n = 2^28, 59 calls one after another,
// each streaming (part of) the array through DRAM, which is why step 3 runs at 7% of CUB.
double host_levels_calls(long long n) {
    long long levels = 0;
    while ((1LL << levels) < n) ++levels;  // m = 2^levels
    return 1 + levels + 1 + levels + 1;    // load, up-sweep, root memset, down-sweep, finish
}

// Step 5: pass 1 (reduce_tiles) reads the input, 4 bytes an int; pass 2 reads and writes only
// the tile totals, one int per 4096 elements (too few to count); pass 3 (rescan_tiles) reads the
// input again and writes the output once: 4 + 4 + 4 = 12 bytes, "3n" in arrays of n ints, against
// step 4's 16 (4n: its pass 3 reads back and rewrites what pass 1 stored) and step 6's 8 (2n).
//
// The benchmark on an NVIDIA H100 80GB HBM3 (LECTURE.md) against this model, time = traffic /
// copy bandwidth (a copy moves 2n in 0.0867 ms at 2^25 and 0.7084 ms at 2^28):
//   2^25: model 0.1301 ms, measured 0.1382 ms, 1.06 times the model
//   2^28: model 1.0626 ms, measured 1.0568 ms, 0.99 times the model
// Reduce-then-scan streams at copy speed: a quarter of step 4's traffic gone, and over a quarter of
// its time (1.06 ms instead of 1.43 at 2^28). The single-pass designs (step 6 and CUB) move 2n but
// lose 0.2 to 0.4 of a copy's time to waiting, less than the half copy that step 5's extra n
// costs, so step 5 ends 13 points of CUB behind step 6 at 2^28 (82.3 against 95.3%). At n = 10^6
// (4 MB, inside L2) steps 4 and 5 run equally fast: step 4's local scans are still in L2 when its
// pass 3 reads them back.
double reduce_then_scan_bytes() {
    const double pass1 = sizeof(int);      // reduce_tiles reads the input
    const double pass3 = 2 * sizeof(int);  // rescan_tiles reads it again and writes the output
    return pass1 + pass3;
}

// Step 8: step 6 zeroes one status word per tile and the tile counter (an unsigned in the 64-bit
// slot after them) before every call. n = 2^28 ints make 2^28 / 4096 = 65536 tiles: 65537 words
// of 8 bytes, 524,296 bytes. The scan itself moves 8 bytes per element, 2^31 bytes: the memset is
// 0.024% of them, about 0.17 us at the 3024 GB/s of a device-to-device copy on an NVIDIA H100
// 80GB HBM3 (CUDA 13.0, L2 flushed, median of 50: the prototype that chose this step). What a
// memset costs is not its bytes but an operation of its own in the stream, which the scan kernel
// waits for. On that H100, step 6's kernel with its words kept between calls took 0.1183 ms at
// 2^25 with a memset before every launch and 0.1170 ms with epochs instead: 1.3 us, about eight
// times the bytes' time, and at 2^28 (0.9108 against 0.9080 ms) less than the run-to-run spread
// (about 2%). The allocation from the pool at every call cost more than the memset (0.1229 ms
// with it at 2^25, 0.1183 without). Neither is what step 8 mostly gains: its back-off took the
// same kernel from 0.9080 to 0.8200 ms at 2^28 (LECTURE.md, step 8, has the table).
double lookback_memset_bytes(long long n) {
    const long long tiles = (n + (long long)kTileItems - 1) / (long long)kTileItems;
    const long long words = tiles + 1;  // the tile counter's 64-bit slot comes after the tiles'
    return (double)(words * (long long)sizeof(unsigned long long));
}

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kNaiveAdditions", [] { return naive_additions(1000); }},
        {"kPaddedBankWays", [] { return padded_bank_ways(2048); }},
        {"kHostLevelsCalls", [] { return host_levels_calls(3000); }},
        {"kReduceThenScanBytes", [] { return reduce_then_scan_bytes(); }},
        {"kLookbackMemsetBytes", [] { return lookback_memset_bytes(1LL << 28); }},
    };
    return answers;
}
