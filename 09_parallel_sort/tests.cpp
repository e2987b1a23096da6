// 09_parallel_sort/tests.cpp: the cases every step must pass, registered once for all steps
// (STEP_CASES), then what only some steps can get wrong.
//
// Every sort runs through expect_sorted(): the input sits in its own buffer and must be the same
// afterwards; the output is followed by a guard zone of kGuard words; output and guard are
// filled beforehand with a pattern no input key has, so a key the sort forgot to write, or one
// it wrote past n, shows. The reference is std::stable_sort of the positions by key
// (stable_order, parallel_sort.h), and keys and values are compared exactly.
// Steps 1 to 4 sort unsigned keys alone; steps 5 and 6 carry the keys' input positions as values
// in every case, so each of their results is also checked for stability.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "bench.h"  // strf
#include "cub_sort.h"
#include "parallel_sort.h"
#include "testing.h"

namespace {

constexpr size_t kGuard = 4096;  // words after each output: a tile or more

std::vector<uint32_t> positions(size_t n) {
    std::vector<uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0u);
    return p;
}

// A byte whose 4-byte pattern is no key of the input: what outputs and guards start as.
int absent_byte(const std::vector<uint32_t>& keys) {
    for (int b : {0xA5, 0x5A, 0x3C, 0xC3, 0x69, 0x96}) {
        const uint32_t pattern = 0x01010101u * (uint32_t)b;
        if (std::find(keys.begin(), keys.end(), pattern) == keys.end()) return b;
    }
    return 0x0F;  // the inputs here never hold all six
}

// Words of `out` from `from` on that are no longer `pattern`.
size_t overwritten(const std::vector<uint32_t>& out, size_t from, uint32_t pattern) {
    return (size_t)std::count_if(out.begin() + from, out.end(), [&](uint32_t w) { return w != pattern; });
}

std::vector<uint32_t> first(const std::vector<uint32_t>& v, size_t n) { return {v.begin(), v.begin() + n}; }

void expect_sorted(SortFn run, const std::vector<uint32_t>& keys, KeyType type, bool pairs, size_t run_length) {
    const size_t n = keys.size();
    const std::string key_type = to_string(type);
    CAPTURE(n);
    CAPTURE(key_type);
    CAPTURE(pairs);
    const int poison = absent_byte(keys);
    const uint32_t pattern = 0x01010101u * (uint32_t)poison;
    DeviceBuffer<uint32_t> d_keys(keys), d_out(n + kGuard);
    DeviceBuffer<uint32_t> d_values(positions(pairs ? n : 0)), d_values_out(pairs ? n + kGuard : 0);
    CUDA_CHECK(cudaMemset(d_out.get(), poison, d_out.bytes()));
    d_values_out.poison();  // 0xFFFFFFFF: no position is that large
    run(SortJob{d_keys.get(), d_out.get(), n, type, pairs ? d_values.get() : nullptr,
                pairs ? d_values_out.get() : nullptr});
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::vector<uint32_t> order = stable_order(keys, type, run_length);
    const std::vector<uint32_t> out = d_out.download();
    INFO("keys:");
    CHECK_MATCH(compare_exact(first(out, n), gather(keys, order)));
    INFO("words of the guard zone after the keys that were written: " << overwritten(out, n, pattern));
    CHECK(overwritten(out, n, pattern) == 0);
    CHECK(d_keys.download() == keys);  // an out-of-place sort leaves its input alone
    if (pairs) {
        const std::vector<uint32_t> values = d_values_out.download();
        INFO("values (the keys' input positions; a stable sort keeps equal keys in input order):");
        CHECK_MATCH(compare_exact(first(values, n), order));
        CHECK(overwritten(values, n, 0xFFFFFFFFu) == 0);
        CHECK(d_values.download() == positions(n));
    }
}

// A step's own kind of job: steps 1 to 4 unsigned keys alone, step 5 with values.
void expect_step(const SortStep& step, const std::vector<uint32_t>& keys, KeyType type = KeyType::u32) {
    expect_sorted(step.run, keys, type, takes(step, type, true), step.info.sorted_run);
}

const Distribution kDistributions[] = {Distribution::random,  Distribution::equal, Distribution::sorted,
                                       Distribution::reverse, Distribution::few,   Distribution::top_bit,
                                       Distribution::low_bit};
// Either side of every tile size (2048: steps 1, 2, 3; 4096: steps 4, 5; 8192: step 6), and odd
// sizes.
const size_t kSizes[] = {0,     1,     2,    3,          31,   33,    2047,  kBitonicTile, 2049, 4095,
                         kRadixTile, 4097, 8191, kSweepTile, 8193, 12287, 12289, 24577,        65537};

// Past 2^31 keys an int index wraps. The case sorts n = 2^31 + 11 keys, a permutation of
// 0 .. n-1 built so that both answers are known without sorting: the tiles of kBitonicTile keys
// hold the ranges of keys in reverse order (tile 0 the largest keys, so every key crosses the
// array), each range shuffled inside its tile (offset p holds range start + p * 1031 mod the
// tile's length). Sorted, key j is j, and its value (input position) follows from the inverse
// shuffle; step 1's sorted tiles are their ranges in order. Input and positions are made and
// uploaded once and shared by every step's case.
constexpr size_t kHugeN = ((size_t)1 << 31) + 11;
constexpr uint64_t kShuffle = 1031;  // coprime with 2048 and with 11, the last tile's length

uint64_t inverse_mod(uint64_t a, uint64_t m) {  // extended Euclid; a and m coprime
    int64_t r0 = (int64_t)m, r1 = (int64_t)(a % m), t0 = 0, t1 = 1;
    while (r1 != 0) {
        const int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
        r0 = r1, r1 = r2, t0 = t1, t1 = t2;
    }
    return (uint64_t)(t0 < 0 ? t0 + (int64_t)m : t0);
}
struct HugeTile {
    size_t start, length, first_key;  // its positions, and the range of keys it holds
};
HugeTile huge_tile(size_t t) {
    const size_t start = t * kBitonicTile, length = std::min(kBitonicTile, kHugeN - start);
    return {start, length, kHugeN - start - length};
}
// p * kShuffle mod length, without a division for the full tiles.
uint64_t shuffle_mod(uint64_t x, size_t length) { return length == kBitonicTile ? x & (kBitonicTile - 1) : x % length; }

struct HugeInput {
    DeviceBuffer<uint32_t> keys, positions;
};
// The shared input, or nullptr when this machine lacks the memory (a GPU case needs the input,
// the positions, outputs for keys and values and the sort's temporaries: 24.5 bytes a key).
const HugeInput* huge_input() {
    static const bool fits = 24.5 * kHugeN < 0.9 * (double)free_gpu_bytes() &&
                             3.0 * 4 * kHugeN < 0.8 * host_memory_bytes();
    static HugeInput input;
    if (!fits) return nullptr;
    if (input.keys.size() == 0) {
        std::vector<uint32_t> host(kHugeN);
        for (size_t t = 0; t * kBitonicTile < kHugeN; ++t) {
            const HugeTile tile = huge_tile(t);
            for (size_t p = 0; p < tile.length; ++p)
                host[tile.start + p] = (uint32_t)(tile.first_key + shuffle_mod(p * kShuffle, tile.length));
        }
        input.keys = DeviceBuffer<uint32_t>(host);
        host = positions(kHugeN);
        input.positions = DeviceBuffer<uint32_t>(host);
    }
    return &input;
}

void expect_huge(const SortStep& step) {
    const size_t n = kHugeN;
    const HugeInput* input = huge_input();
    if (!input) SKIP_CASE("needs 53 GB of GPU memory and 26 GB of host memory for 2^31 + 11 keys");
    const bool pairs = takes(step, KeyType::u32, true), by_tile = step.info.sorted_run > 0;
    DeviceBuffer<uint32_t> d_out(n), d_values_out(pairs ? n : 0);
    d_out.poison();
    d_values_out.poison();
    step.run(SortJob{input->keys.get(), d_out.get(), n, KeyType::u32, pairs ? input->positions.get() : nullptr,
                     d_values_out.get()});
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<uint32_t> out = d_out.download();
    size_t bad = 0, first_bad = 0;
    for (size_t j = 0; j < n; ++j) {
        const HugeTile tile = huge_tile(j / kBitonicTile);
        const size_t want = by_tile ? tile.first_key + (j - tile.start) : j;
        if (out[j] != want && bad++ == 0) first_bad = j;
    }
    INFO("keys: " << bad << " wrong, the first at " << first_bad);
    CHECK(bad == 0);
    if (pairs) {
        const std::vector<uint32_t> values = d_values_out.download();
        const uint64_t inverse_full = inverse_mod(kShuffle, kBitonicTile);
        const uint64_t inverse_last = inverse_mod(kShuffle, huge_tile((n - 1) / kBitonicTile).length);
        size_t bad_values = 0, first_bad_value = 0;
        for (size_t j = 0; j < n; ++j) {
            const HugeTile tile = huge_tile((n - 1 - j) / kBitonicTile);  // the tile that holds key j
            const uint64_t inverse = tile.length == kBitonicTile ? inverse_full : inverse_last;
            const size_t want = tile.start + shuffle_mod((j - tile.first_key) * inverse, tile.length);
            if (values[j] != want && bad_values++ == 0) first_bad_value = j;
        }
        INFO("values: " << bad_values << " wrong, the first at " << first_bad_value);
        CHECK(bad_values == 0);
    }
}

// The float patterns every order gets wrong somewhere: zeros, infinities, NaNs of both signs and
// several payloads, subnormals, the largest and smallest normals.
const uint32_t kFloatSpecials[] = {
    0x00000000u, 0x80000000u,                            // +0.0, -0.0
    0x7F800000u, 0xFF800000u,                            // +inf, -inf
    0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FFFFFFFu,  // NaNs: quiet, quiet with sign, ...
    0xFF800001u, 0xFFFFFFFFu,                            // ... the smallest and largest payloads
    0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,  // subnormals
    0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,  // FLT_MIN, FLT_MAX and their negatives
    0x3F800000u, 0xBF800000u,                            // 1.0, -1.0
};

}  // namespace

DECLARE_STEPS(kSteps);

// ---- every step ----------------------------------------------------------------------------
STEP_CASES(kSteps, "n = 0, 1, 2, 3, 31, 33, either side of each tile size, odd sizes", [](const auto& step) {
    for (size_t n : kSizes)
        if (n < 20000 || !under_sanitizer())  // make sanitize: 12289 already takes every path
            expect_step(step, make_keys(n, Distribution::random, n + 1));
});
STEP_CASES(kSteps, "random, equal, sorted, reverse, few (4), top bit only, low bit only", [](const auto& step) {
    for (Distribution d : kDistributions)
        for (size_t n : {(size_t)3, kBitonicTile + 1, sanitizing((size_t)10007, (size_t)5003)}) {
            const std::string distribution = distribution_names()[(int)d];
            CAPTURE(distribution);
            expect_step(step, make_keys(n, d, 7 * n + (int)d));
        }
});
STEP_CASES(kSteps, "the smallest and largest keys (the padding's value) in partial tiles", [](const auto& step) {
    for (size_t n : {(size_t)5, (size_t)1000, kRadixTile + 3}) {
        std::vector<uint32_t> keys = make_keys(n, Distribution::random, n);
        for (size_t i = 0; i < n; ++i)
            if (i % 3 != 2) keys[i] = i % 3 == 0 ? 0xFFFFFFFFu : 0u;
        expect_step(step, keys);
    }
});
STEP_CASES(kSteps, "n = 2^20 + 7, every distribution (large)", [](const auto& step) {
    for (Distribution d : kDistributions) {
        const std::string distribution = distribution_names()[(int)d];
        CAPTURE(distribution);
        expect_step(step, make_keys(((size_t)1 << 20) + 7, d, 11 + (int)d));
    }
});
STEP_CASES(kSteps, "n = 2^31 + 11, size_t indexing (large)", [](const auto& step) { expect_huge(step); });

// ---- step 2: the network's sizes --------------------------------------------------------------
STEP_CASE(kSteps, "bitonic_global", "n = 2^k - 1, 2^k, 2^k + 1 for k = 11 to 17") {
    for (int k = 11; k <= sanitizing(17, 13); ++k)  // make sanitize: the launches repeat past 13
        for (size_t n : {((size_t)1 << k) - 1, (size_t)1 << k, ((size_t)1 << k) + 1})
            expect_step(step, make_keys(n, Distribution::random, n));
}

// ---- step 3: every bit gets its split -----------------------------------------------------------
STEP_CASE(kSteps, "split", "only bit b varying, for each b from 0 to 31") {
    for (int b = 0; b < 32; ++b) {
        CAPTURE(b);
        std::vector<uint32_t> keys = make_keys(3001, Distribution::random, b);
        for (uint32_t& k : keys) k = (0x5A5A5A5Au & ~(1u << b)) | (k & (1u << b));
        expect_step(step, keys);
    }
}

// Keys of 3 tiles + 5 in which only one byte varies, each byte in turn (the others a fixed
// pattern): in every other pass each tile's keys share one digit.
void expect_one_byte_varying(const SortStep& step, size_t tile) {
    for (int byte = 0; byte < 4; ++byte) {
        CAPTURE(byte);
        std::vector<uint32_t> keys = make_keys(3 * tile + 5, Distribution::random, byte);
        for (uint32_t& k : keys) k = (0xC3C3C3C3u & ~(0xFFu << 8 * byte)) | (k & (0xFFu << 8 * byte));
        expect_step(step, keys);
    }
}

// ---- step 4: digits that are all the same in some passes -------------------------------------------
STEP_CASE(kSteps, "radix_sort", "only one byte varying, for each byte") {
    expect_one_byte_varying(step, kRadixTile);
}
STEP_CASE(kSteps, "radix_sort", "every digit value in every tile, 4 tiles") {
    std::vector<uint32_t> keys(4 * kRadixTile);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = (uint32_t)((i * 2654435761u) & 0xFFu) * 0x01010101u;
    expect_step(step, keys);
}

// ---- step 5: int and float keys, values, stability ---------------------------------------------
STEP_CASE(kSteps, "keys_and_pairs", "int keys, every distribution, with and without values") {
    for (Distribution d : kDistributions) {
        const std::string distribution = distribution_names()[(int)d];
        CAPTURE(distribution);
        const std::vector<uint32_t> keys = make_keys(10007, d, 5 + (int)d, KeyType::i32);
        expect_sorted(step.run, keys, KeyType::i32, true, 0);
        expect_sorted(step.run, keys, KeyType::i32, false, 0);
    }
}
STEP_CASE(kSteps, "keys_and_pairs", "float keys, random patterns (NaNs, infinities, subnormals)") {
    for (size_t n : {(size_t)1, (size_t)2, kRadixTile + 1, (size_t)100003}) {
        const std::vector<uint32_t> keys = make_keys(n, Distribution::random, n + 3, KeyType::f32);
        expect_sorted(step.run, keys, KeyType::f32, true, 0);
        expect_sorted(step.run, keys, KeyType::f32, false, 0);
    }
}
STEP_CASE(kSteps, "keys_and_pairs", "float special values, -0.0 before +0.0, NaNs last, stable") {
    std::vector<uint32_t> keys = make_keys(5003, Distribution::random, 17);
    for (uint32_t& k : keys) k = kFloatSpecials[k % (sizeof kFloatSpecials / sizeof kFloatSpecials[0])];
    expect_sorted(step.run, keys, KeyType::f32, true, 0);
    expect_sorted(step.run, keys, KeyType::f32, false, 0);
    // The reference's order, spelled out: -inf first, then -0.0 right before +0.0, NaNs last.
    const std::vector<uint32_t> sorted = gather(keys, stable_order(keys, KeyType::f32));
    const auto at = [&](uint32_t k) { return std::find(sorted.begin(), sorted.end(), k) - sorted.begin(); };
    CHECK(sorted.front() == 0xFF800000u);
    CHECK(at(0x80000000u) < at(0x00000000u));
    CHECK(at(0x00000000u) < at(0x00000001u));
    CHECK(at(0x7F800000u) < at(0x7FC00000u));
    CHECK(at(0x7FFFFFFFu) < at(0xFFFFFFFFu));
    CHECK(std::isnan(key_as_float(sorted.back())));
}
STEP_CASE(kSteps, "keys_and_pairs", "equal keys keep their input order (uint pairs)") {
    for (Distribution d : {Distribution::equal, Distribution::few, Distribution::top_bit, Distribution::low_bit})
        for (size_t n : {(size_t)2, (size_t)4097, (size_t)30011}) {
            const std::string distribution = distribution_names()[(int)d];
            CAPTURE(distribution);
            expect_sorted(step.run, make_keys(n, d, n), KeyType::u32, true, 0);
        }
}
STEP_HOST_CASE(kSteps, "keys_and_pairs",
               "ordered_bits orders uint, int and float as key_less does; raw_bits undoes it (on the CPU)") {
    // A sample of all 2^32 patterns: every 65521st, the float specials, and the patterns around
    // the edges of the float classes.
    std::vector<uint32_t> sample(std::begin(kFloatSpecials), std::end(kFloatSpecials));
    for (uint64_t x = 0; x <= 0xFFFFFFFFull; x += 65521) sample.push_back((uint32_t)x);
    for (uint32_t edge : {0x00000000u, 0x7F800000u, 0x80000000u, 0xFF800000u, 0xFFFFFFFFu, 0x7FFFFFFFu})
        for (uint32_t d = 0; d < 4; ++d) sample.insert(sample.end(), {edge + d, edge - d});
    for (KeyType type : {KeyType::u32, KeyType::i32, KeyType::f32}) {
        const std::string key_type = to_string(type);
        CAPTURE(key_type);
        std::vector<uint32_t> order = sample;
        std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return key_less(x, y, type); });
        order.erase(std::unique(order.begin(), order.end()), order.end());
        size_t out_of_order = 0, not_undone = 0;
        for (size_t i = 0; i < order.size(); ++i) {
            if (i > 0 && !(ordered_bits(order[i - 1], type) < ordered_bits(order[i], type))) ++out_of_order;
            if (raw_bits(ordered_bits(order[i], type), type) != order[i]) ++not_undone;
        }
        INFO("neighbours in key order whose ordered_bits are not increasing: " << out_of_order);
        CHECK(out_of_order == 0);
        INFO("patterns that raw_bits(ordered_bits(x)) does not give back: " << not_undone);
        CHECK(not_undone == 0);
    }
}

// ---- step 6: the look-back across many tiles, key types, and the status words between passes -----
STEP_CASE(kSteps, "onesweep", "int and float keys over many tiles, with and without values") {
    for (KeyType type : {KeyType::i32, KeyType::f32})
        for (size_t n : {kSweepTile + 1, sanitizing((size_t)100003, 3 * kSweepTile + 5)})
            for (Distribution d : {Distribution::random, Distribution::few}) {
                const std::string distribution = distribution_names()[(int)d];
                CAPTURE(distribution);
                const std::vector<uint32_t> keys = make_keys(n, d, n + (int)d, type);
                expect_sorted(step.run, keys, type, true, 0);
                expect_sorted(step.run, keys, type, false, 0);
            }
    std::vector<uint32_t> specials = make_keys(sanitizing((size_t)50021, 2 * kSweepTile + 7), Distribution::random, 19);
    for (uint32_t& k : specials) k = kFloatSpecials[k % (sizeof kFloatSpecials / sizeof kFloatSpecials[0])];
    expect_sorted(step.run, specials, KeyType::f32, true, 0);
}
// Each pass's digit in turn is the only one that varies: in the other passes every tile's keys
// fall in one digit, so one chain of the look-back carries all the keys and 255 carry none.
STEP_CASE(kSteps, "onesweep", "only one byte varying, for each byte; every digit value in every tile") {
    expect_one_byte_varying(step, kSweepTile);
    std::vector<uint32_t> keys(4 * kSweepTile);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = (uint32_t)((i * 2654435761u) & 0xFFu) * 0x01010101u;
    expect_step(step, keys);
}
// The status words and tile counters serve all four passes of a sort: each call must start from
// its own zeroed ones, whatever the call before it left (more tiles, fewer, other keys).
STEP_CASE(kSteps, "onesweep", "repeated calls: the same sort many times, other sizes and keys between") {
    const std::vector<uint32_t> keys = make_keys(10 * kSweepTile + 3, Distribution::random, 23);
    for (int call = 0; call < sanitizing(12, 2); ++call) {
        CAPTURE(call);
        expect_step(step, keys);
        if (call % 3 == 0) expect_step(step, make_keys(2 * kSweepTile - 1, Distribution::few, call));
        if (call % 3 == 1) expect_step(step, make_keys(sanitizing((size_t)40 * kSweepTile + 1, 12 * kSweepTile + 1),
                                                       Distribution::reverse, call));
    }
}

// ---- the predictions (on the CPU; answers.cpp derives each answer) ---------------------------
// Where the program's B/key answers a prediction (or gives it away: step 2's is 8 bytes per
// launch), the case also checks that the model gives the answer, so that the column cannot stay
// hidden once the tests pass.
STEP_HOST_CASE(kSteps, "bitonic_block", "prediction kTileStages (2048 keys)") {
    check_prediction("kTileStages", kTileStages,
                     "how many stages does block size k take (its flip, then its half-cleaners), for k = 2 to 2048?");
}
STEP_HOST_CASE(kSteps, "bitonic_global", "prediction kBitonicGlobalLaunches (n = 2^20)") {
    check_prediction("kBitonicGlobalLaunches", kBitonicGlobalLaunches,
                     "for each block size above a tile, which distances j need a launch of their own?");
    const bool model_agrees =  // no number printed
        bitonic_global_bytes_per_key((size_t)1 << 20, false) == 8 * find_answer("kBitonicGlobalLaunches")->derive();
    CHECK_MESSAGE(model_agrees, "bitonic_global_bytes_per_key must count 8 bytes per launch: the program shows B/key only then");
}
STEP_HOST_CASE(kSteps, "split", "prediction kSplitBytesPerKey") {
    check_prediction("kSplitBytesPerKey", kSplitBytesPerKey,
                     "which kernels of one pass read every key, which write it, and how many passes are there?");
    const bool model_agrees = split_bytes_per_key((size_t)1 << 24, false) == find_answer("kSplitBytesPerKey")->derive();
    CHECK_MESSAGE(model_agrees, "split_bytes_per_key must give this answer: the program shows B/key only then");
}
STEP_HOST_CASE(kSteps, "radix_sort", "prediction kRadixBytesPerKey") {
    check_prediction("kRadixBytesPerKey", kRadixBytesPerKey,
                     "which kernels of one pass read every key, which write it, and how many passes are there?");
    const bool model_agrees = radix_bytes_per_key((size_t)1 << 24, false) == find_answer("kRadixBytesPerKey")->derive();
    CHECK_MESSAGE(model_agrees, "radix_bytes_per_key must give this answer: the program shows B/key only then");
}
STEP_HOST_CASE(kSteps, "onesweep", "prediction kSweepStatusWords (n = 2^28)") {
    check_prediction("kSweepStatusWords", kSweepStatusWords,
                     "how many tiles does a pass of 2^28 keys have, and how many words does each tile publish?");
}

// ---- the library baselines and the given scan --------------------------------------------------
TEST_CASE("baseline cub: SortKeys, SortPairs and thrust::sort agree with std::stable_sort" * needs_gpu()) {
    for (size_t n : {(size_t)0, (size_t)1, (size_t)4097, (size_t)100003}) {
        CAPTURE(n);
        const std::vector<uint32_t> keys = make_keys(n, Distribution::few, n);
        const std::vector<uint32_t> order = stable_order(keys, KeyType::u32);
        CubSort cub(n);
        DeviceBuffer<uint32_t> d_keys(keys), d_values(positions(n)), d_out(n), d_values_out(n);
        cub.sort_keys(d_keys.get(), d_out.get(), n);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK(d_out.download() == gather(keys, order));
        d_out.poison();
        cub.sort_pairs(d_keys.get(), d_out.get(), d_values.get(), d_values_out.get(), n);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK(d_out.download() == gather(keys, order));
        CHECK(d_values_out.download() == order);
        d_out.upload(keys);
        cub.thrust_sort(d_out.get(), n);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK(d_out.download() == gather(keys, order));
    }
}
TEST_CASE("support: exclusive_scan_counts matches std::exclusive_scan, in place too" * needs_gpu()) {
    for (size_t count : {(size_t)1, (size_t)31, (size_t)4095, (size_t)4096, (size_t)4097, (size_t)5 * 4096 + 3,
                         (size_t)4096 * 4096 + 3}) {
        CAPTURE(count);
        std::vector<uint32_t> counts = make_keys(count, Distribution::random, count);
        for (uint32_t& c : counts) c %= 200;  // the total stays below 2^32
        std::vector<uint32_t> want(count);
        std::exclusive_scan(counts.begin(), counts.end(), want.begin(), 0u);
        DeviceBuffer<uint32_t> d_counts(counts), d_out(count);
        d_out.poison();
        exclusive_scan_counts(d_counts.get(), d_out.get(), count);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK_MATCH(compare_exact(d_out.download(), want));
        exclusive_scan_counts(d_counts.get(), d_counts.get(), count);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK_MATCH(compare_exact(d_counts.download(), want));
    }
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the inputs are what their names say") {
    const size_t n = 5000;
    auto distinct = [](std::vector<uint32_t> k) {
        std::sort(k.begin(), k.end());
        return (size_t)(std::unique(k.begin(), k.end()) - k.begin());
    };
    CHECK(distinct(make_keys(n, Distribution::random, 1)) > n - 5);
    CHECK(distinct(make_keys(n, Distribution::equal, 1)) == 1);
    CHECK(distinct(make_keys(n, Distribution::few, 1)) == 4);
    CHECK(distinct(make_keys(n, Distribution::top_bit, 1)) == 2);
    CHECK(distinct(make_keys(n, Distribution::low_bit, 1)) == 2);
    const std::vector<uint32_t> top = make_keys(n, Distribution::top_bit, 1), low = make_keys(n, Distribution::low_bit, 1);
    CHECK(((top[0] ^ top[1]) | 0x80000000u) == 0x80000000u);
    CHECK((low[0] | 1u) == (low[1] | 1u));
    for (KeyType t : {KeyType::u32, KeyType::i32, KeyType::f32}) {
        auto less = [t](uint32_t a, uint32_t b) { return key_less(a, b, t); };
        const std::vector<uint32_t> up = make_keys(n, Distribution::sorted, 2, t), down = make_keys(n, Distribution::reverse, 2, t);
        CHECK(std::is_sorted(up.begin(), up.end(), less));
        CHECK(std::is_sorted(down.rbegin(), down.rend(), less));
    }
}
TEST_CASE("host: stable_order keeps equal keys in input order, and sorts tiles on their own") {
    const std::vector<uint32_t> keys = {5, 3, 5, 1, 3, 9, 0};
    CHECK(stable_order(keys, KeyType::u32) == std::vector<uint32_t>{6, 3, 1, 4, 0, 2, 5});
    CHECK(stable_order(keys, KeyType::u32, 3) == std::vector<uint32_t>{1, 0, 2, 3, 4, 5, 6});
    CHECK(stable_order(keys, KeyType::i32, 2) == std::vector<uint32_t>{1, 0, 3, 2, 4, 5, 6});
    const std::vector<uint32_t> ints = {0xFFFFFFFFu, 1, 0x80000000u};  // -1, 1, INT_MIN
    CHECK(stable_order(ints, KeyType::i32) == std::vector<uint32_t>{2, 0, 1});
}
TEST_CASE("host: the B/key of bitonic_global, split, radix_sort and keys_and_pairs waits for its prediction") {
    for (const SortStep& s : kSteps) {
        CAPTURE(s.name);
        const std::string name = s.name;
        const long long* expected = name == "bitonic_global" ? &kBitonicGlobalLaunches
                                    : name == "split"        ? &kSplitBytesPerKey
                                    : name == "radix_sort" || name == "keys_and_pairs" ? &kRadixBytesPerKey
                                                                                       : nullptr;
        CHECK(s.info.predicted.value == expected);
        if (expected) CHECK(find_answer(s.info.predicted.name) != nullptr);
    }
}
TEST_CASE("host: is_stable_sort_of accepts the stable sort and nothing else") {
    const std::vector<uint32_t> keys = {5, 3, 5, 1, 3, 9, 0};
    const std::vector<uint32_t> order = stable_order(keys, KeyType::u32);
    CHECK(is_stable_sort_of(keys, gather(keys, order), order));
    std::vector<uint32_t> swapped = order;  // the two 3s (positions 1 and 4) out of input order
    std::swap(swapped[2], swapped[3]);
    CHECK_FALSE(is_stable_sort_of(keys, gather(keys, swapped), swapped));
    std::vector<uint32_t> repeated = order;  // a position twice: keys lost
    repeated[1] = repeated[0];
    CHECK_FALSE(is_stable_sort_of(keys, gather(keys, repeated), repeated));
    std::vector<uint32_t> wrong_key = gather(keys, order);  // right positions, a key changed
    wrong_key[6] = 8;
    CHECK_FALSE(is_stable_sort_of(keys, wrong_key, order));
    const std::vector<uint32_t> unsorted = {6, 3, 1, 4, 0, 5, 2};  // a permutation, out of order
    CHECK_FALSE(is_stable_sort_of(keys, gather(keys, unsorted), unsorted));
    CHECK_FALSE(is_stable_sort_of(keys, {0, 1}, {6, 3}));  // too short
    CHECK(is_stable_sort_of({}, {}, {}));
}
TEST_CASE("host: float_key_less is a strict total order on the special values") {
    for (uint32_t a : kFloatSpecials)
        for (uint32_t b : kFloatSpecials) {
            const bool ab = key_less(a, b, KeyType::f32), ba = key_less(b, a, KeyType::f32);
            CAPTURE(a);
            CAPTURE(b);
            CHECK(ab + ba == (a == b ? 0 : 1));  // exactly one way round, or equal patterns
        }
}
