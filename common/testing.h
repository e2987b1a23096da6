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
// - A one-off case is a plain doctest case named the same way, with the needs_gpu() decorator:
//       TEST_CASE("step 2 many_blocks: n = 10000" * needs_gpu()) { ... }
//   With no usable GPU it is skipped with the reason; REQUIRE_GPU=1 turns that into a failure.
//   Host-only cases are named "host: ...".
// - A case too big for compute-sanitizer puts "(large)" in its name; `make sanitize` leaves
//   those out.
// - SKIP_CASE("reason") ends a case early and counts it as skipped (e.g. not enough GPU memory).
#pragma once

#include <climits>
#include <deque>
#include <functional>
#include <string>
#include <vector>
#include <doctest/doctest.h>

#include "buffer.h"
#include "compare.h"
#include "cuda_check.h"
#include "gpu.h"
#include "memory.h"
#include "steps.h"

inline doctest::test_suite needs_gpu() { return doctest::test_suite("gpu"); }

namespace course_testing {
// Set by SKIP_CASE, read (and cleared) by the summary listener in test_main.cpp.
inline std::string& skip_reason() {
    static std::string reason;
    return reason;
}

// "step 3 grid_stride" for every declared step, in order: the summary's list of steps.
inline std::vector<std::string>& declared_steps() {
    static std::vector<std::string> steps;
    return steps;
}

template <class Fn, size_t N>
int declare_steps(const Step<Fn> (&steps)[N]) {
    auto& all = declared_steps();
    for (const auto& s : steps) {
        const std::string label = step_label(s.number, s.name);
        bool known = false;
        for (const auto& d : all) known = known || d == label;
        if (!known) all.push_back(label);
    }
    return 0;
}

// Cases registered at run time: doctest calls one function for all of them, which finds the
// case's body by the id stored in the test case.
struct RegisteredCase {
    std::string name;
    std::function<void()> body;
};
inline std::deque<RegisteredCase>& registered_cases() {
    static std::deque<RegisteredCase> cases;
    return cases;
}
inline void run_registered_case() {
    registered_cases().at((size_t)doctest::getContextOptions()->currentTest->m_template_id).body();
}
inline int register_case(const char* file, unsigned line, std::string name, std::function<void()> body) {
    auto& cases = registered_cases();
    cases.push_back({std::move(name), std::move(body)});
    doctest::detail::TestCase tc(run_registered_case, file, line, doctest_detail_test_suite_ns::getCurrentTestSuite());
    tc* cases.back().name.c_str();
    tc* needs_gpu();
    // The id orders the cases as registered and finds the body again; doctest shows the name
    // of a case with an id from m_full_name, so it holds the plain name.
    tc.m_template_id = (int)cases.size() - 1;
    tc.m_full_name = cases.back().name.c_str();
    return doctest::detail::regTest(tc);
}

template <class Fn, size_t N, class Body>
int register_step_cases(const char* file, unsigned line, const Step<Fn> (&steps)[N], int first, int last,
                        const char* what, Body body) {
    declare_steps(steps);
    for (const auto& s : steps)
        if (s.number >= first && s.number <= last)
            register_case(file, line, step_label(s.number, s.name) + ": " + what, [&s, body] { body(s); });
    return 0;
}
}  // namespace course_testing

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
