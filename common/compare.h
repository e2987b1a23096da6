// compare.h: seeded random inputs, and checking GPU results against a CPU reference.
//
// The CPU reference is computed in double precision; a float result passes when
//     |got - ref| <= atol + rtol * |ref|
// with the tolerance stated where it is used. NaN never passes: an unwritten output (buffers are
// poisoned with NaN first, see buffer.h) or a NaN that leaked into a sum is always an error.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// ---- Seeded random inputs -----------------------------------------------------------------
// Counter-based (element i depends only on seed and i), so 2^31 elements take seconds, not
// minutes, and a failing case can be reproduced from its seed alone.
inline uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [lo, hi).
inline std::vector<float> random_floats(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    const uint64_t s = splitmix64(seed);
    for (size_t i = 0; i < n; ++i) {
        double u = (splitmix64(s ^ (i * 0xD1B54A32D192ED03ull)) >> 11) * 0x1.0p-53;
        v[i] = (float)(lo + (hi - lo) * u);
    }
    return v;
}

// Uniform integers in [lo, hi].
inline std::vector<int> random_ints(size_t n, uint64_t seed, int lo, int hi) {
    std::vector<int> v(n);
    const uint64_t s = splitmix64(seed);
    const uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    for (size_t i = 0; i < n; ++i)
        v[i] = (int)(lo + (int64_t)(splitmix64(s ^ (i * 0xD1B54A32D192ED03ull)) % span));
    return v;
}

// Floats whose values are whole numbers from -8 to 8, never 0. Every partial sum of such values
// is a whole number, and while its magnitude stays below 2^24 float adds it EXACTLY, in any
// order. Random signs keep partial sums near sqrt(count) * 5, about 29000 at 2^25 elements,
// hundreds of standard deviations below 2^24 = 16777216: every sum of them can be checked exactly.
inline std::vector<float> random_whole_floats(size_t n, uint64_t seed) {
    std::vector<int> k = random_ints(n, seed, -8, 7);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = (float)(k[i] >= 0 ? k[i] + 1 : k[i]);
    return v;
}

// ---- Comparing ----------------------------------------------------------------------------
struct Tolerance {
    double rtol = 1e-6;
    double atol = 0.0;
};

// A single value: NaN never passes, whatever the tolerance.
inline bool within(double got, double ref, Tolerance tol) {
    if (std::isnan(got) || std::isnan(ref)) return false;
    if (std::isinf(got) || std::isinf(ref)) return got == ref;
    return std::fabs(got - ref) <= tol.atol + tol.rtol * std::fabs(ref);
}

// A value in a message: whole numbers (integer keys, counts, 2^32 - 1) in full, others to 9 digits.
inline std::string value_text(double v) {
    char buf[40];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

struct Comparison {
    size_t count = 0;       // elements compared
    size_t mismatches = 0;  // elements outside the tolerance (NaN included)
    size_t first_bad = 0;   // index of the first mismatch
    double first_got = 0, first_ref = 0;
    double worst_abs_err = 0;  // over the elements that are finite

    bool ok() const { return mismatches == 0; }
    std::string describe() const {
        char buf[200];
        if (ok())
            std::snprintf(buf, sizeof buf, "all %zu match (max abs error %.3g)", count, worst_abs_err);
        else
            std::snprintf(buf, sizeof buf, "%zu of %zu differ; first at [%zu]: got %s, expected %s", mismatches,
                          count, first_bad, value_text(first_got).c_str(), value_text(first_ref).c_str());
        return buf;
    }
};

template <class Got, class Ref>
Comparison compare(const Got* got, const Ref* ref, size_t n, Tolerance tol) {
    Comparison c;
    c.count = n;
    for (size_t i = 0; i < n; ++i) {
        double g = (double)got[i], r = (double)ref[i];
        if (!within(g, r, tol)) {
            if (c.mismatches++ == 0) {
                c.first_bad = i;
                c.first_got = g;
                c.first_ref = r;
            }
        } else if (std::isfinite(g)) {
            c.worst_abs_err = std::fmax(c.worst_abs_err, std::fabs(g - r));
        }
    }
    return c;
}

template <class Got, class Ref>
Comparison compare(const std::vector<Got>& got, const std::vector<Ref>& ref, Tolerance tol) {
    if (got.size() != ref.size()) {
        Comparison c;
        c.count = ref.size();
        c.mismatches = ref.size() ? ref.size() : 1;
        return c;
    }
    return compare(got.data(), ref.data(), ref.size(), tol);
}

// Exact comparison, for integers.
template <class T>
Comparison compare_exact(const std::vector<T>& got, const std::vector<T>& ref) {
    Comparison c;
    c.count = ref.size();
    if (got.size() != ref.size()) {
        c.mismatches = ref.size() ? ref.size() : 1;
        return c;
    }
    for (size_t i = 0; i < ref.size(); ++i)
        if (!(got[i] == ref[i]) && c.mismatches++ == 0) {
            c.first_bad = i;
            c.first_got = (double)got[i];
            c.first_ref = (double)ref[i];
        }
    return c;
}

// The CPU reference of a sum: the sum in double precision, and the sum of
// |x[i]|, which the rounding errors of a float sum scale with (float_sum_tolerance below).
// A NaN among the inputs makes both NaN.
struct ReferenceSum {
    double sum = 0;
    double sum_abs = 0;
};
template <class T>
ReferenceSum sum_reference(const T* x, size_t n) {
    ReferenceSum r;
    for (size_t i = 0; i < n; ++i) {
        r.sum += (double)x[i];
        r.sum_abs += std::fabs((double)x[i]);
    }
    return r;
}
template <class T>
ReferenceSum sum_reference(const std::vector<T>& x) {
    return sum_reference(x.data(), x.size());
}

// Tolerance for a float sum of n terms whose absolute values add up to sum_abs, in any order of
// summation. The worst case grows like n * 2^-24 * sum_abs, but rounding errors of a real sum
// are close to independent and grow like sqrt(n); we allow 4 * sqrt(n) units of rounding,
// several standard deviations, plus a floor for tiny sums.
inline Tolerance float_sum_tolerance(size_t n, double sum_abs) {
    const double u = 0x1.0p-24;  // unit roundoff of float
    return Tolerance{0.0, 4.0 * u * std::sqrt((double)n + 1.0) * sum_abs + 1e-30};
}
