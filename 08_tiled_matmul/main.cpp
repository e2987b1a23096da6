// 08_tiled_matmul/main.cpp: runs each kernel on random matrices, checks it against a reference,
// and times it; --bench prints the benchmark table against cuBLAS.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "gpu.h"
#include "program.h"
#include "tiled_matmul.h"

static const char* kUsage =
    "usage: tiled_matmul [options]      C = A * B (row-major float32) on the GPU, checked\n"
    "  --m M           rows of A and C (default 2048)\n"
    "  --n N           columns of B and C (default 2048)\n"
    "  --k K           columns of A, rows of B (default 2048)\n"
    "                  each at most 2^20; 2^K and 2^K+C work too\n"
    "  --kernel NAME   naive, tiled, register_blocked or all (default all)\n"
    "  --seed S        seed of the random inputs (default 1)\n"
    "  --bench         print the benchmark table (1024^3, 2048^3, 4096^3, against cuBLAS)\n";

using RunFn = void (*)(const float*, const float*, float*, int, int, int);

struct Kernel {
    int step;
    const char* step_name;  // as in --kernel and the tests
    const char* label;      // as in the tables
    RunFn run;
};
static const Kernel kKernels[] = {
    {1, "naive", "naive, x->row",
     [](const float* A, const float* B, float* C, int m, int n, int k) { run_naive(NaiveMap::x_to_row, A, B, C, m, n, k); }},
    {1, "naive", "naive, x->col",
     [](const float* A, const float* B, float* C, int m, int n, int k) { run_naive(NaiveMap::x_to_col, A, B, C, m, n, k); }},
    {2, "tiled", "tiled", run_tiled},
    {3, "register_blocked", "register_blocked 1D",
     [](const float* A, const float* B, float* C, int m, int n, int k) { run_register_blocked(Blocking::one_d, A, B, C, m, n, k); }},
    {3, "register_blocked", "register_blocked 2D",
     [](const float* A, const float* B, float* C, int m, int n, int k) { run_register_blocked(Blocking::two_d, A, B, C, m, n, k); }},
};

// Above this many multiply-adds the CPU reference (double, all cores) would take too long; the
// check then uses cuBLAS's FP32 result, with twice the tolerance (both sides round).
static const double kCpuReferenceLimit = 0x1p34;

static double flop(int m, int n, int k) { return 2.0 * m * n * k; }

// The host side of run_steps holds A and B, the reference (double from the CPU, float from
// cuBLAS) and one downloaded C.
static double host_bytes(int m, int n, int k) {
    const double mn = (double)m * n;
    const double ref_bytes = (double)m * n * k <= kCpuReferenceLimit ? 8.0 : 4.0;
    return 4.0 * ((double)m * k + (double)k * n) + (ref_bytes + 4.0) * mn;
}

// Warm-up and repeats: the usual 3 + 20, but fewer for a kernel that takes more than 50 ms
// (the naive ones on large sizes), so that one row of the table costs about 2 seconds at most.
static BenchConfig config_for(double first_ms) {
    BenchConfig cfg;
    if (first_ms > 50) {
        cfg.warmup = 1;
        cfg.repeats = std::max(3, std::min(20, (int)(2000 / first_ms)));
    }
    return cfg;
}

// Runs once on a poisoned C and returns the time of that run (ms).
static double run_once(const Kernel& kr, const DeviceBuffer<float>& A, const DeviceBuffer<float>& B,
                       DeviceBuffer<float>& C, int m, int n, int k) {
    C.poison();
    GpuTimer timer;
    timer.start();
    kr.run(A.get(), B.get(), C.get(), m, n, k);
    return timer.stop_ms();
}

static int run_steps(const std::string& which, int m, int n, int k, uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("C = A * B on %s (%d SMs, FP32 peak %.1f TFLOP/s): m = %d, n = %d, k = %d\n", dev.name.c_str(),
                dev.sm_count, dev.fp32_gflops / 1e3, m, n, k);
    std::vector<float> A = random_floats((size_t)m * k, seed, -1.0f, 1.0f);
    std::vector<float> B = random_floats((size_t)k * n, seed + 1000, -1.0f, 1.0f);
    DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)m * n);
    Tolerance tol = matmul_tolerance(k, max_abs(A), max_abs(B));

    std::vector<double> ref;
    std::vector<float> ref_f;
    const bool cpu_ref = (double)m * n * k <= kCpuReferenceLimit;
    if (cpu_ref) {
        ref = matmul_reference(A, B, m, n, k);
        std::printf("checked against the CPU product in double precision, |error| <= %.3g\n\n", tol.atol);
    } else {
        CublasSgemm cublas;
        cublas.run(d_A.get(), d_B.get(), d_C.get(), m, n, k);
        ref_f = d_C.download();
        tol.atol *= 2;
        std::printf("checked against cuBLAS (FP32, pedantic): the CPU product would take too long; "
                    "|error| <= %.3g\n\n", tol.atol);
    }
    auto check = [&](const DeviceBuffer<float>& C) {
        return cpu_ref ? compare(C.download(), ref, tol) : compare(C.download(), ref_f, tol);
    };

    Table table({"step", "kernel", "time (ms)", "GFLOP/s", "% of FP32 peak", "check"});
    int failures = 0;
    for (const Kernel& kr : kKernels) {
        if (which != "all" && which != kr.step_name) continue;
        const std::string step = std::to_string(kr.step);
        const double first_ms = run_once(kr, d_A, d_B, d_C, m, n, k);
        Comparison c = check(d_C);
        if (!c.ok()) {
            ++failures;
            table.row({step, kr.label, "-", "-", "-", "FAILED: " + c.describe() + " (is TODO step " + step + " done?)"});
            continue;
        }
        Timing t = time_gpu([&] { kr.run(d_A.get(), d_B.get(), d_C.get(), m, n, k); }, config_for(first_ms));
        const double gflops = gflop_per_s(flop(m, n, k), t.median_ms);
        table.row({step, kr.label, strf("%.3f", t.median_ms), strf("%.0f", gflops),
                   strf("%.1f", 100 * gflops / dev.fp32_gflops), "ok: " + c.describe()});
    }
    table.print();
    std::printf("\nGFLOP/s counts 2*m*n*k (one multiply and one add per term); time is the median of 20 runs\n"
                "(of 3 or more for a kernel slower than 50 ms). x->row / x->col: what threadIdx.x runs along.\n");
    return failures ? 1 : 0;
}

static int run_bench(uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs at %.0f MHz, FP32 peak %.1f TFLOP/s, DRAM %.0f GB/s (theoretical)\n",
                dev.name.c_str(), dev.sm_count, dev.sm_clock_khz / 1e3, dev.fp32_gflops / 1e3, dev.dram_gbs);
    std::printf("cuBLAS: cublasSgemm in CUBLAS_PEDANTIC_MATH (strict FP32, no TF32), measured in this run.\n"
                "Median of 20 runs (3 or more for kernels slower than 50 ms), L2 flushed between runs;\n"
                "every result checked against cuBLAS after timing.\n\n");
    Table table({"m = n = k", "kernel", "time (ms)", "GFLOP/s", "% of cuBLAS", "% of FP32 peak"});
    CublasSgemm cublas;
    int failures = 0;
    double naive_row_4096 = 0, naive_col_4096 = 0, tiled_4096 = 0, blocked_4096 = 0, cublas_4096 = 0;
    for (int s : {1024, 2048, 4096}) {
        std::vector<float> A = random_floats((size_t)s * s, seed + s, -1.0f, 1.0f);
        std::vector<float> B = random_floats((size_t)s * s, seed + s + 1, -1.0f, 1.0f);
        DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)s * s), d_ref((size_t)s * s);
        Tolerance tol = matmul_tolerance(s, max_abs(A), max_abs(B));
        tol.atol *= 2;  // both results round: each within the tolerance of the exact product
        Timing tc = time_gpu([&] { cublas.run(d_A.get(), d_B.get(), d_ref.get(), s, s, s); });
        const std::vector<float> ref = d_ref.download();
        const double cublas_gflops = gflop_per_s(flop(s, s, s), tc.median_ms);
        table.row({std::to_string(s), "cuBLAS SGEMM", strf("%.3f", tc.median_ms), strf("%.0f", cublas_gflops),
                   "100.0", strf("%.1f", 100 * cublas_gflops / dev.fp32_gflops)});
        if (s == 4096) cublas_4096 = cublas_gflops;
        for (const Kernel& kr : kKernels) {
            const double first_ms = run_once(kr, d_A, d_B, d_C, s, s, s);
            Timing t = time_gpu([&] { kr.run(d_A.get(), d_B.get(), d_C.get(), s, s, s); }, config_for(first_ms));
            // Checked after timing: a fast wrong kernel is not a result.
            Comparison c = compare(d_C.download(), ref, tol);
            if (!c.ok()) {
                ++failures;
                table.row({std::to_string(s), kr.label, "FAILED check", "-", "-", "-"});
                std::printf("%s at %d^3: %s\n", kr.label, s, c.describe().c_str());
                continue;
            }
            const double gflops = gflop_per_s(flop(s, s, s), t.median_ms);
            table.row({std::to_string(s), kr.label, strf("%.3f", t.median_ms), strf("%.0f", gflops),
                       strf("%.1f", 100 * gflops / cublas_gflops), strf("%.1f", 100 * gflops / dev.fp32_gflops)});
            if (s == 4096) {
                const std::string label = kr.label;
                if (label == "naive, x->row") naive_row_4096 = gflops;
                if (label == "naive, x->col") naive_col_4096 = gflops;
                if (label == "tiled") tiled_4096 = gflops;
                if (label == "register_blocked 2D") blocked_4096 = gflops;
            }
        }
    }
    table.print();
    if (naive_row_4096 > 0 && naive_col_4096 > 0 && tiled_4096 > 0 && blocked_4096 > 0 && cublas_4096 > 0)
        std::printf("\nAt 4096^3: tiled is %.2fx naive x->col and %.1fx naive x->row; register_blocked 2D is\n"
                    "%.1f%% of cuBLAS.\n",
                    tiled_4096 / naive_col_4096, tiled_4096 / naive_row_4096, 100 * blocked_4096 / cublas_4096);
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Options opts(argc, argv, kUsage);
    const int m = (int)opts.size("--m", 2048, 1, kMaxDim);
    const int n = (int)opts.size("--n", 2048, 1, kMaxDim);
    const int k = (int)opts.size("--k", 2048, 1, kMaxDim);
    std::string kernel = opts.choice("--kernel", "all", {"all", "naive", "tiled", "register_blocked"});
    uint64_t seed = opts.size("--seed", 1, 0);
    bool bench = opts.flag("--bench");
    opts.finish();
    if (!bench) require_fits_in_host(opts, "--m, --n, --k", host_bytes(m, n, k));

    require_gpu(opts.program().c_str());
    if (bench) {
        require_fits_in_gpu(opts, "--bench", 4.0 * 4 * 4096.0 * 4096.0);
        return run_bench(seed);
    }
    const double elements = (double)m * k + (double)k * n + (double)m * n;
    require_fits_in_gpu(opts, "--m, --n, --k", 4.0 * elements);
    return run_steps(kernel, m, n, k, seed);
}
