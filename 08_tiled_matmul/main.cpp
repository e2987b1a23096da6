// 08_tiled_matmul/main.cpp: runs each kernel on random matrices next to cuBLAS, checks every
// result against a reference and times it; --bench does the same at 1024^3, 2048^3 and 4096^3.
#include "cublas_sgemm.h"
#include "program.h"
#include "tiled_matmul.h"

// Above this many multiply-adds the CPU reference (double, all cores) would take too long; the
// check then uses cuBLAS's FP32 result, with twice the tolerance (both sides round).
static const double kCpuReferenceLimit = 0x1p34;

// What a run of one shape holds: on the GPU A, B and C (each read or written once, the least DRAM
// traffic); on the host A, B, the reference (in double) and one downloaded C.
static double matrix_bytes(const MatrixShape& s) { return 4.0 * s.m * s.k + 4.0 * s.k * s.n + 4.0 * s.m * s.n; }
static double host_bytes(const MatrixShape& s) { return matrix_bytes(s) + 8.0 * s.m * s.n; }

// One shape, A and B random in [-1, 1): every selected kernel and cuBLAS, each checked against
// the CPU product in double precision or, above kCpuReferenceLimit, against cuBLAS's first result.
static void measure(Measurements& table, const Program& p, int m, int n, int k, uint64_t seed) {
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
    auto check = [&] { return check_of(compare(d_C.download(), ref, tol)); };
    auto poison = [&] { d_C.poison(); };
    std::vector<StepRow> rows;
    for (const auto& s : p.selected(kSteps))
        for (const Kernel& kernel : s.run)
            rows.push_back({std::to_string(s.number), kernel.label,
                            [&, kernel] { kernel.run(d_A.get(), d_B.get(), d_C.get(), m, n, k); }, check, "", poison});
    if (p.selected("cublas")) rows.push_back({"-", "cuBLAS SGEMM", gemm, check, "", poison, RowKind::baseline});
    const char* against = on_cpu ? "the CPU product in double precision"
                                 : "cuBLAS's first result (the CPU product would take too long)";
    table.section(strf("m = %d, n = %d, k = %d: checked against %s, |error| <= %.3g", m, n, k, against, tol.atol),
                  Work{matrix_bytes({m, n, k}), 2.0 * m * n * k}, rows);
}

// The ladder in the last table, from its results: its last step's kernel against its first, and cuBLAS.
static void print_ladder(const Measurements& m) {
    const auto steps = m.last_timed(RowKind::step), library = m.last_timed(RowKind::baseline);
    if (steps.size() > 1 && !library.empty())
        std::printf("At %s: %s is %.1fx %s and %.1f%% of cuBLAS.\n\n",
                    steps[0]->section.substr(0, steps[0]->section.find(':')).c_str(),
                    steps.back()->name.c_str(), steps.front()->ms / steps.back()->ms, steps.front()->name.c_str(),
                    100 * library[0]->ms / steps.back()->ms);
}

// The shapes --bench measures: m = n = k = each of these.
static const Sizes kSizes{"--m, --n, --k", {1024, 2048, 4096}};

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"C = A * B (row-major float32) on the GPU, checked", matrix_shape_docs(), step_decls(kSteps), {"cublas"},
               "the benchmark tables (m = n = k = " + kSizes.text(false) + ", against cuBLAS)"});
    const auto [m, n, k] = read_matrix_shape(p, kMaxDim);
    p.finish();

    const int most = (int)kSizes.bench.back();
    const MatrixShape largest = p.bench ? MatrixShape{most, most, most} : MatrixShape{m, n, k};  // of those measured
    require_memory(p, kSizes.blamed(p), host_bytes(largest), matrix_bytes(largest));
    const DeviceFacts dev = print_header(p, kBudgetedTiming, "C = A * B, m = n = k = " + kSizes.text(false) + ", against cuBLAS",
                                         "C = A * B", "A and B random in [-1, 1), row-major float32");
    if (p.bench) std::printf("\n");
    TableSpec t;
    t.title = "C = A * B in FP32";
    t.rate = ops_rate("GFLOP/s", 1e9, "FLOP", "%.0f");  // the plot's compute roof: the FP32 peak
    t.columns = {cols::step(), cols::kernel(), cols::time("%.3f"), cols::rate(t.rate), cols::of_baseline("% of cuBLAS"),
                 cols::vs_previous(), cols::of_peak("FP32 peak", dev.fp32_gflops), cols::check()};
    t.footer = "GFLOP/s counts 2*m*n*k (one multiply and one add per term); the plot's bytes are A, B and C\n"
               "once each. x->row / x->col: what threadIdx.x runs along. cuBLAS: cublasSgemm in\n"
               "CUBLAS_PEDANTIC_MATH (strict FP32, no TF32), measured in the same run.";
    Measurements table(t, kBudgetedTiming, p.outputs());
    if (p.bench)
        for (size_t s : kSizes.bench) measure(table, p, (int)s, (int)s, (int)s, p.seed + s);
    else
        measure(table, p, m, n, k, p.seed);
    print_ladder(table);
    return table.finish() ? 1 : 0;
}
