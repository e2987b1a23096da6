// 05_tree_reduce/tests.cpp: the cases every step must pass, registered once for all (STEP_CASES),
// then the cases of the steps that have something more to get wrong.
//
// Two kinds of input, two kinds of check:
//   - whole numbers from -8 to 8 (never 0): every partial sum is a whole number far below 2^24,
//     which float adds exactly in any order, so the GPU must return EXACTLY the reference;
//     one skipped or repeated element is caught;
//   - random floats of mixed sign: the GPU's sum must lie within 4 * 2^-24 * sqrt(n + 1) *
//     sum|x[i]| of the double-precision reference (float_sum_tolerance in common/compare.h).
// The input sits in a buffer poisoned with NaN before and after it, so a kernel that reads
// outside x[0..n) returns NaN, which never passes.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cub_sum.h"
#include "launch.h"
#include "testing.h"
#include "tree_reduce.h"

namespace {

// Runs `run` over x, placed `offset` floats into a NaN-poisoned device buffer, and returns *out.
float gpu_sum(ReduceFn run, const std::vector<float>& x, int block, size_t offset = 0) {
    const size_t n = x.size();
    const size_t guard = 2048;  // more than any kernel could overshoot by
    DeviceBuffer<float> d_x(offset + n + guard);
    d_x.poison();
    if (n > 0)
        CUDA_CHECK(cudaMemcpy(d_x.get() + offset, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    ScratchBuffers ws(n, block);
    DeviceBuffer<float> out(1);
    out.poison();
    run(d_x.get() + offset, n, out.get(), block, ws.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    return out.download()[0];
}

void expect_exact(ReduceFn run, size_t n, int block, uint64_t seed, size_t offset = 0) {
    CAPTURE(n);
    CAPTURE(block);
    CAPTURE(offset);
    std::vector<float> x = random_whole_floats(n, seed);
    const double ref = sum_reference(x.data(), n).sum;
    const float got = gpu_sum(run, x, block, offset);
    INFO("GPU " << got << ", exact sum " << ref);
    CHECK((double)got == ref);
}

void expect_close(ReduceFn run, size_t n, int block, uint64_t seed, float lo, float hi) {
    CAPTURE(n);
    CAPTURE(block);
    std::vector<float> x = random_floats(n, seed, lo, hi);
    const ReferenceSum ref = sum_reference(x.data(), n);
    const Tolerance tol = float_sum_tolerance(n, ref.sum_abs);
    const float got = gpu_sum(run, x, block);
    INFO("GPU " << got << ", reference " << ref.sum << ", tolerance " << tol.atol);
    CHECK(within(got, ref.sum, tol));
}

const size_t kSizes[] = {0, 1, 31, 32, 33, 1023, 1025, ((size_t)1 << 20) + 3};
const int kBlocks[] = {32, 64, 128, 256, 512, 1024};

// Whole numbers at 2^25: 128 MB, made once and shared by every step's (large) case.
const std::vector<float>& big_input() {
    static const std::vector<float> x = random_whole_floats((size_t)1 << 25, 2025);
    return x;
}

void check_large(ReduceFn run) {
    const std::vector<float>& x = big_input();
    const double ref = sum_reference(x.data(), x.size()).sum;
    const float got = gpu_sum(run, x, 256);
    INFO("GPU " << got << ", exact sum " << ref);
    CHECK((double)got == ref);
    expect_close(run, ((size_t)1 << 25) - 1, 512, 77, -1.0f, 3.0f);
}

// Past 2^32 elements a 32-bit index wraps even unsigned, and so does a size_t cast made after
// the multiplication (blockIdx.x * blockDim.x overflows first). The input (17 GB of whole
// numbers) is made and uploaded once and shared by every step's case.
void check_huge(ReduceFn run) {
    const size_t n = ((size_t)1 << 32) + 5;
    const double bytes = 4.0 * n;
    static const bool fits = 1.15 * bytes < (double)free_gpu_bytes() && 2.5 * bytes < host_memory_bytes();
    if (!fits) SKIP_CASE("needs 17.2 GB of GPU memory and of host memory for 2^32 + 5 floats");
    static double ref = 0;
    static DeviceBuffer<float> d_x;
    if (d_x.size() == 0) {
        std::vector<float> x = random_whole_floats(n, 4242);
        ref = sum_reference(x.data(), n).sum;
        d_x = DeviceBuffer<float>(x);
    }
    ScratchBuffers scratch(n, 256);
    DeviceBuffer<float> out(1);
    out.poison();
    run(d_x.get(), n, out.get(), 256, scratch.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    const float got = out.download()[0];
    INFO("GPU " << got << ", exact sum " << ref);
    CHECK((double)got == ref);
}

}  // namespace

DECLARE_STEPS(kSteps);

// ---- every step -----------------------------------------------------------------------------
STEP_CASES(kSteps, "n = 0, 1, 31, 32, 33, 1023, 1025, 2^20+3, exact", [](const auto& step) {
    for (size_t n : kSizes) expect_exact(step.run, n, 256, n + 11);
});
STEP_CASES(kSteps, "mixed-sign random floats, within tolerance", [](const auto& step) {
    for (size_t n : {(size_t)1, (size_t)33, (size_t)1025, (size_t)100003}) {
        expect_close(step.run, n, 256, n + 5, -1.0f, 1.0f);
        expect_close(step.run, n, 256, n + 6, -3.0f, 1.0f);
        expect_close(step.run, n, 256, n + 7, -1e3f, 2e3f);
    }
});
STEP_CASES(kSteps, "block sizes 32 to 1024", [](const auto& step) {
    for (int b : kBlocks)
        for (size_t n : {(size_t)b - 1, (size_t)b + 1, (size_t)2 * b + 1, (size_t)100003})
            expect_exact(step.run, n, b, n + b);
});
STEP_CASES(kSteps, "n = 2^25 (large)", [](const auto& step) { check_large(step.run); });
STEP_CASES(kSteps, "n = 2^32 + 5, size_t indexing past 4G elements (large)",
           [](const auto& step) { check_huge(step.run); });

// ---- the students' predictions (starter.cu), each checked against its answer in answers.cpp ----
STEP_HOST_CASE(kSteps, "interleaved_divergent", "prediction kBusyWarpRounds256: warps with work over the rounds") {
    check_prediction("kBusyWarpRounds256", (double)kBusyWarpRounds256,
                     "which threads add in each round, and that a warp with one such thread issues every instruction");
}
STEP_HOST_CASE(kSteps, "interleaved_strided", "prediction kBankConflictWays: warp 0 in the round 2 apart") {
    check_prediction("kBankConflictWays", (double)kBankConflictWays,
                     "which word each thread of the warp writes in that round, and which bank holds each word");
}
STEP_HOST_CASE(kSteps, "unrolled_warp", "prediction kBarriersUnrolled256: __syncthreads() per 256-thread block") {
    check_prediction("kBarriersUnrolled256", (double)kBarriersUnrolled256,
                     "how many values the block-wide rounds leave for warp_tail, and what each round needs before it");
}
STEP_HOST_CASE(kSteps, "grid_stride_vec", "prediction kGridBlocksAt1000000: grid_for at 1000000 floats, block 256") {
    check_prediction("kGridBlocksAt1000000", (double)kGridBlocksAt1000000,
                     "how many floats one block reads in a single unrolled trip of all its threads, and which way grid_for rounds");
}

// ---- steps 4, 7 and 8: what only some steps can get wrong -------------------------------------
STEP_CASE(kSteps, "first_add", "n = 2 * block * k + r, the second load past the end") {
    // The source material's version reads x[i + blockDim.x] unguarded: wrong (NaN here) for
    // every n that is not a multiple of 2 * blockDim.
    for (size_t r : {1, 100, 255, 256, 257, 511}) expect_exact(run_first_add, 3 * 512 + r, 256, r);
}

STEP_CASE(kSteps, "grid_stride_vec", "x starts 4, 8 or 12 bytes past a 16-byte boundary") {
    // Sizes around the head (up to 3 floats), the float4 body and the tail (up to 3 floats).
    for (size_t offset : {1, 2, 3})
        for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 1025, 100003, 1048579})
            expect_exact(run_grid_stride_vec, n, 256, 3 * n + offset, offset);
}

STEP_CASE(kSteps, "one_pass", "x starts 4, 8 or 12 bytes past a 16-byte boundary") {
    for (size_t offset : {1, 2, 3})
        for (size_t n : {1, 3, 5, 7, 1025, 1048579}) expect_exact(run_one_pass, n, 128, n + offset, offset);
}
STEP_CASE(kSteps, "one_pass", "back-to-back calls reuse the counter, which ends at zero") {
    // The last block resets the counter; if it did not, the next call would never find its
    // last block and would leave *out unwritten (NaN).
    const size_t n = 1000003;
    std::vector<float> x = random_whole_floats(n, 8);
    const double ref = sum_reference(x.data(), n).sum;
    DeviceBuffer<float> d_x(x), out(1);
    ScratchBuffers ws(n, 256);
    for (size_t m : {n, n / 3, n, (size_t)5000}) {
        CAPTURE(m);
        out.poison();
        run_one_pass(d_x.get(), m, out.get(), 256, ws.view());
        CUDA_CHECK(cudaDeviceSynchronize());
        const double want = m == n ? ref : sum_reference(x.data(), m).sum;
        CHECK((double)out.download()[0] == want);
        CHECK(ws.counter.download()[0] == 0u);
    }
}
STEP_CASE(kSteps, "one_pass", "the same input gives the same bits every time") {
    // The last block adds the per-block sums in index order, whichever block finishes last.
    std::vector<float> x = random_floats(2000003, 9, -1.0f, 1.0f);
    const float first = gpu_sum(run_one_pass, x, 256);
    CHECK(within(first, sum_reference(x.data(), x.size()).sum,
                 float_sum_tolerance(x.size(), sum_reference(x.data(), x.size()).sum_abs)));
    for (int r = 0; r < 4; ++r) {
        const float again = gpu_sum(run_one_pass, x, 256);
        CHECK(std::memcmp(&again, &first, sizeof(float)) == 0);
    }
}

// ---- the library baseline -------------------------------------------------------------------
TEST_CASE("baseline cub: cub::DeviceReduce::Sum gives the exact sum" * needs_gpu()) {
    CubSum cub(1000003);
    for (size_t n : {(size_t)0, (size_t)1, (size_t)1025, (size_t)1000003}) {
        CAPTURE(n);
        std::vector<float> x = random_whole_floats(n, n);
        DeviceBuffer<float> d_x(x), out(1);
        out.poison();
        cub.run(d_x.get(), n, out.get());
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK((double)out.download()[0] == sum_reference(x.data(), n).sum);
    }
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: whole-number inputs are nonzero, within [-8, 8], and sum exactly in float") {
    std::vector<float> x = random_whole_floats(1 << 20, 3);
    bool in_range = true, seen_negative = false, seen_positive = false;
    float running = 0.0f;
    for (float v : x) {
        in_range = in_range && v != 0.0f && v >= -8.0f && v <= 8.0f && v == (float)(int)v;
        seen_negative = seen_negative || v < 0;
        seen_positive = seen_positive || v > 0;
        running += v;  // sequential float sum: exact, like any order
    }
    CHECK(in_range);
    CHECK(seen_negative);
    CHECK(seen_positive);
    CHECK((double)running == sum_reference(x.data(), x.size()).sum);
}
TEST_CASE("host: scratch_floats covers every pass of steps 1 to 6 and the grids of 7 and 8") {
    for (int block : kBlocks)
        for (size_t n : {(size_t)0, (size_t)1, (size_t)block, (size_t)block + 1, (size_t)100003,
                         ((size_t)1 << 28) + 7}) {
            CAPTURE(block);
            CAPTURE(n);
            for (size_t per_block : {(size_t)block, 2 * (size_t)block}) {  // what each pass covers
                size_t used = 0;
                for (size_t count = n; count > per_block;) {
                    count = (count + per_block - 1) / per_block;
                    used += count;
                }
                CHECK(used <= scratch_floats(n, block));
            }
            CHECK(scratch_floats(n, block) >= kMaxGridBlocks);
        }
}
TEST_CASE("host: block sizes are powers of two from 32 to 1024") {
    for (int b : kBlocks) CHECK(valid_block_size(b));
    for (int b : {0, 1, 16, 31, 33, 96, 100, 768, 2048, -32}) CHECK_FALSE(valid_block_size(b));
}
