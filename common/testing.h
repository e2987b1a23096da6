// testing.h: what every exercise's tests.cpp includes.
//
// Conventions (see the top-level README, "How the tests work"):
// - The exercise's steps are declared once, in its header (steps.h). tests.cpp names them:
//       DECLARE_STEPS(kSteps);
//   so that the summary line lists every step ("steps: 2 of 4 passed (...)"), run or not.
// - Cases that every step must pass are registered once for all of them:
//       STEP_CASES(kSteps, "sizes 0 to 2^24+3, block 256", [](const auto& step) { ... step.run ... });
//       STEP_CASES_FROM(kSteps, 2, "block sizes 32 to 1024", ...);   // steps 2 and later
//       STEP_CASES_RANGE(kSteps, 1, 3, "a NaN gives NaN", ...);       // steps 1 to 3
//   Each becomes one GPU test case per step, named "step N name: what".
// - A case of one step names the step as kSteps does, and takes its label from there:
//       STEP_CASE(kSteps, "many_blocks", "n = 10000") { ... step.run ... }       // needs a GPU
//       STEP_HOST_CASE(kSteps, "bandwidth", "H100 SXM: 3352 GB/s") { ... }      // runs anywhere
//   becomes the case "step 2 many_blocks: n = 10000", with `step` the declared step. A name that
//   kSteps does not declare fails the whole suite when it starts; no "step N name" is typed by
//   hand (test_main.cpp refuses a plain TEST_CASE whose name begins with "step ").
//   A GPU case is skipped with the reason when there is no usable GPU; REQUIRE_GPU=1 turns that
//   into a failure. Cases of no step are named "host: ..." (or "gpu: ..." with needs_gpu()).
// - A prediction the student derives on paper is a named constant in starter.cu, checked in a
//   case of the step it belongs to against its answer in the exercise's answers.cpp (answers.h):
//       check_prediction("kAtomicsIssued", kAtomicsIssued, "one atomic per block, not per thread");
//   A wrong value says "not yet" and what to revisit, never the expected number.
// - A case too big for compute-sanitizer puts "(large)" in its name; `make sanitize` leaves
//   those out.
// - SKIP_CASE("reason") ends a case early and counts it as skipped (e.g. not enough GPU memory).
// - `make sanitize` runs the tests with COURSE_SANITIZE=1. A sanitizer looks for bad accesses,
//   races and missing barriers: each code path once, not each repetition of it. A case that
//   repeats one path many times asks for less there, e.g. generations = sanitizing(100, 10).
#pragma once

#include <climits>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>
#include <doctest/doctest.h>

#include "answers.h"
#include "buffer.h"
#include "compare.h"
#include "cuda_check.h"
#include "gpu.h"
#include "memory.h"
#include "steps.h"

inline doctest::test_suite needs_gpu() { return doctest::test_suite("gpu"); }

// The test-name filter of test_main.cpp (-tc, -tce): doctest's wildcards, * and ?, any case.
bool test_name_matches(const char* pattern, const char* name);

// `full` in a normal run, `lighter` under make sanitize (COURSE_SANITIZE=1): see above.
inline bool under_sanitizer() {
    const char* s = std::getenv("COURSE_SANITIZE");
    return s && std::string(s) == "1";
}
template <class T>
T sanitizing(T full, T lighter) {
    return under_sanitizer() ? lighter : full;
}

namespace course_testing {
// Set by SKIP_CASE, read (and cleared) by the summary listener in test_main.cpp.
inline std::string& skip_reason() {
    static std::string reason;
    return reason;
}

// Every declared step, in order: the summary's list of steps (and the record's, records.h).
struct DeclaredStep {
    int number;
    std::string name;
    std::string label() const { return step_label(number, name); }
};
inline std::vector<DeclaredStep>& declared_steps() {
    static std::vector<DeclaredStep> steps;
    return steps;
}

template <class Fn, class Info, size_t N>
int declare_steps(const Step<Fn, Info> (&steps)[N]) {
    auto& all = declared_steps();
    for (const auto& s : steps) {
        bool known = false;
        for (const auto& d : all) known = known || d.label() == step_label(s.number, s.name);
        if (!known) all.push_back({s.number, s.name});
    }
    return 0;
}

// Cases registered at run time: doctest calls one function for all of them, which finds the
// case's body by the id stored in the test case.
// doctest has no public way to add a case at run time, so this glue (and test_main.cpp's look at
// the registered cases) uses doctest::detail: TestCase, regTest, getRegisteredTests and the
// fields m_template_id and m_full_name. It is pinned to doctest 2.4 (the course is built and
// tested with 2.4.9) and tested by common/tests.cpp ("host: testing.h: ..."): another doctest
// stops the build here, with this line, instead of registering cases wrongly.
static_assert(DOCTEST_VERSION_MAJOR == 2 && DOCTEST_VERSION_MINOR == 4,
              "testing.h registers cases through doctest 2.4's detail namespace: check it against this doctest");
struct RegisteredCase {
    std::string name;
    std::function<void()> body;
};
inline std::deque<RegisteredCase>& registered_cases() {
    static std::deque<RegisteredCase> cases;
    return cases;
}
// Every registered case, as doctest keeps them (defined in test_main.cpp, where doctest's
// implementation is compiled).
std::vector<const doctest::detail::TestCase*> registered_tests();
inline void run_registered_case() {
    registered_cases().at((size_t)doctest::getContextOptions()->currentTest->m_template_id).body();
}
inline int register_case(const char* file, unsigned line, std::string name, std::function<void()> body,
                         bool gpu = true) {
    auto& cases = registered_cases();
    cases.push_back({std::move(name), std::move(body)});
    doctest::detail::TestCase tc(run_registered_case, file, line, doctest_detail_test_suite_ns::getCurrentTestSuite());
    tc* cases.back().name.c_str();
    if (gpu) tc* needs_gpu();
    // The id orders the cases as registered and finds the body again; doctest shows the name
    // of a case with an id from m_full_name, so it holds the plain name.
    tc.m_template_id = (int)cases.size() - 1;
    tc.m_full_name = cases.back().name.c_str();
    return doctest::detail::regTest(tc);
}

template <class Fn, class Info, size_t N, class Body>
int register_step_cases(const char* file, unsigned line, const Step<Fn, Info> (&steps)[N], int first, int last,
                        const char* what, Body body) {
    declare_steps(steps);
    for (const auto& s : steps)
        if (s.number >= first && s.number <= last)
            register_case(file, line, step_label(s.number, s.name) + ": " + what, [&s, body] { body(s); });
    return 0;
}
// What went wrong while the cases were registered (a case naming a step kSteps does not have):
// test_main.cpp prints these and fails the suite before running anything.
inline std::vector<std::string>& registration_errors() {
    static std::vector<std::string> errors;
    return errors;
}

template <class Fn, class Info, size_t N>
int register_named_step_case(const char* file, unsigned line, const Step<Fn, Info> (&steps)[N], const char* step_name,
                             const char* what, bool gpu, void (*body)(const Step<Fn, Info>&)) {
    declare_steps(steps);
    for (const auto& s : steps)
        if (std::string(s.name) == step_name)
            return register_case(file, line, step_label(s.number, s.name) + ": " + what, [&s, body] { body(s); }, gpu);
    std::string known;
    for (const auto& s : steps) known += (known.empty() ? "" : ", ") + std::string(s.name);
    std::string where = file;
    where = where.substr(where.find_last_of('/') + 1) + ":" + std::to_string(line);
    registration_errors().push_back(where + ": a case of step '" + step_name + "', which kSteps does not declare (its steps: " +
                                    known + ")");
    return 0;
}
}  // namespace course_testing

// A student's prediction (a constant in starter.cu) against its answer, derived in the exercise's
// answers.cpp (answers.h), exact unless the answer gives a relative tolerance. The message says
// what to revisit and never shows the answer.
inline void check_prediction(const char* name, double predicted, const char* revisit) {
    const Answer* a = find_answer(name);
    REQUIRE_MESSAGE(a != nullptr, "answers.cpp derives no answer for " << name);
    const double expected = a->derive();
    const bool right = std::isfinite(predicted) && std::fabs(predicted - expected) <= a->rel_tol * std::fabs(expected);
    const std::string message = std::string("prediction ") + name + " = " + doctest::toString(predicted).c_str() +
                                ": not yet. Revisit: " + revisit;
    CHECK_MESSAGE(right, message);
}

#define STEP_CASE(steps, step_name, what) \
    COURSE_STEP_CASE_(DOCTEST_ANONYMOUS(COURSE_STEP_CASE_FN_), DOCTEST_ANONYMOUS(COURSE_STEP_CASE_REG_), steps, step_name, what, true)
#define STEP_HOST_CASE(steps, step_name, what) \
    COURSE_STEP_CASE_(DOCTEST_ANONYMOUS(COURSE_STEP_CASE_FN_), DOCTEST_ANONYMOUS(COURSE_STEP_CASE_REG_), steps, step_name, what, false)
#define COURSE_STEP_CASE_(fn, reg, steps, step_name, what, gpu)                                                       \
    static void fn([[maybe_unused]] const std::remove_reference_t<decltype((steps)[0])>& step);                        \
    static const int reg = ::course_testing::register_named_step_case(__FILE__, __LINE__, steps, step_name, what, gpu, fn); \
    static void fn([[maybe_unused]] const std::remove_reference_t<decltype((steps)[0])>& step)

#define DECLARE_STEPS(steps) \
    static const int DOCTEST_ANONYMOUS(DECLARE_STEPS_) = ::course_testing::declare_steps(steps)
#define STEP_CASES(steps, what, ...) STEP_CASES_RANGE(steps, 0, INT_MAX, what, __VA_ARGS__)
#define STEP_CASES_FROM(steps, first, what, ...) STEP_CASES_RANGE(steps, first, INT_MAX, what, __VA_ARGS__)
#define STEP_CASES_RANGE(steps, first, last, what, ...)                                                \
    static const int DOCTEST_ANONYMOUS(STEP_CASES_) =                                                  \
        ::course_testing::register_step_cases(__FILE__, __LINE__, steps, first, last, what, __VA_ARGS__)

#define SKIP_CASE(reason)                                       \
    do {                                                        \
        ::course_testing::skip_reason() = (reason);             \
        MESSAGE("skipped: " << ::course_testing::skip_reason()); \
        return;                                                 \
    } while (0)

// Checks a Comparison (compare.h) and prints what differs when it fails.
#define CHECK_MATCH(comparison)                                  \
    do {                                                         \
        const auto check_match_c_ = (comparison);                \
        INFO(check_match_c_.describe());                         \
        CHECK(check_match_c_.ok());                              \
    } while (0)
