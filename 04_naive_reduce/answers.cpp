// 04_naive_reduce/answers.cpp: the answers to the predictions of naive_reduce.h, derived. The
// tests check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper.
#include "answers.h"
#include "naive_reduce.h"

namespace {

// Step 1: atomic_each is a serial float sum in some order, and with ones every order is the
// same, so do it. A float has 24 significant bits: every whole number up to 2^24 = 16,777,216 is
// a float, and from 2^24 to 2^25 the floats are 2 apart. Once the total is 2^24, each addition
// computes 2^24 + 1, exactly halfway between 2^24 and 2^24 + 2, and rounds to the even one, 2^24:
// the total stalls there, whatever order the atomics take. 2^25 ones sum to 16,777,216, an error
// of 50%. (LECTURE demo 2 on an NVIDIA H100 80GB HBM3, 2026-11-27: atomic_each returned
// 16777216; block_serial, block_tree, rows_cols, atomic_per_thread and CUB all 33554432 exactly,
// stats a mean of exactly 1, because no running total of theirs gets near 2^24: each thread adds
// about 124 values, each block 256 thread sums, the host adds in double.)
double sum_of_ones() {
    float serial = 0.0f;
    for (size_t i = 0; i < ((size_t)1 << 25); ++i) serial += 1.0f;
    return serial;
}

// Step 3: a round of disjoint pairs at best halves the values left, rounding up (an odd one out
// waits for the next round): 96 -> 48 -> 24 -> 12 -> 6 -> 3 -> 2 -> 1, seven rounds, the
// smallest r with 2^r >= 96. A halving that rounds down (blockDim.x / 2) takes 3 to 1 and drops a
// value: six rounds, and a wrong sum.
double tree_rounds() {
    long long rounds = 0;
    while ((1LL << rounds) < 96) ++rounds;
    return (double)rounds;
}

// Step 4: the third launch parameter counts bytes, one Stats per thread. A Stats is an 8-byte
// count and four 4-byte floats: 24 bytes, with no padding (its alignment is 8, and 24 is a
// multiple of 8). 256 x 24 = 6144 bytes, well inside the 48 KB any block may have.
double stats_shared_bytes() { return 256.0 * sizeof(Stats); }

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kSumOfOnesAtomic", sum_of_ones},
        {"kTreeRounds96", tree_rounds},
        {"kStatsSharedBytes256", stats_shared_bytes},
    };
    return answers;
}
