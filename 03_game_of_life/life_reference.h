// life_reference.h: the CPU reference of exercise 03, which the program and the tests compare the
// GPU's lattices with. It is step 1's rule on the CPU: read it after you have written step 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu_threads.h"

// Conway's rule B3/S23: a dead cell with exactly 3 live neighbours is born; a live cell with 2 or
// 3 survives; every other cell is dead in the next generation.
inline uint8_t life_rule(uint8_t alive, int neighbours) {
    return (uint8_t)(neighbours == 3 || (alive && neighbours == 2));
}

// Rows [y_begin, y_end) of one generation, by the torus rule of game_of_life.h.
inline void life_rows_reference(const uint8_t* in, uint8_t* out, int w, int h, int y_begin, int y_end) {
    for (int y = y_begin; y < y_end; ++y) {
        const uint8_t* up = in + (size_t)(y == 0 ? h - 1 : y - 1) * w;
        const uint8_t* mid = in + (size_t)y * w;
        const uint8_t* down = in + (size_t)(y == h - 1 ? 0 : y + 1) * w;
        for (int x = 0; x < w; ++x) {
            int l = x == 0 ? w - 1 : x - 1, r = x == w - 1 ? 0 : x + 1;
            int n = up[l] + up[x] + up[r] + mid[l] + mid[r] + down[l] + down[x] + down[r];
            out[(size_t)y * w + x] = life_rule(mid[x], n);
        }
    }
}

// One generation. Large lattices are shared out among CPU threads by rows (at most 16: a long
// run starts them again every generation).
inline std::vector<uint8_t> life_step_reference(const std::vector<uint8_t>& in, int w, int h) {
    std::vector<uint8_t> out(in.size());
    if (in.empty()) return out;
    const unsigned threads = in.size() < (1u << 20) ? 1u : std::min({16u, cpu_cores(), (unsigned)h});
    split_among_threads((size_t)h, threads, [&](size_t first, size_t last) {
        life_rows_reference(in.data(), out.data(), w, h, (int)first, (int)last);
    });
    return out;
}

inline std::vector<uint8_t> life_reference(std::vector<uint8_t> cells, int w, int h, long long generations) {
    for (long long g = 0; g < generations; ++g) cells = life_step_reference(cells, w, h);
    return cells;
}
