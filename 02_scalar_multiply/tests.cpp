// 02_scalar_multiply/tests.cpp: one group of test cases per step, named "step N kernel: ...".
#include <cmath>
#include <vector>

#include "scalar_multiply.h"
#include "testing.h"

namespace {

using RunFn = void (*)(float, const float*, float*, size_t, int);

void run_step1(float a, const float* x, float* out, size_t n, int) { run_one_block(a, x, out, n); }

// Runs one step on seeded random input in [-10, 10) and checks every element against the CPU
// reference to within half an ulp (the float product must be correctly rounded).
void expect_scaled(RunFn run, size_t n, float a, int block, uint64_t seed) {
    CAPTURE(n);
    CAPTURE(a);
    CAPTURE(block);
    std::vector<float> x = random_floats(n, seed, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    d_out.poison();
    run(a, d_x.get(), d_out.get(), n, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = scale_reference(a, x[i]);
    CHECK_MATCH(compare(d_out.download(), ref, Tolerance{0x1.0p-24, 0.0}));
}

// A size above 2^31 elements: an int index would wrap around and write the wrong places.
void expect_scaled_huge(RunFn run) {
    const size_t n = ((size_t)1 << 31) + 5;
    const double need = 2.0 * n * sizeof(float);
    if (need > 0.9 * (double)free_gpu_bytes())
        SKIP_CASE("this GPU has too little free memory for 2 x 8.6 GB");
    if (need > 0.8 * host_memory_bytes())
        SKIP_CASE("this machine has too little host memory for 2 x 8.6 GB");
    std::vector<float> x = random_floats(n, 99, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n);
    d_out.poison();
    const float a = -1.5f;
    run(a, d_x.get(), d_out.get(), n, 256);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> out = d_out.download();
    size_t bad = 0, first_bad = n;
    for (size_t i = 0; i < n; ++i)
        if (!within(out[i], scale_reference(a, x[i]), Tolerance{0x1.0p-24, 0.0}) && bad++ == 0) first_bad = i;
    INFO("first wrong element: " << first_bad);
    CHECK(bad == 0);
}

const size_t kSmallSizes[] = {0, 1, 31, 32, 33, 1023, 1024};
const size_t kSizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, 10000, ((size_t)1 << 24) + 3};
const int kBlocks[] = {32, 64, 128, 256, 512, 1024, 96, 33};

}  // namespace

// ---- step 1 ---------------------------------------------------------------------------------
TEST_CASE("step 1 one_block: n = 0, 1, 31, 32, 33, 1023, 1024" * needs_gpu()) {
    for (size_t n : kSmallSizes) expect_scaled(run_step1, n, 2.5f, 0, n + 1);
}
TEST_CASE("step 1 one_block: negative and zero scalars" * needs_gpu()) {
    expect_scaled(run_step1, 1000, -3.25f, 0, 7);
    expect_scaled(run_step1, 1000, 0.0f, 0, 8);
    expect_scaled(run_step1, 1000, -0.0f, 0, 9);
}

// ---- step 2 ---------------------------------------------------------------------------------
TEST_CASE("step 2 many_blocks: sizes 0 to 2^24+3, block 256" * needs_gpu()) {
    for (size_t n : kSizes) expect_scaled(run_many_blocks, n, 2.5f, 256, n + 2);
}
TEST_CASE("step 2 many_blocks: block sizes 32 to 1024, including 33 and 96" * needs_gpu()) {
    for (int b : kBlocks) expect_scaled(run_many_blocks, 10007, 1.75f, b, b);
}
TEST_CASE("step 2 many_blocks: negative and zero scalars" * needs_gpu()) {
    expect_scaled(run_many_blocks, 100003, -3.25f, 128, 7);
    expect_scaled(run_many_blocks, 100003, 0.0f, 128, 8);
}
TEST_CASE("step 2 many_blocks: n = 2^31 + 5, size_t indexing (large)" * needs_gpu()) {
    expect_scaled_huge(run_many_blocks);
}

// ---- step 3 ---------------------------------------------------------------------------------
TEST_CASE("step 3 grid_stride: sizes 0 to 2^24+3, block 256" * needs_gpu()) {
    for (size_t n : kSizes) expect_scaled(run_grid_stride, n, 2.5f, 256, n + 3);
}
TEST_CASE("step 3 grid_stride: block sizes 32 to 1024, including 33 and 96" * needs_gpu()) {
    for (int b : kBlocks) expect_scaled(run_grid_stride, 100003, 1.75f, b, b + 1);
}
TEST_CASE("step 3 grid_stride: negative and zero scalars" * needs_gpu()) {
    expect_scaled(run_grid_stride, 100003, -3.25f, 128, 7);
    expect_scaled(run_grid_stride, 100003, 0.0f, 128, 8);
}
TEST_CASE("step 3 grid_stride: n = 2^31 + 5, size_t indexing (large)" * needs_gpu()) {
    expect_scaled_huge(run_grid_stride);
}

// ---- step 4 ---------------------------------------------------------------------------------
TEST_CASE("step 4 vectorized: sizes 0 to 2^24+3 (tails of 0 to 3 floats), block 256" * needs_gpu()) {
    for (size_t n : kSizes) expect_scaled(run_vectorized, n, 2.5f, 256, n + 4);
    for (size_t n : {2, 3, 4, 5, 6, 7, 8, 9}) expect_scaled(run_vectorized, n, 2.5f, 256, n + 4);
}
TEST_CASE("step 4 vectorized: block sizes 32 to 1024, including 33 and 96" * needs_gpu()) {
    for (int b : kBlocks) expect_scaled(run_vectorized, 100003, 1.75f, b, b + 2);
}
TEST_CASE("step 4 vectorized: pointers not 16-byte aligned, and aligned ones at an offset" * needs_gpu()) {
    const size_t n = 100003;
    std::vector<float> x = random_floats(n + 8, 5, -10.0f, 10.0f);
    DeviceBuffer<float> d_x(x), d_out(n + 8);
    for (size_t offset : {1, 2, 3, 4}) {
        CAPTURE(offset);
        d_out.poison();
        run_vectorized(-0.5f, d_x.get() + offset, d_out.get() + offset, n, 256);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> out = d_out.download();
        std::vector<double> ref(n);
        for (size_t i = 0; i < n; ++i) ref[i] = scale_reference(-0.5f, x[i + offset]);
        CHECK_MATCH(compare(out.data() + offset, ref.data(), n, Tolerance{0x1.0p-24, 0.0}));
        CHECK(std::isnan(out[offset - 1]));  // nothing written before the start
        CHECK(std::isnan(out[offset + n]));  // nor after the end
    }
}
TEST_CASE("step 4 vectorized: n = 2^31 + 5, size_t indexing (large)" * needs_gpu()) {
    expect_scaled_huge(run_vectorized);
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: the CPU reference is exact for float products") {
    CHECK(scale_reference(3.0f, 0.5f) == 1.5);
    CHECK(scale_reference(-2.0f, 1e30f) == -2.0 * (double)1e30f);
    CHECK(std::signbit(scale_reference(-1.0f, 0.0f)));
}
