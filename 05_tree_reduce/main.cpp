// 05_tree_reduce/main.cpp: runs each step on random data, checks its sum against the CPU
// reference, and times it; --bench prints the ladder at 2^25 and 2^28 floats next to CUB.
#include "cub_sum.h"
#include "program.h"
#include "tree_reduce.h"

// One size: every selected step and CUB on x, each result within `tol` of `ref`, and the copy of
// x that shows the memory roof this GPU reaches (it reads and writes 4n bytes).
static void measure(Measurements& m, const Program& p, const std::string& title, const std::vector<float>& x,
                    double ref, Tolerance tol, int block) {
    const size_t n = x.size();
    DeviceBuffer<float> d_x(x), d_out(1), d_copy(n);
    ScratchBuffers scratch(n, block);
    CubSum cub(n);
    auto check = [&] {
        const float got = d_out.download()[0];
        const bool ok = within(got, ref, tol);
        const std::string error = got == ref ? "0" : strf("%.3g", std::fabs(got - ref));
        return Check{ok, ok ? (tol.atol == 0 ? "exact" : "within the tolerance") : "outside the tolerance",
                     {strf("%.9g", got), ok ? error : "-"}};
    };
    auto poison = [&] { d_out.poison(); };
    std::vector<StepRow> rows;
    for (const auto& s : p.selected(kSteps))
        rows.push_back({std::to_string(s.number), s.name,
                        [&, s] { s.run(d_x.get(), n, d_out.get(), block, scratch.view()); }, check, "", poison});
    if (p.selected("cub"))
        rows.push_back({"-", "cub::DeviceReduce::Sum", [&] { cub.run(d_x.get(), n, d_out.get()); }, check, "", poison,
                        RowKind::baseline});
    if (p.kernel == "all") rows.push_back(copy_row("cudaMemcpy (device to device)", d_copy.get(), d_x.get(), x));
    m.section(title, Work{4.0 * n, 1.0 * n}, rows);
}

// The sizes --bench measures, with whole numbers so that every sum is exact.
static const Sizes kSizes{"--n", {(size_t)1 << 25, (size_t)1 << 28}};

// The default run (n random floats, each sum within a tolerance) or --bench (kSizes, whole
// floats, each sum exact): GB/s of the 4n bytes read, against CUB and the DRAM peak.
static int run(const Program& p, size_t n, int block) {
    const BenchConfig cfg = p.bench ? BenchConfig{} : BenchConfig{2, 10, true};
    const DeviceFacts dev = print_header(p, cfg, strf("the sum of n floats, block = %d", block), "sum of n floats",
                                         strf("n = %zu, block = %d, input uniform in [-1, 2)", n, block));
    TableSpec t;
    t.title = "sum of n floats";
    t.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(t.rate), cols::of_baseline("% of CUB"),
                 cols::vs_previous(), cols::of_peak("DRAM peak", dev.dram_gbs), cols::own("GPU sum"), cols::own("error"),
                 cols::check()};
    t.footer = "GB/s counts the 4n bytes read (the copy's, the 4n read and the 4n written); the plot counts\n"
               "one FLOP (an add) per element.";
    Measurements m(t, cfg, p.outputs());
    if (p.bench) {
        std::printf("Input: whole numbers from -8 to 8, so every sum is exact and each result is checked\n"
                    "exactly, before and after its timing. CUB is timed before and after the steps; the\n"
                    "faster is the 100%%.\n\n");
        for (size_t size : kSizes.bench) {
            const std::vector<float> x = random_whole_floats(size, p.seed + (uint64_t)std::log2((double)size));
            measure(m, p, strf("%s floats (%.0f MB read)", count_text(size).c_str(), 4.0 * x.size() / 1e6), x,
                    sum_reference(x).sum, Tolerance{0, 0}, block);
        }
        return m.finish() ? 1 : 0;
    }
    const std::vector<float> x = random_floats(n, p.seed, -1.0f, 2.0f);
    const ReferenceSum ref = sum_reference(x);
    const Tolerance tol = float_sum_tolerance(n, ref.sum_abs);
    measure(m, p, "", x, ref.sum, tol, block);
    const int failures = m.finish();
    std::printf("reference (double precision, on the CPU): %.9g; tolerance +-%.3g, that is\n"
                "4 * 2^-24 * sqrt(n + 1) * sum|x[i]|, a few standard deviations of the rounding\n"
                "error of a float sum in any order.\n",
                ref.sum, tol.atol);
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"the sum of n floats on the GPU, checked on the CPU",
               {{"--n N", "elements"},
                {"--block B", "threads per block, a power of two"},
                {"--volatile-demo", "run the source material's old `volatile` warp tail once and say what it gave "
                                    "(README, step 5); try it under compute-sanitizer --tool racecheck"}},
               step_decls(kSteps), {"cub"}, "the benchmark tables (" + kSizes.text() + " floats)"});
    const size_t n = p.size("--n", ((size_t)1 << 24) + 3, 0);
    const int block = p.integer("--block", 256, 32, 1024);
    const bool demo = p.flag("--volatile-demo");
    p.not_with_bench({"--n", "--volatile-demo"});
    p.not_with_demo("--volatile-demo");
    p.finish();
    if (!valid_block_size(block))
        p.fail("--block", "must be a power of two: 32, 64, 128, 256, 512 or 1024 (got " + std::to_string(block) + ")");
    if (demo && block < 64) p.fail("--block", "the old volatile tail needs at least 64 threads per block");
    if (demo && n == 0) p.fail("--n", "the demonstration needs at least one element");
    // Host: the input and the copy row's download of its copy. GPU: input, its copy, scratch, CUB's
    // storage (about as large as the scratch). --bench, at its largest: the input, the copy test's
    // two buffers and scratch. (The demo needs less: n floats and one total per block.)
    const size_t most = kSizes.most(p, n);
    require_memory(p, kSizes.blamed(p), 8.0 * most,
                   (p.bench ? 12.0 : 8.0) * most + 8.0 * scratch_floats(most, block) + (1 << 20));
    return demo ? run_volatile_demo(n, block, p.seed) : run(p, n, block);
}
