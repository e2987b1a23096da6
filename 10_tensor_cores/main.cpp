// 10_tensor_cores/main.cpp: runs each step on random matrices, checks it against a reference,
// and times it beside cuBLAS (BF16) and exercise 08's best FP32 kernel; --bench prints the
// benchmark tables from 1024^3 to 8192^3.
#include "cublas_gemm_bf16.h"
#include "program.h"
#include "sgemm_08.h"
#include "tensor_cores.h"

// Above this many multiply-adds the CPU reference (double, all cores) would take too long; the
// check then uses cuBLAS's BF16 result, with twice the tolerance (both sides round).
static const double kCpuReferenceLimit = 0x1p34;

static double flop(int m, int n, int k) { return 2.0 * m * n * k; }

// Relative error in the Frobenius norm, ||C - R|| / ||R||: one number for a whole matrix.
static std::string relative_error(const std::vector<float>& C, const std::vector<double>& R) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < R.size(); ++i) {
        const double d = C[i] - R[i];
        diff += d * d;
        norm += R[i] * R[i];
    }
    return norm > 0 ? strf("%.1e", std::sqrt(diff / norm)) : "-";
}

static TableSpec table_spec(const DeviceFacts& dev) {
    TableSpec t;
    t.title = "C = A * B, BF16 inputs, FP32 sums";
    t.rate = ops_rate("TFLOP/s", 1e12, "FLOP");
    // A ceiling from the SM count and the clock the GPU reports, above NVIDIA's rated figure
    // where the rating assumes a lower clock (H100 SXM: 1,071 at 1,980 MHz against 989).
    t.columns = {cols::step(), cols::kernel(), cols::time("%.3f"), cols::rate(t.rate), cols::of_baseline("% of cuBLAS"),
                 cols::of_peak("BF16 clock peak", dev.bf16_tensor_gflops / 1e3), cols::check()};
    t.compute_roof = {strf("BF16 clock peak %.0f TFLOP/s", dev.bf16_tensor_gflops / 1e3), dev.bf16_tensor_gflops * 1e9};
    t.footer = strf("TFLOP/s counts 2*m*n*k. BF16 clock peak: dense BF16 with FP32 sums, %.0f TFLOP/s from this GPU's\n"
                    "SM count and reported clock (%d MHz); NVIDIA's rated figure may assume a lower clock. The FP32\n"
                    "row is exercise 08's register_blocked_2d on the CUDA cores (FP32 peak %.1f TFLOP/s).",
                    dev.bf16_tensor_gflops / 1e3, dev.sm_clock_khz / 1000, dev.fp32_gflops / 1e3);
    return t;
}

// The operands of one size on the GPU: A and Bt in BF16 for the steps and cuBLAS, A and B in
// FP32 for exercise 08's kernel (B not transposed, as 08 takes it), and the result.
struct Operands {
    int m, n, k;
    DeviceBuffer<bf16> A, Bt;
    DeviceBuffer<float> A32, B32, C;
    Operands(const std::vector<bf16>& a, const std::vector<bf16>& bt, const std::vector<float>& a32,
             const std::vector<float>& bt32, int m_, int n_, int k_)
        : m(m_), n(n_), k(k_), A(a), Bt(bt), A32(a32), B32(transpose(bt32, n_, k_)), C((size_t)m_ * n_) {}
};

// The rows of one size: cuBLAS (the 100%), the steps (and step 2's variant), 08's FP32 kernel.
// check_bf16 and check_fp32 compare C with the reference each kind of row must meet.
// fp32_skip: why 08's row cannot be checked here ("" when it can).
static std::vector<StepRow> rows_of(const Program& p, const DeviceFacts& dev, Operands& o, CublasGemmBf16& cublas,
                                    const std::function<Check()>& check_bf16,
                                    const std::function<Check()>& check_fp32, const std::string& fp32_skip) {
    auto poison = [&o] { o.C.poison(); };
    auto product = [&o](MatmulFn run) { return [&o, run] { run(o.A.get(), o.Bt.get(), o.C.get(), o.m, o.n, o.k); }; };
    std::vector<StepRow> rows;
    if (p.selected("cublas"))
        rows.push_back({"-", "cuBLAS BF16", [&] { cublas.run(o.A.get(), o.Bt.get(), o.C.get(), o.m, o.n, o.k); },
                        check_bf16, dev.major < 8 ? "BF16 tensor cores need compute capability 8.0" : "", poison,
                        RowKind::baseline});
    for (const auto& s : p.selected(kSteps)) {
        const std::string skip = unsupported_reason(s.info.needs, dev);
        const std::string number = std::to_string(s.number);
        if (s.info.variant.run)
            rows.push_back({number, s.info.variant.label, product(s.info.variant.run), check_bf16, skip, poison});
        rows.push_back({number, s.info.label, product(s.run), check_bf16, skip, poison});
    }
    if (p.selected("fp32")) {
        rows.push_back({"-", "08 FP32 (CUDA cores)",
                        [&o] { run_register_blocked_2d(o.A32.get(), o.B32.get(), o.C.get(), o.m, o.n, o.k); },
                        check_fp32, fp32_skip, poison, RowKind::reference});
        // Its operands are 4-byte floats: its least DRAM traffic is larger (the roofline's x). Its
        // FLOP are the product's: given here, or the row would count as a copy (a roof, no rate).
        rows.back().work = Work{4.0 * ((double)o.m * o.k + (double)o.n * o.k + (double)o.m * o.n),
                                2.0 * o.m * o.n * o.k};
    }
    return rows;
}

// DRAM bytes a product must move at least: A and Bt once (2 bytes each), C once (4 bytes).
static double least_bytes(int m, int n, int k) {
    return 2.0 * ((double)m * k + (double)n * k) + 4.0 * m * n;
}

static int run(const Program& p, int m, int n, int k) {
    const DeviceFacts dev = device_facts();
    std::printf("C = A * B on %s (%d SMs, compute capability %d.%d): m = %d, n = %d, k = %d\n", dev.name.c_str(),
                dev.sm_count, dev.major, dev.minor, m, n, k);
    const std::vector<float> A32 = random_floats((size_t)m * k, p.seed, -1.0f, 1.0f);
    const std::vector<float> Bt32 = random_floats((size_t)n * k, p.seed + 1000, -1.0f, 1.0f);
    const std::vector<bf16> A = to_bf16(A32), Bt = to_bf16(Bt32);
    const bool cpu_ref = (double)m * n * k <= kCpuReferenceLimit;
    // With the CPU reference, 08's kernel gets the float inputs themselves and every row is also
    // compared with their exact product (what BF16's rounding of the inputs costs); without it,
    // every row gets the BF16 values and is checked against cuBLAS.
    Operands o(A, Bt, cpu_ref ? A32 : to_float(A), cpu_ref ? Bt32 : to_float(Bt), m, n, k);
    const Tolerance tol_bf16 = bf16_matmul_tolerance(k, max_abs(A), max_abs(Bt));
    Tolerance tol_fp32 = fp32_matmul_tolerance(k, max_abs(A32), max_abs(Bt32));
    std::vector<double> ref_bf16, ref_float;
    std::vector<float> ref_cublas;
    CublasGemmBf16 cublas;
    if (cpu_ref) {
        ref_bf16 = matmul_reference(to_float(A), to_float(Bt), m, n, k);
        ref_float = matmul_reference(A32, Bt32, m, n, k);
        std::printf("checked against the CPU product of the BF16 inputs in double precision, |error| <= %.3g\n"
                    "(08's FP32 kernel: of the float inputs, |error| <= %.3g)\n\n",
                    tol_bf16.atol, tol_fp32.atol);
    } else if (dev.major >= 8) {
        cublas.run(o.A.get(), o.Bt.get(), o.C.get(), m, n, k);
        ref_cublas = o.C.download();
        std::printf("checked against cuBLAS BF16 (the CPU product would take too long); |error| <= %.3g\n\n",
                    2 * tol_bf16.atol);
    } else {
        std::printf("no reference: the CPU product would take too long, and this GPU has no BF16 tensor cores\n\n");
    }
    auto check = [&](bool bf16_row) {
        return [&, bf16_row] {
            const std::vector<float> C = o.C.download();
            Comparison c;
            if (cpu_ref) {
                c = bf16_row ? compare(C, ref_bf16, tol_bf16) : compare(C, ref_float, tol_fp32);
                return Check{c.ok(), c.describe(), {relative_error(C, ref_float)}};
            }
            if (ref_cublas.empty()) return Check{false, "no reference to check against", {"-"}};
            Tolerance t = tol_bf16;
            t.atol = 2 * tol_bf16.atol + (bf16_row ? 0 : tol_fp32.atol);
            c = compare(C, ref_cublas, t);
            return Check{c.ok(), c.describe(), {"-"}};
        };
    };
    TableSpec spec = table_spec(dev);
    spec.columns.insert(spec.columns.end() - 1, cols::own("error vs float inputs"));
    Measurements m_(spec, kBudgetedTiming, p.outputs());
    const std::string no_reference = "nothing to check it against: no CPU product at this size, no BF16 on this GPU";
    m_.section("", Work{least_bytes(m, n, k), flop(m, n, k)},
               rows_of(p, dev, o, cublas, check(true), check(false), cpu_ref || dev.major >= 8 ? "" : no_reference));
    const int failures = m_.finish();
    if (cpu_ref)
        std::printf("error vs float inputs: ||C - C_exact|| / ||C_exact||, C_exact the exact product of the float\n"
                    "matrices before their rounding to BF16: what 8 significant bits per input cost, against\n"
                    "FP32's 24.\n");
    return failures ? 1 : 0;
}

// The shapes --bench measures: m = n = k = each of these.
static const Sizes kSizes{"--m, --n, --k", {1024, 2048, 4096, 8192}};

static int run_bench(const Program& p) {
    const DeviceFacts dev =
        print_bench_header("C = A * B, BF16 inputs and FP32 sums, m = n = k = " + kSizes.text(false), kBudgetedTiming);
    std::printf("BF16 clock peak (dense, FP32 sums, from the SM count and reported clock): %.0f TFLOP/s.\n"
                "cuBLAS: cublasGemmEx, BF16 inputs, FP32 compute and output, measured in this run before and after\n"
                "the steps (the faster is 100%%). Inputs: random in [-1, 1) rounded to BF16, the same values for\n"
                "08's FP32 kernel; every result is checked against cuBLAS's.\n\n",
                dev.bf16_tensor_gflops / 1e3);
    Measurements m_(table_spec(dev), kBudgetedTiming, p.outputs());
    CublasGemmBf16 cublas;
    for (size_t size : kSizes.bench) {
        const int s = (int)size;
        const std::vector<bf16> A = to_bf16(random_floats((size_t)s * s, p.seed + s, -1.0f, 1.0f));
        const std::vector<bf16> Bt = to_bf16(random_floats((size_t)s * s, p.seed + s + 1, -1.0f, 1.0f));
        Operands o(A, Bt, to_float(A), to_float(Bt), s, s, s);
        const Tolerance tol = bf16_matmul_tolerance(s, max_abs(A), max_abs(Bt));
        const double fp32_atol = fp32_matmul_tolerance(s, max_abs(A), max_abs(Bt)).atol;
        std::vector<float> ref;
        if (dev.major >= 8) {
            cublas.run(o.A.get(), o.Bt.get(), o.C.get(), s, s, s);
            ref = o.C.download();
        }
        auto check = [&](double atol) {
            return [&, atol] {
                if (ref.empty()) return Check{false, "no BF16 reference on this GPU"};
                return check_of(compare(o.C.download(), ref, Tolerance{0.0, atol}));
            };
        };
        m_.section(strf("m = n = k = %d", s), Work{least_bytes(s, s, s), flop(s, s, s)},
                   rows_of(p, dev, o, cublas, check(2 * tol.atol), check(2 * tol.atol + fp32_atol),
                           ref.empty() ? "nothing to check it against: no BF16 cuBLAS on this GPU" : ""));
    }
    const int failures = m_.finish();
    // One line per step at the two largest sizes (the lecture notes quote them).
    const size_t count = kSizes.bench.size();
    for (const RowResult& r : m_.results())
        if (r.kind == RowKind::step && r.timed() &&
            (r.section == strf("m = n = k = %zu", kSizes.bench[count - 2]) || r.section == strf("m = n = k = %zu", kSizes.bench[count - 1])))
            std::printf("%s, step %s %s: %.0f TFLOP/s, %.1f%% of cuBLAS BF16\n", r.section.c_str(), r.step.c_str(),
                        r.name.c_str(), r.rate, r.of_baseline);
    // The optional step 5's bars (README): at least 95% of cuBLAS at 4096^3 and 100% at 8192^3.
    for (const auto& [size, bar] : {std::pair<int, double>{4096, 95.0}, std::pair<int, double>{8192, 100.0}})
        for (const RowResult& r : m_.results())
            if (r.kind == RowKind::step && r.timed() && r.step == "5" && r.section == strf("m = n = k = %d", size))
                std::printf("step 5's bar at %d^3: %.0f%% of cuBLAS; measured %.1f%%: %s\n", size, bar, r.of_baseline,
                            r.of_baseline >= bar ? "met" : "not met");
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"C = A * B (BF16 inputs, FP32 sums) on the tensor cores, checked",
               matrix_shape_docs(), step_decls(kSteps), {"cublas", "fp32"},
               "the benchmark tables (m = n = k = " + kSizes.text(false) + ", against cuBLAS BF16)"});
    const auto [m, n, k] = read_matrix_shape(p, kMaxDim);
    p.finish();

    if (p.bench) {
        // At the largest. Host: A, Bt (BF16 and float), the reference and one downloaded C. GPU: A
        // and Bt in BF16 and FP32, B in FP32, C, and the padded copies or cuBLAS's workspace.
        const double e = (double)kSizes.bench.back() * kSizes.bench.back();
        require_memory(p, kSizes.blamed(p), 20.0 * e, 24.0 * e);
        return run_bench(p);
    }
    const double mk = (double)m * k, nk = (double)n * k, mn = (double)m * n;
    const bool cpu_ref = (double)m * n * k <= kCpuReferenceLimit;
    // Host: inputs in float and BF16 (and B transposed back), the references and a downloaded C.
    // GPU: A and Bt in BF16 (and a padded copy), A and B in float, C.
    require_memory(p, kSizes.blamed(p), 12.0 * (mk + nk) + (cpu_ref ? 20.0 : 8.0) * mn, 12.0 * (mk + nk) + 4.0 * mn);
    return run(p, m, n, k);
}
