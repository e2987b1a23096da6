// 03_game_of_life/answers.cpp: the answers to the predictions of game_of_life.h, derived. The
// tests check your constants against these (common/answers.h). Open this file once a prediction
// passes, not before: it is the working-out on paper.
#include "answers.h"
#include "game_of_life.h"

namespace {

// Blocks of `block` cells that cover `side` cells: a partial block at the end still counts.
long long blocks_to_cover(long long side, long long block) { return (side + block - 1) / block; }

// Step 1: blocks of 32 x 16 threads. 1000 columns need 1000 / 32 = 31.25, so 32 blocks across
// (the last one has 8 threads per row with no cell); 1000 rows need 1000 / 16 = 62.5, so 63
// blocks down. A 2D grid rounds up in each direction with its own block side: 32 x 63 = 2016.
double global_blocks() {
    return (double)(blocks_to_cover(1000, kGlobalBlockX) * blocks_to_cover(1000, kGlobalBlockY));
}

// Step 2: thread (0, 0) handles columns 0, 32, 64, ..., 320 (11 of them: 352 is past 339) in
// each of the rows 0, 32, ..., 320 (11 again): 11 x 11 = 121 cells per generation. Thread
// (31, 31) has columns 31, 63, ..., 319 (10: 351 is past the edge): 10 x 10 = 100, so the block's
// slowest threads do 21% more than its fastest, and the generation waits for them at the
// barrier. 340 x 340 = 115,600 cells; two copies fit 227 KB (232,448 bytes) of shared memory.
double cells_of_thread00() {
    long long cells = 0;
    for (long long y = 0; y < 340; y += kSingleBlockSide)
        for (long long x = 0; x < 340; x += kSingleBlockSide) ++cells;
    return (double)cells;
}

// Step 3: a 4096 x 4096 lattice is 4096 / 512 = 8 tiles across and 4096 / 32 = 128 down: 1024
// blocks. Each copies its tile plus a one-cell border all round: 34 shared rows (the row above,
// the 32 rows of the tile, the row below) of 512 + 2 cells, (512 + 2) x (32 + 2) = 17,476 bytes.
// 1024 x 17,476 = 17,895,424 bytes, 6.7% more than the 16,777,216 cells of the lattice: each
// border cell is copied again by the neighbouring block (rows above and below cost 2/32 of the
// tile, columns left and right 2/512). That is "little more than once" instead of nine times.
double bytes_copied() {
    const long long tiles = blocks_to_cover(4096, kTileW) * blocks_to_cover(4096, kTileH);
    return (double)(tiles * (kTileW + 2) * (kTileH + 2));
}

}  // namespace

const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> answers = {
        {"kGlobalBlocksAt1000x1000", global_blocks},
        {"kCellsOfThread00At340x340", cells_of_thread00},
        {"kBytesCopiedAt4096x4096", bytes_copied},
    };
    return answers;
}
