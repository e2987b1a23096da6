// 05_tree_reduce/answers.cpp: the answers to the predictions of tree_reduce.h, derived. The tests
// check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper.
#include <algorithm>

#include "answers.h"
#include "launch.h"
#include "tree_reduce.h"

namespace {

constexpr unsigned kBlock = 256, kWarp = 32;

// Step 1: in the round whose pairs are s apart, thread t adds when it owns the left slot of a
// pair, that is when t is a multiple of 2s. A warp issues the round's instructions if any of its
// 32 threads adds. While 2s <= 32 every warp holds a multiple of 2s (rounds s = 1, 2, 4, 8, 16:
// 8 warps each); from s = 32 on, only warps that hold thread 0, 2s, 4s, ... do (4, 2, 1 warps).
// 5 x 8 + 4 + 2 + 1 = 47 warp-rounds, each paying for 32 lanes: 1504 lane-slots for the 255
// additions of the tree. Steps 2 and 3 pack the same additions onto threads 0, 1, 2, ...: 128,
// 64, 32 threads fill 4, 2, 1 warps, then 1 warp for each of the last five rounds: 12 warp-rounds,
// the "idle lanes" argument of LECTURE.md in one number.
double busy_warp_rounds() {
    long long busy = 0;
    for (unsigned s = 1; s < kBlock; s *= 2)
        for (unsigned w = 0; w < kBlock / kWarp; ++w) {
            bool any = false;
            for (unsigned t = kWarp * w; t < kWarp * (w + 1); ++t) any = any || t % (2 * s) == 0;
            busy += any;
        }
    return (double)busy;
}

// Step 2: in the round 2 apart, thread t does the t-th addition; its left slot is 2 * s * t = 4t.
// Warp 0 writes words 0, 4, ..., 124: banks (word % 32) 0, 4, ..., 28, each serving four
// different words (e.g. bank 0: words 0, 32, 64, 96). A 4-way conflict: four passes for one
// store instruction. (At s = 1 it is 2-way; from s = 4 on, 8-way for a block of 256.)
double bank_conflict_ways() {
    const unsigned s = 2;
    std::vector<std::vector<unsigned>> words(kWarp);  // the distinct words of each bank
    for (unsigned t = 0; t < kWarp; ++t) {
        const unsigned word = 2 * s * t;
        auto& bank = words[word % kWarp];
        if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
    }
    size_t ways = 0;
    for (const auto& bank : words) ways = std::max(ways, bank.size());
    return (double)ways;
}

// Step 5: one barrier after the load (every thread's value must be in buf before anyone adds);
// then each block-wide fold halves the live values and ends with a barrier, so that the next fold
// or warp_tail reads finished sums. Warp 0 takes over at 64 values: 256 -> 128 and 128 -> 64 are
// the block-wide folds. 1 + 2 = 3.
double barriers_unrolled() {
    long long barriers = 1;
    for (unsigned values = kBlock; values > 64; values /= 2) ++barriers;
    return (double)barriers;
}

// Step 7: one trip of the unrolled loop reads kVecUnroll float4s per thread, 4 x 4 = 16 floats,
// so one block's trip covers 256 x 16 = 4096 floats. 1,000,000 / 4096 = 244.1: 244 blocks would
// leave 576 floats for a second trip of a few threads, so grid_for rounds up to 245 (the last
// block's trip is partly empty). Far below the wave of 1056 blocks and kMaxGridBlocks: at this
// size the cap does not bite. (At 2^20 floats, rounding up and down both give 256.)
double grid_blocks() {
    const size_t n = 1000000, per_block_trip = (size_t)kBlock * 4 * 4;
    const size_t blocks = std::min({ceil_div(n, per_block_trip), (size_t)1056, (size_t)kMaxGridBlocks});
    return (double)std::max<size_t>(blocks, 1);
}

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kBusyWarpRounds256", busy_warp_rounds},
        {"kBankConflictWays", bank_conflict_ways},
        {"kBarriersUnrolled256", barriers_unrolled},
        {"kGridBlocksAt1000000", grid_blocks},
    };
    return answers;
}
