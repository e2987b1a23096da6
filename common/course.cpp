// course.cpp: the course tool (build/common/course), the bookkeeping behind make's targets. It
// reads the records the programs and test programs leave (records.h, measure.h), never the lines
// they print for people; the processes it starts are the course's own (make, a test program).
//
//   course status NN_x...                 make status: per exercise, does your starter build,
//                                         steps passed, test cases, hints used
//   course check common NN_x... SUITES    make check's runs and counts (below), ending with
//                                         "check: N passed, N failed, N skipped"
//   course hint show|check NN NN_x...     make hint-NN (hints.h); check: the arguments only, one
//                                         line naming the problem or nothing
//   course hint used NN_x                 make status's hints column
//   course hint lint NN_x                 hints.md against the steps its solution's tests declare
//   course record FILE ranges|matching    a program record's NVTX ranges of steps (make profile-NN)
//                                         or how many test cases the filters pass (make sanitize)
//   course test                           the tool's own tests (course_tests.cpp), through make
//   course bad-input                      the bad-input suite (bad_input.cpp)
//   course settings DIR                   make's settings, checked while make reads the Makefile
//   course run [--timeout] [--record NN_x] PROGRAM WORDS...   a program with the words of ARGS
//                                         (make run/test/bench/profile; settings.cpp says both)
//
// make check, for each exercise folder NN_x:
//   1. the committed starter.cu must equal the one generated from solution.cu (under CI or
//      STRICT_STARTERS=1 a difference is an error; otherwise a note, since students edit theirs);
//   2. the tests pass against solution.cu; its hints.md follows the rules of each level and has
//      the steps the tests declare (hints.h); no prediction's answer (its answers.cpp) stands in
//      the reading path (tests --check-reading-path, common/answers.h);
//   3. on a GPU, the tests FAIL against the untouched starter, every step of it: a suite that
//      passes on it could not tell a finished exercise from an unfinished one.
// "common" is the shared helpers' host tests. A SUITE is a script (bash) or one of this tool's own,
// "bad-input" or "tool-tests"; it writes a suite record to the file COURSE_RECORD names:
//   {"record":"suite","name":"bad input","cases":{"passed":P,"failed":F,"skipped":S},
//    "groups":[{"name":"02_scalar_multiply","cases":194,"passed":194}],"skips":["why"],"failures":["what"]}
// A suite or test program that leaves no record (it crashed or was stopped) counts as one failure.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "hints.h"
#include "json.h"
#include "records.h"

namespace fs = std::filesystem;

// ---- processes and files ----------------------------------------------------------------------
std::string sh_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return out + "'";
}
// Runs a shell command line; its exit code as the shell gives it (128 + N for a signal).
int run(const std::string& command) {
    std::fflush(stdout);
    const int status = std::system(command.c_str());
    if (status == -1) return 127;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}
std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}
std::string last_lines(const std::string& text, size_t n) {
    const std::vector<std::string> all = lines_of(text);
    std::string out;
    for (size_t i = all.size() > n ? all.size() - n : 0; i < all.size(); ++i) out += all[i] + "\n";
    return out;
}
std::string first_line(const std::string& path) {
    const std::string text = read_all(path);
    return text.substr(0, text.find('\n'));
}
std::string env(const char* name, const std::string& otherwise = "") {
    const char* v = std::getenv(name);
    return v && *v ? v : otherwise;
}
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[4096];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

// A folder of the tool's own for the records and outputs of what it runs, removed at the end.
struct Scratch {
    std::string dir;
    Scratch() {
        std::string pattern = env("TMPDIR", "/tmp") + "/course.XXXXXX";
        if (mkdtemp(&pattern[0])) dir = pattern;
    }
    ~Scratch() {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
    std::string file(const std::string& name) const { return dir + "/" + name; }
};

// One run of a test program (make status, make check): its output, exit code and record.
struct TestRun {
    int rc = 0;
    std::string out;
    bool recorded = false;
    TestRecord record;
    int passed = 0, failed = 0, skipped = 0;
};
TestRun run_tests(const Scratch& scratch, const std::string& program, const std::vector<std::string>& args,
                  const std::string& steps_log = "") {
    const std::string timeout = env("TEST_TIMEOUT", "300");
    const std::string record = scratch.file("tests.json"), out = scratch.file("tests.out");
    std::error_code ec;
    fs::remove(record, ec);
    std::string command = "env COURSE_RECORD=" + sh_quote(record);
    if (!steps_log.empty()) command += " COURSE_STEPS_LOG=" + sh_quote(steps_log);
    command += " timeout -k 5 " + sh_quote(timeout) + " " + sh_quote(program);
    for (const auto& a : args) command += " " + sh_quote(a);
    TestRun r;
    r.rc = run(command + " >" + sh_quote(out) + " 2>&1");
    r.out = read_all(out);
    r.recorded = TestRecord::read(first_line(record), r.record);
    if (r.recorded) {
        r.passed = r.record.passed, r.failed = r.record.failed, r.skipped = r.record.skipped;
    } else {  // no record: the program crashed, was stopped, or is not a course test program
        r.failed = 1;
        r.out += "(no record: the test program did not finish; exit code " + std::to_string(r.rc) + ")\n";
    }
    if (r.rc != 0 && r.failed == 0) r.failed = 1;  // crashed, timed out, or failed to start
    if (r.rc == 124 || r.rc == 137) r.out += "(stopped after " + timeout + " s: a kernel is probably stuck)\n";
    return r;
}

// ---- make status ------------------------------------------------------------------------------
int status(const std::vector<std::string>& exercises) {
    const std::string progress = env("COURSE_PROGRESS_DIR", ".progress");
    std::error_code ec;
    fs::create_directories("build", ec);
    fs::create_directories(progress, ec);
    Scratch scratch;
    // Each build's output goes to build/status-NN_x.log, or, where build/ cannot be written, to a
    // folder of its own (said once, above the table): a row never points at a log not written.
    std::string logs = "build";
    if (!fs::is_directory("build", ec) || access("build", W_OK | X_OK) != 0) {
        std::string kept = env("TMPDIR", "/tmp") + "/course-status.XXXXXX";
        logs = mkdtemp(&kept[0]) ? kept : "";
        if (!logs.empty())
            std::printf("(build/ cannot be written here: the build logs go to %s/)\n", hints::printable(logs, 400).c_str());
        else
            std::printf("(build/ cannot be written here, nor a folder under %s: no build logs are kept)\n",
                        env("TMPDIR", "/tmp").c_str());
    }
    auto row = [](const std::string& a, const std::string& b, const std::string& c, const std::string& d, const std::string& e) {
        std::printf("| %-20s | %-8s | %-14s | %-32s | %s\n", a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str());
    };
    row("exercise", "builds", "steps passed", "test cases", "hints used");
    std::printf("|%s|%s|%s|%s|%s\n", "----------------------", "----------", "----------------",
                "----------------------------------", "------------");
    bool no_gpu = false;
    for (const auto& ex : exercises) {
        const std::string used = hints::used(progress, ex);
        const std::string log = logs.empty() ? "" : logs + "/status-" + ex + ".log";
        const std::string tests = "build/" + ex + "/starter/tests";
        if (run("make --no-print-directory " + sh_quote(tests) + " >" + sh_quote(log.empty() ? "/dev/null" : log) + " 2>&1") != 0) {
            row(ex, "NO", "-", log.empty() ? "" : "see " + hints::printable(log, 400), used);
            continue;
        }
        const TestRun r = run_tests(scratch, tests, {}, progress + "/" + ex + ".steps");
        const std::string steps = r.recorded && !r.record.steps.empty()
                                      ? std::to_string(r.record.steps_passed()) + " of " + std::to_string(r.record.steps.size())
                                      : "-";
        no_gpu = no_gpu || (r.recorded && !r.record.no_gpu.empty());
        row(ex, "yes", steps, r.recorded ? r.record.counts() : "the tests did not finish (crash or timeout)", used);
    }
    if (no_gpu) std::printf("(no GPU here: the GPU test cases were skipped)\n");
    return 0;
}

// ---- make check -------------------------------------------------------------------------------
struct Suite {
    std::string name;
    int passed = 0, failed = 0, skipped = 0;
    std::vector<std::pair<std::string, std::pair<long long, long long>>> groups;  // name, cases, passed
    std::vector<std::string> skips, failures;
    bool read(const std::string& text) {
        json::Value v;
        if (!json::parse(text, v) || v["record"].text != "suite" || !v["name"].is_string()) return false;
        name = v["name"].text;
        passed = (int)v["cases"]["passed"].whole(0, 1 << 30);
        failed = (int)v["cases"]["failed"].whole(0, 1 << 30);
        skipped = (int)v["cases"]["skipped"].whole(0, 1 << 30, 0);
        if (passed < 0 || failed < 0 || skipped < 0) return false;
        for (const auto& g : v["groups"].items) groups.push_back({g["name"].text, {g["cases"].whole(0, 1LL << 40, 0), g["passed"].whole(0, 1LL << 40, 0)}});
        for (const auto& s : v["skips"].items) skips.push_back(s.text);
        for (const auto& f : v["failures"].items) failures.push_back(f.text);
        return true;
    }
};

int check(const std::vector<std::string>& args, const std::string& self) {
    Scratch scratch;
    const bool strict = !env("STRICT_STARTERS").empty() || env("CI") == "true";
    int passed = 0, failed = 0, skipped = 0, hints_passed = 0, hints_failed = 0;
    std::vector<std::string> problems, suites;
    std::string skip_note;
    for (const auto& ex : args) {
        if (ex.size() > 3 && ex.compare(ex.size() - 3, 3, ".sh") == 0) {
            suites.push_back(ex);
            continue;
        }
        if (ex == "tool-tests" || ex == "bad-input") {
            suites.push_back(ex);
            continue;
        }
        if (ex == "common") {  // the shared helpers' own host tests
            const TestRun r = run_tests(scratch, "build/common/tests", {});
            passed += r.passed, failed += r.failed, skipped += r.skipped;
            std::printf("%-22s %3d passed, %d failed, %d skipped\n", "common/", r.passed, r.failed, r.skipped);
            if (r.failed) std::printf("%s", last_lines(r.out, 40).c_str());
            continue;
        }
        // 1. starter generated from the solution
        if (run("awk -f common/make_starter.awk " + sh_quote(ex + "/solution.cu") + " | cmp -s - " + sh_quote(ex + "/starter.cu")) != 0) {
            if (strict) {
                problems.push_back(ex + "/starter.cu is not what common/make_starter.awk makes of solution.cu (regenerate it)");
                ++failed;
            } else {
                std::printf("note: %s/starter.cu differs from the generated starter (expected once you have started on it)\n", ex.c_str());
            }
        }
        // 2. the solution passes
        const TestRun sol = run_tests(scratch, "build/" + ex + "/solution/tests", {});
        if (skip_note.empty() && sol.recorded && !sol.record.no_gpu.empty())
            skip_note = "GPU test cases are skipped: " + sol.record.no_gpu;
        passed += sol.passed, failed += sol.failed, skipped += sol.skipped;
        std::printf("%-22s solution: %3d passed, %d failed, %d skipped\n", ex.c_str(), sol.passed, sol.failed, sol.skipped);
        if (sol.failed) {
            std::printf("---- %s: output of the failing run (last 40 lines) ----\n%s----\n", ex.c_str(), last_lines(sol.out, 40).c_str());
        }
        // 2b. its hints cover the steps the tests declare, and keep each level's rules
        std::string hint_problem = ex + ": its tests left no record of their steps, so its hints.md cannot be checked against its steps";
        if (sol.recorded) {
            std::vector<std::string> declared;
            for (const auto& s : sol.record.steps) declared.push_back(s.label());
            hint_problem = hints::lint(ex, declared);
        }
        if (hint_problem.empty()) {
            ++hints_passed;
        } else {
            ++hints_failed;
            problems.push_back(hint_problem);
        }
        // 2c. no prediction's answer (answers.cpp) stands where a student reads before answering:
        //     the pages, the generated starter, the headers, the hints, the other sources
        std::vector<std::string> reading = {"--check-reading-path", ex + "/README.md", ex + "/LECTURE.md", ex + "/hints.md",
                                            "build/" + ex + "/pristine.cu"};
        std::vector<std::string> sources;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(ex, ec)) {
            const std::string name = entry.path().filename().string();
            const std::string ext = entry.path().extension().string();
            if ((ext == ".h" || ext == ".cu" || ext == ".cpp") && name != "solution.cu" && name != "starter.cu" &&
                name != "answers.cpp" && entry.is_regular_file(ec))
                sources.push_back(ex + "/" + name);
        }
        std::sort(sources.begin(), sources.end());
        reading.insert(reading.end(), sources.begin(), sources.end());
        std::string command = sh_quote("build/" + ex + "/solution/tests");
        for (const auto& r : reading) command += " " + sh_quote(r);
        const std::string leaks = scratch.file("leaks.out");
        if (run(command + " >" + sh_quote(leaks) + " 2>&1") == 0) {
            ++passed;
        } else {
            ++failed;
            for (const auto& l : lines_of(read_all(leaks))) problems.push_back(l);
        }
        // 3. the untouched starter fails, every step of it (only where the GPU cases ran); its
        //    "(large)" cases would only fail more slowly
        const TestRun pri = run_tests(scratch, "build/" + ex + "/pristine/tests", {"--test-case-exclude=*(large)*"});
        if (!pri.recorded) {
            problems.push_back(ex + ": the tests of the untouched starter did not finish (exit code " + std::to_string(pri.rc) +
                               "): a crash is not an expected failure");
            ++failed;
            std::printf("%s", last_lines(pri.out, 20).c_str());
        } else if (!pri.record.no_gpu.empty()) {
            std::printf("%-22s untouched starter: %d expected failures (GPU cases not run here)\n", ex.c_str(), pri.failed);
        } else if (pri.failed == 0) {
            problems.push_back(ex + ": the tests PASS against the untouched starter, so they cannot tell a finished exercise from an unfinished one");
            ++failed;
        } else if (pri.record.steps_passed() != 0) {
            problems.push_back(ex + ": some steps pass against the untouched starter (" + pri.record.steps_count() + " (" +
                               pri.record.steps_detail() + ")): each step's tests must fail until its TODO is done");
            ++failed;
        } else {
            std::printf("%-22s untouched starter: %d expected failures, steps: %s\n", ex.c_str(), pri.failed,
                        pri.record.steps_count().c_str());
        }
    }
    if (hints_passed + hints_failed > 0) std::printf("%-22s %3d passed, %d failed\n", "hints.md", hints_passed, hints_failed);
    passed += hints_passed, failed += hints_failed;
    // The course's own suites: each leaves a suite record; one that leaves none (it crashed or was
    // stopped) counts as one failure, and its last lines are shown.
    for (const auto& s : suites) {
        const std::string record = scratch.file("suite.json"), out = scratch.file("suite.out");
        std::error_code ec;
        fs::remove(record, ec);
        const std::string command = s == "tool-tests" ? sh_quote(self) + " test"
                                    : s == "bad-input"  ? sh_quote(self) + " bad-input"
                                                        : "bash " + sh_quote(s);
        const int rc = run("env COURSE_RECORD=" + sh_quote(record) + " " + command + " >" + sh_quote(out) + " 2>&1");
        Suite suite;
        const bool have = suite.read(first_line(record));
        if (!have) {
            suite = Suite();
            suite.name = s == "tool-tests" ? "course tool" : s == "bad-input" ? "bad input" : fs::path(s).stem().string();
            suite.failed = 1;
        }
        if (rc != 0 && suite.failed == 0) suite.failed = 1;  // no failures recorded, yet it failed
        passed += suite.passed, failed += suite.failed, skipped += suite.skipped;
        for (const auto& g : suite.groups)
            std::printf("%s  %-22s %4lld cases, %4lld passed\n", suite.name.c_str(), g.first.c_str(), g.second.first, g.second.second);
        std::printf("%-22s %3d passed, %d failed%s\n", suite.name.c_str(), suite.passed, suite.failed,
                    suite.skipped > 0 ? (", " + std::to_string(suite.skipped) + " skipped").c_str() : "");
        for (const auto& r : suite.skips) std::printf("%s skipped: %s\n", suite.name.c_str(), r.c_str());
        if (!have) {
            problems.push_back(s + " left no record (exit code " + std::to_string(rc) + "): its last lines are above");
            std::printf("%s", last_lines(read_all(out), 20).c_str());
        } else {
            for (size_t i = 0; i < suite.failures.size() && i < 40; ++i)
                std::printf("%s FAILED: %s\n", suite.name.c_str(), suite.failures[i].c_str());
        }
    }
    if (!skip_note.empty()) std::printf("%s (REQUIRE_GPU=1 makes that a failure)\n", skip_note.c_str());
    for (const auto& p : problems) std::printf("problem: %s\n", p.c_str());
    std::printf("check: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed == 0 ? 0 : 1;
}

// ---- make hint-NN -----------------------------------------------------------------------------
// make hint-NN hands STEP, LEVEL and COURSE_PROGRESS_DIR over in a file, one a line (HINT_SETTINGS),
// so that a value of any length or text arrives as typed.
hints::Settings hint_settings() {
    hints::Settings s;
    const std::string file = env("HINT_SETTINGS");
    std::string progress;
    if (!file.empty()) {
        const std::vector<std::string> lines = lines_of(read_all(file));
        s.step = lines.size() > 0 ? lines[0] : "";
        s.level = lines.size() > 1 ? lines[1] : "";
        progress = lines.size() > 2 ? lines[2] : "";
    } else {
        s.step = env("STEP"), s.level = env("LEVEL"), progress = env("COURSE_PROGRESS_DIR");
    }
    if (!progress.empty()) s.progress = progress;
    return s;
}

int hint(const std::vector<std::string>& args) {
    auto usage = [] {
        std::fprintf(stderr, "usage: course hint show|check NUMBER EXERCISES... | used NN_x | lint NN_x\n");
        return 2;
    };
    if (args.empty()) return usage();
    const std::string what = args[0];
    const hints::Settings set = hint_settings();
    if ((what == "show" || what == "check") && args.size() >= 3) {
        const hints::Choice c = hints::resolve(args[1], std::vector<std::string>(args.begin() + 2, args.end()), set);
        if (what == "check") {
            if (!c.problem.empty()) std::printf("%s\n", c.problem.c_str());
            return 0;
        }
        if (!c.problem.empty()) {
            std::fprintf(stderr, "%s\n", c.problem.c_str());
            return 2;
        }
        std::printf("%s", hints::show(c, set).c_str());
        return 0;
    }
    if (what == "used" && args.size() == 2) {
        std::printf("%s\n", hints::used(set.progress, args[1]).c_str());
        return 0;
    }
    if (what == "lint" && args.size() == 2) {  // the steps from the solution's tests (a filter that runs nothing)
        Scratch scratch;
        const std::string ex = args[1];
        const TestRun r = run_tests(scratch, "build/" + ex + "/solution/tests", {"-tc=*no test case has this name*"});
        if (!r.recorded) {
            std::printf("%s: build/%s/solution/tests left no record of its steps (make build-%s)\n", ex.c_str(), ex.c_str(),
                        ex.substr(0, ex.find('_')).c_str());
            return 1;
        }
        std::vector<std::string> declared;
        for (const auto& s : r.record.steps) declared.push_back(s.label());
        const std::string problem = hints::lint(ex, declared);
        if (!problem.empty()) std::printf("%s\n", problem.c_str());
        return problem.empty() ? 0 : 1;
    }
    return usage();
}

// ---- records for scripts ------------------------------------------------------------------------
int record(const std::vector<std::string>& args) {
    if (args.size() != 2) {
        std::fprintf(stderr, "usage: course record FILE ranges|matching\n");
        return 2;
    }
    json::Value v;
    if (!json::parse(first_line(args[0]), v) || !v.is_object()) return 1;
    if (args[1] == "ranges" && v["record"].text == "program") {  // the steps', each once, in the order first run
        std::vector<std::string> seen;
        for (const auto& r : v["ranges"].items)
            if (r["step"].yes && std::find(seen.begin(), seen.end(), r["label"].text) == seen.end()) seen.push_back(r["label"].text);
        for (const auto& r : seen) std::printf("%s\n", r.c_str());
        return 0;
    }
    if (args[1] == "matching" && v["record"].text == "tests" && v["matching"].whole(0, 1LL << 40) >= 0) {
        std::printf("%lld\n", v["matching"].whole(0, 1LL << 40));
        return 0;
    }
    return 1;
}

int self_test(const std::string& self);        // course_tests.cpp
int bad_input_suite(const std::string& self);  // bad_input.cpp
int settings(const std::vector<std::string>& args);      // settings.cpp
int run_program(std::vector<std::string> args);

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const std::string command = args.empty() ? "" : args[0];
    const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
    const std::string self = fs::absolute(argv[0]).string();
    if (command == "status") return status(rest);
    if (command == "check") return check(rest, self);
    if (command == "hint") return hint(rest);
    if (command == "record") return record(rest);
    if (command == "test" && rest.empty()) return self_test(self);
    if (command == "bad-input" && rest.empty()) return bad_input_suite(self);
    if (command == "settings") return settings(rest);
    if (command == "run") return run_program(rest);
    std::fprintf(stderr, "usage: course status|check|hint|record|test|bad-input|settings|run ... (common/course.cpp says what each does)\n");
    return 2;
}
