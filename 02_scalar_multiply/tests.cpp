// 02_scalar_multiply/tests.cpp: the cases every step must pass, registered once for all steps
// (STEP_CASES), then the cases only some steps can take.
#include <cmath>
#include <vector>

#include "scalar_multiply.h"
#include "testing.h"

namespace {

const Tolerance kHalfUlp{0x1.0p-24, 0.0};  // the float product must be correctly rounded

// Runs one step on seeded random input in [-10, 10) and checks every element against the CPU
// reference to within half an ulp.
void expect_scaled(const ScaleStep& step, size_t n, float a, int block, uint64_t seed) {
    CAPTURE(n);
    CAPTURE(a);
    CAPTURE(block);
    std::vector<float> x = random_floats(n, seed, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    d_out.poison();
    step.run(a, d_x.get(), d_out.get(), n, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = scale_reference(a, x[i]);
    CHECK_MATCH(compare(d_out.download(), ref, kHalfUlp));
}

// A size above 2^31 elements: an int index would wrap around and write the wrong places.
void expect_scaled_huge(const ScaleStep& step) {
    const size_t n = ((size_t)1 << 31) + 5;
    const double need = 2.0 * n * sizeof(float);
    if (need > 0.9 * (double)free_gpu_bytes()) SKIP_CASE("this GPU has too little free memory for 2 x 8.6 GB");
    if (need > 0.8 * host_memory_bytes()) SKIP_CASE("this machine has too little host memory for 2 x 8.6 GB");
    std::vector<float> x = random_floats(n, 99, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    d_out.poison();
    const float a = -1.5f;
    step.run(a, d_x.get(), d_out.get(), n, 256);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> out = d_out.download();
    size_t bad = 0, first_bad = n;
    for (size_t i = 0; i < n; ++i)
        if (!within(out[i], scale_reference(a, x[i]), kHalfUlp) && bad++ == 0) first_bad = i;
    INFO("first wrong element: " << first_bad);
    CHECK(bad == 0);
}

// Awkward sizes: empty, one, either side of a warp and of the largest block, and (from step 2
// on) sizes no single block can cover.
const size_t kOneBlockSizes[] = {0, 1, 31, 32, 33, 1023, 1024};
const size_t kSizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, 10000, ((size_t)1 << 24) + 3};
const int kBlocks[] = {32, 64, 128, 256, 512, 1024, 96, 33};

}  // namespace

DECLARE_STEPS(kSteps);

STEP_CASES(kSteps, "n = 0, 1, 31, 32, 33, 1023, 1024", [](const auto& step) {
    for (size_t n : kOneBlockSizes) expect_scaled(step, n, 2.5f, 256, n + step.number);
});
STEP_CASES(kSteps, "negative and zero scalars", [](const auto& step) {
    for (float a : {-3.25f, 0.0f, -0.0f}) expect_scaled(step, 1000, a, 128, 7 + step.number);
});

STEP_CASES_FROM(kSteps, 2, "sizes 0 to 2^24+3, block 256", [](const auto& step) {
    for (size_t n : kSizes) expect_scaled(step, n, 2.5f, 256, n + step.number);
});
STEP_CASES_FROM(kSteps, 2, "block sizes 32 to 1024, including 33 and 96", [](const auto& step) {
    for (int b : kBlocks) expect_scaled(step, 100003, 1.75f, b, b + step.number);
});
STEP_CASES_FROM(kSteps, 2, "n = 2^31 + 5, size_t indexing (large)", [](const auto& step) { expect_scaled_huge(step); });

// ---- step 4: what only 16-byte accesses can get wrong ----------------------------------------
STEP_CASE(kSteps, "vectorized", "every tail length, n = 2 to 9") {
    for (size_t n = 2; n <= 9; ++n) expect_scaled(step, n, 2.5f, 256, n + 4);
}
STEP_CASE(kSteps, "vectorized", "pointers not 16-byte aligned, and aligned ones at an offset") {
    const size_t n = 100003;
    std::vector<float> x = random_floats(n + 8, 5, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n + 8);
    for (size_t offset : {1, 2, 3, 4}) {
        CAPTURE(offset);
        d_out.poison();
        step.run(-0.5f, d_x.get() + offset, d_out.get() + offset, n, 256);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> out = d_out.download();
        std::vector<double> ref(n);
        for (size_t i = 0; i < n; ++i) ref[i] = scale_reference(-0.5f, x[i + offset]);
        CHECK_MATCH(compare(out.data() + offset, ref.data(), n, kHalfUlp));
        CHECK(std::isnan(out[offset - 1]));  // nothing written before the start
        CHECK(std::isnan(out[offset + n]));  // nor after the end
    }
}

// ---- predictions (host): each checked against its answer in answers.cpp ------------------------
STEP_HOST_CASE(kSteps, "many_blocks", "prediction: blocks of 256 threads for n = 2^31 + 5") {
    check_prediction("kBlocksAt2To31Plus5", (double)kBlocksAt2To31Plus5,
                     "rounding up: the last block is partly empty, and it still needs a whole block");
}
STEP_HOST_CASE(kSteps, "grid_stride", "prediction: elements of thread 0, n = 2^25, one wave on an H100") {
    check_prediction("kElementsOfThread0At2To25", (double)kElementsOfThread0At2To25,
                     "the grid-stride loop: a thread's elements are its index, plus the grid's thread count, and so on below n");
}
STEP_HOST_CASE(kSteps, "vectorized", "prediction: bytes in flight on a full H100 SM") {
    check_prediction("kBytesInFlightPerSm", (double)kBytesInFlightPerSm,
                     "bytes in flight: how many bytes one thread's float4 load requests, times the SM's resident threads");
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the CPU reference is exact for float products") {
    CHECK(scale_reference(3.0f, 0.5f) == 1.5);
    CHECK(scale_reference(-2.0f, 1e30f) == -2.0 * (double)1e30f);
    CHECK(std::signbit(scale_reference(-1.0f, 0.0f)));
}
