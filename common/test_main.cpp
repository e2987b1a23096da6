// test_main.cpp: the one doctest main, compiled once and linked into every test program.
//
// Before running, it looks for a usable GPU. With none, test cases marked needs_gpu() are left
// out (reported as skipped, with the reason), unless REQUIRE_GPU=1 is set: then the run fails,
// because a verification run on a GPU machine must not silently skip anything.
// At the end it prints two lines that `make check` and `make status` read:
//   steps: 2 of 3 passed (step 1 one_block: ok; step 2 many_blocks: ok; step 3 grid_stride: FAILED)
//   result: 12 passed, 5 failed, 3 skipped
#define DOCTEST_CONFIG_IMPLEMENT
#include "testing.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

struct StepResult {
    int passed = 0, failed = 0, skipped = 0;
};

struct Tally {
    int passed = 0, failed = 0, skipped = 0;
    std::vector<std::string> order;  // steps in the order first seen
    std::map<std::string, StepResult> steps;

    // "step 2 many_blocks: n = 10000" -> "step 2 many_blocks"; other names -> "" (not a step)
    static std::string step_of(const std::string& name) {
        if (name.rfind("step ", 0) != 0) return "";
        return name.substr(0, name.find(':'));
    }
    StepResult* step(const std::string& name) {
        std::string s = step_of(name);
        if (s.empty()) return nullptr;
        if (!steps.count(s)) order.push_back(s);
        return &steps[s];
    }
};

Tally& tally() {
    static Tally t;
    return t;
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
        if (!course_testing::skip_reason().empty() && st.testCaseSuccess) {
            ++t.skipped;
            if (s) ++s->skipped;
        } else if (st.testCaseSuccess) {
            ++t.passed;
            if (s) ++s->passed;
        } else {
            ++t.failed;
            if (s) ++s->failed;
        }
    }
    void test_case_skipped(const doctest::TestCaseData& tc) override {
        Tally& t = tally();
        ++t.skipped;
        if (StepResult* s = t.step(tc.m_name)) ++s->skipped;
    }
    void report_query(const doctest::QueryData&) override {}
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

int main(int argc, char** argv) {
    doctest::Context context;
    context.setOption("no-path-filenames", true);
    context.applyCommandLine(argc, argv);

    const char* require = std::getenv("REQUIRE_GPU");
    const bool require_gpu = require && std::string(require) == "1";
    GpuPresence gpu = probe_gpu();
    if (!gpu.usable) {
        if (require_gpu) {
            std::printf("error: REQUIRE_GPU=1 but there is no usable GPU: %s\n", gpu.reason.c_str());
            std::printf("result: 0 passed, 1 failed, 0 skipped\n");
            return 1;
        }
        std::printf("note: GPU test cases are skipped: %s\n", gpu.reason.c_str());
        context.addFilter("test-suite-exclude", "gpu");
    }

    int rc = context.run();
    if (context.shouldExit()) return rc;  // --help, --list-test-cases and the like

    const Tally& t = tally();
    int steps_passed = 0;
    std::string detail;
    for (const auto& name : t.order) {
        const StepResult& s = t.steps.at(name);
        const char* state = s.failed ? "FAILED" : s.passed ? "ok" : "not run";
        if (s.failed == 0 && s.passed > 0) ++steps_passed;
        detail += (detail.empty() ? "" : "; ") + name + ": " + state;
    }
    if (!t.order.empty())
        std::printf("steps: %d of %zu passed (%s)\n", steps_passed, t.order.size(), detail.c_str());
    std::printf("result: %d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
    return rc != 0 ? rc : (t.failed ? 1 : 0);
}
