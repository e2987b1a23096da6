// common/tests.cpp: host tests of the shared helpers (options, comparison, random inputs).
// Built as build/common/tests and run first by `make check`.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench.h"
#include "cpu_threads.h"
#include "launch.h"
#include "options.h"
#include "output_file.h"
#include "profile_table.h"
#include "program.h"
#include "records.h"
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
                       {"does things", {{"--n N", "items"}}, {"one", "two"}, {"lib"}, "the tables"});
    }
};
// What `prog --help` prints for `spec` after reading --n (size, default 2^20+3, 0 allowed), --block
// (integer 32..1024), --values (choice) and --fast (flag); `words` come before --help.
std::string help_of(std::vector<std::string> words, const ProgramSpec& spec) {
    words.push_back("--help");
    Parsed p(words);
    Program prog((int)p.argv.size(), p.argv.data(), spec);
    prog.size("--n", ((size_t)1 << 20) + 3, 0);
    prog.integer("--block", 256, 32, 1024);
    prog.choice("--values", "mixed", {"mixed", "ones"});
    prog.flag("--fast");
    try {
        prog.finish();
    } catch (const HelpText& h) {
        return h.text;
    }
    return "(no help)";
}
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

TEST_CASE("host: cpu_threads: the ranges cover every index once, in order, on any thread count") {
    for (size_t count : {(size_t)0, (size_t)1, (size_t)7, (size_t)1000003})
        for (unsigned threads : {0u, 1u, 3u, 64u}) {
            CAPTURE(count);
            CAPTURE(threads);
            std::vector<int> seen(count, 0);
            std::atomic<size_t> ranges{0};
            split_among_threads(count, threads, [&](size_t first, size_t last) {
                CHECK(first <= last);  // doctest's checks are thread-safe
                for (size_t i = first; i < last; ++i) ++seen[i];
                ++ranges;
            });
            CHECK(ranges == std::max(1u, threads));
            CHECK(std::count(seen.begin(), seen.end(), 1) == (long)count);
        }
    std::vector<int> rows(301, 0);  // large work: every core; rows are ints
    for_row_ranges(301, 1e9, [&](int first, int last) {
        for (int i = first; i < last; ++i) ++rows[i];
    });
    CHECK(std::count(rows.begin(), rows.end(), 1) == 301);
    int calls = 0;  // small work: this thread, once
    for_row_ranges(5, 100, [&](int first, int last) { calls += first == 0 && last == 5; });
    CHECK(calls == 1);
}

TEST_CASE("host: steps: a model cell that answers a prediction waits until the prediction is right") {
    long long predicted = -1;  // as in an untouched starter.cu
    const Prediction p{"kRadixBytesPerKey", &predicted};
    CHECK(p.shown("48", 48) == "? (kRadixBytesPerKey)");
    predicted = 47;
    CHECK(p.shown("48", 48) == "? (kRadixBytesPerKey)");
    predicted = 48;
    CHECK(p.shown("48", 48) == "48");
    CHECK(Prediction{}.shown("2n", 8) == "2n");  // a cell that answers no prediction is always shown
}
TEST_CASE("host: strf writes the whole text, however long") {
    CHECK(strf("%d x %s", 3, "four") == "3 x four");
    CHECK(strf("%s", "").empty());
    const std::string long_text(1000, 'x');
    CHECK(strf("<%s>", long_text.c_str()) == "<" + long_text + ">");  // once cut at 255 characters
}
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

TEST_CASE("host: options: every value echoed in a message is printable and short") {
    // A power of two too large, with a line break, an escape sequence or a carriage return in it.
    CHECK(size_error("2^63\n") == "--n: '2^63\\x0A' is not a whole number");
    CHECK(size_error("2^99\x1b[2J") == "--n: '2^99\\x1B[2J' is not a whole number");
    CHECK(size_error("2^70") == "--n: '2^70' is too large");
    CHECK(size_error("2^62+9\r") == "--n: '2^62+9\\x0D' is not a whole number");
    // 131,000 digits: one short line.
    const std::string digits(131000, '9');
    CHECK(size_error(digits) == "--n: '" + std::string(60, '9') + "...' is too large");
    CHECK_THROWS_WITH(Parsed({"--n", "2^30\x1b"}).options().size("--n", 1, 1, 10), "--n: '2^30\\x1B' is not a whole number");
    CHECK_THROWS_WITH(Parsed({"--n", "2^10"}).options().size("--n", 1, 1, 10), "--n: must be at most 10 (got 2^10)");
    CHECK_THROWS_WITH(Parsed({"--b", "-" + digits}).options().integer("--b", 1, 1, 10),
                      ("--b: '-" + std::string(59, '9') + "...' is too large").c_str());
    // Reals: the number alone (no white space before it), out-of-range values escaped, and an
    // underflow called by its name.
    auto real_error = [](const std::string& v) {
        try {
            Parsed({"--a", v}).options().real("--a", 0, -10, 10);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK(real_error(" 1") == "--a: ' 1' is not a number");
    CHECK(real_error("\t1") == "--a: '\\x091' is not a number");
    CHECK(real_error("1 ") == "--a: '1 ' is not a number");
    CHECK(real_error("1e-400") == "--a: '1e-400' is too close to 0 for a double (it underflows); write 0 if 0 is meant");
    CHECK(real_error("1e999") == "--a: '1e999' is too large for a double");
    CHECK(real_error("-inf") == "--a: '-inf' is not a finite number");
    CHECK(real_error("nan") == "--a: 'nan' is not a number");
    CHECK(real_error("11\x1b") == "--a: '11\\x1B' is not a number");
    CHECK(real_error("1e5") == "--a: must be between -10 and 10 (got 1e5)");
    CHECK(real_error("+.5") == "(accepted)");
    CHECK(real_error("-0") == "(accepted)");
}

TEST_CASE("host: options: --list-options lists what the program reads, with kinds, ranges and rules") {
    auto p = Parsed({"--list-options", "--n", "bogus"});  // the other words are not looked at
    Program prog = p.program();
    CHECK(prog.listing());
    CHECK(prog.size("--n", 5, 1, 100) == 5u);  // defaults while listing
    prog.real("--a", 2.5, -1, 1e30);
    prog.flag("--watch");
    prog.text("--at", "");
    prog.not_with_bench({"--n"});
    prog.only_with("--at", {"--watch"}, "why");
    prog.not_with("--a", "--watch", "why");
    prog.only_for_kernels("--a", {"two", "lib"});
    std::string list;
    try {
        prog.finish();
    } catch (const OptionList& l) {
        list = l.text;
    }
    CHECK(list ==
          "--kernel  choice        one,two,lib,all  default=all  not-with=--bench\n"
          "--seed    seed          0..18446744073709551615  default=1\n"
          "--bench   flag          -\n"
          "--csv     output-file   .csv\n"
          "--plot    output-file   .svg\n"
          "--n       size          1..100  default=5  not-with=--bench\n"
          "--a       real          -1..1e+30  default=2.5  not-with=--watch  only-kernels=two,lib\n"
          "--watch   flag          -\n"
          "--at      text          -  only-with=--watch\n");
}

TEST_CASE("host: options: an option that cannot affect the run is refused with the reason, by finish()") {
    auto refused = [](std::vector<std::string> words, const std::function<void(Program&)>& rules) {
        Parsed p(std::move(words));
        Program prog = p.program();
        prog.size("--n", 1);
        prog.flag("--watch");
        prog.flag("--gif");
        rules(prog);
        try {
            prog.finish();
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    const auto only_with = [](Program& p) { p.only_with("--n", {"--watch", "--gif"}, "it paces them"); };
    CHECK(refused({"--n", "3"}, only_with) == "--n: does nothing without --watch or --gif (it paces them); add one or drop --n");
    CHECK(refused({"--n", "3", "--gif"}, only_with) == "(accepted)");
    CHECK(refused({}, only_with) == "(accepted)");
    const auto not_with = [](Program& p) { p.not_with("--n", "--watch", "the view has its own"); };
    CHECK(refused({"--n", "3", "--watch"}, not_with) == "--n: does nothing with --watch (the view has its own); drop one of the two");
    CHECK(refused({"--n", "3"}, not_with) == "(accepted)");
    const auto kernels = [](Program& p) { p.only_for_kernels("--n", {"two"}); };
    CHECK(refused({"--n", "3", "--kernel", "one"}, kernels) ==
          "--n: does nothing with --kernel one (it matters only to two); drop one of the two");
    CHECK(refused({"--n", "3", "--kernel", "two"}, kernels) == "(accepted)");
    CHECK(refused({"--n", "3"}, kernels) == "(accepted)");  // all kernels
    // A typo is reported before any rule; a rule that refuses comes before one that asks for more.
    CHECK(refused({"--n", "3", "--nn"}, only_with) == "unknown option '--nn' (try --help)");
    CHECK(refused({"--n", "3", "--bench"}, [&](Program& p) { only_with(p); p.not_with_bench({"--n"}); })
              .find("--n: is not used by --bench") == 0);
    // An option given with its default value means the same as leaving it out, for every rule.
    CHECK(refused({"--n", "1"}, only_with) == "(accepted)");
    CHECK(refused({"--n", "1", "--watch"}, not_with) == "(accepted)");
    CHECK(refused({"--n", "1", "--kernel", "one"}, kernels) == "(accepted)");
    CHECK(refused({"--bench", "--kernel", "all"}, [](Program&) {}) == "(accepted)");
    const auto demo = [](Program& p) {
        p.choice("--demo", "none", {"none", "broken"});
        p.not_with_demo("--demo", {"--n"}, "the demo has its own");
    };
    CHECK(refused({"--demo", "none", "--kernel", "one", "--n", "3"}, demo) == "(accepted)");
    CHECK(refused({"--demo", "broken", "--kernel", "one"}, demo) ==
          "--kernel: does nothing with --demo (the demo runs no step); drop one of the two");
    CHECK(refused({"--demo", "broken", "--n", "3"}, demo) == "--n: does nothing with --demo (the demo has its own); drop one of the two");
    CHECK(refused({"--demo", "broken", "--n", "1"}, demo) == "(accepted)");
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

TEST_CASE("host: options: fail_if fails only on a problem") {
    auto p = Parsed({"--size", "5"});
    Options o = p.options();
    CHECK_NOTHROW(o.fail_if("--size", ""));
    CHECK_THROWS_WITH(o.fail_if("--size", "too small"), "--size: too small");
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
    CHECK_THROWS_WITH(Parsed({"--bench", "--kernel", "one"}).program().finish(),
                      "--kernel: --bench measures every step; leave --kernel out or drop --bench");
    auto q = Parsed({"--bench", "--n", "5"});
    Program bench = q.program();
    CHECK(bench.bench);
    bench.size("--n", 1);
    bench.not_with_bench({"--m", "--n"});
    CHECK_THROWS_WITH(bench.finish(),
                      "--n: is not used by --bench (its sizes and settings are fixed: see --help); drop one of the two");
    const std::string usage = help_of({}, {"does things", {{"--n N", "items"}}, {"one", "two"}, {}, ""});
    CHECK(usage.find("one, two or all") != std::string::npos);
    CHECK(usage.find("--bench") == std::string::npos);  // no benchmark: no --bench
}

TEST_CASE("host: program: with no steps there is no --kernel and no --seed") {
    const ProgramSpec spec{"lists things", {{"--device D", "one device"}}, {}, {}, "the tables"};
    const std::string usage = help_of({}, spec);
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

TEST_CASE("host: program: --help is made from the declarations: each option's text, default, range and steps") {
    const ProgramSpec spec{"sums things",
                           {{"--n N", "elements"}, {"--block B", "threads per block"}, {"--values V", "the input"},
                            {"--fast", "skip the slow part"}},
                           {{"one"}, {"two", {"--block"}}, {"three", {"--block", "--values"}}},
                           {"lib"},
                           "the tables"};
    const std::string help = help_of({"--n", "junk", "--nope"}, spec);  // what precedes --help is not read
    CHECK(help.rfind("usage: prog [options]      sums things\n", 0) == 0);
    CHECK(help.find("  --n N           elements (default 2^20+3; 0 is allowed; 2^K and 2^K+C work too)\n") !=
          std::string::npos);
    CHECK(help.find("  --block B       threads per block (default 256; 32 to 1024; for two and three only)\n") !=
          std::string::npos);
    CHECK(help.find("  --values V      the input (default mixed; mixed or ones; for three only)\n") != std::string::npos);
    CHECK(help.find("  --fast          skip the slow part\n") != std::string::npos);
    CHECK(help.find("  --kernel NAME   the step to run (default all; one, two, three, lib or all)\n") != std::string::npos);
    CHECK(help.find("  --bench         print the tables instead\n") != std::string::npos);
    CHECK(help.find("--help          this text") != std::string::npos);
    // Long texts wrap under themselves; an option read but not described still shows.
    const ProgramSpec terse{"x", {{"--n N", std::string(120, 'a') + " " + std::string(10, 'b')}}, {}, {}, ""};
    const std::string wrapped = help_of({}, terse);
    CHECK(wrapped.find("\n                  bbbbbbbbbb (default") != std::string::npos);
    CHECK(wrapped.find("  --block         (not described) (default 256; 32 to 1024)\n") != std::string::npos);
    CHECK(wrapped.find("(not described)") < wrapped.find("--csv FILE"));
}

TEST_CASE("host: program: an option a step declares matters to the steps that declare it: listed, and refused") {
    const ProgramSpec spec{"sums things", {{"--block B", "threads per block"}},
                           {{"one"}, {"two", {"--block"}}, {"three", {"--block"}}}, {"lib"}, ""};
    auto run = [&](std::vector<std::string> words) -> std::string {
        Parsed p(std::move(words));
        Program prog((int)p.argv.size(), p.argv.data(), spec);
        prog.integer("--block", 256, 32, 1024);
        try {
            prog.finish();
        } catch (const InputError& e) {
            return e.what();
        } catch (const OptionList& l) {
            return l.text;
        }
        return "ok";
    };
    CHECK(run({"--list-options"}).find("--block   integer       32..1024  default=256  only-kernels=two,three\n") !=
          std::string::npos);
    CHECK(run({"--kernel", "one", "--block", "64"}) ==
          "--block: does nothing with --kernel one (it matters only to two and three); drop one of the two");
    CHECK(run({"--kernel", "lib", "--block", "64"}).find("does nothing with --kernel lib") != std::string::npos);
    CHECK(run({"--kernel", "three", "--block", "64"}) == "ok");
    CHECK(run({"--kernel", "one", "--block", "256"}) == "ok");  // its default: as if left out
    Parsed p({"--kernel", "two"});
    Program prog((int)p.argv.size(), p.argv.data(), spec);
    CHECK(prog.selected_with("--block"));
    Parsed q({"--kernel", "one"});
    Program other((int)q.argv.size(), q.argv.data(), spec);
    CHECK(!other.selected_with("--block"));
}

TEST_CASE("host: program: sizes are declared once: --bench's list, its text, the largest and the option blamed") {
    const Sizes powers = Sizes::powers_of_two(12, 28, 2);
    CHECK(powers.bench.size() == 9);
    CHECK(powers.text() == "2^12 to 2^28");
    const Sizes two{"--n", {(size_t)1 << 25, (size_t)1 << 28}};
    CHECK(two.text() == "2^25 and 2^28");
    const Sizes shapes{"--m, --n, --k", {1024, 2048, 4096}};
    CHECK(shapes.text(false) == "1024, 2048 and 4096");
    Parsed b({"--bench"}), r({});
    const Program bench = b.program(), run = r.program();
    CHECK(two.measured(bench, 7) == std::vector<size_t>{(size_t)1 << 25, (size_t)1 << 28});
    CHECK(two.measured(run, 7) == std::vector<size_t>{7});
    CHECK(two.most(bench, 7) == (size_t)1 << 28);
    CHECK(two.most(run, 7) == 7);
    CHECK(two.blamed(bench) == "--bench");
    CHECK(shapes.blamed(run) == "--m, --n, --k");
    // The memory check names what it blames, before any GPU is asked.
    try {
        require_fits_in_host(run, shapes.blamed(run), 1e30);
        CHECK(false);
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).rfind("--m, --n, --k: needs 1000000000000000000000.00 GB of host memory", 0) == 0);
    }
    CHECK(count_text(1000000) == "1000000");
    CHECK(count_text(((size_t)1 << 24) + 3) == "2^24+3");
    CHECK(count_text(((size_t)1 << 31) - 1) == "2^31-1");
    CHECK(count_text(1023) == "1023");
}

TEST_CASE("host: steps: a test case belongs to the step its name begins with") {
    CHECK(step_label(2, "many_blocks") == "step 2 many_blocks");
    CHECK(step_of_case(step_label(2, "many_blocks") + ": n = 10000") == "step 2 many_blocks");
    CHECK(step_of_case("step 12 a_b") == "step 12 a_b");
    CHECK(step_of_case("host: options") == "");
    CHECK(step_of_case("support: the FMA kernel") == "");
}

TEST_CASE("host: test names: the filter's wildcards (* and ?, any case), in time linear in the name") {
    CHECK(test_name_matches("step 2*", "step 2 many_blocks: n = 10000"));
    CHECK(test_name_matches("*MANY*", "step 2 many_blocks: n = 10000"));
    CHECK(test_name_matches("step ? many_blocks*", "step 2 many_blocks: x"));
    CHECK(test_name_matches("*", ""));
    CHECK(test_name_matches("", ""));
    CHECK(test_name_matches("a*b*c", "aXbYc"));
    CHECK(test_name_matches("a*b", "abab"));
    CHECK_FALSE(test_name_matches("", "x"));
    CHECK_FALSE(test_name_matches("?", ""));
    CHECK_FALSE(test_name_matches("step 3*", "step 2 many_blocks"));
    CHECK_FALSE(test_name_matches("a*b", "abac"));
    // Many stars that cannot match: a backtracking matcher takes exponential time on these.
    const std::string name(300, 'a');
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(test_name_matches("*?*?*?*?*?*?*?*?*#", name.c_str()));
    CHECK_FALSE(test_name_matches(("*" + std::string(40, 'a') + "*?*?*?*?*?*?*?*?*?*?*?*b").c_str(), name.c_str()));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200));
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

TEST_CASE("host: device peaks: the BF16 tensor peaks NVIDIA states follow from SMs, clock and the per-SM rate") {
    // An FMA is 2 FLOP. H100 SXM: 132 SMs at 1830 MHz, 989.4 TFLOP/s dense BF16 (datasheet);
    // A100: 108 SMs at 1410 MHz, 312 TFLOP/s.
    CHECK(std::fabs(2.0 * 132 * bf16_tensor_fma_per_sm_per_clock(9, 0) * 1.83e9 / 1e12 - 989.4) < 1.0);
    CHECK(std::fabs(2.0 * 108 * bf16_tensor_fma_per_sm_per_clock(8, 0) * 1.41e9 / 1e12 - 312.0) < 1.0);
    CHECK(bf16_tensor_fma_per_sm_per_clock(7, 5) == 0);  // Turing: no BF16 tensor cores
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
    // Integer keys are named in full, not as 4.2949673e+09; other values to 9 digits.
    CHECK(compare_exact(std::vector<uint32_t>{4294967295u}, std::vector<uint32_t>{4u}).describe() ==
          "1 of 1 differ; first at [0]: got 4294967295, expected 4");
    CHECK(compare(std::vector<float>{2.5f}, std::vector<double>{0.1}, Tolerance{}).describe() ==
          "1 of 1 differ; first at [0]: got 2.5, expected 0.1");
    CHECK(value_text(std::nan("")) == "nan");
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

// ---- make profile-NN: ncu's CSV to a table (profile_table.h) -----------------------------------
// common/profile_sample.csv is what ncu 2025.3 wrote for 05's solution on an H100 (COURSE_PROFILE=1,
// so each step once: 24 launches, the passes of steps 1-7 included), trimmed to 23 columns.

namespace {
profile::Report sample_report() {
    std::ifstream in("common/profile_sample.csv");
    REQUIRE_MESSAGE(in.good(), "common/profile_sample.csv not found: run the tests from the repository root");
    return profile::parse_ncu_csv(in);
}
// The sample holds every step's launches in one CSV; make profile-NN gets one CSV per step (one
// ncu run per NVTX range). Split by kernel, as those runs would have.
std::vector<profile::StepReport> sample_steps(const profile::Report& all) {
    const char* kernels[] = {"reduce_interleaved_divergent", "reduce_interleaved_strided", "reduce_sequential",
                             "reduce_first_add", "reduce_unrolled_warp", "reduce_shuffle", "reduce_grid_stride_vec",
                             "reduce_one_pass"};
    std::vector<profile::StepReport> steps;
    for (int s = 0; s < 8; ++s) {
        profile::StepReport step{"step " + std::to_string(s + 1) + " " + std::string(kernels[s]).substr(7), {}};
        step.report.columns = all.columns;
        step.report.device = all.device;
        for (const auto& l : all.launches)
            if (l.kernel == kernels[s]) step.report.launches.push_back(l);
        steps.push_back(step);
    }
    return steps;
}
const char* kSampleColumns =
    "conflicts = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + "
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum / smsp__inst_executed_op_shared_ld.sum + "
    "smsp__inst_executed_op_shared_st.sum; instructions = 1e-6 * smsp__inst_executed.sum";
profile::Launch launch_of(const std::string& kernel, double time_ns, std::map<std::string, double> values = {}) {
    profile::Launch l;
    l.kernel = kernel;
    l.values = std::move(values);
    l.values[profile::kTimeMetric] = time_ns;
    return l;
}
}  // namespace

TEST_CASE("host: profile: CSV fields, grouped digits and units") {
    CHECK(profile::split_csv_line("\"a\",\"1,234\",\"say \"\"hi\"\"\",") ==
          std::vector<std::string>{"a", "1,234", "say \"hi\"", ""});
    CHECK(profile::parse_number("1,234.5") == 1234.5);
    CHECK(profile::parse_number("0") == 0.0);
    CHECK(std::isnan(profile::parse_number("n/a")));
    CHECK(std::isnan(profile::parse_number("")));
    CHECK(profile::unit_factor("usecond") == 1e3);
    CHECK(profile::unit_factor("ns") == 1.0);
    CHECK(profile::unit_factor("Mbyte") == 1e6);
}

TEST_CASE("host: profile: kernel names lose their return type and parameters, keep template arguments") {
    CHECK(profile::short_kernel_name("reduce_sequential(const float *, unsigned long, float *)") == "reduce_sequential");
    CHECK(profile::short_kernel_name("void add_builtin<int>(const T1 *, T1 *, unsigned long)") == "add_builtin<int>");
    CHECK(profile::short_kernel_name("void scan_each_tile<int, true>(const T1 *, T1 *, unsigned long, T1 *, bool)") ==
          "scan_each_tile<int, true>");
}

TEST_CASE("host: profile: the recorded ncu CSV is read launch by launch") {
    const profile::Report r = sample_report();
    REQUIRE(r.error.empty());
    REQUIRE(r.launches.size() == 24);
    CHECK(r.device == "NVIDIA H100 80GB HBM3");
    const profile::Launch& first = r.launches[0];
    CHECK(first.kernel == "reduce_interleaved_divergent");
    CHECK(first.grid == "(65537, 1, 1)");
    CHECK(first.block == "(256, 1, 1)");
    CHECK(first.value(profile::kTimeMetric) == 163264.0);  // "163,264" ns
    CHECK(first.value("smsp__inst_executed.sum") == 131794907.0);
    CHECK(std::isnan(first.value("no__such.metric")));
    CHECK(r.launches[23].kernel == "reduce_one_pass");
    std::istringstream junk("==PROF== Disconnected\nnothing here\n");
    CHECK_FALSE(profile::parse_ncu_csv(junk).error.empty());
}

TEST_CASE("host: profile: one row per step, launches added up, 05's effects visible") {
    std::string error;
    auto columns = profile::standard_columns();
    for (const auto& c : profile::parse_columns(kSampleColumns, &error)) columns.push_back(c);
    REQUIRE(error.empty());
    const profile::Report r = sample_report();
    const std::vector<profile::StepReport> steps = sample_steps(r);
    const auto rows = profile::summarize(steps, columns);
    REQUIRE(rows.size() == 8);
    const size_t launches[] = {4, 4, 4, 3, 3, 3, 2, 1};
    for (size_t i = 0; i < 8; ++i) {
        CHECK(rows[i].step == std::to_string(i + 1));
        CHECK(rows[i].launches.size() == launches[i]);
    }
    // Step 1: four passes, 163264 + 3936 + 3520 + 3488 ns.
    CHECK(rows[0].cells[0] == "174");
    // Bank conflicts per request, of the sums: step 2's strided tree conflicts, steps 1 and 3 do not.
    CHECK(rows[1].cells[3] == "0.54");
    CHECK(rows[0].cells[3] == "0.01");
    CHECK(rows[2].cells[3] == "0.01");
    CHECK(rows[0].cells[4] == "132");  // millions of warp instructions, summed over the passes
    // A percentage is averaged over the launches weighted by their time.
    double weighted = 0, time = 0;
    for (const profile::Launch* l : rows[0].launches) {
        weighted += l->value(profile::kTimeMetric) * l->value("dram__throughput.avg.pct_of_peak_sustained_elapsed");
        time += l->value(profile::kTimeMetric);
    }
    CHECK(rows[0].cells[1] == profile::short_number(weighted / time));
    CHECK(profile::missing_metrics(r, columns).empty());
    CHECK(profile::step_number("step 12 radix_sort") == "12");
}

TEST_CASE("host: profile: a kernel two steps launch stays in each step's own row") {
    std::string error;
    const auto columns = profile::parse_columns("time = gpu__time_duration.sum", &error);
    REQUIRE(error.empty());
    profile::StepReport five{"step 5 reduce_then_scan", {}}, seven{"step 7 compact", {}};
    five.report.launches = {launch_of("reduce_tiles", 1000), launch_of("rescan_tiles<int, true>", 2000)};
    seven.report.launches = {launch_of("compact_flags", 500), launch_of("reduce_tiles", 1000),
                             launch_of("reduce_tiles", 1000), launch_of("compact_scatter", 700)};
    const auto rows = profile::summarize({five, seven}, columns);
    REQUIRE(rows.size() == 5);
    CHECK(rows[0].step == "5");
    CHECK(rows[0].launches.size() == 1);
    CHECK(rows[3].step == "7");
    CHECK(rows[3].kernel == "reduce_tiles");
    CHECK(rows[3].launches.size() == 2);
    CHECK(rows[3].cells[0] == "2000");
}

TEST_CASE("host: profile: a step with no launch, nothing to divide by, a missing metric") {
    std::string error;
    const auto columns = profile::parse_columns(
        "per request = a__x.sum / b__y.sum; total (thousands) = 0.001 * a__x.sum + c__z.sum; share = d__w.pct", &error);
    REQUIRE(error.empty());
    profile::StepReport one{"step 1 one", {}}, two{"step 2 two", {}};
    two.report.columns = {"ID", "Kernel Name", profile::kTimeMetric, "a__x.sum", "b__y.sum", "c__z.sum"};
    two.report.launches = {launch_of("two", 1000, {{"a__x.sum", 3000}, {"b__y.sum", 0}, {"c__z.sum", 500}}),
                           launch_of("two", 3000, {{"a__x.sum", 1000}, {"b__y.sum", 0}, {"c__z.sum", 500}})};
    const auto rows = profile::summarize({one, two}, columns);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].kernel == "(no launch profiled)");
    CHECK(rows[0].cells == std::vector<std::string>{"-", "-", "-"});
    CHECK(rows[1].cells[0] == "-");     // no requests: no ratio
    CHECK(rows[1].cells[1] == "5.00");  // (3000 + 500 + 1000 + 500) / 1000
    CHECK(rows[1].cells[2] == "n/a");   // never collected
    CHECK(profile::missing_metrics(two.report, columns) == std::vector<std::string>{"d__w.pct"});
}

TEST_CASE("host: profile: a malformed list gets one message naming the entry") {
    struct Case {
        const char* spec;
        const char* message;
    };
    const Case cases[] = {
        {"no formula here", "'no formula here': write it as HEADER = FORMULA"},
        {"x = a__b.sum +", "'x = a__b.sum +': ends where a metric name should follow"},
        {"x = two * a__b.sum", "'x = two * a__b.sum': 'two' is not a number"},
        {"x = a-b", "'x = a-b': 'a-b' is not an ncu metric name (unit__counter.rollup)"},
        {"x = a__b.sum c__d.sum", "'x = a__b.sum c__d.sum': expected + or / before 'c__d.sum'"},
    };
    for (const Case& k : cases) {
        std::string error;
        profile::parse_columns(k.spec, &error);
        CHECK_MESSAGE(error == k.message, k.spec);
    }
    std::string error;
    const auto c = profile::parse_columns("ratio (=1 ideal) = 2 * a__b.sum + c__d.sum / e__f.sum;;", &error);
    REQUIRE(error.empty());
    REQUIRE(c.size() == 1);
    CHECK(c[0].header == "ratio (=1 ideal)");
    CHECK(c[0].scale == 2.0);
    CHECK(c[0].num == std::vector<std::string>{"a__b.sum", "c__d.sum"});
    CHECK(c[0].den == std::vector<std::string>{"e__f.sum"});
}

namespace {
using NoArgs = void (*)();
void nothing() {}
const Step<NoArgs> kTwoSteps[] = {{1, "first", nothing}, {2, "second", nothing}};
void empty_body(const Step<NoArgs>&) {}
}  // namespace

TEST_CASE("host: steps: a case naming a step that kSteps does not declare is an error, with the steps it has") {
    auto& errors = course_testing::registration_errors();
    const size_t before = errors.size();
    const auto declared = course_testing::declared_steps();
    course_testing::register_named_step_case("dir/tests.cpp", 42, kTwoSteps, "secnod", "a typo", false, empty_body);
    REQUIRE(errors.size() == before + 1);
    CHECK(errors.back() == "tests.cpp:42: a case of step 'secnod', which kSteps does not declare (its steps: first, second)");
    errors.pop_back();
    course_testing::declared_steps() = declared;  // these two steps are not the suite's
}

// The glue of testing.h on doctest's detail namespace (pinned to doctest 2.4 there): a case
// registered at run time is listed by doctest with its name, file, line and suite, and when
// doctest runs it, the body that runs is its own (it checks the name doctest gives the case).
namespace {
const char* const kGlueCase = "host: testing.h: a case registered at run time runs its own body, under its own name";
[[maybe_unused]] const int glue_registered = course_testing::register_case(
    "dir/glue.cpp", 7, kGlueCase,
    [] {
        CHECK(std::string(doctest::getContextOptions()->currentTest->m_name) == kGlueCase);
    },
    false);
}  // namespace

TEST_CASE("host: testing.h: doctest lists a case registered at run time as registered, and finds its body") {
    const doctest::detail::TestCase* found = nullptr;
    for (const auto* tc : course_testing::registered_tests())
        if (std::string(tc->m_name) == kGlueCase) found = tc;
    REQUIRE(found != nullptr);
    CHECK(std::string(found->m_file.c_str()) == "dir/glue.cpp");
    CHECK(found->m_line == 7u);
    CHECK(std::string(found->m_test_suite) == "");
    const bool runs_the_glue = found->m_test == course_testing::run_registered_case;
    CHECK(runs_the_glue);
    CHECK(std::string(found->m_full_name.c_str()) == kGlueCase);
    const auto& cases = course_testing::registered_cases();
    REQUIRE(found->m_template_id >= 0);
    REQUIRE((size_t)found->m_template_id < cases.size());
    CHECK(cases[(size_t)found->m_template_id].name == kGlueCase);
}

// ---- measure.h: the CSV and the roofline (host); the timing loop itself (GPU) ----------------
namespace {
RowResult made_row(const std::string& section, const std::string& step, const std::string& name, RowKind kind,
                   Work work, double ms, RowResult::Status status = RowResult::ok) {
    RowResult r;
    r.section = section, r.step = step, r.name = name, r.kind = kind, r.work = work, r.ms = ms, r.status = status;
    r.rate = ms > 0 ? work.bytes / (ms * 1e-3) / 1e9 : 0;
    return r;
}
}  // namespace

TEST_CASE("host: measure: the CSV has one quoted-where-needed line per row, wrong rows without figures") {
    TableSpec spec;
    spec.columns = {cols::step(), cols::kernel(), cols::own("traffic"), cols::time(), cols::rate(spec.rate), cols::check()};
    Measurements m(spec);
    RowResult a = made_row("2^25 floats", "3", "sequential", RowKind::step, {1.0e8, 2.5e7}, 0.05);
    a.cells = {"2n, \"read\""};
    m.add(a);
    m.add(made_row("2^25 floats", "4", "first_add", RowKind::step, {1.0e8, 2.5e7}, 0, RowResult::failed));
    const std::string csv = m.csv();
    CHECK(csv.rfind("section,step,kernel,traffic,time (ms),GB/s,check,kind,bytes,ops,status\n", 0) == 0);
    CHECK(csv.find("2^25 floats,3,sequential,\"2n, \"\"read\"\"\",0.05,2000,ok: ,step,100000000,25000000,ok\n") != std::string::npos);
    CHECK(csv.find("2^25 floats,4,first_add,,,,FAILED:  (is TODO step 4 done?),step,100000000,25000000,failed\n") !=
          std::string::npos);
}

TEST_CASE("host: measure: own columns take the row's cells, then its check's, in the list's order") {
    TableSpec spec;
    spec.columns = {cols::step(), cols::own("n"), cols::own("traffic"), cols::time(), cols::own("result"), cols::own("more")};
    Measurements m(spec);
    RowResult a = made_row("one size", "2", "blelloch", RowKind::step, {8e6, 1e6}, 0.01);
    a.cells = {"1000000", "2n"};
    a.check_cells = {"exact"};
    const std::string table = m.tabulate("", {a});
    CHECK(table.find("| 2    | 1000000 |      2n |    0.0100 |  exact |    - |") != std::string::npos);
    const std::string csv = m.csv();
    CHECK(csv.rfind("section,step,n,traffic,time (ms),result,more,kind,", 0) == 0);
    CHECK(csv.find("one size,2,1000000,2n,0.01,exact,,step,") != std::string::npos);  // a missing cell: nothing
}

// ---- measure.h: every table shape the exercises print, against what the engine printed before
// its columns were a list (common/tests_tables.txt: the old engine's output for the same rows) ---
namespace {
RowResult mk(const std::string& section, const std::string& step, const std::string& name, RowKind kind, Work work,
             double ms, RowResult::Status st, std::vector<std::string> cells, std::vector<std::string> check_cells,
             std::string detail, std::string baseline = "") {
    RowResult r = made_row(section, step, name, kind, work, ms, st);
    r.rate = 0;
    r.cells = cells, r.check_cells = check_cells, r.detail = detail, r.baseline = baseline;
    return r;
}
// The made-up rows of each table shape: sections of rows, as the engine's timing would leave them.
using Sections = std::vector<std::pair<std::string, std::vector<RowResult>>>;
static const RowKind S = RowKind::step, B = RowKind::baseline, R = RowKind::reference;
static const RowResult::Status OK = RowResult::ok, FAIL = RowResult::failed, LATE = RowResult::failed_after_timing,
                               SKIP = RowResult::skipped;
static Sections made_sections(const std::string& shape) {
    if (shape == "01")
        return {{"device-to-device copies of 16 to 256 MiB",
                 {mk("", "-", "cudaMemcpy 16 MiB", R, {2.0 * 16777216, 0}, 0.0123, OK, {"reads and writes 16 MiB"}, {}, "every byte matches"),
                  mk("", "-", "cudaMemcpy 64 MiB", R, {2.0 * 67108864, 0}, 0.0456, OK, {"reads and writes 64 MiB"}, {}, "every byte matches"),
                  mk("", "-", "cudaMemcpy 256 MiB", R, {2.0 * 268435456, 0}, 0, SKIP, {"reads and writes 256 MiB"}, {}, "too little free GPU memory")}},
                {"the roofs: a 1 GiB copy and the FMA kernel",
                 {mk("", "-", "cudaMemcpy 1 GiB", R, {2.0 * 1073741824, 0}, 0.701, OK, {"reads and writes 1 GiB"}, {}, "every byte matches"),
                  mk("", "-", "FP32 FMA kernel", S, {4.0 * 270336, 2.0 * 270336 * 8 * 4096}, 0.312, OK,
                     {"270336 threads x 8 chains x 4096 FMAs"}, {}, "64 threads match the CPU")}}};
    if (shape == "02")
        return {{"", {mk("", "1", "one_block", S, {8e6, 1e6}, 0, SKIP, {}, {}, "one block holds at most 1024 threads"),
                      mk("", "2", "many_blocks", S, {8e6, 1e6}, 0.00412, OK, {}, {}, "max error 0 (tolerance 6e-08)"),
                      mk("", "3", "grid_stride", S, {8e6, 1e6}, 0, FAIL, {}, {}, "1 of 1000000 differ; first at [3]"),
                      mk("", "4", "vectorized", S, {8e6, 1e6}, 0.0031, LATE, {}, {}, "2 of 1000000 differ"),
                      mk("", "-", "cudaMemcpy device to device", B, {8e6, 0}, 0.00298, OK, {}, {}, "all 1000000 match (max abs error 0)")}},
                {"2^28 floats (2147.5 MB moved)",
                 {mk("", "2", "many_blocks", S, {8.0 * 268435456, 268435456}, 0.712, OK, {}, {}, "max error 0"),
                  mk("", "4", "vectorized", S, {8.0 * 268435456, 268435456}, 0.688, OK, {}, {}, "max error 0"),
                  mk("", "-", "cudaMemcpy device to device", B, {8.0 * 268435456, 0}, 0.676, OK, {}, {}, "all match")}}};
    if (shape == "03")
        return {{"64 x 64 cells, 1000 generations",
                 {mk("", "1", "global", S, {2.0 * 4096 * 1000, 4096.0 * 1000}, 2.5, OK, {"1000"}, {"1203"}, "the same as the CPU"),
                  mk("", "3", "single_block", S, {2.0 * 4096 * 1000, 4096.0 * 1000}, 0.9, OK, {"1"}, {"1203"}, "the same as the CPU")}},
                {"16384 x 16384 cells, one generation (536.9 MB moved)",
                 {mk("", "1", "global", S, {2.0 * 268435456, 268435456}, 0.41, OK, {"1"}, {"67108001"}, "the same as the CPU"),
                  mk("", "2", "shared", S, {2.0 * 268435456, 268435456}, 0, FAIL, {"1"}, {"67108002"}, "12 cells differ"),
                  mk("", "3", "single_block", S, {2.0 * 268435456, 268435456}, 0, SKIP, {}, {}, "one block cannot hold it"),
                  mk("", "-", "cudaMemcpy device to device", B, {2.0 * 268435456, 0}, 0.17, OK, {"-"}, {"67108864"}, "the same bytes")}}};
    if (shape == "04")
        return {{"", {mk("", "1", "atomic_add", S, {4e6, 1e6}, 0.051, OK, {}, {"1234.5"}, "within the tolerance"),
                      mk("", "2", "rows_cols", S, {4.4e6, 1e6}, 0.022, OK, {}, {"total 1234.5"}, "1000 row sums, 1000 column sums, total"),
                      mk("", "-", "cub::DeviceReduce::Sum", B, {4e6, 1e6}, 0.0031, OK, {}, {"1234.5"}, "within the tolerance")}}};
    if (shape == "05")
        return {{"2^25 floats (134 MB read)",
                 {mk("", "1", "interleaved_divergent", S, {4.0 * 33554432, 33554432}, 0.9, OK, {}, {"12345678", "0"}, "exact"),
                  mk("", "2", "interleaved", S, {4.0 * 33554432, 33554432}, 0.6, OK, {}, {"12345678", "0"}, "exact"),
                  mk("", "3", "sequential", S, {4.0 * 33554432, 33554432}, 0, FAIL, {}, {"12345000", "-"}, "outside the tolerance"),
                  mk("", "4", "first_add", S, {4.0 * 33554432, 33554432}, 0.3, OK, {}, {"12345678", "0"}, "exact"),
                  mk("", "-", "cub::DeviceReduce::Sum", B, {4.0 * 33554432, 33554432}, 0.05, OK, {}, {"12345678", "0"}, "exact"),
                  mk("", "-", "cudaMemcpy (device to device)", R, {8.0 * 33554432, 0}, 0.09, OK, {}, {}, "all match")}}};
    if (shape == "06")
        return {{"", {mk("", "1", "shared_add", S, {4e6, 1e6}, 0.5, OK, {"1000000", "1 address"}, {"1000000", "1000000"}, "exact"),
                      mk("", "2", "cas_max", S, {4e6, 1e6}, 0, FAIL, {"1000000", "1 address"}, {"17", "99"}, "wrong maximum"),
                      mk("", "-", "cub::DeviceReduce::Sum", B, {4e6, 1e6}, 0.01, OK, {"1000000", "-"}, {"1000000", "1000000"}, "exact")}}};
    if (shape == "07")
        return {{"", {mk("", "1", "hillis_steele", S, {8e6, 1e6}, 0.07, OK, {"1000000", "2n log n"}, {}, "all four; float max abs error 0"),
                      mk("", "2", "blelloch", S, {8e6, 1e6}, 0.03, OK, {"1000000", "2n"}, {}, "all four; float max abs error 0"),
                      mk("", "3", "compact", S, {8e6, 1e6}, 0.02, OK, {"1000000", "3n"}, {}, "kept 500 of 1000000 (x > 0)", "-"),
                      mk("", "-", "cub::DeviceScan::InclusiveSum", B, {8e6, 1e6}, 0.0051, OK, {"1000000", "2n"}, {}, "exact")}}};
    if (shape == "08")
        return {{"", {mk("", "1", "naive", S, {3 * 4.0 * 4194304, 2.0 * 8589934592}, 12.5, OK, {}, {}, "max error 1e-06"),
                      mk("", "2", "tiled", S, {3 * 4.0 * 4194304, 2.0 * 8589934592}, 4.2, OK, {}, {}, "max error 1e-06"),
                      mk("", "3", "register_blocked_2d", S, {3 * 4.0 * 4194304, 2.0 * 8589934592}, 1.1, OK, {}, {}, "max error 1e-06"),
                      mk("", "-", "cublasSgemm", B, {3 * 4.0 * 4194304, 2.0 * 8589934592}, 0.33, OK, {}, {}, "max error 1e-06")}}};
    if (shape == "09")
        return {{"2^24 keys",
                 {mk("", "-", "cudaMemcpy", R, {8.0 * 16777216, 0}, 0.05, OK, {"8"}, {}, "all match"),
                  mk("", "-", "cub::DeviceRadixSort::SortKeys", B, {8.0 * 16777216, 16777216}, 0.6, OK, {"8"}, {}, "in order"),
                  mk("", "-", "cub::DeviceRadixSort::SortPairs", B, {16.0 * 16777216, 16777216}, 0.9, OK, {"16"}, {}, "in order, stable", "pairs"),
                  mk("", "1", "bitonic_tile", S, {8.0 * 16777216, 16777216}, 1.4, OK, {"8"}, {}, "every 1024-key tile in order", "-"),
                  mk("", "2", "radix_pass", S, {16.0 * 16777216, 16777216}, 3.3, OK, {"16 (predicted 16)"}, {}, "in order, stable", "pairs"),
                  mk("", "3", "radix_sort", S, {8.0 * 16777216, 16777216}, 1.9, OK, {"8"}, {}, "in order")}}};
    if (shape == "10")
        return {{"m = n = k = 4096",
                 {mk("", "1", "mma_naive", S, {2.0 * 3 * 16777216, 2.0 * 68719476736}, 1.2, OK, {}, {"3.1e-03"}, "max error 1e-02"),
                  mk("", "2", "mma_tiled", S, {2.0 * 3 * 16777216, 2.0 * 68719476736}, 0.25, OK, {}, {"3.1e-03"}, "max error 1e-02"),
                  mk("", "-", "cublasGemmEx BF16", B, {2.0 * 3 * 16777216, 2.0 * 68719476736}, 0.16, OK, {}, {"-"}, "max error 1e-02"),
                  mk("", "-", "FP32 register_blocked_2d (08)", R, {4.0 * 3 * 16777216, 2.0 * 68719476736}, 3.1, OK, {}, {"-"}, "max error 1e-03")}}};
    if (shape == "11copies")
        return {{"copies of 64 MiB (each pair of GPUs)",
                 {mk("", "1", "copy 0 -> 1", S, {67108864, 0}, 0.21, OK, {}, {}, "exact"),
                  mk("", "1", "copy 0 <-> 1", S, {2.0 * 67108864, 0}, 0.4, OK, {}, {}, "exact"),
                  mk("", "-", "cudaMemcpy within GPU 0", B, {67108864, 0}, 0.041, OK, {}, {}, "exact")}}};
    if (shape == "11split")
        return {{"67108864 floats in all (128 MiB per rank)",
                 {mk("", "2", "split_sum over 2 ranks", S, {4.0 * 67108864, 67108864}, 0.09, OK, {}, {}, "exact"),
                  mk("", "-", "device_sum of it all on GPU 0", B, {4.0 * 67108864, 67108864}, 0.16, OK, {}, {}, "exact")}}};
    if (shape == "11allreduce")
        return {{"4 KiB", {mk("", "3", "ring_allreduce", S, {4096, 1024}, 0.03, OK, {}, {}, "exact on every rank"),
                           mk("", "-", "ncclAllReduce", B, {4096, 1024}, 0.012, OK, {}, {}, "exact on every rank")}},
                {"256 MiB", {mk("", "3", "ring_allreduce", S, {268435456, 67108864}, 2.9, OK, {}, {}, "exact on every rank"),
                             mk("", "4", "direct_allreduce", S, {268435456, 67108864}, 0, FAIL, {}, {}, "rank 1 [5]: 3, expected 4"),
                             mk("", "-", "ncclAllReduce", B, {268435456, 67108864}, 1.4, OK, {}, {}, "exact on every rank")}}};
    if (shape == "11buckets")
        return {{"256 MiB of gradients per rank in 4 buckets of 64 MiB; 8 multiply-adds per gradient",
                 {mk("", "5", "overlap_buckets", S, {268435456, 2.0 * 8 * 67108864}, 3.2, OK, {}, {}, "exact sums"),
                  mk("", "-", "no overlap", B, {268435456, 2.0 * 8 * 67108864}, 4.1, OK, {}, {}, "exact sums")}}};
    return {};
}
struct Scenario { std::string name; TableSpec spec; Sections sections; };
static std::string rate03(double per_second) {
    if (per_second >= 1e9) return strf("%.1f G", per_second / 1e9);
    if (per_second >= 1e6) return strf("%.1f M", per_second / 1e6);
    return strf("%.0f", per_second);
}
// Each exercise's table, as its main.cpp declares it (with made-up peaks).
static std::vector<Scenario> scenarios() {
    using namespace cols;
    std::vector<Scenario> out;
    auto add = [&](const std::string& name, TableSpec t) { out.push_back({name, t, made_sections(name)}); };
    { TableSpec t; t.title = "device 0"; t.rate = ops_rate("GFLOP/s", 1e9, "FLOP", "%.0f"); t.footer = "f";
      t.columns = {step(), kernel(), own("one run"), time(), rate(t.rate), gb_per_s(), of_peak("FP32 peak", 66900),
                   of_bytes_peak("DRAM peak", 3352), check()}; add("01", t); }
    { TableSpec t; t.title = "out[i] = a * x[i]";
      t.columns = {step(), kernel(), time(), rate(t.rate), of_baseline("% of copy"), of_peak("DRAM peak", 3352), check()}; add("02", t); }
    { TableSpec t; t.title = "Conway's Game of Life"; t.rate = ops_rate("cell updates/s", 1, "cell updates"); t.rate.text = rate03;
      t.columns = {step(), kernel(), time(), rate(t.rate), gb_per_s(), of_baseline("% of copy"), of_bytes_peak("DRAM peak", 3352),
                   own("launches"), own("live cells"), check()}; add("03", t); }
    { TableSpec t; t.title = "sums of n floats";
      t.columns = {step(), kernel(), own("result"), time(), rate(t.rate), of_baseline("% of CUB"), of_peak("DRAM peak", 3352), check()}; add("04", t); }
    { TableSpec t; t.title = "sum of n floats";
      t.columns = {step(), kernel(), time(), rate(t.rate), of_baseline("% of CUB"), vs_previous(), of_peak("DRAM peak", 3352),
                   own("GPU sum"), own("error"), check()}; add("05", t); }
    { TableSpec t; t.title = "n threads updating shared memory"; t.rate = ops_rate("M updates/s", 1e6, "updates");
      t.columns = {step(), kernel(), own("updates"), own("atomics"), time(), rate(t.rate), of_baseline("% of CUB"),
                   of_peak("DRAM peak (4 B an update)", 3352 * 1e3 / 4), own("result"), own("expected"), check()}; add("06", t); }
    { TableSpec t; t.title = "inclusive scan of n ints"; t.rate.ops_name = "additions";
      t.columns = {step(), kernel(), own("n"), own("traffic"), time(), rate(t.rate), of_baseline("% of CUB"), of_peak("DRAM peak", 3352),
                   check("check (steps: int and float, inclusive and exclusive)")}; add("07", t); }
    { TableSpec t; t.title = "C = A * B in FP32"; t.rate = ops_rate("GFLOP/s", 1e9, "FLOP", "%.0f");
      t.columns = {step(), kernel(), time("%.3f"), rate(t.rate), of_baseline("% of cuBLAS"), vs_previous(), of_peak("FP32 peak", 66900), check()}; add("08", t); }
    { TableSpec t; t.title = "sorting n 32-bit keys"; t.rate = ops_rate("G keys/s", 1e9, "keys", "%.2f");
      t.columns = {step(), kernel(), own("B/key"), time("%.3f"), rate(t.rate), of_baseline("% of CUB"), at_copy_speed("at copy speed", t.rate),
                   of_copy_speed(), check()}; add("09", t); }
    { TableSpec t; t.title = "C = A * B, BF16 inputs, FP32 sums"; t.rate = ops_rate("TFLOP/s", 1e12, "FLOP");
      t.compute_roof = {"BF16 clock peak 1071 TFLOP/s", 1071e12};
      t.columns = {step(), kernel(), time("%.3f"), rate(t.rate), of_baseline("% of cuBLAS"), of_peak("BF16 clock peak", 1071),
                   own("error vs float inputs"), check()}; add("10", t); }
    { TableSpec t; t.title = "copies between GPUs"; add("11copies", t); }
    { TableSpec t; t.title = "the sum of one array spread over the ranks";
      t.columns = {step(), kernel(), time(), rate(t.rate), of_baseline("% of one GPU"), check()}; add("11split", t); }
    { TableSpec t; t.title = "all-reduce"; t.rate.heading = "busbw GB/s"; t.calls_per_run = 20;
      t.columns = {step(), kernel(), time(), rate(t.rate), of_baseline("% of NCCL"), check()}; add("11allreduce", t); }
    { TableSpec t; t.title = "gradient buckets";
      t.columns = {step(), kernel(), time(), rate(t.rate), of_baseline("% of no overlap"), check()}; add("11buckets", t); }
    return out;
}

std::string plot_text(const RooflinePlot& p) {
    std::string s = "title=" + p.title + "\nsubtitle=" + p.subtitle + "\nops=" + p.ops_name +
                    strf("\ncompute=%.6g ", p.compute_roof) + p.compute_label + "\n";
    for (auto& r : p.memory_roofs) s += strf("roof %s %.6g %d\n", r.label.c_str(), r.bytes_per_s, (int)r.measured);
    for (auto& q : p.points)
        s += strf("point %s %.6g %.6g %d\n", q.label.c_str(), q.intensity, q.ops_per_s, (int)q.reference);
    return s;
}
// RFC 4180 lines -> rows of fields (no line breaks inside fields here).
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f(1);
        bool quoted = false;
        for (size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
            else if (c == '"') quoted = !quoted;
            else if (c == ',' && !quoted) f.emplace_back();
            else f.back() += c;
        }
        rows.push_back(f);
    }
    return rows;
}
std::string field(const std::vector<std::vector<std::string>>& rows, size_t row, const std::string& heading) {
    const auto& head = rows.at(0);
    const size_t c = std::find(head.begin(), head.end(), heading) - head.begin();
    return c < head.size() && c < rows.at(row).size() ? rows[row][c] : "<no column " + heading + ">";
}
}  // namespace

TEST_CASE("host: measure: every table shape keeps its columns and numbers; the CSV has the table's columns") {
    std::ifstream in(std::filesystem::path(course_root()) / "common" / "tests_tables.txt", std::ios::binary);
    REQUIRE(in);
    std::map<std::string, std::string> old;  // "02 table" -> what the old engine printed
    std::string key;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("@@@ ", 0) == 0) key = line.substr(4);
        else old[key] += line + "\n";
    }
    // The old CSV's percent_of_peak: the column of the rate's peak, where the table had one.
    const std::map<std::string, std::string> peak = {
        {"01", "% of FP32 peak"}, {"02", "% of DRAM peak"}, {"04", "% of DRAM peak"}, {"05", "% of DRAM peak"},
        {"06", "% of DRAM peak (4 B an update)"}, {"07", "% of DRAM peak"}, {"08", "% of FP32 peak"},
        {"10", "% of BF16 clock peak"}};
    const auto all = scenarios();
    CHECK(all.size() == 14);
    for (const auto& sc : all) {
        CAPTURE(sc.name);
        Measurements m(sc.spec);
        std::string tables;
        for (auto sec : sc.sections) {
            for (auto& r : sec.second) r.section = sec.first;
            tables += m.tabulate(sec.first, sec.second);
        }
        CHECK(tables == old[sc.name + " table"]);
        CHECK(plot_text(m.plot(DeviceFacts{})) == old[sc.name + " plot"]);  // as on a machine without a GPU
        // The CSV: the table's headings, then kind, bytes, ops and status; the old CSV's values in them.
        const auto now = csv_rows(m.csv()), before = csv_rows(old[sc.name + " csv"]);
        REQUIRE(now.size() == before.size());
        std::vector<std::string> head = {"section"};
        for (const Column& c : m.columns()) head.push_back(c.heading);
        for (const char* h : {"kind", "bytes", "ops", "status"}) head.push_back(h);
        CHECK(now[0] == head);
        const std::string rate = sc.spec.rate.heading;
        std::string baseline;
        for (const Column& c : m.columns())
            if (c.heading.rfind("% of ", 0) == 0 && baseline.empty() && c.heading.find("peak") == std::string::npos)
                baseline = c.heading;
        for (size_t i = 1; i < now.size(); ++i) {
            CAPTURE(i);
            for (const char* same : {"section", "step", "kind", "bytes", "ops", "status"})
                CHECK(field(now, i, same) == field(before, i, same));
            CHECK(field(now, i, "kernel") == field(before, i, "name"));
            CHECK(field(now, i, "time (ms)") == field(before, i, "time_ms"));
            const std::string old_rate = field(before, i, "rate");
            CHECK(field(now, i, rate) == (old_rate == "0" ? "" : old_rate));  // no rate: now nothing, as in the table
            if (!baseline.empty()) CHECK(field(now, i, baseline) == field(before, i, "percent_of_baseline"));
            if (peak.count(sc.name)) CHECK(field(now, i, peak.at(sc.name)) == field(before, i, "percent_of_peak"));
            const std::string check = field(now, i, m.columns().back().heading);
            const std::string detail = field(before, i, "detail");
            CHECK(check.find(detail) != std::string::npos);
            for (size_t k = 4; k < before[0].size() && before[0][k] != "time_ms"; ++k)  // the own columns
                CHECK(field(now, i, before[0][k]) == before[i][k]);
        }
    }
}

TEST_CASE("host: measure: the roofline SVG has the roofs, a point per timed row, and escapes text") {
    RooflinePlot plot;
    plot.title = "sum <of> n & floats";
    plot.memory_roofs = {{"DRAM peak 3352 GB/s", 3352e9, false}, {"cudaMemcpy 3031 GB/s", 3031e9, true}};
    plot.compute_roof = 66.9e12;
    plot.compute_label = "FP32 peak 66.9 TFLOP/s";
    plot.points = {{"1 interleaved_divergent", 0.25, 1.0e11, false}, {"8 one_pass", 0.25, 7.5e11, false},
                   {"cub::DeviceReduce::Sum", 0.25, 7.6e11, true}, {"no work", 0, 1e9, false}};
    const std::string svg = roofline_svg(plot);
    CHECK(svg.rfind("<svg ", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(svg.find("sum &lt;of&gt; n &amp; floats") != std::string::npos);
    CHECK(svg.find(">8 one_pass<") != std::string::npos);
    CHECK(svg.find(">cub::DeviceReduce::Sum<") != std::string::npos);
    CHECK(svg.find("no work") == std::string::npos);  // a point with no intensity is left out
    CHECK(svg.find("stroke-dasharray") != std::string::npos);  // the measured copy roof
    CHECK(svg.find("FP32 peak 66.9 TFLOP/s") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
    CHECK(svg.find("font-size=\"16.0\" font-weight=\"bold\"") != std::string::npos);  // a short title
    plot.title = std::string(120, 'x');  // a long one gets a smaller font and stays in the picture
    CHECK(roofline_svg(plot).find("font-size=\"11.8\" font-weight=\"bold\"") != std::string::npos);
}

TEST_CASE("host: measure: a copy row is a roof (bytes read and written, no operations), skipped when empty") {
    std::vector<float> source(1000, 1.5f);
    float* dst = reinterpret_cast<float*>(0x1000);  // never touched: a host test runs nothing
    const StepRow r = copy_row("cudaMemcpy", dst, dst + 2000, source);
    CHECK(r.step == "-");
    CHECK(r.name == "cudaMemcpy");
    CHECK(r.kind == RowKind::reference);
    CHECK(r.work.bytes == 8000.0);  // 4000 bytes read and 4000 written
    CHECK(r.work.ops == 0.0);
    CHECK(r.skip.empty());
    CHECK(r.run);
    CHECK(r.check);
    CHECK(r.prepare);  // poisons dst before the checked run
    const StepRow b = copy_row("copy", (void*)dst, (const void*)dst, 64, [] { return Check{true, "fine"}; },
                               RowKind::baseline, {"8"});
    CHECK(b.kind == RowKind::baseline);
    CHECK(b.work.bytes == 128.0);
    CHECK(b.cells == std::vector<std::string>{"8"});
    CHECK(b.check().detail == "fine");
    const std::vector<int> none;
    CHECK(copy_row("empty", (int*)nullptr, (const int*)nullptr, none).skip == "nothing to copy");
}

TEST_CASE("host: measure: a comparison is a row's check; a rate of operations names its unit") {
    const std::vector<int> ref = {1, 2, 3};
    const Check ok = check_of(compare_exact(std::vector<int>{1, 2, 3}, ref));
    CHECK(ok.ok);
    CHECK(ok.detail == "all 3 match (max abs error 0)");
    const Check wrong = check_of(compare_exact(std::vector<int>{1, 5, 3}, ref));
    CHECK(!wrong.ok);
    CHECK(wrong.detail == "1 of 3 differ; first at [1]: got 5, expected 2");
    TableSpec t;
    CHECK(!t.rate.counts_ops);
    t.rate = ops_rate("G keys/s", 1e9, "keys");
    CHECK(t.rate.heading == "G keys/s");
    CHECK(t.rate.counts_ops);
    CHECK(t.rate.unit == 1e9);
    CHECK(t.rate.ops_name == "keys");
}

TEST_CASE("host: measure: the plot keeps a table's own compute roof; a table of keys gets none by default") {
    TableSpec own;
    own.compute_roof = {"BF16 tensor peak 989 TFLOP/s", 989.4e12};
    Measurements a(own);
    a.add(made_row("1024", "1", "mma", RowKind::step, {1e6, 1e9}, 0.5));
    CHECK(a.plot().compute_roof == 989.4e12);
    CHECK(a.plot().compute_label == "BF16 tensor peak 989 TFLOP/s");
    TableSpec keys;
    keys.rate = ops_rate("G keys/s", 1e9, "keys");
    Measurements b(keys);
    b.add(made_row("2^20", "4", "radix_sort", RowKind::step, {8e6, 1e6}, 0.1));
    CHECK(b.plot().compute_roof == 0);
}

TEST_CASE("host: bench: sizes in binary units, at most two decimals") {
    CHECK(size_text(0) == "0 B");
    CHECK(size_text(8) == "8 B");
    CHECK(size_text(1023) == "1023 B");
    CHECK(size_text(1024) == "1 KiB");
    CHECK(size_text(49152) == "48 KiB");
    CHECK(size_text(1.5 * (1 << 20)) == "1.5 MiB");
    CHECK(size_text(52428800) == "50 MiB");
    CHECK(size_text((double)(1 << 30)) == "1 GiB");
    CHECK(size_text(150121545728.0) == "139.81 GiB");
    CHECK(size_text(4.0 * 1000000) == "3.81 MiB");
    CHECK(size_text(3.0 * ((size_t)1 << 40)) == "3 TiB");
}

TEST_CASE("gpu: measure: a wrong row is never timed; libraries are timed before and after the steps" * needs_gpu()) {
    DeviceBuffer<char> buffer(1 << 20);
    int library_runs = 0, wrong_runs = 0, late_checks = 0;
    std::vector<StepRow> rows = {
        {"-", "library", [&] { ++library_runs; CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0, buffer.bytes())); },
         [] { return Check{true, "fine"}; }, "", {}, RowKind::baseline},
        {"1", "wrong", [&] { ++wrong_runs; CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, buffer.bytes())); },
         [] { return Check{false, "always wrong"}; }},
        {"2", "wrong_after_timing", [&] { CUDA_CHECK(cudaMemsetAsync(buffer.get(), 2, buffer.bytes())); },
         [&] { return Check{late_checks++ == 0, "right once"}; }},
        {"3", "skipped", [] {}, [] { return Check{true, ""}; }, "not at this size"},
    };
    Measurements m(TableSpec{}, BenchConfig{1, 3, false});
    m.section("", Work{2.0 * buffer.bytes(), 0}, rows);
    CHECK(m.finish() == 2);
    const auto& r = m.results();
    REQUIRE(r.size() == 4);
    CHECK(library_runs == 1 + 2 * (1 + 3));  // the check, then timed before and after the steps
    CHECK(wrong_runs == 1);
    CHECK(r[0].timed());
    CHECK(r[1].status == RowResult::failed);
    CHECK(!r[1].timed());
    CHECK(r[2].status == RowResult::failed_after_timing);
    CHECK(!r[2].timed());
    CHECK(r[3].status == RowResult::skipped);
}

// ---- output_file.h: what an option that writes a file may write over ---------------------------
TEST_CASE("host: output files: never into the course's sources, never over another kind of file") {
    namespace fs = std::filesystem;
    const std::string root = course_root();
    REQUIRE(!root.empty());  // build/common/tests lives in the course
    CHECK(fs::is_regular_file(fs::path(root) / "common" / "output_file.h"));
    std::string exercise;  // the first exercise folder, whichever it is (common/ names none)
    for (const auto& e : fs::directory_iterator(root)) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name.size() > 3 && std::isdigit((unsigned char)name[0]) && name[2] == '_' &&
            (exercise.empty() || name < exercise))
            exercise = name;
    }
    REQUIRE(!exercise.empty());
    // Into a source folder: refused, whatever the name, however the path is written.
    for (const std::string& path : {root + "/" + exercise + "/starter.cu", root + "/" + exercise + "/new.csv",
                                    root + "/common/x.csv", root + "/.ci/x.csv", root + "/common/../" + exercise + "/x.csv"})
        CHECK(why_not_output_file(path, ".csv").find("a folder of the course's sources") != std::string::npos);
    CHECK(why_not_output_folder(root + "/" + exercise, ".pgm").find("is in " + exercise + "/") != std::string::npos);
    CHECK(why_not_output_folder(root + "/common/frames", ".pgm").find("is in common/") != std::string::npos);
    CHECK(course_source_folder_of(root + "/README.csv") == "");  // the top folder is fine
    CHECK(course_source_folder_of(root + "/build/x.csv") == "");

    char made[] = "/tmp/course_output_XXXXXX";
    REQUIRE(mkdtemp(made) != nullptr);
    const std::string t = made;
    fs::create_directories(t + "/folder");
    std::ofstream(t + "/old.csv") << "old";
    std::ofstream(t + "/notes.txt") << "keep";
    fs::create_symlink(root + "/" + exercise + "/starter.cu", t + "/link.csv");
    CHECK(why_not_output_file(t + "/new.csv", ".csv") == "");
    CHECK_FALSE(fs::exists(t + "/new.csv"));  // the check leaves nothing behind
    CHECK(why_not_output_file(t + "/old.csv", ".csv") == "");
    CHECK(why_not_output_file(t + "/OLD.CSV", ".csv") == "");  // (new: another name on this file system)
    CHECK(fs::file_size(t + "/old.csv") == 3);  // not truncated by the check
    CHECK(why_not_output_file(t + "/notes.txt", ".csv") == "'" + t + "/notes.txt' must be a file name ending in .csv");
    CHECK(why_not_output_file(t + "/new.txt", ".txt .log") == "");
    CHECK(why_not_output_file(t + "/new", ".txt .log") == "'" + t + "/new' must be a file name ending in .txt or .log");
    CHECK(why_not_output_file(t + "/notes.txt", ".csv .txt") == "");
    CHECK(why_not_output_file(t + "/link.csv", ".csv").find("a folder of the course's sources") != std::string::npos);
    CHECK(why_not_output_file(t + "/folder", ".gif") == "'" + t + "/folder' is a folder; give a file name such as out.gif");
    CHECK(why_not_output_file(t + "/no/x.gif", ".gif") == "the folder '" + t + "/no' does not exist");
    CHECK(why_not_output_file(t + "/notes.txt/x.gif", ".gif") ==
          "'" + t + "/notes.txt/x.gif' cannot be reached: a part of the path is a file, not a folder");
    CHECK(why_not_output_file("/proc/x.gif", ".gif").find("cannot be created") != std::string::npos);
    CHECK(why_not_output_file("/dev/null", ".gif") == "'/dev/null' is not a regular file");
    CHECK(why_not_output_folder(t + "/folder", ".pgm") == "");
    CHECK(fs::is_empty(t + "/folder"));
    CHECK(why_not_output_folder(t + "/frames/", ".pgm") == "");
    CHECK_FALSE(fs::exists(t + "/frames"));
    CHECK(why_not_output_folder(t + "/old.csv", ".pgm") == "'" + t + "/old.csv' is a file, not a folder");
    CHECK(why_not_output_folder(t + "/no/frames", ".pgm") ==
          "the folder '" + t + "/no' does not exist (only the last folder of the path is made)");
    CHECK(why_not_output_folder("/proc/frames", ".pgm").find("cannot make the folder") != std::string::npos);

    // The option's check: one line naming the option, and the kind recorded for --list-options.
    auto p = Parsed({"--csv", t + "/notes.txt"});
    Options o = p.options();
    const std::string csv = o.text("--csv", "");
    CHECK_THROWS_WITH(require_output_file(o, "--csv", csv, ".csv"),
                      doctest::Contains(("--csv: '" + t + "/notes.txt' must be a file name ending in .csv").c_str()));
    CHECK(o.option_list() == "--csv  output-file   .csv\n");
    const int fifo = mkfifo((t + "/pipe.csv").c_str(), 0600);
    REQUIRE(fifo == 0);
    CHECK(why_not_output_file(t + "/pipe.csv", ".csv") == "'" + t + "/pipe.csv' is not a regular file");
    CHECK_NOTHROW(require_output_file(o, "--plot", "", ".svg"));  // not given: nothing to check
    fs::remove_all(t);
}

TEST_CASE("host: output files: the file written is checked, not the name typed (links, hard links, two options)") {
    namespace fs = std::filesystem;
    const std::string root = course_root();
    REQUIRE(!root.empty());
    char made[] = "/tmp/course_output_XXXXXX";
    REQUIRE(mkdtemp(made) != nullptr);
    const std::string t = made;
    std::ofstream(t + "/a.csv") << "old";
    std::ofstream(t + "/notes.txt") << "keep";
    // A link of the right name to a file of the course outside build/: its top files, the Makefile,
    // a progress record; a link that leads into build/ is fine.
    fs::create_symlink(root + "/README.md", t + "/readme.txt");
    fs::create_symlink(root + "/Makefile", t + "/make.csv");
    fs::create_symlink(root + "/.progress/02_x.steps", t + "/record.log");  // need not exist to be refused
    fs::create_directories(root + "/build/common");
    std::ofstream(root + "/build/common/output_probe.csv") << "";
    fs::create_symlink(root + "/build/common/output_probe.csv", t + "/built.csv");
    CHECK(why_not_output_file(t + "/readme.txt", ".txt .log .xml") ==
          "'" + t + "/readme.txt' is a symbolic link to 'README.md' in the course: an output is never written "
          "through a link into the course (outside build/); give a new file's name");
    CHECK(why_not_output_file(t + "/make.csv", ".csv").find("a symbolic link to 'Makefile' in the course") != std::string::npos);
    CHECK(why_not_output_file(t + "/record.log", ".log").find("a symbolic link to a file that does not exist") != std::string::npos);
    CHECK(course_file_of(root + "/.progress/02_x.steps", root) == ".progress/02_x.steps");
    CHECK(course_file_of(root + "/README.md", root) == "README.md");
    CHECK(course_file_of(root + "/build/x.csv", root) == "");
    CHECK(course_file_of("/tmp/x.csv", root) == "");
    CHECK(why_not_output_file(t + "/built.csv", ".csv") == "");
    fs::remove(root + "/build/common/output_probe.csv");
    // A link to a file of another kind, anywhere: a.svg -> a.csv is the CSV file.
    fs::create_symlink(t + "/a.csv", t + "/a.svg");
    CHECK(why_not_output_file(t + "/a.svg", ".svg") ==
          "'" + t + "/a.svg' is a symbolic link to '" + fs::canonical(t + "/a.csv").string() +
          "', not a .svg file: give a new file's name");
    fs::create_symlink("a.csv", t + "/same.csv");  // a link to a file of its kind, outside the course: fine
    CHECK(why_not_output_file(t + "/same.csv", ".csv") == "");
    // A file with another name (a hard link to a source file named x.csv): refused by its count.
    REQUIRE(link((t + "/notes.txt").c_str(), (t + "/hard.csv").c_str()) == 0);
    CHECK(why_not_output_file(t + "/hard.csv", ".csv") ==
          "'" + t + "/hard.csv' has 2 names (hard links): writing it would change the file under its other names too; "
          "give a new file's name");
    // A FIFO where a record goes: refused, not opened (opening it to write would block).
    REQUIRE(mkfifo((t + "/02_x.steps").c_str(), 0600) == 0);
    CHECK(why_not_output_file(t + "/02_x.steps", ".steps") == "'" + t + "/02_x.steps' is not a regular file");
    CHECK_FALSE(append_line(t + "/02_x.steps", "steps: ..."));
    // Two options of one run that name one file (through a link, or the same new file twice).
    {
        auto p = Parsed({"--csv", t + "/a.csv", "--table", t + "/same.csv"});
        Options o = p.options();
        CHECK_NOTHROW(require_output_file(o, "--csv", o.text("--csv", ""), ".csv"));
        CHECK_THROWS_WITH(require_output_file(o, "--table", o.text("--table", ""), ".csv"),
                          doctest::Contains(("--table: '" + t + "/same.csv' is the file --csv writes too").c_str()));
    }
    {
        std::vector<std::pair<std::string, std::string>> claimed;
        CHECK(why_same_output(claimed, "--out", t + "/new.txt") == "");
        CHECK(why_same_output(claimed, "--log", t + "/./new.txt").find("is the file --out writes too") != std::string::npos);
        CHECK(why_same_output(claimed, "--other", t + "/other.txt") == "");
    }
    // A record is one whole line: after a record cut short, the next one starts a line of its own.
    std::ofstream(t + "/cut.steps", std::ios::binary) << "steps: 1 of 3 passed (step 1 a: ok; st";
    CHECK(append_line(t + "/cut.steps", "steps: 2 of 3 passed (x)"));
    CHECK(append_line(t + "/cut.steps", "steps: 3 of 3 passed (y)"));
    std::ifstream in(t + "/cut.steps");
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "steps: 1 of 3 passed (step 1 a: ok; st\nsteps: 2 of 3 passed (x)\nsteps: 3 of 3 passed (y)\n");
    CHECK(append_line(t + "/new.steps", "first"));
    CHECK(fs::file_size(t + "/new.steps") == 6);
    fs::remove_all(t);
}

TEST_CASE("gpu: measure: a row's % compares with the baseline it names, or none; the copy's speed is each row's roof" *
          needs_gpu()) {
    DeviceBuffer<char> buffer(1 << 20);
    auto fill = [&](int value) { return [&, value] { CUDA_CHECK(cudaMemsetAsync(buffer.get(), value, buffer.bytes())); }; };
    auto fine = [] { return Check{true, "fine"}; };
    const double bytes = (double)buffer.bytes();
    std::vector<StepRow> rows = {
        {"-", "copy", fill(0), fine, "", {}, RowKind::reference, Work{bytes, 0}},
        {"-", "keys", fill(1), fine, "", {}, RowKind::baseline},
        {"-", "pairs", fill(2), fine, "", {}, RowKind::baseline, Work{2 * bytes, 2 * bytes}, {}, "pairs"},
        {"1", "against_first", fill(3), fine},
        {"2", "against_pairs", fill(4), fine, "", {}, RowKind::step, Work{2 * bytes, 2 * bytes}, {}, "pairs"},
        {"3", "against_none", fill(5), fine, "", {}, RowKind::step, Work{}, {}, "-"},
    };
    TableSpec spec;
    spec.rate.counts_ops = true;
    Measurements m(spec, BenchConfig{1, 3, false});
    m.section("", Work{bytes, bytes / 4}, rows);
    CHECK(m.finish() == 0);
    const auto& r = m.results();
    REQUIRE(r.size() == 6);
    CHECK(r[3].of_baseline == doctest::Approx(100 * r[1].ms / r[3].ms));
    CHECK(r[4].of_baseline == doctest::Approx(100 * r[2].ms / r[4].ms));
    CHECK(r[2].of_baseline == doctest::Approx(100));
    CHECK(r[5].of_baseline == 0);
    CHECK(r[0].of_baseline == 0);  // a reference row that names no baseline
    const double copy_bytes_per_s = bytes / (r[0].ms * 1e-3);
    CHECK(r[0].at_copy_speed == 0);  // the copy itself
    CHECK(r[3].at_copy_speed == doctest::Approx(copy_bytes_per_s * 0.25 / 1e9));
    CHECK(r[4].at_copy_speed == doctest::Approx(copy_bytes_per_s / 1e9));
}

// ---- answers.h: the reading-path check of make check ------------------------------------------
TEST_CASE("host: answers.h finds a prediction's answer where it stands as a number of its own") {
    using namespace course_answers;
    CHECK(written_forms(402653184) == std::vector<std::string>{"402653184", "402,653,184"});
    CHECK(written_forms(-1234) == std::vector<std::string>{"-1234", "-1,234"});
    CHECK(written_forms(384) == std::vector<std::string>{"384"});
    CHECK(written_forms(1.0 / 6) == std::vector<std::string>{"0.17", "0.167", "0.1667"});
    CHECK(too_common(7));
    CHECK(too_common(4096));
    CHECK_FALSE(too_common(384));
    CHECK(too_common(0.1667));  // below 10: 1.75 or 8.5 are everywhere
    CHECK(line_of("a\nthe answer is 384.\n", "384") == 2);
    CHECK(line_of("(384) and 1,384 and 3840 and x384 and 384_y and 384.5 and v1.384", "384") == 1);
    CHECK(line_of("1,384 and 3840 and x384 and 384_y and 384.5 and v1.384", "384") == 0);
    CHECK(line_of("1,384 and 3840 and x384 and 384_y and 384.5", "384") == 0);
}

// ---- records.h, json.h: the record a test program leaves, read back whole or not at all --------
TEST_CASE("host: records: a test record reads back as written, and its lines for people come from it") {
    TestRecord r;
    r.steps = {{1, "one_block", "ok"}, {2, "many_blocks", "failed"}, {3, "grid_stride", "needs a GPU"}, {4, "x", "not run"}};
    r.passed = 12, r.failed = 5, r.skipped = 3;
    r.no_gpu = "no NVIDIA driver is loaded";
    r.skips = {"needs 17 GB: \"large\"\n\x01"};
    r.errors = {"tests.cpp:3: a\\b"};
    TestRecord back;
    REQUIRE(TestRecord::read(r.json(), back));
    CHECK(back.json() == r.json());
    CHECK(back.skips == r.skips);
    CHECK(back.steps_count() == "1 of 4 passed");
    CHECK(back.steps_detail() ==
          "step 1 one_block: ok; step 2 many_blocks: FAILED; step 3 grid_stride: not run (needs a GPU); step 4 x: not run");
    CHECK(back.counts() == "12 passed, 5 failed, 3 skipped");
    REQUIRE(TestRecord::read(r.json(true), back));  // the progress file's line: no skips, no errors
    CHECK(back.skips.empty());
    CHECK(r.json(true).find('\n') == std::string::npos);
}

TEST_CASE("host: records: a record cut short, with junk after it, or of the wrong shape is not read") {
    TestRecord r;
    r.steps = {{1, "a", "ok"}, {2, "b", "failed"}};
    const std::string good = r.json(true);
    TestRecord back;
    CHECK(TestRecord::read(good, back));
    for (size_t cut = 0; cut < good.size(); ++cut) CHECK_FALSE(TestRecord::read(good.substr(0, cut), back));
    std::string wrong = good;
    CHECK_FALSE(TestRecord::read(good + "x", back));
    CHECK_FALSE(TestRecord::read(good + good, back));
    CHECK_FALSE(TestRecord::read(wrong.replace(wrong.find("\"ok\""), 4, "\"maybe\""), back));
    wrong = good;
    CHECK_FALSE(TestRecord::read(wrong.replace(wrong.find("\"steps_passed\":1"), 16, "\"steps_passed\":2"), back));
    wrong = good;
    CHECK_FALSE(TestRecord::read(wrong.replace(wrong.find("\"number\":2"), 10, "\"number\":3"), back));
    CHECK_FALSE(TestRecord::read("{\"record\":\"program\",\"steps\":[]}", back));
    CHECK_FALSE(TestRecord::read(std::string(100, '[') + std::string(100, ']'), back));  // nested past 32
    json::Value v;
    CHECK(json::parse(" {\"a\":[1,-2.5e3,true,false,null,\"\\u0041\\u00e9\"]} ", v));
    CHECK(v["a"][1].num == -2500);
    CHECK(v["a"][5].text == "A\xC3\xA9");
    CHECK(v["missing"]["deeper"][3].text.empty());
    CHECK(json::quote("a\"b\\c\n\x1f") == "\"a\\\"b\\\\c\\n\\u001f\"");
}

TEST_CASE("host: records: an exercise program's record lists every row's outcome, as JSON") {
    Measurements m(TableSpec{});
    RowResult a;
    a.section = "2^25 \"floats\"", a.step = "3", a.name = "sequential", a.status = RowResult::ok, a.detail = "max error 0";
    RowResult b;
    b.section = a.section, b.step = "-", b.name = "CUB", b.kind = RowKind::baseline, b.status = RowResult::failed;
    m.add(a);
    m.add(b);
    json::Value v;
    REQUIRE(json::parse(m.record(1), v));
    CHECK(v["record"].text == "program");
    REQUIRE(v["rows"].items.size() == 2);
    CHECK(v["rows"][0]["section"].text == "2^25 \"floats\"");
    CHECK(v["rows"][0]["status"].text == "ok");
    CHECK(v["rows"][1]["kind"].text == "baseline");
    CHECK(v["rows"][1]["status"].text == "failed");
    CHECK(v["ranges"].is_array());
    CHECK(v["failures"].num == 1);
}
