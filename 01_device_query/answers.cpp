// 01_device_query/answers.cpp: the answers to the predictions of device_query.h, derived. The
// tests check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper.
#include <algorithm>

#include "answers.h"
#include "device_query.h"

namespace {

// Step 1: a block is resident on an SM only with all its threads, all its threads' registers
// and a block slot, so each per-SM limit allows its own number of blocks and the scarcest wins.
// On an H100 (and an H200: the same limits):
//   threads:     2048 / 256 = 8 blocks
//   block slots: 32 blocks
//   registers:   65536 / (256 x 64) = 65536 / 16384 = 4 blocks
// Registers run out first: 4 blocks, 1024 of the 2048 thread slots, 50% occupancy. (Register
// allocation has a granularity too: 64 per thread is a multiple of it, so nothing is lost here.)
// cudaOccupancyMaxActiveBlocksPerMultiprocessor computes the same from the compiled kernel.
double blocks_per_sm() {
    const long long threads_per_sm = 2048, blocks_per_sm = 32, registers_per_sm = 65536;
    const long long block = 256, registers_per_thread = 64;
    return (double)std::min({threads_per_sm / block, blocks_per_sm, registers_per_sm / (block * registers_per_thread)});
}

// Step 5: per element SAXPY does one FMA, a * x[i] + y[i]: 2 FLOP. Its DRAM traffic is x[i] read,
// y[i] read and y[i] written, 4 bytes each: 12 bytes. 2 / 12 = 1/6, about 0.167 FLOP per byte,
// some 120 times below the H100's ridge point of 20.0: memory-bound (a is a kernel argument and
// costs no traffic; at large n no cache holds x or y between their use).
//
// README question 4, SAXPY at n = 2^28 on the H100: it moves 12 x 2^28 = 3.2 GB, so at least
// 0.96 ms at the theoretical 3352 GB/s, realistically about 1.06 ms at the measured copy speed of
// 3036 GB/s. Its 2 x 2^28 FLOP in that time are about 506 GFLOP/s, under 1% of the FP32 peak,
// and that is fine: the bytes set the speed.
double saxpy_flop_per_byte() {
    const double flop = 2, bytes = 3 * sizeof(float);
    return flop / bytes;
}

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kBlocksPerSmAt64Registers", blocks_per_sm},
        {"kSaxpyFlopPerByte", saxpy_flop_per_byte, 0.03},  // within 3%: 0.167 or 0.17 will do
    };
    return answers;
}
