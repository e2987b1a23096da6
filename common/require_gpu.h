// require_gpu.h: the one check of REQUIRE_GPU and REQUIRE_GPUS, the settings that turn a test case
// skipped for lack of a GPU (or of several) into a failure. Each test program reads them from its
// environment (test_main.cpp); the course tool checks make's values with the same functions before
// anything is built (settings.cpp). Each returns the problem in one line, or "" when the value is fine.
#pragma once

#include <algorithm>
#include <string>

#include "options.h"

inline std::string require_gpu_problem(const std::string& value) {
    if (value == "0" || value == "1") return "";
    return "REQUIRE_GPU must be 0 or 1 (got '" + Options::printable(value) + "')";
}
inline std::string require_gpus_problem(const std::string& value) {
    const bool digits = std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!value.empty() && value.size() <= 2 && digits) return "";
    return "REQUIRE_GPUS must be a number of GPUs from 0 to 99 (got '" + Options::printable(value) + "')";
}
