// cpu_threads.h: CPU work (references, test inputs) shared out among the machine's cores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

inline unsigned cpu_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Calls body(first, last) on `threads` threads (at least one), with ranges that cover [0, count)
// in order without overlapping; returns when all are done.
template <class Body>
void split_among_threads(size_t count, unsigned threads, const Body& body) {
    threads = std::max(1u, threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, count * t / threads, count * (t + 1) / threads);
    for (auto& th : pool) th.join();
}

template <class Body>
void on_all_cores(size_t count, const Body& body) {
    split_among_threads(count, cpu_cores(), body);
}

// A CPU reference's rows [0, m): rows(first, last) on every core when the work (multiply-adds)
// pays for the threads, else on one; never more threads than rows.
template <class Rows>
void for_row_ranges(int m, double work, const Rows& rows) {
    const unsigned threads = work < 1e7 ? 1u : std::min(cpu_cores(), (unsigned)std::max(m, 1));
    split_among_threads((size_t)std::max(m, 0), threads,
                        [&rows](size_t first, size_t last) { rows((int)first, (int)last); });
}
