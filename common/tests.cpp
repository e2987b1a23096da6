// common/tests.cpp: host tests of the shared helpers (options, comparison, random inputs).
// Built as build/common/tests and run first by `make check`.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bench.h"
#include "launch.h"
#include "options.h"
#include "program.h"
#include "testing.h"

namespace {
// Parses one command line; bad values throw InputError instead of exiting.
struct Parsed {
    std::vector<std::string> words;
    std::vector<char*> argv;
    explicit Parsed(std::vector<std::string> w) : words(std::move(w)) {
        words.insert(words.begin(), "prog");
        for (auto& s : words) argv.push_back(&s[0]);
        options_throw_for_tests() = true;
    }
    Options options() { return Options((int)argv.size(), argv.data(), "usage\n"); }
    Program program() {
        return Program((int)argv.size(), argv.data(),
                       {"does things", "  --n N   items\n", {"one", "two"}, {"lib"}, "the tables"});
    }
};
size_t parse_size(const std::string& v) { return Parsed({"--n", v}).options().size("--n", 7); }
std::string size_error(const std::string& v) {
    try {
        parse_size(v);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("host: options: sizes in digits and powers of two") {
    CHECK(parse_size("1000000") == 1000000u);
    CHECK(parse_size("2^25") == ((size_t)1 << 25));
    CHECK(parse_size("2^20+3") == ((size_t)1 << 20) + 3);
    CHECK(parse_size("2^31-1") == ((size_t)1 << 31) - 1);
    CHECK(Parsed({}).options().size("--n", 7) == 7u);
    CHECK(Parsed({"--n=42"}).options().size("--n", 7) == 42u);
}

TEST_CASE("host: options: bad sizes name the option and the problem") {
    CHECK(size_error("abc") == "--n: 'abc' is not a whole number");
    CHECK(size_error("-5") == "--n: '-5' is negative");
    CHECK(size_error("0") == "--n: must be at least 1 (got 0)");
    CHECK(size_error("1.5") == "--n: '1.5' is not a whole number");
    CHECK(size_error("99999999999999999999999") == "--n: '99999999999999999999999' is too large");
    CHECK(size_error("2^99") == "--n: '2^99' is too large");
    CHECK(size_error("") == "--n: '' is not a whole number");
    CHECK(size_error("-h") == "--n: '-h' is not a whole number");  // not "is negative"
    CHECK(size_error("-0") == "--n: '-0' is negative");
    CHECK(size_error("2^10-2000") == "--n: '2^10-2000' is negative");
    CHECK(size_error("a\x01\xef") == "--n: 'a\\x01\\xEF' is not a whole number");  // bytes escaped
}

TEST_CASE("host: options: a negative value keeps its sign in the message") {
    auto p = Parsed({"--device", "-1e30", "--block", "-3"});
    Options o = p.options();
    CHECK_THROWS_WITH(o.integer("--device", 0, 0, 63), "--device: '-1e30' is not a whole number");
    CHECK_THROWS_WITH(o.integer("--block", 256, 1, 1024), "--block: must be at least 1 (got -3)");
}

TEST_CASE("host: options: empty text, given(), and printable()") {
    auto p = Parsed({"--gif", "", "--n", "3"});
    Options o = p.options();
    CHECK_THROWS_WITH(o.text("--gif", "x"), "--gif: needs a value (got an empty one)");
    CHECK(o.given("--n"));
    CHECK_FALSE(o.given("--m"));
    CHECK(Options::printable("ok text") == "ok text");
    CHECK(Options::printable("\xef\xbb\xbfx") == "\\xEF\\xBB\\xBFx");
    CHECK(Options::printable(std::string(100, 'a')).size() == 63);
    CHECK(Options::printable(std::string(100, 'a'), SIZE_MAX) == std::string(100, 'a'));  // a path, whole
}

TEST_CASE("host: program: --kernel comes from the steps, --bench refuses what it ignores") {
    auto p = Parsed({"--kernel", "two", "--seed", "9"});
    Program prog = p.program();
    CHECK(prog.kernel == "two");
    CHECK(prog.seed == 9u);
    CHECK(prog.selected("two"));
    CHECK_FALSE(prog.selected("one"));
    CHECK_THROWS_WITH(Parsed({"--kernel", "three"}).program(),
                      "--kernel: unknown value 'three' (choose one of: one, two, lib, all)");
    CHECK_THROWS_WITH(Parsed({"--bench", "--kernel", "one"}).program(),
                      "--kernel: --bench measures every step; leave --kernel out or drop --bench");
    auto q = Parsed({"--bench", "--n", "5"});
    Program bench = q.program();
    CHECK(bench.bench);
    CHECK_THROWS_WITH(bench.not_with_bench({"--m", "--n"}),
                      "--n: is not used by --bench (its sizes and settings are fixed: see --help); drop one of the two");
    const std::string usage = program_usage("prog", {"does things", "  --n N   items\n", {"one", "two"}, {}, ""});
    CHECK(usage.find("one, two or all") != std::string::npos);
    CHECK(usage.find("--bench") == std::string::npos);  // no benchmark: no --bench
}

TEST_CASE("host: program: with no steps there is no --kernel and no --seed") {
    const ProgramSpec spec{"lists things", "  --device D   one device\n", {}, {}, "the tables"};
    const std::string usage = program_usage("prog", spec);
    CHECK(usage.find("--kernel") == std::string::npos);
    CHECK(usage.find("--seed") == std::string::npos);
    CHECK(usage.find("--bench") != std::string::npos);
    // Unknown options, refused by finish() like any typo (not by the --bench rule for --kernel).
    for (auto words : {std::vector<std::string>{"--kernel", "all"}, {"--bench", "--kernel", "all"}, {"--seed", "3"}}) {
        Parsed p(words);
        Program prog((int)p.argv.size(), p.argv.data(), spec);
        CHECK(prog.kernel == "all");
        const std::string unknown = words[0] == "--bench" ? words[1] : words[0];
        CHECK_THROWS_WITH(prog.finish(), ("unknown option '" + unknown + "' (try --help)").c_str());
    }
}

TEST_CASE("host: steps: a test case belongs to the step its name begins with") {
    CHECK(step_label(2, "many_blocks") == "step 2 many_blocks");
    CHECK(step_of_case(step_label(2, "many_blocks") + ": n = 10000") == "step 2 many_blocks");
    CHECK(step_of_case("step 12 a_b") == "step 12 a_b");
    CHECK(step_of_case("host: options") == "");
    CHECK(step_of_case("support: the FMA kernel") == "");
}

TEST_CASE("host: launch helpers") {
    CHECK(ceil_div(0, 256) == 0u);
    CHECK(ceil_div(1, 256) == 1u);
    CHECK(ceil_div(256, 256) == 1u);
    CHECK(ceil_div(257, 256) == 2u);
    CHECK(ceil_div(((size_t)1 << 40) + 1, 1024) == ((size_t)1 << 30) + 1);
    CHECK(next_pow2(0) == 1u);
    CHECK(next_pow2(1) == 1u);
    CHECK(next_pow2(3) == 4u);
    CHECK(next_pow2((size_t)1 << 31) == ((size_t)1 << 31));
    CHECK(next_pow2(((size_t)1 << 31) + 1) == ((size_t)1 << 32));
}

TEST_CASE("host: the timing method is described from the settings themselves") {
    CHECK(timing_method(BenchConfig{3, 20, true}) ==
          "median of 20 runs after 3 warm-up runs, timed with CUDA events, L2 cache flushed before each run");
    CHECK(timing_method(BenchConfig{2, 10, false}) == "median of 10 runs after 2 warm-up runs, timed with CUDA events");
    CHECK(timing_method(BenchConfig{3, 20, false, 2000}) ==
          "median of 20 runs after 3 warm-up runs (work slower than 50 ms: 1 warm-up run and 3 to 20 runs, "
          "about 2 s in all), timed with CUDA events");
    CHECK(timing_method(BenchConfig{1, 1, false}) == "one run after 1 warm-up run, timed with CUDA events");
}

TEST_CASE("host: options: integers, reals, choices, flags and unknown options") {
    auto p = Parsed({"--block", "2048", "--density", "1.5", "--kernel", "nope", "--bench"});
    Options o = p.options();
    CHECK_THROWS_WITH(o.integer("--block", 256, 32, 1024), "--block: must be at most 1024 (got 2048)");
    CHECK_THROWS_WITH(o.real("--density", 0.25, 0.0, 1.0), "--density: must be between 0 and 1 (got 1.5)");
    CHECK_THROWS_WITH(o.choice("--kernel", "a", {"a", "b"}), "--kernel: unknown value 'nope' (choose one of: a, b)");
    CHECK(o.flag("--bench"));
    CHECK_NOTHROW(o.finish());
    auto q = Parsed({"--blokc", "3"});
    CHECK_THROWS_WITH(q.options().finish(), "unknown option '--blokc' (try --help)");
    auto r = Parsed({"--n"});
    CHECK_THROWS_WITH(r.options().size("--n", 1), "--n: needs a value");
    auto s = Parsed({"--seed", "nan"});
    CHECK_THROWS_WITH(s.options().real("--seed", 1, 0, 10), "--seed: 'nan' is not a number");
}

TEST_CASE("host: compare: NaN never passes, tolerance is abs + rel") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_FALSE(within(nan, 1.0, Tolerance{1e9, 1e9}));
    CHECK_FALSE(within(1.0, nan, Tolerance{1e9, 1e9}));
    CHECK(within(1.0 + 1e-7, 1.0, Tolerance{2e-7, 0}));
    CHECK_FALSE(within(1.0 + 1e-6, 1.0, Tolerance{2e-7, 0}));
    CHECK(within(1e-9, 0.0, Tolerance{0, 1e-8}));
    std::vector<float> got = {1.0f, std::nanf(""), 3.0f};
    std::vector<double> ref = {1.0, 2.0, 3.0};
    Comparison c = compare(got, ref, Tolerance{});
    CHECK(c.mismatches == 1);
    CHECK(c.first_bad == 1);
    CHECK_FALSE(compare_exact(std::vector<int>{1, 2}, std::vector<int>{1, 2, 3}).ok());
}

TEST_CASE("host: random inputs are seeded, in range, and not all alike") {
    auto a = random_floats(1000, 5, -2.0f, 3.0f), b = random_floats(1000, 5, -2.0f, 3.0f);
    CHECK(a == b);
    CHECK(a != random_floats(1000, 6, -2.0f, 3.0f));
    double lo = 1e9, hi = -1e9;
    for (float v : a) lo = std::fmin(lo, v), hi = std::fmax(hi, v);
    CHECK(lo >= -2.0);
    CHECK(hi < 3.0);
    CHECK(hi - lo > 4.5);
    auto ints = random_ints(1000, 1, -3, 3);
    CHECK(*std::min_element(ints.begin(), ints.end()) == -3);
    CHECK(*std::max_element(ints.begin(), ints.end()) == 3);
}

TEST_CASE("host: the benchmark table prints aligned Markdown") {
    Table t({"a", "bbbb"});
    t.row({"xx", "1"});
    char buf[256] = {};
    FILE* f = fmemopen(buf, sizeof buf, "w");
    t.print(f);
    std::fclose(f);
    CHECK(std::string(buf) == "| a   | bbbb |\n|-----|-----:|\n| xx  |    1 |\n");
}

TEST_CASE("host: float_sum_tolerance grows with n and the magnitudes") {
    CHECK(float_sum_tolerance(100, 1.0).atol < float_sum_tolerance(10000, 1.0).atol);
    CHECK(float_sum_tolerance(100, 1.0).atol < float_sum_tolerance(100, 10.0).atol);
}

TEST_CASE("host: sum_reference adds in double and sums magnitudes; NaN makes both NaN") {
    const float x[] = {1.0f, -2.0f, 3.5f, 1e8f, -1e8f, 0.25f};
    const ReferenceSum r = sum_reference(x, 6);
    CHECK(r.sum == 2.75);  // a float sum in this order gives 0.25
    CHECK(r.sum_abs == 6.75 + 2e8);
    const ReferenceSum d = sum_reference(std::vector<double>{0.1, -0.2});
    CHECK(d.sum == 0.1 - 0.2);
    CHECK(d.sum_abs == 0.1 + 0.2);
    const ReferenceSum nan = sum_reference(std::vector<float>{1.0f, std::nanf("")});
    CHECK(std::isnan(nan.sum));
    CHECK(std::isnan(nan.sum_abs));
    CHECK(sum_reference(std::vector<float>{}).sum == 0.0);
}
