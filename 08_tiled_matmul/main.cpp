// 08_tiled_matmul/main.cpp: runs each kernel on random matrices next to cuBLAS, checks every
// result against a reference and times it; --bench does the same at 1024^3, 2048^3 and 4096^3.
#include <cstdio>
#include <string>
#include <vector>

#include "cublas_sgemm.h"
#include "program.h"
#include "tiled_matmul.h"

// Above this many multiply-adds the CPU reference (double, all cores) would take too long; the
// check then uses cuBLAS's FP32 result, with twice the tolerance (both sides round).
static const double kCpuReferenceLimit = 0x1p34;

// The host side of a run holds A and B, the reference (in double) and one downloaded C.
static double host_bytes(int m, int n, int k) { return 4.0 * ((double)m * k + (double)k * n) + 12.0 * m * n; }

// The usual 3 warm-up runs and 20 timed ones, but fewer for a kernel slower than 50 ms (the naive
// ones at large sizes), so that one row of a table costs about 2 seconds.
static const BenchConfig kTiming{3, 20, true, 2000};

static TableSpec table_spec(const DeviceFacts& dev) {
    TableSpec t;
    t.title = "C = A * B in FP32";
    t.rate = "GFLOP/s";
    t.rate_counts_ops = true;
    t.baseline_column = "% of cuBLAS";
    t.vs_previous = true;
    t.peak = dev.fp32_gflops;
    t.peak_name = "FP32 peak";
    t.compute_roof = dev.fp32_gflops * 1e9;
    t.compute_roof_name = strf("FP32 peak %.1f TFLOP/s", dev.fp32_gflops / 1e3);
    t.time_format = "%.3f";
    t.rate_text = [](double rate) { return strf("%.0f", rate); };
    t.footer = "GFLOP/s counts 2*m*n*k (one multiply and one add per term); the plot's bytes are A, B and C\n"
               "once each. x->row / x->col: what threadIdx.x runs along. cuBLAS: cublasSgemm in\n"
               "CUBLAS_PEDANTIC_MATH (strict FP32, no TF32), measured in the same run.";
    return t;
}

// One shape, A and B random in [-1, 1): every selected kernel and cuBLAS, each checked against
// the CPU product in double precision or, above kCpuReferenceLimit, against cuBLAS's first result.
// Returns the shape, as the table's title names it.
static std::string measure(Measurements& table, const Program& p, int m, int n, int k, uint64_t seed) {
    const std::vector<float> A = random_floats((size_t)m * k, seed, -1.0f, 1.0f);
    const std::vector<float> B = random_floats((size_t)k * n, seed + 1000, -1.0f, 1.0f);
    DeviceBuffer<float> d_A(A), d_B(B), d_C((size_t)m * n);
    CublasSgemm cublas;
    auto gemm = [&] { cublas.run(d_A.get(), d_B.get(), d_C.get(), m, n, k); };
    Tolerance tol = matmul_tolerance(k, max_abs(A), max_abs(B));
    const bool on_cpu = (double)m * n * k <= kCpuReferenceLimit;
    std::vector<double> ref;
    if (on_cpu) {
        ref = matmul_reference(A, B, m, n, k);
    } else {
        gemm();
        const std::vector<float> C = d_C.download();  // a blocking copy: waits for cuBLAS
        ref.assign(C.begin(), C.end());
        tol.atol *= 2;
    }
    auto check = [&] {
        const Comparison c = compare(d_C.download(), ref, tol);
        return Check{c.ok(), c.describe()};
    };
    auto poison = [&] { d_C.poison(); };
    std::vector<StepRow> rows;
    for (const auto& s : kSteps)
        if (p.selected(s.name))
            for (const Kernel& kernel : s.run)
                rows.push_back({std::to_string(s.number), kernel.label,
                                [&, kernel] { kernel.run(d_A.get(), d_B.get(), d_C.get(), m, n, k); }, check, "", poison});
    if (p.selected("cublas")) rows.push_back({"-", "cuBLAS SGEMM", gemm, check, "", poison, RowKind::baseline});
    const std::string shape = strf("m = %d, n = %d, k = %d", m, n, k);
    const char* against = on_cpu ? "the CPU product in double precision"
                                 : "cuBLAS's first result (the CPU product would take too long)";
    table.section(strf("%s: checked against %s, |error| <= %.3g", shape.c_str(), against, tol.atol),
                  Work{4.0 * ((double)m * k + (double)k * n + (double)m * n), 2.0 * m * n * k}, rows);
    return shape;
}

// The ladder in the last table, from its results: its last step's kernel against its first, and cuBLAS.
static void print_ladder(const std::vector<RowResult>& results, const std::string& shape) {
    std::vector<const RowResult*> steps, library;
    for (const RowResult& r : results)
        if (r.section == results.back().section && r.timed()) (r.kind == RowKind::step ? steps : library).push_back(&r);
    if (steps.size() > 1 && !library.empty())
        std::printf("At %s: %s is %.1fx %s and %.1f%% of cuBLAS.\n\n", shape.c_str(), steps.back()->name.c_str(),
                    steps.front()->ms / steps.back()->ms, steps.front()->name.c_str(), 100 * library[0]->ms / steps.back()->ms);
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"C = A * B (row-major float32) on the GPU, checked",
               "  --m M           rows of A and C (default 2048)\n"
               "  --n N           columns of B and C (default 2048)\n"
               "  --k K           columns of A, rows of B (default 2048)\n"
               "                  each at most 2^20; 2^K and 2^K+C work too\n",
               step_names(kSteps), {"cublas"}, "the benchmark tables (1024^3, 2048^3, 4096^3, against cuBLAS)"});
    const int m = (int)p.size("--m", 2048, 1, kMaxDim);
    const int n = (int)p.size("--n", 2048, 1, kMaxDim);
    const int k = (int)p.size("--k", 2048, 1, kMaxDim);
    p.not_with_bench({"--m", "--n", "--k"});
    p.finish();

    // Host: A, B, the reference and one downloaded C; GPU: A, B and C (--bench: at 4096^3).
    if (p.bench)
        require_memory(p, "--bench", host_bytes(4096, 4096, 4096), 12.0 * 4096 * 4096);
    else
        require_memory(p, "--m, --n, --k", host_bytes(m, n, k), 4.0 * ((double)m * k + (double)k * n + (double)m * n));
    const DeviceFacts dev =
        p.bench ? print_bench_header("C = A * B, m = n = k = 1024, 2048 and 4096, against cuBLAS", kTiming) : device_facts();
    if (!p.bench)
        std::printf("C = A * B on %s (%d SMs, FP32 peak %.1f TFLOP/s)\n", dev.name.c_str(), dev.sm_count, dev.fp32_gflops / 1e3);
    std::printf("\n");
    Measurements table(table_spec(dev), kTiming, p.outputs());
    std::string shape;
    if (p.bench)
        for (int s : {1024, 2048, 4096}) shape = measure(table, p, s, s, s, p.seed + s);
    else
        shape = measure(table, p, m, n, k, p.seed);
    print_ladder(table.results(), shape);
    return table.finish() ? 1 : 0;
}
