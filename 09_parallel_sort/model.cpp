// 09_parallel_sort/model.cpp: the bytes each step must move per key, a model of its passes
// (LECTURE.md derives it). A pass that reads and writes every key moves 8 bytes a key; a radix
// or split pass reads the keys twice (to count, then to scatter) and writes them once: 12 bytes,
// and 8 more for a value read and written with each key.
#include "launch.h"  // next_pow2
#include "parallel_sort.h"

double bitonic_block_bytes_per_key(size_t, bool) { return 8; }  // each tile read and written once

double bitonic_global_bytes_per_key(size_t n, bool) {
    double passes = 1;  // step 1's tiles
    for (size_t k = 2 * kBitonicTile; k <= next_pow2(n); k *= 2) {
        for (size_t j = k / 2; j >= kBitonicTile; j /= 2) passes += 1;  // a global stage
        passes += 1;                                                    // the merge in shared memory
    }
    return 8 * passes;
}

double split_bytes_per_key(size_t, bool) { return 32 * 12; }  // one pass per bit

double radix_bytes_per_key(size_t, bool values) { return kRadixPasses * (values ? 20 : 12); }
