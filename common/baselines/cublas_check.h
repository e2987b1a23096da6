// cublas_check.h: every cuBLAS call of the baselines is checked: one line naming the call, the
// file and line, and cuBLAS's own name and text for the status, then exit code 1.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>

inline void cublas_check(cublasStatus_t status, const char* expr, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    std::fprintf(stderr, "%s:%d: cuBLAS error %s (%s) in %s\n", file, line, cublasGetStatusName(status),
                 cublasGetStatusString(status), expr);
    std::exit(1);
}

#define CUBLAS_CHECK(expr) cublas_check((expr), #expr, __FILE__, __LINE__)
