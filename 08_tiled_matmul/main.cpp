// 08_tiled_matmul/main.cpp: runs each kernel on random matrices, checks it against a reference,
// and times it; --bench prints the benchmark table against cuBLAS.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cublas_sgemm.h"
#include "program.h"
#include "tiled_matmul.h"

// Above this many multiply-adds the CPU reference (double, all cores) would take too long; the
// check then uses cuBLAS's FP32 result, with twice the tolerance (both sides round).
static const double kCpuReferenceLimit = 0x1p34;

static double flop(int m, int n, int k) { return 2.0 * m * n * k; }

// The host side of a run holds A and B, the reference (double from the CPU, float from cuBLAS)
// and one downloaded C.
static double host_bytes(int m, int n, int k) {
    const double mn = (double)m * n;
    const double ref_bytes = (double)m * n * k <= kCpuReferenceLimit ? 8.0 : 4.0;
    return 4.0 * ((double)m * k + (double)k * n) + (ref_bytes + 4.0) * mn;
}

// The usual 3 warm-up runs and 20 timed ones, but fewer for a kernel slower than 50 ms (the naive
// ones at large sizes), so that one row of a table costs about 2 seconds.
static const BenchConfig kTiming{3, 20, true, 2000};

static int run(const Program& p, int m, int n, int k) {
    const DeviceFacts dev = device_facts();
    std::printf("C = A * B on %s (%d SMs, FP32 peak %.1f TFLOP/s): m = %d, n = %d, k = %d\n", dev.name.c_str(),
                dev.sm_count, dev.fp32_gflops / 1e3, m, n, k);
    const std::vector<float> A = random_floats((size_t)m * k, p.seed, -1.0f, 1.0f);
    const std::vector<float> B = random_floats((size_t)k * n, p.seed + 1000, -1.0f, 1.0f);
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
    auto check = [&] {
        const Comparison c = cpu_ref ? compare(d_C.download(), ref, tol) : compare(d_C.download(), ref_f, tol);
        return Check{c.ok(), c.describe()};
    };
    std::vector<StepRow> rows;
    for (const auto& s : kSteps)
        if (p.selected(s.name))
            for (const Kernel& kernel : s.run)
                rows.push_back({std::to_string(s.number), kernel.label,
                                [&, kernel] { kernel.run(d_A.get(), d_B.get(), d_C.get(), m, n, k); }, check, "",
                                [&] { d_C.poison(); }});
    StepTable table{"GFLOP/s", flop(m, n, k), {},
                    "GFLOP/s counts 2*m*n*k (one multiply and one add per term). x->row / x->col: what\n"
                    "threadIdx.x runs along."};
    table.peak = dev.fp32_gflops;
    table.peak_name = "FP32 peak";
    table.time_format = "%.3f";
    table.rate_format = "%.0f";
    return run_steps(rows, table, kTiming) ? 1 : 0;
}

static int run_bench(const Program& p) {
    const DeviceFacts dev = print_bench_header("C = A * B, m = n = k = 1024, 2048 and 4096, against cuBLAS", kTiming);
    std::printf("cuBLAS: cublasSgemm in CUBLAS_PEDANTIC_MATH (strict FP32, no TF32), measured in this run;\n"
                "every result is checked against it. GFLOP/s counts 2*m*n*k.\n\n");
    Table table({"m = n = k", "kernel", "time (ms)", "GFLOP/s", "% of cuBLAS", "% of FP32 peak"});
    CublasSgemm cublas;
    int failures = 0;
    std::map<std::string, double> at_4096;  // GFLOP/s by kernel, for the summary
    for (int s : {1024, 2048, 4096}) {
        const std::vector<float> A = random_floats((size_t)s * s, p.seed + s, -1.0f, 1.0f);
        const std::vector<float> B = random_floats((size_t)s * s, p.seed + s + 1, -1.0f, 1.0f);
        DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)s * s), d_ref((size_t)s * s);
        Tolerance tol = matmul_tolerance(s, max_abs(A), max_abs(B));
        tol.atol *= 2;  // both results round: each within the tolerance of the exact product
        auto time_ms = [&](const std::function<void()>& product) { return time_gpu(product, kTiming).median_ms; };
        const double cublas_ms = time_ms([&] { cublas.run(d_A.get(), d_B.get(), d_ref.get(), s, s, s); });
        const std::vector<float> ref = d_ref.download();
        const double cublas_gflops = gflop_per_s(flop(s, s, s), cublas_ms);
        table.row({std::to_string(s), "cuBLAS SGEMM", strf("%.3f", cublas_ms), strf("%.0f", cublas_gflops), "100.0",
                   strf("%.1f", 100 * cublas_gflops / dev.fp32_gflops)});
        for (const auto& step : kSteps)
            for (const Kernel& kernel : step.run) {
                d_C.poison();
                const double ms = time_ms([&] { kernel.run(d_A.get(), d_B.get(), d_C.get(), s, s, s); });
                // Checked after timing: a fast wrong kernel is not a result.
                const Comparison c = compare(d_C.download(), ref, tol);
                if (!c.ok()) {
                    ++failures;
                    table.row({std::to_string(s), kernel.label, "FAILED check", "-", "-", "-"});
                    std::printf("%s at %d^3: %s\n", kernel.label, s, c.describe().c_str());
                    continue;
                }
                const double gflops = gflop_per_s(flop(s, s, s), ms);
                table.row({std::to_string(s), kernel.label, strf("%.3f", ms), strf("%.0f", gflops),
                           strf("%.1f", 100 * gflops / cublas_gflops), strf("%.1f", 100 * gflops / dev.fp32_gflops)});
                if (s == 4096) at_4096[kernel.label] = gflops;
            }
        if (s == 4096) at_4096["cuBLAS"] = cublas_gflops;
    }
    table.print();
    auto at = [&](const char* label) { return at_4096.count(label) ? at_4096[label] : 0.0; };
    if (at("naive, x->row") > 0 && at("naive, x->col") > 0 && at("tiled") > 0 && at("register_blocked 2D") > 0)
        std::printf("\nAt 4096^3: tiled is %.2fx naive x->col and %.1fx naive x->row; register_blocked 2D is\n"
                    "%.1f%% of cuBLAS.\n",
                    at("tiled") / at("naive, x->col"), at("tiled") / at("naive, x->row"),
                    100 * at("register_blocked 2D") / at("cuBLAS"));
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"C = A * B (row-major float32) on the GPU, checked",
               "  --m M           rows of A and C (default 2048)\n"
               "  --n N           columns of B and C (default 2048)\n"
               "  --k K           columns of A, rows of B (default 2048)\n"
               "                  each at most 2^20; 2^K and 2^K+C work too\n",
               step_names(kSteps), {}, "the benchmark table (1024^3, 2048^3, 4096^3, against cuBLAS)"});
    const int m = (int)p.size("--m", 2048, 1, kMaxDim);
    const int n = (int)p.size("--n", 2048, 1, kMaxDim);
    const int k = (int)p.size("--k", 2048, 1, kMaxDim);
    p.not_with_bench({"--m", "--n", "--k"});
    p.finish();

    if (p.bench) {
        // Host: A, B, the reference and one downloaded C; GPU: A, B, C and cuBLAS's C. At 4096^2.
        const double bytes = 4.0 * 4 * 4096.0 * 4096.0;
        require_memory(p, "--bench", bytes, bytes);
        return run_bench(p);
    }
    const double elements = (double)m * k + (double)k * n + (double)m * n;
    require_memory(p, "--m, --n, --k", host_bytes(m, n, k), 4.0 * elements);
    return run(p, m, n, k);
}
