// test_main.cpp: the one doctest main, compiled once and linked into every test program.
//
// Before running, it looks for a usable GPU. With none, test cases marked needs_gpu() are left
// out (reported as skipped, with the reason), unless REQUIRE_GPU=1 is set: then the run fails,
// because a verification run on a GPU machine must not silently skip anything. REQUIRE_GPUS=N
// (N > 1 for cases that need several GPUs) also fails a machine with fewer than N GPUs.
// A word it does not know, and a --out report file that the course's rule for written files
// refuses (output_file.h: in the course's sources, a link into the course, another kind of file,
// a FIFO, ...), get one line and exit code 2 before anything runs; a COURSE_STEPS_LOG it refuses
// gets a note, and the run is not recorded.
// At the end it prints two lines for people:
//   steps: 2 of 3 passed (step 1 one_block: ok; step 2 many_blocks: ok; step 3 grid_stride: FAILED)
//   result: 12 passed, 5 failed, 3 skipped
// and leaves the same as a record for the course's tools (records.h): the whole record in the
// file COURSE_RECORD names (make status, make check), and one line of it appended to the file
// COURSE_STEPS_LOG names (make test-NN with your starter sets it: make hint-NN starts at the
// first step that has not passed yet). No tool reads the lines printed.
#define DOCTEST_CONFIG_IMPLEMENT
#include "testing.h"

#include <fstream>

#include "options.h"      // Options::printable
#include "output_file.h"  // why_not_output_file
#include "records.h"
#include "require_gpu.h"  // the one check of REQUIRE_GPU(S)

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

struct StepResult {
    int passed = 0, failed = 0, skipped = 0;
    int no_gpu = 0;  // cases left out for lack of a GPU: the step is not known to pass
};

struct Tally {
    int passed = 0, failed = 0, skipped = 0;
    std::vector<std::string> skips;  // SKIP_CASE reasons, each once
    long long matching = -1;         // --count: the cases the filters pass
    std::map<std::string, StepResult> steps;  // by label

    StepResult* step(const std::string& name) {
        std::string s = step_of_case(name);
        return s.empty() ? nullptr : &steps[s];
    }
};

Tally& tally() {
    static Tally t;
    return t;
}

// The name filters given on the command line (-tc, -tce), so that a GPU case left out for lack
// of a GPU counts as skipped only if the user's filters would have run it: a filter that
// matches nothing must not pass as "0 passed, 0 failed, 20 skipped".
struct NameFilters {
    std::vector<std::string> include, exclude;
    bool gpu_missing = false;

    static bool any(const std::vector<std::string>& patterns, const char* name) {
        for (const auto& p : patterns)
            if (test_name_matches(p.c_str(), name)) return true;
        return false;
    }
    bool would_run(const char* name) const {
        return (include.empty() || any(include, name)) && !any(exclude, name);
    }
    void add(const std::string& arg) {
        std::string name = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
        if (name.rfind("dt-", 0) == 0) name = name.substr(3);
        const size_t eq = name.find('=');
        if (eq == std::string::npos) return;
        std::vector<std::string>* list = nullptr;
        const std::string key = name.substr(0, eq);
        if (key == "tc" || key == "test-case") list = &include;
        if (key == "tce" || key == "test-case-exclude") list = &exclude;
        if (!list) return;
        std::string values = name.substr(eq + 1);
        for (size_t start = 0; start <= values.size();) {
            size_t comma = values.find(',', start);
            if (comma == std::string::npos) comma = values.size();
            list->push_back(values.substr(start, comma - start));
            start = comma + 1;
        }
    }
};

NameFilters& filters() {
    static NameFilters f;
    return f;
}

struct SummaryListener : doctest::IReporter {
    explicit SummaryListener(const doctest::ContextOptions&) {}
    std::string current;

    void test_case_start(const doctest::TestCaseData& tc) override {
        current = tc.m_name;
        course_testing::skip_reason().clear();
    }
    void test_case_end(const doctest::CurrentTestCaseStats& st) override {
        Tally& t = tally();
        StepResult* s = t.step(current);
        const std::string& reason = course_testing::skip_reason();
        if (!reason.empty() && st.testCaseSuccess) {
            ++t.skipped;
            if (s) ++s->skipped;
            if (std::find(t.skips.begin(), t.skips.end(), reason) == t.skips.end()) t.skips.push_back(reason);
        } else if (st.testCaseSuccess) {
            ++t.passed;
            if (s) ++s->passed;
        } else {
            ++t.failed;
            if (s) ++s->failed;
        }
    }
    void test_case_skipped(const doctest::TestCaseData& tc) override {
        // Only GPU cases that the filters would have run are "skipped"; the rest were not asked for.
        const NameFilters& f = filters();
        if (!f.gpu_missing || std::string(tc.m_test_suite) != "gpu" || !f.would_run(tc.m_name)) return;
        Tally& t = tally();
        ++t.skipped;
        if (StepResult* s = t.step(tc.m_name)) ++s->skipped, ++s->no_gpu;
    }
    void report_query(const doctest::QueryData& q) override {
        if (q.run_stats) tally().matching = q.run_stats->numTestCasesPassingFilters;
    }
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
};

}  // namespace

REGISTER_LISTENER("course_summary", 1, SummaryListener);

std::vector<const doctest::detail::TestCase*> course_testing::registered_tests() {
    std::vector<const doctest::detail::TestCase*> all;
    for (const auto& tc : doctest::detail::getRegisteredTests()) all.push_back(&tc);
    return all;
}

// doctest's wildcards (* any text, ? one character, any case), matched in one pass with one
// place to come back to (the last *): at most |pattern| x |name| steps, never exponential, so
// a filter such as -tc='*?*?*?*?*?*?*?*?*#' ends at once.
bool test_name_matches(const char* pattern, const char* name) {
    const char* star = nullptr;  // the last * seen, and where in the name it began to match
    const char* resume = nullptr;
    auto same = [](char a, char b) { return std::tolower((unsigned char)a) == std::tolower((unsigned char)b); };
    while (*name) {
        if (*pattern == '*') {
            star = pattern++;
            resume = name;
        } else if (*pattern && (*pattern == '?' || same(*pattern, *name))) {
            ++pattern;
            ++name;
        } else if (star) {  // the last * takes one more character
            pattern = star + 1;
            name = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*') ++pattern;
    return *pattern == '\0';
}

// doctest ignores options it does not know, so a typo such as --test-cse=x would run every
// case and pass. These are the names doctest 2.4 knows (long and short, without "dt-").
bool is_doctest_option(std::string arg) {
    static const char* known[] = {
        "?", "help", "h", "version", "v", "count", "c", "list-test-cases", "ltc", "list-test-suites", "lts",
        "list-reporters", "lr", "test-case", "tc", "test-case-exclude", "tce", "source-file", "sf",
        "source-file-exclude", "sfe", "test-suite", "ts", "test-suite-exclude", "tse", "subcase", "sc",
        "subcase-exclude", "sce", "reporters", "r", "out", "o", "order-by", "ob", "rand-seed", "rs", "first",
        "f", "last", "l", "abort-after", "aa", "subcase-filter-levels", "scfl", "success", "s",
        "case-sensitive", "cs", "exit", "e", "duration", "d", "minimal", "m", "quiet", "q", "no-throw", "nt",
        "no-exitcode", "ne", "no-run", "nr", "no-intro", "ni", "no-version", "nv", "no-colors", "nc",
        "force-colors", "fc", "no-breaks", "nb", "no-skip", "ns", "gnu-file-line", "gfl",
        "no-path-filenames", "npf", "no-line-numbers", "nln", "no-debug-output", "ndo",
        "no-skipped-summary", "nss", "no-time-in-output", "ntio"};
    if (arg.rfind("-", 0) != 0) return false;
    arg = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
    if (arg.rfind("dt-", 0) == 0) arg = arg.substr(3);
    arg = arg.substr(0, arg.find('='));
    for (const char* k : known)
        if (arg == k) return true;
    return false;
}

// The files a test program writes: doctest's report (--out) and the record of your progress
// (COURSE_STEPS_LOG), each under the course's rule for every file a program writes (output_file.h).
std::vector<std::pair<std::string, std::string>>& outputs() {
    static std::vector<std::pair<std::string, std::string>> claimed;
    return claimed;
}

// doctest's report file (--out=FILE, -o=FILE). "" or why not.
std::string why_not_report_file(std::string arg) {
    arg = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
    if (arg.rfind("dt-", 0) == 0) arg = arg.substr(3);
    const size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    if ((key != "out" && key != "o") || eq == std::string::npos) return "";
    const std::string path = arg.substr(eq + 1);
    if (path.empty()) return "--out: needs a file name (got an empty one)";
    std::string why = why_not_output_file(path, ".txt .log .xml");
    if (why.empty()) why = why_same_output(outputs(), "--out", path);
    return why.empty() ? "" : "--out: " + why;
}

// COURSE_STEPS_LOG: the progress file `make test-NN` with your starter names, to which the
// run's record is appended (the course tool's run sets it; make hint-NN and make status read it);
// COURSE_RECORD: the file of this run's whole record (the course's tools set it). "" or why not.
std::string why_not_record_file(const char* variable, const char* path, const char* extension) {
    if (!path || !*path) return "";
    std::string why = why_not_output_file(path, extension);
    if (why.empty()) why = why_same_output(outputs(), variable, path);
    return why.empty() ? "" : std::string(variable) + ": " + why;
}
std::string why_not_steps_log(const char* log) { return why_not_record_file("COURSE_STEPS_LOG", log, ".steps"); }

// The run's record, to COURSE_RECORD (checked before the run) when it is set.
const char*& record_file() {
    static const char* path = nullptr;
    return path;
}
void write_record(const TestRecord& r) {
    if (!record_file()) return;
    std::ofstream out(record_file(), std::ios::binary | std::ios::trunc);
    out << r.json() << "\n";
}
// A record of a suite that stopped before running (its errors), with its result line.
int stopped(const std::vector<std::string>& errors) {
    TestRecord r;
    r.errors = errors;
    r.failed = (int)errors.size();
    write_record(r);
    std::printf("result: %s\n", r.counts().c_str());
    return 1;
}

// An exercise without predictions has no answers.cpp: its list is empty.
__attribute__((weak)) const std::vector<Answer>& prediction_answers() {
    static const std::vector<Answer> none;
    return none;
}

int main(int argc, char** argv) {
    // make check: `tests --check-reading-path FILE...` fails when an answer of answers.cpp stands
    // in one of the files (the reading path; answers.h). Runs nothing else, needs no GPU.
    if (argc > 1 && std::string(argv[1]) == "--check-reading-path") {
        const std::vector<std::string> leaks = reading_path_leaks(std::vector<std::string>(argv + 2, argv + argc));
        for (const auto& l : leaks) std::printf("%s\n", l.c_str());
        return leaks.empty() ? 0 : 1;
    }
    for (int i = 1; i < argc; ++i) {
        filters().add(argv[i]);
        if (!is_doctest_option(argv[i])) {
            std::printf("error: '%s' is not a test option (filters look like -tc=\"step 2*\"; --help lists them)\n",
                        Options::printable(argv[i]).c_str());
            return 2;
        }
        const std::string why = why_not_report_file(argv[i]);
        if (!why.empty()) {
            std::printf("error: %s\n", why.c_str());
            return 2;
        }
    }
    // Checked before anything runs (a FIFO there would block the summary, a link could lead
    // anywhere): a record that cannot be kept is not kept, and the tests run all the same.
    const char* steps_log = std::getenv("COURSE_STEPS_LOG");
    const std::string steps_log_problem = why_not_steps_log(steps_log);
    if (!steps_log_problem.empty()) {
        std::printf("note: this run is not recorded (make hint-NN will not know it): %s\n", steps_log_problem.c_str());
        steps_log = nullptr;
    }
    record_file() = std::getenv("COURSE_RECORD");
    const std::string record_problem = why_not_record_file("COURSE_RECORD", record_file(), ".json");
    if (!record_problem.empty()) {
        std::printf("note: this run leaves no record: %s\n", record_problem.c_str());
        record_file() = nullptr;
    }
    // A case that names a step kSteps does not declare, or a "step ..." case typed by hand
    // instead of STEP_CASE: the suite would report a phantom step, so it does not start.
    std::vector<std::string> errors = course_testing::registration_errors();
    for (const auto* tc : course_testing::registered_tests()) {
        if (step_of_case(tc->m_name).empty() || tc->m_test == course_testing::run_registered_case) continue;
        std::string file = tc->m_file.c_str();
        file = file.substr(file.find_last_of('/') + 1);
        errors.push_back(file + ":" + std::to_string(tc->m_line) + ": the case '" + tc->m_name +
                         "' types its step by hand: write it as STEP_CASE(kSteps, \"name\", \"what it checks\")");
    }
    if (!errors.empty()) {
        for (const auto& e : errors) std::printf("error: %s\n", e.c_str());
        return stopped(errors);
    }

    doctest::Context context;
    context.setOption("no-path-filenames", true);
    context.applyCommandLine(argc, argv);

    // REQUIRE_GPUS=N: a machine with fewer than N usable GPUs fails the suite at once, so that a
    // case needing several GPUs cannot skip on a machine meant to have them. (Unset or empty: 0.)
    const char* require = std::getenv("REQUIRE_GPU");
    const char* require_n = std::getenv("REQUIRE_GPUS");
    const std::string require_text = require ? require : "", require_n_text = require_n ? require_n : "";
    for (const std::string& problem : {require_text.empty() ? "" : require_gpu_problem(require_text),
                                       require_n_text.empty() ? "" : require_gpus_problem(require_n_text)})
        if (!problem.empty()) {
            std::printf("error: %s\n", problem.c_str());
            return 2;
        }
    const int required_gpus = require_n_text.empty() ? 0 : std::atoi(require_n_text.c_str());
    const bool require_gpu = require_text == "1" || required_gpus > 0;
    GpuPresence gpu = probe_gpu();
    if (gpu.usable && required_gpus > 0) {
        int count = 0;
        CUDA_CHECK(cudaGetDeviceCount(&count));
        if (count < required_gpus) {
            const std::string error = "REQUIRE_GPUS=" + std::to_string(required_gpus) + " but this machine has " +
                                      std::to_string(count) + " usable GPU" + (count == 1 ? "" : "s");
            std::printf("error: %s\n", error.c_str());
            return stopped({error});
        }
    }
    if (!gpu.usable) {
        if (require_gpu) {
            const std::string error = (required_gpus > 0 ? "REQUIRE_GPUS=" + require_n_text : std::string("REQUIRE_GPU=1")) +
                                      " but there is no usable GPU: " + gpu.reason;
            std::printf("error: %s\n", error.c_str());
            return stopped({error});
        }
        std::printf("note: GPU test cases are skipped: %s\n", gpu.reason.c_str());
        filters().gpu_missing = true;
        context.addFilter("test-suite-exclude", "gpu");
    }

    int rc = context.run();
    const Tally& t = tally();
    if (context.shouldExit()) {  // --help, --list-test-cases, --count and the like
        if (t.matching >= 0) {
            TestRecord r;
            r.matching = t.matching;
            write_record(r);
        }
        return rc;
    }

    // The declared steps (DECLARE_STEPS, STEP_CASES), in order (test cases name no other step:
    // see the check above). A step none of whose cases ran is "not run".
    TestRecord record;
    for (const auto& d : course_testing::declared_steps()) {
        const auto found = t.steps.find(d.label());
        const StepResult s = found == t.steps.end() ? StepResult{} : found->second;
        // A step whose GPU cases could not run is not known to pass, whatever its host cases say.
        const char* state = s.failed ? "failed" : s.no_gpu ? "needs a GPU" : s.passed ? "ok" : "not run";
        record.steps.push_back({d.number, d.name, state});
    }
    record.passed = t.passed, record.failed = t.failed, record.skipped = t.skipped;
    record.skips = t.skips;
    if (filters().gpu_missing) record.no_gpu = gpu.reason;
    if (!record.steps.empty()) {
        std::printf("steps: %s (%s)\n", record.steps_count().c_str(), record.steps_detail().c_str());
        // `make test-NN` with your starter names a file here: make hint-NN and make status read
        // your progress from it (build/common/course). One complete line in one write: a record
        // cut short never swallows the next one.
        if (steps_log && *steps_log && !append_line(steps_log, record.json(true)))
            std::printf("note: could not record these steps in '%s' (make hint-NN will not know them)\n",
                        Options::printable(steps_log, Options::kPathChars).c_str());
    }
    std::printf("result: %s\n", record.counts().c_str());
    write_record(record);
    if (t.passed + t.failed + t.skipped == 0) {
        std::printf("error: no test case matched the filters given (see --list-test-cases)\n");
        return 2;
    }
    return rc != 0 ? rc : (t.failed ? 1 : 0);
}
