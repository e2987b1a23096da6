// 09_parallel_sort/main.cpp: runs each step on one set of keys next to CUB, thrust and a copy,
// checks every result against a stable sort and times it, with the bytes each sort must move;
// --bench does the same for 2^20 to 2^28 random keys, steps 5 and 6 sorting keys alone and pairs.
#include <map>
#include <numeric>
#include <utility>

#include "answers.h"  // find_answer: a B/key that answers a prediction waits for it
#include "cub_sort.h"
#include "parallel_sort.h"
#include "program.h"

namespace {

const char* const kSortKeys = "cub::DeviceRadixSort::SortKeys";
const char* const kSortPairs = "cub::DeviceRadixSort::SortPairs";

// One set of keys: every selected step and the libraries, each checked against the stable order
// of its input: CUB's sort of (key, position) pairs checked in O(n) for unsigned keys, std::stable_sort
// for int and float keys and for step 1's tiles. Steps 5 and 6 sort `type` keys, with values if
// `pairs`; with `both` they sort them alone too, each row next to its own CUB sort (--bench).
void measure(Measurements& table, const Program& p, const std::string& title, size_t n, Distribution dist,
             KeyType type, bool pairs, uint64_t seed, bool both = false) {
    const std::vector<uint32_t> plain = make_keys(n, dist, seed);
    const std::vector<uint32_t> typed = type == KeyType::u32 ? std::vector<uint32_t>() : make_keys(n, dist, seed, type);
    std::vector<uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    DeviceBuffer<uint32_t> d_plain(plain), d_typed(typed), d_positions(positions), d_out(n), d_values_out(n);
    CubSort cub(n);
    struct Expected { std::vector<uint32_t> keys, order; };
    // By (typed keys, run): made once, before any row runs (they use the rows' output buffers).
    std::map<std::pair<bool, size_t>, Expected> expected;
    auto expect = [&](bool is_typed, size_t run) -> const Expected* {
        const auto [at, fresh] = expected.try_emplace({is_typed, run});
        Expected& e = at->second;
        if (!fresh) return &e;
        if (!is_typed && run == 0) {
            cub.sort_pairs(d_plain.get(), d_out.get(), d_positions.get(), d_values_out.get(), n);
            e.order = d_values_out.download();
            e.keys = d_out.download();
            if (is_stable_sort_of(plain, e.keys, e.order)) return &e;
        }
        e.order = stable_order(is_typed ? typed : plain, is_typed ? type : KeyType::u32, run);
        e.keys = gather(is_typed ? typed : plain, e.order);
        return &e;
    };
    auto row = [&](const std::string& step, const std::string& name, const Expected* want, bool values, size_t run,
                   std::function<void()> launch, RowKind kind, double bytes_per_key, const std::string& baseline) {
        auto check = [&, want, values, run] {
            const Comparison keys = compare_exact(d_out.download(), want->keys);
            if (!keys.ok()) return Check{false, "keys: " + keys.describe()};
            const Comparison by_value = values ? compare_exact(d_values_out.download(), want->order) : Comparison{};
            if (!by_value.ok()) return Check{false, "values: " + by_value.describe()};
            return Check{true, run ? strf("every %zu-key tile in order", run) : values ? "in order, stable" : "in order"};
        };
        auto poison = [&, values] { d_out.poison(); if (values) d_values_out.poison(); };
        return StepRow{step, name, std::move(launch), check, "", poison, kind, Work{bytes_per_key * n, 1.0 * n},
                       {strf("%.0f", bytes_per_key)}, baseline};
    };
    std::vector<StepRow> rows;
    for (const SortStep& s : p.selected(kSteps)) {
        for (bool values : {false, true}) {
            // The step's own row (with values where it takes them and `pairs` asks), and with `both`
            // the same step on keys alone as well.
            const bool own = values == (s.info.any_keys && pairs), keys_too = both && s.info.any_keys && pairs && !values;
            if (!own && !keys_too) continue;
            const bool is_typed = s.info.any_keys && type != KeyType::u32;
            const SortJob job{is_typed ? d_typed.get() : d_plain.get(), d_out.get(), n, is_typed ? type : KeyType::u32,
                              values ? d_positions.get() : nullptr, values ? d_values_out.get() : nullptr};
            rows.push_back(row(std::to_string(s.number), std::string(s.name) + (values ? " (pairs)" : ""),
                               expect(is_typed, s.info.sorted_run), values, s.info.sorted_run, [s, job] { s.run(job); },
                               RowKind::step, s.info.bytes_per_key(n, values), s.info.sorted_run ? "-" : values ? kSortPairs : ""));
            // A B/key that answers a prediction waits for it (steps.h: Prediction), and so do the
            // columns computed from it (at copy speed, % of that) and the row's place on the plot.
            const Prediction& predicted = s.info.predicted;
            if (predicted.name && (double)*predicted.value != find_answer(predicted.name)->derive()) {
                rows.back().cells[0] = predicted.shown(rows.back().cells[0], find_answer(predicted.name)->derive());
                rows.back().work.bytes = 0;
            }
        }
    }
    // The libraries' bytes per key: Onesweep counts every digit in one pass over the keys (4), then
    // reads and writes them once per 8-bit digit (4 x 8; with values 4 x 16); thrust copies first (8).
    if (p.selected("cub")) {
        const Expected* e = expect(false, 0);
        rows.push_back(row("-", kSortKeys, e, false, 0,
                           [&] { cub.sort_keys(d_plain.get(), d_out.get(), n); }, RowKind::baseline, 36, ""));
        if (pairs)
            rows.push_back(row("-", kSortPairs, e, true, 0, [&] {
                cub.sort_pairs(d_plain.get(), d_out.get(), d_positions.get(), d_values_out.get(), n);
            }, RowKind::baseline, 68, kSortPairs));
        rows.push_back(row("-", "thrust::sort (after a copy)", e, false, 0, [&] {
            CUDA_CHECK(cudaMemcpyAsync(d_out.get(), d_plain.get(), 4 * n, cudaMemcpyDeviceToDevice));
            cub.thrust_sort(d_out.get(), n);
        }, RowKind::reference, 44, kSortKeys));
        rows.push_back(copy_row("cudaMemcpy (device to device)", d_out.get(), d_plain.get(), plain, RowKind::reference,
                                {"8"}));
    }
    table.section(title, Work{}, rows);
}

// The default run (n keys of one distribution) or --bench (2^20 to 2^28 random keys, steps 5 and 6
// sorting keys alone and pairs), in one table: G keys/s, against CUB's sort and at the copy's speed.
int run(const Program& p, size_t n, const std::string& distribution, KeyType type, bool pairs) {
    const BenchConfig cfg = p.bench ? BenchConfig{} : BenchConfig{2, 10, true};
    print_header(p, cfg, "sorting n random 32-bit keys (every pattern equally likely); steps 5 and 6 sort the\n"
                         "keys alone and with their positions as values (pairs), as SortPairs does",
                 strf("sorting n = %zu keys (%s)", n, distribution.c_str()),
                 strf("steps 1 to 4 sort uint keys, steps 5 and 6 %s keys%s", to_string(type),
                      pairs ? " with their input positions as values" : ""));
    TableSpec t;
    t.title = "sorting n 32-bit keys";
    t.rate = ops_rate("G keys/s", 1e9, "keys", "%.2f");
    t.columns = {cols::step(), cols::kernel(), cols::own("B/key"), cols::time("%.3f"), cols::rate(t.rate),
                 cols::of_baseline("% of CUB"), cols::at_copy_speed("at copy speed", t.rate), cols::of_copy_speed(),
                 cols::check()};
    t.footer = "G keys/s: 10^9 keys sorted per second. B/key: the bytes a sort must move per key, read + written\n"
               "(a model of its passes; steps 2 to 5 show theirs once the prediction it answers is right); at\n"
               "copy speed: the G keys/s it would reach moving them at the copy's rate, the roofline of a sort.\n"
               "Step 1 sorts tiles, not the array: no share of a whole sort. A sort of pairs is compared with\n"
               "SortPairs, every other sort with SortKeys.";
    Measurements table(t, cfg, p.outputs());
    if (!p.bench) {
        measure(table, p, "", n, distribution_named(distribution), type, pairs, p.seed);
        return table.finish() ? 1 : 0;
    }
    std::printf("\n");
    for (int k : {20, 24, 26, 28}) {
        const double keys_n = (double)((size_t)1 << k), gpu = 45.0 * keys_n, host = 36.0 * keys_n;
        if (k == 28 && (gpu > 0.9 * free_gpu_bytes() || host > 0.8 * host_memory_bytes()))
            std::printf("2^28 keys: skipped, it needs %.1f GB of GPU memory and %.1f GB of host memory\n\n",
                        gpu / 1e9, host / 1e9);
        else
            measure(table, p, strf("2^%d keys (%.0f MB)", k, 4 * keys_n / 1e6), (size_t)1 << k,
                    Distribution::random, KeyType::u32, true, p.seed + k, true);
    }
    return table.finish() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"sorts n 32-bit keys on the GPU, checked against std::stable_sort",
               {{"--n N", "keys"},
                {"--distribution D", "what the keys look like"},
                {"--keys TYPE", "the key type of steps 5 and 6 (steps 1 to 4, and CUB's row, sort uint keys)"},
                {"--pairs", "steps 5 and 6 sort (key, input position) pairs; the check includes stability"}},
               step_decls(kSteps), {"cub"}, "the benchmark tables (2^20, 2^24, 2^26 and 2^28 random keys)"});
    const size_t n = p.size("--n", 1000000, 0, kMaxKeys);
    const std::string distribution = p.choice("--distribution", "random", distribution_names());
    const std::string keys = p.choice("--keys", "float", {"uint", "int", "float"});
    const bool pairs = p.flag("--pairs");
    p.not_with_bench({"--n", "--distribution", "--keys", "--pairs"});
    p.finish();
    const KeyType type = keys == "uint" ? KeyType::u32 : keys == "int" ? KeyType::i32 : KeyType::f32;
    // Host: the keys of both types, positions, the references (keys and orders, up to three),
    // downloads. GPU: inputs, positions, outputs, the sorts' temporaries (keys, values, counts),
    // CUB's storage and thrust's. --bench: the same for 2^26 keys of one type (2^28 is skipped
    // where it does not fit).
    const double count = p.bench ? 0x1p26 : (double)n;
    require_memory(p, p.bench ? "--bench" : "--n", (p.bench ? 36.0 : 48.0) * count, 45.0 * count + (64 << 20));
    return run(p, n, distribution, type, pairs);
}
