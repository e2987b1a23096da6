// 10_tensor_cores/answers.cpp: the answers to the predictions of tensor_cores.h, derived. The
// tests check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper, and the measurements behind it.
#include <algorithm>

#include "answers.h"
#include "tensor_cores.h"

// Step 2. Shared memory has 32 banks of 4 bytes: byte address a is in bank (a / 4) % 32, so a
// 128-byte row of banks repeats every 128 bytes. One instruction of a WMMA fragment load reads
// 16 bytes (4 banks) from each of 8 consecutive tile rows. Row r starts r * row_bytes bytes into
// the tile; rows that start at the same offset of a 128-byte row of banks read the same 4 banks
// at different addresses, and the hardware serves them one after another. The most such rows
// among the 8 is the n of the n-way conflict.
long long conflict_ways(int row_bytes) {
    int count[8] = {};  // rows starting at 16-byte position 0 ... 7 of a row of banks
    long long worst = 0;
    for (int r = 0; r < 8; ++r) worst = std::max<long long>(worst, ++count[(r * row_bytes / 16) % 8]);
    return worst;
}
// With 64-byte rows, rows 0, 2, 4 and 6 start at offset 0 of a row of banks and rows 1, 3, 5
// and 7 at offset 64: two groups of four, so every load instruction takes 4 passes instead of 1.
// Measured with make profile-10 on an NVIDIA H100 80GB HBM3 at 4096^3: 3.01 bank conflicts per
// shared load for the unpadded variant (three passes beyond the first), 0.00 (0.005) for rows
// padded to 80 bytes, whose 8 rows start at 8 different 16-byte positions; with the conflicts
// gone the L1 load/store pipe drops from 91% to 66% busy and the kernel runs 1.5 times as fast
// (179 against 118 TFLOP/s). (The padded tiles' 16-byte stores conflict 2-way, a smaller cost:
// 17 million conflicts on 4.2 million stores.)

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        // Step 1: a fragment belongs to the whole warp, and every lane holds an equal share of
        // its 16 x 16 elements.
        {"kAccumulatorElementsPerLane", [] { return 16.0 * 16 / 32; }},
        // Step 2: rows of k2TileK BF16 with no padding (above).
        {"kBankConflictWaysUnpadded", [] { return (double)conflict_ways(k2TileK * (int)sizeof(bf16)); }},
        // Step 3: one mma.sync per 16 x 8 piece of the warp's 64 x 32 part of C (4 x 4 pieces)
        // and per 16-deep slice of the 64-deep tile (4 slices).
        {"kMmaSyncPerWarpPerTile",
         [] { return (double)(k3WarpTileM / kMmaM) * (k3WarpTileN / kMmaN) * (k3TileK / kMmaK); }},
        // Step 4: a stage holds one k4TileK-deep tile of A (k4TileM rows) and one of Bt (k4TileN
        // rows), 2 bytes an element. The TMA writes the whole box even where it lies outside the
        // matrix (zeros), so this is what the full barrier must expect on every tile.
        {"kTmaBytesPerStage", [] { return (double)(k4TileM + k4TileN) * k4TileK * sizeof(bf16); }},
        // Step 5: 4096 / 128 = 32 tiles down and 4096 / 256 = 16 across, 512 tiles for 132
        // blocks. Block b takes b, b + 132, b + 264, b + 396 while those exist: 512 = 3 x 132 +
        // 116, so blocks 0 ... 115 compute four tiles and the other 16 three. Each tile has
        // ceil(5000 / 64) = 79 k-tiles (the last one 8 deep, zero-filled by the TMA beyond k),
        // so block 0's count runs 0 ... 315: its second tile starts at t = 79, in stage 79 % 4
        // = 3 with parity (79 / 4) % 2 = 1, not in stage 0 with parity 0 as a count restarted
        // per tile would have it. (The fourth round keeps 116 of 132 SMs busy: the product
        // takes 4 tile-times where 512 / 132 = 3.88 would do if the work could be shared out
        // finer, a loss of 3% that persistence does not remove; LECTURE.md: stream-K.)
        {"kKTilesThroughBlock0", [] {
             const long long tiles = (4096 / k4TileM) * (4096 / k4TileN), blocks = 132;
             const long long rounds = (tiles + blocks - 1) / blocks;  // block 0 takes part in every round
             return (double)(rounds * ((5000 + k4TileK - 1) / k4TileK));
         }},
    };
    return answers;
}
