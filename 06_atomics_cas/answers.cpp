// 06_atomics_cas/answers.cpp: the answers to the predictions of atomics_cas.h, derived, and the
// count of atomics each aggregation of step 6 issues (the program's atomics column), which is step
// 5's working-out too. The tests check your constants against these (common/answers.h). Open this
// file once a prediction passes, not before: it is the working-out on paper.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "answers.h"
#include "atomics_cas.h"

// One atomic per thread; per warp, one for each warp that holds at least one update (a warp
// wholly past n issues none): the warps whose first index is below n, ceil(n / 32); per block,
// one per block.
size_t atomics_issued(size_t n, Aggregation how) {
    return how == Aggregation::none ? n : how == Aggregation::warp ? ceil_div(n, kWarp) : blocks_of(n);
}

namespace {

// Step 3: in round 1 all 32 threads try and one succeeds; its store makes every other thread's
// expected value stale, so all 31 others fail and retry with the value their failed CAS returned;
// in round 2, 31 try and one succeeds; ... 32 + 31 + ... + 1 = 32 x 33 / 2 = 528 atomicCAS for 32
// additions. The total grows with the square of the number of contenders: that is the benchmark's
// cas_add rows (four times the threads, about twelve times the time on an H100), and why the
// program runs cas_add on --cas-n updates only.
double cas_tries(long long threads) {
    long long tries = 0;
    for (long long waiting = threads; waiting > 0; --waiting) tries += waiting;
    return (double)tries;
}

// Step 4: the bit patterns, as atomicMax(int*) compares them (signed):
//   -0.5f = 0xBF000000, -1.0f = 0xBF800000, -2.0f = 0xC0000000, -4.0f = 0xC0800000.
// All four have the sign bit set, so as signed ints they are negative; a larger magnitude has a
// larger exponent field, so a larger pattern, which as a negative int is closer to zero: the
// largest int is -4.0f's. The integer "max" of negative floats keeps their minimum, which is why
// the shortcut fails the test with all-negative inputs.
double int_max_of_negatives() {
    int32_t best = INT32_MIN;
    for (float f : {-0.5f, -1.0f, -2.0f, -4.0f}) {
        int32_t b;
        std::memcpy(&b, &f, sizeof b);
        best = std::max(best, b);
    }
    float kept;
    std::memcpy(&kept, &best, sizeof kept);
    return kept;
}

// Step 5: one lane of each warp that holds a value takes the lock: the warps of the launch whose
// first index is below n. 100003 values fill 3125 warps and put 3 values in a 3126th; the launch
// has blocks_of(100003) = 391 blocks of 8 warps, 3128 warps, and the last block's top two warps
// hold no value and must not take the lock: 3126. (Per thread it would be 100003 acquisitions,
// 32 times as many, each serialising the whole GPU behind it.)
double lock_acquisitions(size_t n) {
    long long warps_with_values = 0;
    for (size_t first = 0; first < blocks_of(n) * kBlock; first += kWarp) warps_with_values += first < n;
    return (double)warps_with_values;
}

// Step 6: cudaMalloc aligns to 256 bytes, so counter a is in line (4a) / 128: 1024 counters x 4
// bytes / 128 bytes per line = 32 lines, 32 counters on each. This is README question 5's answer
// in a number: 32 consecutive counters all lie on one line, so "32 addresses" queue at one L2
// slice just as 1 does, and only 1024 counters spread over 32 lines, and slices, run in parallel.
double lines_of_counters(size_t counters) {
    std::vector<bool> line_used(counters * sizeof(int) / 128 + 1, false);
    for (size_t a = 0; a < counters; ++a) line_used[a * sizeof(int) / 128] = true;
    return (double)std::count(line_used.begin(), line_used.end(), true);
}

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kCasTries32", [] { return cas_tries(32); }},
        {"kIntMaxOfNegatives", [] { return int_max_of_negatives(); }},
        {"kLockAcquisitions100003", [] { return lock_acquisitions(100003); }},
        {"kLinesOf1024Counters", [] { return lines_of_counters(1024); }},
    };
    return answers;
}
