// testing.h: what every exercise's tests.cpp includes.
//
// Conventions (see the top-level README, "How the tests work"):
// - Test cases are named "step N kernel_name: what is checked", so the summary can say which
//   steps of the exercise pass. Host-only cases are named "host: ...".
// - A case that needs a GPU carries the needs_gpu() decorator:
//       TEST_CASE("step 2 many_blocks: n = 10000" * needs_gpu()) { ... }
//   With no usable GPU it is skipped with the reason; REQUIRE_GPU=1 turns that into a failure.
// - A case too big for compute-sanitizer puts "(large)" in its name; `make sanitize` leaves
//   those out.
// - SKIP_CASE("reason") ends a case early and counts it as skipped (e.g. not enough GPU memory).
#pragma once

#include <string>
#include <doctest/doctest.h>

#include "buffer.h"
#include "compare.h"
#include "cuda_check.h"
#include "gpu.h"

inline doctest::test_suite needs_gpu() { return doctest::test_suite("gpu"); }

namespace course_testing {
// Set by SKIP_CASE, read (and cleared) by the summary listener in test_main.cpp.
inline std::string& skip_reason() {
    static std::string reason;
    return reason;
}
}  // namespace course_testing

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
