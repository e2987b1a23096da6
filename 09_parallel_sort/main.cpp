// 09_parallel_sort/main.cpp: runs each step on one set of keys, checks it against
// std::stable_sort on the CPU and times it; --bench measures every step next to CUB and thrust
// at 2^20 to 2^28 random keys, with the bytes each one must move.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cub_sort.h"
#include "launch.h"
#include "parallel_sort.h"
#include "program.h"

namespace {

std::vector<uint32_t> positions(size_t n) {
    std::vector<uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0u);
    return p;
}

// ---- One size, every step, checked against std::stable_sort ----------------------------------
int run(const Program& p, size_t n, const std::string& distribution, KeyType type, bool pairs) {
    const DeviceFacts dev = device_facts();
    std::printf("sorting n = %zu keys (%s) on %s (%d SMs): steps 1 to 4 sort uint keys, step 5 %s keys%s\n\n", n,
                distribution.c_str(), dev.name.c_str(), dev.sm_count, to_string(type),
                pairs ? " with their input positions as values" : "");
    const Distribution dist = distribution_named(distribution);
    const std::vector<uint32_t> plain = make_keys(n, dist, p.seed);
    const std::vector<uint32_t> typed = type == KeyType::u32 ? plain : make_keys(n, dist, p.seed, type);
    DeviceBuffer<uint32_t> d_plain(plain), d_typed(typed), d_positions(positions(pairs ? n : 0));
    DeviceBuffer<uint32_t> d_out(n), d_values_out(pairs ? n : 0);
    CubSort cub(n);

    // The stable order of each input (and of step 1's tiles), computed once when first needed.
    std::map<std::pair<bool, size_t>, std::vector<uint32_t>> orders;
    auto order_of = [&](bool is_typed, size_t run) -> const std::vector<uint32_t>& {
        std::vector<uint32_t>& order = orders[{is_typed, run}];
        if (order.size() != n) order = stable_order(is_typed ? typed : plain, is_typed ? type : KeyType::u32, run);
        return order;
    };
    auto row = [&](const std::string& step, const std::string& name, bool is_typed, size_t run,
                   std::function<void()> launch) {
        const bool with_values = is_typed && pairs;
        auto check = [&, is_typed, run, with_values] {
            const std::vector<uint32_t>& order = order_of(is_typed, run);
            const Comparison keys = compare_exact(d_out.download(), gather(is_typed ? typed : plain, order));
            if (!keys.ok()) return Check{false, "keys: " + keys.describe()};
            if (with_values) {
                const Comparison values = compare_exact(d_values_out.download(), order);
                if (!values.ok()) return Check{false, "values: " + values.describe()};
            }
            return Check{true, run ? strf("every %zu-key tile in order", run) : with_values ? "in order, stable" : "in order"};
        };
        auto poison = [&, with_values] {
            d_out.poison();
            if (with_values) d_values_out.poison();
        };
        return StepRow{step, name, std::move(launch), check, "", poison};
    };

    std::vector<StepRow> rows;
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        const bool is_typed = step_takes(s.number, type, pairs), with_values = is_typed && pairs;
        const SortJob job{is_typed ? d_typed.get() : d_plain.get(), d_out.get(), n, is_typed ? type : KeyType::u32,
                          with_values ? d_positions.get() : nullptr, with_values ? d_values_out.get() : nullptr};
        rows.push_back(row(std::to_string(s.number), s.name, is_typed, sorted_run(s.number), [s, job] { s.run(job); }));
    }
    if (p.selected("cub"))
        rows.push_back(row("-", "cub::DeviceRadixSort::SortKeys", false, 0,
                           [&] { cub.sort_keys(d_plain.get(), d_out.get(), n); }));
    const int failures =
        run_steps(rows, {"G keys/s", (double)n, {}, "G keys/s: 10^9 keys sorted per second."}, BenchConfig{2, 10, true});
    return failures ? 1 : 0;
}

// ---- The benchmark ------------------------------------------------------------------------------
// The bytes a sort must move per key, as a model (LECTURE.md derives it): a pass that reads and
// writes every key moves 8 bytes per key, a pass that only reads them 4.
double bitonic_global_passes(size_t n) {
    double passes = 1;  // step 1's tiles
    for (size_t k = 2 * kBitonicTile; k <= next_pow2(n); k *= 2) {
        for (size_t j = k / 2; j >= kBitonicTile; j /= 2) passes += 1;  // a global stage
        passes += 1;                                                    // the merge in shared memory
    }
    return passes;
}

// CUB's pairs, checked exactly in O(n): the values are a permutation of the positions, each key
// is the input key at its value's position, and every neighbour pair is in order, equal keys by
// increasing position (stable). That is the stable sort and nothing else.
bool is_stable_sort_of(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& sorted,
                       const std::vector<uint32_t>& from) {
    std::vector<bool> seen(keys.size(), false);
    for (size_t j = 0; j < keys.size(); ++j) {
        if (from[j] >= keys.size() || seen[from[j]] || keys[from[j]] != sorted[j]) return false;
        seen[from[j]] = true;
        if (j > 0 && (sorted[j - 1] > sorted[j] || (sorted[j - 1] == sorted[j] && from[j - 1] > from[j]))) return false;
    }
    return true;
}

// Step 1 at benchmark sizes: every tile against std::sort of the same tile.
bool tiles_sorted(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& got) {
    std::vector<uint32_t> tile;
    for (size_t start = 0; start < keys.size(); start += kBitonicTile) {
        const size_t end = std::min(start + kBitonicTile, keys.size());
        tile.assign(keys.begin() + start, keys.begin() + end);
        std::sort(tile.begin(), tile.end());
        if (!std::equal(tile.begin(), tile.end(), got.begin() + start)) return false;
    }
    return true;
}

struct Measured {
    std::string step, name;
    double bytes_per_key = 0, ms = 0;
    bool pairs = false, ok = false;
};

int bench_size(const Program& p, int k, const BenchConfig& cfg) {
    const size_t n = (size_t)1 << k;
    const std::vector<uint32_t> keys = make_keys(n, Distribution::random, p.seed + k);
    DeviceBuffer<uint32_t> d_keys(keys), d_positions(positions(n)), d_out(n), d_values_out(n);
    CubSort cub(n);
    const double copy_gbs = gb_per_s(8.0 * n, time_device_copy(4 * n, cfg).median_ms);
    cub.sort_pairs(d_keys.get(), d_out.get(), d_positions.get(), d_values_out.get(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint32_t> ref_keys = d_out.download(), ref_values = d_values_out.download();
    const bool ref_ok = is_stable_sort_of(keys, ref_keys, ref_values);

    auto measure = [&](Measured m, const std::function<void()>& launch) {
        d_out.poison();
        d_values_out.poison();
        m.ms = time_gpu(launch, cfg).median_ms;
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<uint32_t> got = d_out.download();  // checked after timing
        m.ok = m.step == "1" ? tiles_sorted(keys, got) : ref_ok && got == ref_keys;
        if (m.pairs) m.ok = m.ok && d_values_out.download() == ref_values;
        return m;
    };
    auto cub_keys = [&] { cub.sort_keys(d_keys.get(), d_out.get(), n); };
    auto cub_pairs = [&] { cub.sort_pairs(d_keys.get(), d_out.get(), d_positions.get(), d_values_out.get(), n); };
    // CUB is timed before and after the steps; the faster time is the 100%.
    Measured keys_row = measure({"-", "cub::DeviceRadixSort::SortKeys", 36}, cub_keys);
    Measured pairs_row = measure({"-", "cub::DeviceRadixSort::SortPairs", 68, 0, true}, cub_pairs);
    const double model[] = {8, 8 * bitonic_global_passes(n), 32 * 12, kRadixPasses * 12, kRadixPasses * 20};
    std::vector<Measured> rows;
    for (const auto& s : kSteps) {
        const bool pairs = step_takes(s.number, KeyType::u32, true);
        const SortJob job{d_keys.get(), d_out.get(), n, KeyType::u32, pairs ? d_positions.get() : nullptr,
                          pairs ? d_values_out.get() : nullptr};
        rows.push_back(measure({std::to_string(s.number), std::string(s.name) + (pairs ? " (pairs)" : ""),
                                model[s.number - 1], 0, pairs},
                               [&] { s.run(job); }));
    }
    rows.push_back(measure({"-", "thrust::sort (after a copy)", 44}, [&] {
        CUDA_CHECK(cudaMemcpyAsync(d_out.get(), d_keys.get(), 4 * n, cudaMemcpyDeviceToDevice));
        cub.thrust_sort(d_out.get(), n);
    }));
    const Measured keys_again = measure(keys_row, cub_keys), pairs_again = measure(pairs_row, cub_pairs);
    const std::string cub_note =
        strf("CUB timed before and after the steps: SortKeys %.3f and %.3f ms, SortPairs %.3f and %.3f ms;\n"
             "the faster of each is the 100%% (pairs against SortPairs, keys against SortKeys).\n",
             keys_row.ms, keys_again.ms, pairs_row.ms, pairs_again.ms);
    keys_row.ms = std::min(keys_row.ms, keys_again.ms);
    keys_row.ok = keys_row.ok && keys_again.ok;
    pairs_row.ms = std::min(pairs_row.ms, pairs_again.ms);
    pairs_row.ok = pairs_row.ok && pairs_again.ok;
    rows.insert(rows.end() - 1, {keys_row, pairs_row});

    std::printf("\n2^%d keys (%.0f MB); cudaMemcpy device to device: %.0f GB/s (read + written)%s\n\n", k,
                4.0 * n / 1e6, copy_gbs, ref_ok ? "" : "; CUB'S OWN RESULT IS WRONG");
    Table table({"step", "sort", "time (ms)", "G keys/s", "% of CUB", "B/key", "at copy speed", "% of that", "check"});
    int failures = 0;
    for (const Measured& r : rows) {
        const double rate = n / (r.ms * 1e-3) / 1e9, cub_ms = r.pairs ? pairs_row.ms : keys_row.ms;
        const double roof = copy_gbs / r.bytes_per_key;
        // Step 1 sorts tiles, not the array: no share of a whole sort.
        table.row({r.step, r.name, strf("%.3f", r.ms), strf("%.2f", rate),
                   r.step == "1" ? "-" : strf("%.1f", 100 * cub_ms / r.ms),
                   strf("%.0f", r.bytes_per_key), strf("%.1f", roof), strf("%.1f", 100 * rate / roof),
                   !r.ok ? "WRONG" : r.step == "1" ? "tiles sorted" : "= CUB's"});
        if (!r.ok) ++failures;
    }
    table.print();
    std::printf("\n%s", cub_note.c_str());
    return failures;
}

int run_bench(const Program& p) {
    const BenchConfig cfg;
    print_bench_header("sorting n random 32-bit keys (every pattern equally likely)", cfg);
    std::printf("G keys/s: 10^9 keys sorted per second. Step 1 sorts 2048-key tiles only; step 5 sorts the\n"
                "keys with their positions as values (pairs), as SortPairs does. B/key: the bytes a sort must\n"
                "move per key, read + written (a model: LECTURE.md); at copy speed: the G keys/s it would reach\n"
                "moving them at cudaMemcpy's rate, the roofline of a sort. Every result is checked after timing\n"
                "against CUB's SortPairs, itself checked exactly (a stable permutation of the input).\n");
    int failures = 0;
    for (int k : {20, 24, 26, 28}) {
        const double n = (double)((size_t)1 << k);
        const double gpu = 45.0 * n, host = 28.0 * n;
        if (k == 28 && (gpu > 0.9 * free_gpu_bytes() || host > 0.8 * host_memory_bytes())) {
            std::printf("\n2^28 keys: skipped, it needs %.1f GB of GPU memory and %.1f GB of host memory\n", gpu / 1e9,
                        host / 1e9);
            continue;
        }
        failures += bench_size(p, k, cfg);
    }
    return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"sorts n 32-bit keys on the GPU, checked against std::stable_sort",
               "  --n N             keys (default 1000000; 0 is allowed; 2^K and 2^K+C work too;\n"
               "                    at most 2^32-1)\n"
               "  --distribution D  random, equal, sorted, reverse, few, top_bit or low_bit (default random)\n"
               "  --keys TYPE       the key type of step 5: uint, int or float (default float);\n"
               "                    steps 1 to 4 sort uint keys\n"
               "  --pairs           step 5 sorts (key, input position) pairs; the check includes stability\n",
               step_names(kSteps), {"cub"}, "the benchmark tables (2^20, 2^24, 2^26 and 2^28 random keys)"});
    const size_t n = p.size("--n", 1000000, 0, kMaxKeys);
    const std::string distribution = p.choice("--distribution", "random", distribution_names());
    const std::string keys = p.choice("--keys", "float", {"uint", "int", "float"});
    const bool pairs = p.flag("--pairs");
    p.not_with_bench({"--n", "--distribution", "--keys", "--pairs"});
    p.only_for_kernels("--keys", {"keys_and_pairs"});  // steps 1 to 4 and CUB's row sort uint keys alone
    p.only_for_kernels("--pairs", {"keys_and_pairs"});
    p.finish();
    const KeyType type = keys == "uint" ? KeyType::u32 : keys == "int" ? KeyType::i32 : KeyType::f32;

    if (p.bench) {
        // 2^26 keys at least: keys, positions, outputs, the sorts' temporaries, CUB's storage and
        // the copy test on the GPU; the keys, CUB's result and the downloads on the host.
        const double n26 = (double)((size_t)1 << 26);
        require_memory(p, "--bench", 28.0 * n26, 45.0 * n26);
        return run_bench(p);
    }
    // Host: both inputs, positions, up to three stable orders, downloads. GPU: inputs, positions,
    // outputs, the sorts' temporaries (keys, values, counts) and CUB's storage.
    require_memory(p, "--n", 36.0 * n, 37.0 * n + (64 << 20));
    return run(p, n, distribution, type, pairs);
}
