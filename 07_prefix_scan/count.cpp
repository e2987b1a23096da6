// 07_prefix_scan/count.cpp: counting additions by running each algorithm's loops on the CPU.
//
// Each function below follows its kernel in solution.cu loop for loop, thread for thread (warp
// shuffles become reads of a copy of the 32 lanes' values), computes the scan with it, and adds
// one to `additions` wherever the kernel adds two data values. Nothing here is a formula: change
// a kernel's loops and the counts change only when these loops are changed to match.
// At the end, the program's reports made from them: the counts, and pictures of the one-block
// algorithms step by step.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "answers.h"  // find_answer: a model cell that answers a prediction waits for it
#include "bench.h"    // Table, strf
#include "launch.h"   // ceil_div, next_pow2
#include "prefix_scan.h"

namespace {

using ll = long long;
using Lanes = std::array<ll, 32>;

// ---- The tile machinery shared by steps 4, 5 and 6 ------------------------------------------
// items[thread][k]: element first_item(tile, v) + j of that thread, k = 4 v + j (solution.cu).
using TileItems = std::vector<std::array<ll, kItemsPerThread>>;

size_t first_item(size_t tile, int thread, int v) {
    return tile * kTileItems + (size_t)(thread / 32) * (32 * kItemsPerThread) + 128 * v + 4 * (thread % 32);
}

TileItems load_tile(const std::vector<ll>& in, size_t tile) {
    TileItems items(kTileThreads);
    for (int th = 0; th < kTileThreads; ++th)
        for (int v = 0; v < kVecsPerThread; ++v)
            for (int j = 0; j < 4; ++j) {
                size_t i = first_item(tile, th, v) + j;
                items[th][4 * v + j] = i < in.size() ? in[i] : 0;
            }
    return items;
}

void store_tile(std::vector<ll>& out, size_t tile, const TileItems& items) {
    for (int th = 0; th < kTileThreads; ++th)
        for (int v = 0; v < kVecsPerThread; ++v)
            for (int j = 0; j < 4; ++j) {
                size_t i = first_item(tile, th, v) + j;
                if (i < out.size()) out[i] = items[th][4 * v + j];
            }
}

// scan_tile_partials: returns each thread's vec_offset, and the tile's total.
struct Partials {
    std::vector<std::array<ll, kVecsPerThread>> vec_offset;
    ll block_total = 0;
};

Partials tile_partials(const TileItems& items, ScanCount& c) {
    Partials p;
    p.vec_offset.resize(kTileThreads);
    std::vector<ll> warp_totals(kWarpsPerTile);
    for (int w = 0; w < kWarpsPerTile; ++w) {
        // lane_sum[v][lane]
        std::vector<Lanes> lane_sum(kVecsPerThread);
        for (int v = 0; v < kVecsPerThread; ++v)
            for (int lane = 0; lane < 32; ++lane) {
                const auto& it = items[32 * w + lane];
                lane_sum[v][lane] = it[4 * v] + it[4 * v + 1] + it[4 * v + 2] + it[4 * v + 3];
                c.additions += 3;
            }
        for (int d = 1; d < 32; d *= 2)
            for (int v = 0; v < kVecsPerThread; ++v) {
                const Lanes before = lane_sum[v];  // every lane shuffles the value of the previous step
                for (int lane = d; lane < 32; ++lane) {
                    lane_sum[v][lane] += before[lane - d];
                    c.additions += 1;
                }
            }
        Lanes warp_total{};
        for (int v = 0; v < kVecsPerThread; ++v)
            for (int lane = 0; lane < 32; ++lane) {
                const ll lanes_before = lane == 0 ? 0 : lane_sum[v][lane - 1];
                const ll chunk_total = lane_sum[v][31];
                p.vec_offset[32 * w + lane][v] = warp_total[lane] + lanes_before;
                warp_total[lane] += chunk_total;
                c.additions += 2;
            }
        warp_totals[w] = warp_total[0];
    }
    for (int th = 0; th < kTileThreads; ++th) {
        ll warp_prefix = 0, block_total = 0;
        for (int w = 0; w < kWarpsPerTile; ++w) {
            if (w < th / 32) warp_prefix += warp_totals[w], c.additions += 1;
            block_total += warp_totals[w], c.additions += 1;
        }
        for (int v = 0; v < kVecsPerThread; ++v) p.vec_offset[th][v] += warp_prefix, c.additions += 1;
        p.block_total = block_total;
    }
    return p;
}

// prefix_is_zero: the kernel passes the constant T(0) (scan_each_tile), which is not a data value.
void finish_tile(TileItems& items, const Partials& p, ll tile_prefix, bool inclusive, ScanCount& c,
                 bool prefix_is_zero = false) {
    for (int th = 0; th < kTileThreads; ++th)
        for (int v = 0; v < kVecsPerThread; ++v) {
            ll run = tile_prefix + p.vec_offset[th][v];
            if (!prefix_is_zero) c.additions += 1;
            for (int j = 0; j < 4; ++j) {
                ll& x = items[th][4 * v + j];
                const ll value = x;
                if (inclusive) {
                    run += value, c.additions += 1;
                    x = run;
                } else {
                    x = run;
                    if (j < 3) run += value, c.additions += 1;
                }
            }
        }
}

// reduce_tiles for one tile.
ll reduce_tile(const std::vector<ll>& in, size_t tile, ScanCount& c) {
    const TileItems items = load_tile(in, tile);
    std::vector<ll> warp_totals(kWarpsPerTile);
    for (int w = 0; w < kWarpsPerTile; ++w) {
        Lanes s;
        for (int lane = 0; lane < 32; ++lane) {
            s[lane] = items[32 * w + lane][0];
            for (int i = 1; i < kItemsPerThread; ++i) s[lane] += items[32 * w + lane][i], c.additions += 1;
        }
        for (int d = 16; d > 0; d /= 2) {
            const Lanes before = s;
            for (int lane = 0; lane < 32; ++lane) s[lane] += before[lane ^ d], c.additions += 1;
        }
        warp_totals[w] = s[0];
    }
    ll total = warp_totals[0];
    for (int w = 1; w < kWarpsPerTile; ++w) total += warp_totals[w], c.additions += 1;
    return total;
}

// Step 4: scan_each_tile, the scan of the tile totals (recursive), add_tile_offsets.
std::vector<ll> scan_then_propagate(const std::vector<ll>& in, bool inclusive, ScanCount& c) {
    const size_t n = in.size();
    std::vector<ll> out(n);
    if (n == 0) return out;
    const size_t tiles = ceil_div(n, kTileItems);
    std::vector<ll> sums(tiles);
    c.launches += 1;  // scan_each_tile
    for (size_t t = 0; t < tiles; ++t) {
        TileItems items = load_tile(in, t);
        const Partials p = tile_partials(items, c);
        finish_tile(items, p, 0, inclusive, c, true);
        store_tile(out, t, items);
        sums[t] = p.block_total;
    }
    if (tiles > 1) {
        const std::vector<ll> offsets = scan_then_propagate(sums, false, c);
        c.launches += 1;  // add_tile_offsets, over tiles 1 .. tiles-1
        for (size_t t = 1; t < tiles; ++t)
            for (size_t i = t * kTileItems; i < std::min(n, (t + 1) * kTileItems); ++i)
                out[i] += offsets[t], c.additions += 1;
    }
    return out;
}

// Step 5: reduce_tiles, the scan of the tile totals (recursive), rescan_tiles.
std::vector<ll> reduce_then_scan(const std::vector<ll>& in, bool inclusive, ScanCount& c) {
    const size_t n = in.size();
    std::vector<ll> out(n);
    if (n == 0) return out;
    const size_t tiles = ceil_div(n, kTileItems);
    std::vector<ll> offsets;
    if (tiles > 1) {
        std::vector<ll> sums(tiles);
        c.launches += 1;  // reduce_tiles
        for (size_t t = 0; t < tiles; ++t) sums[t] = reduce_tile(in, t, c);
        offsets = reduce_then_scan(sums, false, c);
    }
    c.launches += 1;  // rescan_tiles
    for (size_t t = 0; t < tiles; ++t) {
        TileItems items = load_tile(in, t);
        const Partials p = tile_partials(items, c);
        finish_tile(items, p, tiles > 1 ? offsets[t] : 0, inclusive, c);
        store_tile(out, t, items);
    }
    return out;
}

// scan_blelloch_block's two sweeps, with m / 2 threads: x padded with zeros to m (a power of two,
// at least 2), up-sweep, root cleared, down-sweep. Returns the m elements of the exclusive scan.
// `after` (for the pictures) is shown the array after each of these, named.
std::vector<ll> blelloch_sweeps(const std::vector<ll>& x, ScanCount& c,
                                const std::function<void(const std::string&, const std::vector<ll>&)>& after = {}) {
    const size_t m = next_pow2(x.size() < 2 ? 2 : x.size());
    std::vector<ll> a(m, 0);
    std::copy(x.begin(), x.end(), a.begin());
    if (after) after("input", a);
    size_t offset = 1;
    for (size_t d = m / 2; d > 0; d /= 2) {
        for (size_t t = 0; t < d; ++t) a[offset * (2 * t + 2) - 1] += a[offset * (2 * t + 1) - 1], c.additions += 1;
        c.steps += 1;
        offset *= 2;
        if (after) after(strf("up-sweep, stride %zu", offset), a);
    }
    a[m - 1] = 0;
    if (after) after("root set to 0", a);
    for (size_t d = 1; d < m; d *= 2) {
        offset /= 2;
        for (size_t t = 0; t < d; ++t) {
            const size_t left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            const ll old_left = a[left];
            a[left] = a[right];
            a[right] += old_left, c.additions += 1;
        }
        c.steps += 1;
        if (after) after(strf("down-sweep, stride %zu", 2 * offset), a);
    }
    return a;
}

}  // namespace

Simulated simulate_serial(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    const size_t n = x.size();
    s.result.resize(n);
    if (n == 0) return s;
    if (kind == ScanKind::inclusive) {
        s.result[0] = x[0];
        for (size_t i = 1; i < n; ++i) s.result[i] = s.result[i - 1] + x[i], s.count.additions += 1;
    } else {
        s.result[0] = 0;
        for (size_t i = 1; i < n; ++i) s.result[i] = s.result[i - 1] + x[i - 1], s.count.additions += 1;
    }
    s.count.steps = s.count.additions;
    return s;
}

// scan_naive_block, with one thread per element (the kernel's n <= 1024 is not enforced here:
// the count is that of n threads, as in the source material's model).
Simulated simulate_naive_block(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    const size_t n = x.size();
    if (n == 0) return s;
    std::vector<ll> buf[2] = {std::vector<ll>(n), std::vector<ll>(n)};
    for (size_t i = 0; i < n; ++i)
        buf[0][i] = kind == ScanKind::inclusive ? x[i] : (i > 0 ? x[i - 1] : 0);
    int cur = 0;
    for (size_t offset = 1; offset < n; offset *= 2) {
        for (size_t i = 0; i < n; ++i) {  // parallel over threads: reads only buf[cur]
            ll v = buf[cur][i];
            if (i >= offset) v += buf[cur][i - offset], s.count.additions += 1;
            buf[cur ^ 1][i] = v;
        }
        cur ^= 1;
        s.count.steps += 1;  // thread n-1 adds at every step
    }
    s.result = buf[cur];
    s.count.launches = 1;
    return s;
}

// scan_blelloch_block, with m / 2 threads (any n here, as above).
Simulated simulate_blelloch_block(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    const size_t n = x.size();
    if (n == 0) return s;
    std::vector<ll> a = blelloch_sweeps(x, s.count);
    s.result.assign(a.begin(), a.begin() + n);
    if (kind == ScanKind::inclusive) {
        for (size_t i = 0; i < n; ++i) s.result[i] += x[i], s.count.additions += 1;
        s.count.steps += 1;
    }
    s.count.launches = 1;
    return s;
}

// host_levels: levels_load, one launch per level, the root memset, levels_finish.
Simulated simulate_host_levels(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    const size_t n = x.size();
    if (n == 0) return s;
    const size_t m = next_pow2(n);
    int levels = 0;
    while (((size_t)1 << levels) < m) ++levels;
    std::vector<ll> y(m, 0);
    std::copy(x.begin(), x.end(), y.begin());
    s.count.launches += 1;
    for (int k = 0; k < levels; ++k) {
        const size_t pairs = m >> (k + 1);
        for (size_t t = 0; t < pairs; ++t) {
            const size_t right = ((t + 1) << (k + 1)) - 1, left = right - ((size_t)1 << k);
            y[right] += y[left], s.count.additions += 1;
        }
        s.count.steps += 1;
        s.count.launches += 1;
    }
    y[m - 1] = 0;
    s.count.launches += 1;
    for (int k = levels - 1; k >= 0; --k) {
        const size_t pairs = m >> (k + 1);
        for (size_t t = 0; t < pairs; ++t) {
            const size_t right = ((t + 1) << (k + 1)) - 1, left = right - ((size_t)1 << k);
            const ll old_left = y[left];
            y[left] = y[right];
            y[right] += old_left, s.count.additions += 1;
        }
        s.count.steps += 1;
        s.count.launches += 1;
    }
    s.result.assign(y.begin(), y.begin() + n);
    if (kind == ScanKind::inclusive) {
        for (size_t i = 0; i < n; ++i) s.result[i] += x[i], s.count.additions += 1;
        s.count.steps += 1;
    }
    s.count.launches += 1;
    return s;
}

Simulated simulate_scan_then_propagate(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    s.result = scan_then_propagate(x, kind == ScanKind::inclusive, s.count);
    return s;
}

Simulated simulate_reduce_then_scan(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    s.result = reduce_then_scan(x, kind == ScanKind::inclusive, s.count);
    return s;
}

Simulated simulate_decoupled_lookback(const std::vector<ll>& x, ScanKind kind) {
    Simulated s;
    const size_t n = x.size();
    s.result.resize(n);
    if (n == 0) return s;
    ScanCount& c = s.count;
    c.launches = 2;  // the status memset and the kernel
    const size_t tiles = ceil_div(n, kTileItems);
    std::vector<ll> inclusive_prefix(tiles);  // what each tile publishes as kTilePrefix
    for (size_t t = 0; t < tiles; ++t) {
        TileItems items = load_tile(x, t);
        const Partials p = tile_partials(items, c);
        ll prefix = 0;
        if (t == 0) {
            inclusive_prefix[0] = p.block_total;
        } else {
            // One window: lane 0 (tile t-1) already holds an inclusive prefix, so only lane 0's
            // value survives; the warp still reduces all 32 lanes, and every lane adds.
            Lanes v{};
            v[0] = inclusive_prefix[t - 1];
            for (int d = 16; d > 0; d /= 2) {
                const Lanes before = v;
                for (int lane = 0; lane < 32; ++lane) v[lane] += before[lane ^ d], c.additions += 1;
            }
            c.additions += 32;  // exclusive += v, in every lane
            prefix = v[0];
            inclusive_prefix[t] = prefix + p.block_total, c.additions += 1;
        }
        finish_tile(items, p, prefix, kind == ScanKind::inclusive, c);
        store_tile(s.result, t, items);
    }
    return s;
}

// Step 8 adds what step 6 adds, and launches its kernel alone: its status words are cleared only
// when they are first allocated (or grown) and when its epochs run out, not at every call.
Simulated simulate_quiet_lookback(const std::vector<ll>& x, ScanKind kind) {
    Simulated s = simulate_decoupled_lookback(x, kind);
    if (!x.empty()) s.count.launches = 1;
    return s;
}

// ---- The program's reports ------------------------------------------------------------------
// What each design moves through DRAM, in arrays of n ints, counting nothing as served by L2:
// every element read once and written once is 2n. host_levels moves 2n or more per launch at the
// lowest levels, and from stride 8 on a whole 32-byte sector for each 4-byte value; the upper
// levels are small enough for L2: about 20n in all. reduce_then_scan's traffic is step 5's
// prediction: its model is the prediction's answer (answers.cpp).
// A cell that answers a prediction (step 1's additions, step 3's launches and memsets, step 5's
// traffic) is shown only once that prediction is right (steps.h: Prediction).
const ScanModel kNaiveBlockModel = {simulate_naive_block, "2n", 8, {}, {"kNaiveAdditions", &kNaiveAdditions}};
const ScanModel kBlellochBlockModel = {simulate_blelloch_block, "2n", 8};
const ScanModel kHostLevelsModel = {simulate_host_levels, "~20n", 80, {}, {}, {"kHostLevelsCalls", &kHostLevelsCalls}};
const ScanModel kScanThenPropagateModel = {simulate_scan_then_propagate, "4n", 16};
const ScanModel kReduceThenScanModel = {simulate_reduce_then_scan, nullptr, 0, {"kReduceThenScanBytes", &kReduceThenScanBytes}};
const ScanModel kDecoupledLookbackModel = {simulate_decoupled_lookback, "2n", 8};
const ScanModel kQuietLookbackModel = {simulate_quiet_lookback, "2n", 8};

// `cell`, or "? (kName)" while the prediction it answers is not right (none: `cell`).
static std::string waiting_for(const Prediction& p, const std::string& cell) {
    return p.name ? p.shown(cell, find_answer(p.name)->derive()) : cell;
}

std::string traffic_cell(const ScanModel& model) {
    if (model.traffic) return model.traffic;
    const Prediction& p = model.traffic_predicted;
    const double bytes = find_answer(p.name)->derive();
    return p.shown(strf("%gn", bytes / sizeof(int)), bytes);
}

void print_counts(const std::vector<int>& x, const std::string& kernel) {
    const size_t n = x.size();
    std::printf("\nAdditions performed for an inclusive scan, counted by running each algorithm's own loops on\n"
                "the CPU (count.cpp), thread by thread; the one-block algorithms are counted with as many\n"
                "threads as elements, as in the source material's model.\n\n");
    if (n > ((size_t)1 << 24)) {
        std::printf("(not counted for n above 2^24: the simulation would take too long; try --n 2^20)\n");
        return;
    }
    const std::vector<ll> xl(x.begin(), x.end());
    const std::vector<int> ref = scan_reference(x, ScanKind::inclusive);
    const ScanModel serial_model = {simulate_serial, "-", 0};  // not a step: no traffic cell
    std::vector<std::pair<const char*, const ScanModel*>> counted = {{"serial (one thread)", &serial_model}};
    for (const auto& s : kSteps)
        if (kernel == "all" || kernel == s.name) counted.push_back({s.name, s.info.model});
    Table table({"algorithm", "additions", "per element", "span (steps)", "launches", "simulation"});
    for (const auto& [name, model] : counted) {
        const Simulated sim = model->simulate(xl, ScanKind::inclusive);
        const bool same = sim.result == std::vector<ll>(ref.begin(), ref.end());
        table.row({name, waiting_for(model->additions_predicted, strf("%llu", (unsigned long long)sim.count.additions)),
                   waiting_for(model->additions_predicted, strf("%.2f", n ? (double)sim.count.additions / n : 0.0)),
                   sim.count.steps ? strf("%llu", (unsigned long long)sim.count.steps) : "-",
                   waiting_for(model->launches_predicted, strf("%llu", (unsigned long long)sim.count.launches)),
                   same ? "computes the scan" : "WRONG RESULT (count.cpp disagrees with the reference)"});
    }
    table.print();

    // The source material's question: n = 32, its naive (inclusive) and work-efficient
    // (exclusive) algorithms.
    const std::vector<ll> x32(32, 1);
    const ScanCount naive = simulate_naive_block(x32, ScanKind::inclusive).count;
    const ScanCount blelloch = simulate_blelloch_block(x32, ScanKind::exclusive).count;
    const ScanCount blelloch_incl = simulate_blelloch_block(x32, ScanKind::inclusive).count;
    const ScanCount serial = simulate_serial(x32, ScanKind::inclusive).count;
    std::printf("\nThe source's question, n = 32: the naive scan performs %llu additions in %llu steps; the\n"
                "work-efficient scan %llu in %llu steps (up-sweep + down-sweep, exclusive as in the source;\n"
                "%llu to make it inclusive). One thread alone needs %llu.\n",
                (unsigned long long)naive.additions, (unsigned long long)naive.steps,
                (unsigned long long)blelloch.additions, (unsigned long long)blelloch.steps,
                (unsigned long long)blelloch_incl.additions, (unsigned long long)serial.additions);
}

static void print_row(const std::string& label, const std::vector<ll>& v) {
    std::printf("  %-22s", label.c_str());
    for (ll e : v) std::printf("%5lld", e);
    std::printf("\n");
}

void print_pictures(const std::vector<int>& x) {
    const size_t n = x.size(), m = next_pow2(n < 2 ? 2 : n);
    const std::vector<ll> input(x.begin(), x.end());
    std::printf("\nNaive (Hillis-Steele) inclusive scan: each step adds the element `offset` places left.\n");
    std::vector<ll> cur = input, next(n);
    print_row("input", cur);
    for (size_t offset = 1; offset < n; offset *= 2) {
        for (size_t i = 0; i < n; ++i) next[i] = cur[i] + (i >= offset ? cur[i - offset] : 0);
        std::swap(cur, next);
        print_row(strf("offset %zu", offset), cur);
    }
    std::printf("\nWork-efficient (Blelloch) exclusive scan, padded with zeros to %zu elements.\n", m);
    ScanCount uncounted;
    blelloch_sweeps(input, uncounted, print_row);
}
