// bench.h: timing GPU work properly, and printing the results as a table.
//
// Kernel launches return before the kernel finishes, so a host clock around a launch measures
// almost nothing. CUDA events are recorded in the GPU's own stream and timestamped when the GPU
// reaches them. time_gpu() warms up first (module loading, clocks ramping up), repeats, and
// reports the median, which one slow repeat cannot move. Between repeats it reads a buffer
// twice the size of L2, so data from the previous repeat is not still sitting in the cache.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "buffer.h"
#include "cuda_check.h"

class GpuTimer {
public:
    GpuTimer() {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~GpuTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    void start(cudaStream_t s = 0) { CUDA_CHECK(cudaEventRecord(start_, s)); }
    // Waits for the stop event, then returns the milliseconds between the two events.
    float stop_ms(cudaStream_t s = 0) {
        CUDA_CHECK(cudaEventRecord(stop_, s));
        CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_, stop_;
};

struct Timing {
    double median_ms = 0;
};

struct BenchConfig {
    int warmup = 3;
    int repeats = 20;
    bool flush_l2 = true;
    // > 0: the first warm-up run is timed, and work slower than budget_ms / (2 * repeats) gets
    // no more warm-up runs and fewer repeats (budget_ms / its time, at least 3), so that a slow
    // kernel costs about budget_ms in all rather than minutes.
    double budget_ms = 0;
};

// The usual timing, except that work slower than 50 ms (a naive kernel at a large size, a
// contended CAS loop) gets fewer runs, so that one row of a table costs about 2 seconds.
constexpr BenchConfig kBudgetedTiming{3, 20, true, 2000};

// Defined in l2_flush.cu (linked into every program and test).
void l2_flush_by_reading(const void* buffer, size_t bytes, int* sink);

// Evicts whatever the last repeat left in L2 by reading a buffer twice L2's size.
inline void flush_l2() {
    static DeviceBuffer<char> scratch;
    static DeviceBuffer<int> sink(1);
    if (scratch.size() == 0) {
        int dev = 0, l2 = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        scratch = DeviceBuffer<char>(std::max<size_t>(2 * (size_t)l2, 1 << 20));
        CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    }
    l2_flush_by_reading(scratch.get(), scratch.bytes(), sink.get());
}

// Times run() (which launches GPU work on the default stream) and returns the median.
inline Timing time_gpu(const std::function<void()>& run, BenchConfig cfg = {}) {
    if (cfg.budget_ms > 0) {
        GpuTimer first;
        first.start();
        run();
        const double first_ms = first.stop_ms();
        cfg.warmup = std::max(0, cfg.warmup - 1);
        if (first_ms > cfg.budget_ms / (2.0 * cfg.repeats)) {
            cfg.warmup = 0;
            cfg.repeats = std::max(std::min(3, cfg.repeats), std::min(cfg.repeats, (int)(cfg.budget_ms / first_ms)));
        }
    }
    for (int i = 0; i < cfg.warmup; ++i) run();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> ms;
    GpuTimer timer;
    for (int i = 0; i < cfg.repeats; ++i) {
        if (cfg.flush_l2) flush_l2();
        timer.start();
        run();
        ms.push_back(timer.stop_ms());
    }
    std::sort(ms.begin(), ms.end());
    Timing t;
    size_t h = ms.size() / 2;
    t.median_ms = ms.size() % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
    return t;
}

inline double gb_per_s(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

// printf into a std::string, for table cells.
inline std::string strf(const char* format, ...) {
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    const int size = std::vsnprintf(nullptr, 0, format, args);  // as long as it needs: no text is cut
    va_end(args);
    std::string text(size > 0 ? (size_t)size : 0, '\0');
    if (size > 0) std::vsnprintf(text.data(), (size_t)size + 1, format, again);
    va_end(again);
    return text;
}

// A size in binary units, as a person writes it: 8 -> "8 B", 49152 -> "48 KiB", 1.5 * 2^20 ->
// "1.5 MiB", 150121545728 -> "139.81 GiB" (at most two decimals).
inline std::string size_text(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
    std::string s = strf("%.2f", bytes);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s + " " + units[u];
}

// A Markdown table with aligned columns, so a README can take the output as it is.
class Table {
public:
    explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
    void row(std::vector<std::string> cells) {
        cells.resize(rows_[0].size());
        rows_.push_back(std::move(cells));
    }
    void print(FILE* out = stdout) const { std::fputs(text().c_str(), out); }
    // The table as print() writes it: a header, a rule, a line per row; numbers right-aligned.
    std::string text() const {
        std::vector<size_t> w(rows_[0].size(), 3);
        for (const auto& r : rows_)
            for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
        std::string out;
        for (size_t i = 0; i < rows_.size(); ++i) {
            for (size_t c = 0; c < w.size(); ++c) {
                const std::string pad(w[c] - rows_[i][c].size(), ' ');
                out += c == 0 ? "| " + rows_[i][c] + pad + " |" : " " + pad + rows_[i][c] + " |";
            }
            out += "\n";
            if (i == 0) {
                for (size_t c = 0; c < w.size(); ++c)
                    out += c == 0 ? "|" + std::string(w[c] + 2, '-') + "|" : std::string(w[c] + 1, '-') + ":|";
                out += "\n";
            }
        }
        return out;
    }

private:
    std::vector<std::vector<std::string>> rows_;
};
