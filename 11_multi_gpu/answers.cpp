// 11_multi_gpu/answers.cpp: the answers to the predictions of multi_gpu.h, derived. The tests
// check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper.
#include <algorithm>

#include "answers.h"
#include "multi_gpu.h"

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        // Step 2: each GPU but rank 0 sends its one partial sum, a float, to rank 0; the parts
        // themselves never move.
        {"kSplitSumBytesBetweenGpus", [] { return (4 - 1) * (double)sizeof(float); }},
        // Step 3: reduce-scatter and all-gather take n - 1 rounds each.
        {"kRingRoundsAt8", [] { return 2.0 * (8 - 1); }},
        // Step 3: in every round a rank receives one segment, count / n elements: 2 (n - 1) / n
        // of the buffer in all.
        {"kRingBytesPerGpuAt4", [] { return 2.0 * (4 - 1) / 4 * 268435456.0; }},
        // Step 4: nccl-tests' bus bandwidth: each rank sends 2 (n - 1) / n of the buffer.
        {"kBusFactorAt8", [] { return 2.0 * (8 - 1) / 8; }, 1e-9},
        // Step 5, one shot: each GPU's kernel reads every other GPU's whole buffer (its own is
        // in its own memory).
        {"kOneShotBytesInAt4", [] { return (4 - 1) * 262144.0; }},
        // Step 5, two shots: to sum its segment (a quarter of the buffer) a rank reads that
        // segment from 3 others; to collect the 3 other complete segments it reads 3 more.
        {"kTwoShotsBytesInAt4", [] { return 2 * (4 - 1) * (262144.0 / 4); }},
        // Step 6: a pipeline of two stages: the slower runs back to back, and the other adds one
        // bucket's worth at the start or the end.
        {"kOverlappedMsFor8Buckets", [] { return 8 * std::max(1.0, 0.5) + std::min(1.0, 0.5); }, 1e-9},
        // Step 7: every rank takes 2 (n - 1) rounds, and queues one kernel (or copy) in each,
        // after a wait for its left neighbour's event: 8 ranks x 14 rounds.
        {"kRingQueuedAt8", [] { return 8.0 * 2 * (8 - 1); }},
    };
    return answers;
}
