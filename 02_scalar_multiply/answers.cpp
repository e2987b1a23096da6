// 02_scalar_multiply/answers.cpp: the answers to the predictions of scalar_multiply.h, derived.
// The tests check your constants against these (common/answers.h). Open this file once a
// prediction passes, not before: it is the working-out on paper.
#include "answers.h"
#include "scalar_multiply.h"

namespace {

// Step 2: 2^31 + 5 elements in blocks of 256. 2^31 / 256 = 2^23 = 8,388,608 blocks are full; the
// 5 elements left over need one more block, whose other 251 threads have no element (the bounds
// check). Rounded up: 8,388,609 blocks, far below the 2^31 - 1 blocks a grid may have in x.
double blocks_at_2to31_plus_5() {
    const long long n = (1LL << 31) + 5, block = 256;
    return (double)(n / block + (n % block != 0));
}

// Step 3: one wave on an H100 is 132 SMs x 8 blocks x 256 threads = 270,336 threads, the
// grid-stride loop's stride S. Thread 0 handles elements 0, S, 2S, ... while they are below
// 2^25 = 33,554,432: 2^25 / S = 124.1, so k S < 2^25 for k = 0 to 124, which is 125 elements
// (a ceiling, not a floor: element 0 counts, and so does the partial last stride). The threads
// near the end of the grid handle one fewer (124): the work is even to within one element.
double elements_of_thread0() {
    const long long n = 1LL << 25, stride = 132LL * 8 * 256;
    long long elements = 0;
    for (long long i = 0; i < n; i += stride) ++elements;  // thread 0's loop, counted
    return (double)elements;
}

// Step 4: a float4 load requests 16 bytes, and every one of the SM's 2048 resident threads waits
// on one: 2048 x 16 = 32,768 bytes in flight, four times what one float per thread (step 3)
// keeps outstanding, and above the roughly 15 KB per SM that Little's law asks for at 3.35 TB/s
// and about 0.6 us of latency on an H100 (README, Key concepts). That is why step 4 reaches the
// copy's speed and step 3 does not.
double bytes_in_flight() { return 2048.0 * 16; }

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kBlocksAt2To31Plus5", blocks_at_2to31_plus_5},
        {"kElementsOfThread0At2To25", elements_of_thread0},
        {"kBytesInFlightPerSm", bytes_in_flight},
    };
    return answers;
}
