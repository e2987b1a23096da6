// 03_game_of_life/tests.cpp: the cases every step must pass, registered once for all (STEP_CASES),
// then each step's own, named "step N kernel: ..."; host tests of the CPU reference, the pattern
// readers, the options' parsing and the pictures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <gif_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "game_of_life.h"
#include "life_reference.h"
#include "patterns.h"
#include "pictures.h"
#include "testing.h"

namespace {

// ---- Lattices for the tests ------------------------------------------------------------------
Pattern cells_pattern(const char* text) { return parse_cells(text, "test.cells"); }

const char* const kBlock = "OO\nOO\n";
const char* const kBeehive = ".OO.\nO..O\n.OO.\n";
const char* const kBlinker = "OOO\n";
const char* const kToad = ".OOO\nOOO.\n";
const char* const kGlider = ".O.\n..O\nOOO\n";

std::vector<uint8_t> lattice_with(const char* cells_text, int w, int h, int x, int y) {
    return place_pattern(cells_pattern(cells_text), w, h, x, y);
}

// The lattice as text ('.' and 'O'), for failure messages of small cases.
std::string picture(const std::vector<uint8_t>& cells, int w, int h) {
    if ((size_t)w * h > 4096) return "(too large to show)";
    std::string s = "\n";
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) s += cells[(size_t)y * w + x] ? 'O' : '.';
        s += '\n';
    }
    return s;
}

#define CHECK_LATTICE(got, ref, w, h)                                                              \
    do {                                                                                           \
        const auto& check_got_ = (got);                                                            \
        const auto& check_ref_ = (ref);                                                            \
        INFO(lattice_difference(check_got_, check_ref_, (w)));                                     \
        if (check_got_ != check_ref_)                                                              \
            INFO("got:" << picture(check_got_, (w), (h)) << "expected:" << picture(check_ref_, (w), (h))); \
        CHECK(check_got_ == check_ref_);                                                           \
    } while (0)

// Runs `generations` generations of a step on the GPU (every output poisoned before each launch).
std::vector<uint8_t> on_gpu(const LifeStep& s, const std::vector<uint8_t>& start, int w, int h, long long generations) {
    DeviceBuffer<uint8_t> cur(start), spare(start.size());
    REQUIRE(s.run(cur, spare, w, h, generations, true) >= 0);
    return cur.download();
}

// ---- Checks shared by the three steps -------------------------------------------------------------
void check_still_lifes(const LifeStep& step) {
    // Placed in the middle, and across the right and bottom edges (the torus wraps them).
    for (const char* shape : {kBlock, kBeehive})
        for (int at : {3, 9}) {
            CAPTURE(shape);
            CAPTURE(at);
            const auto start = lattice_with(shape, 11, 10, at, at);
            CHECK_LATTICE(on_gpu(step, start, 11, 10, 1), start, 11, 10);
            CHECK_LATTICE(on_gpu(step, start, 11, 10, 7), start, 11, 10);
        }
}

void check_oscillators(const LifeStep& step) {
    for (const char* shape : {kBlinker, kToad})
        for (auto [w, h, at] : {std::tuple{9, 7, 2}, std::tuple{9, 7, 7}, std::tuple{200, 40, 126}}) {
            CAPTURE(shape);
            CAPTURE(w);
            CAPTURE(at);
            const auto start = lattice_with(shape, w, h, at, at % h);
            const auto one = on_gpu(step, start, w, h, 1);
            CHECK(one != start);  // it does oscillate
            CHECK_LATTICE(one, life_step_reference(start, w, h), w, h);
            CHECK_LATTICE(on_gpu(step, start, w, h, 2), start, w, h);
            CHECK_LATTICE(on_gpu(step, start, w, h, 10), start, w, h);
        }
}

void check_glider(const LifeStep& step, std::initializer_list<int> sizes) {
    for (int n : sizes) {
        CAPTURE(n);
        const auto start = lattice_with(kGlider, n, n, 2, 5);
        CHECK_LATTICE(on_gpu(step, start, n, n, 4), lattice_with(kGlider, n, n, 3, 6), n, n);
        CHECK_LATTICE(on_gpu(step, start, n, n, 4 * 5), lattice_with(kGlider, n, n, 7, 10), n, n);
        // (N, N) later it is back where it started, having crossed both edges of the torus.
        CHECK_LATTICE(on_gpu(step, start, n, n, 4 * n), start, n, n);
    }
}

// Random lattices at two densities (a 1 x 1 lattice needs a live start to mean much).
void check_random(const LifeStep& step, int w, int h, long long generations, int seeds) {
    for (int seed = 1; seed <= seeds; ++seed)
        for (double density : {0.25, 0.6}) {
            CAPTURE(w);
            CAPTURE(h);
            CAPTURE(seed);
            CAPTURE(density);
            const auto start = random_lattice(w, h, density, seed * 7919 + w * 31 + h);
            const auto ref = life_reference(start, w, h, generations);
            CHECK_LATTICE(on_gpu(step, start, w, h, generations), ref, w, h);
        }
}

// The sizes the course promises, for 100 generations; then more awkward ones, for 30.
const int kOddSizes[][2] = {{97, 61}, {1, 1}, {1, 33}, {33, 1}};
const int kMoreSizes[][2] = {{1, 2}, {2, 1}, {2, 2}, {3, 1}, {1, 3}, {3, 3}, {5, 2}, {31, 17}, {129, 7}, {7, 129}, {260, 35}};

void check_odd_sizes(const LifeStep& step) {
    // Under make sanitize, 8 generations: every cell, edge and launch path is taken in the first.
    for (const auto& s : kOddSizes) check_random(step, s[0], s[1], sanitizing(100, 8), 2);
    for (const auto& s : kMoreSizes) check_random(step, s[0], s[1], sanitizing(30, 8), 1);
}

void check_large_random(const LifeStep& step) {
    const int n = 1000;
    const auto start = random_lattice(n, n, 0.25, 1000);
    static const std::vector<uint8_t> ref = life_reference(start, n, n, 100);  // computed once
    CHECK_LATTICE(on_gpu(step, start, n, n, 100), ref, n, n);
}

void check_shipped(const LifeStep& step) {
    const auto names = shipped_pattern_names();
    REQUIRE(names.size() >= 8);
    for (const auto& name : names) {
        CAPTURE(name);
        const Pattern p = load_pattern(name);
        for (auto [w, h] : {std::pair{80, 64}, std::pair{p.width, p.height + 1}}) {
            CAPTURE(w);
            CAPTURE(h);
            const auto start = place_pattern(p, w, h);
            const int generations = sanitizing(100, 8);
            CHECK_LATTICE(on_gpu(step, start, w, h, generations), life_reference(start, w, h, generations), w, h);
        }
    }
}

// More than 2^31 cells: a glider crossing the bottom-right corner, far past index 2^31, moves
// (1, 1) in 4 generations. An int index would wrap around and write elsewhere.
void check_huge(const LifeStep& step) {
    const int w = 65536, h = 32800;  // 2.15e9 cells
    const size_t n = (size_t)w * h;
    if (2.2 * n > 0.9 * (double)free_gpu_bytes()) SKIP_CASE("this GPU has too little free memory for 2 x 2.15 GB");
    std::vector<uint8_t> start(n, 0);
    const Pattern g = cells_pattern(kGlider);
    auto put = [&](std::vector<uint8_t>& cells, int x0, int y0) {
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 3; ++x)
                if (g.alive(x, y)) cells[(size_t)((y0 + y) % h) * w + (x0 + x) % w] = 1;
    };
    put(start, w - 2, h - 2);
    DeviceBuffer<uint8_t> cur(start), spare(n);
    REQUIRE(step.run(cur, spare, w, h, 4, true) >= 0);
    const std::vector<uint8_t> got = cur.download();
    std::vector<uint8_t> expected(n, 0);
    put(expected, w - 1, h - 1);
    INFO(lattice_difference(got, expected, w));
    CHECK(got == expected);
}

// A launcher itself (the steps' loops would not launch it) on lattices with no cells.
void check_empty(const std::function<void(const uint8_t* in, uint8_t* out, int w, int h)>& launch) {
    DeviceBuffer<uint8_t> none;
    for (auto [w, h] : {std::pair{0, 0}, std::pair{0, 5}, std::pair{5, 0}}) launch(none.get(), none.get(), w, h);
    CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

// ---- Every step ---------------------------------------------------------------------------------------
DECLARE_STEPS(kSteps);
STEP_CASES(kSteps, "block and beehive stay still, also across the edges", check_still_lifes);
STEP_CASES(kSteps, "blinker and toad have period 2", check_oscillators);
STEP_CASES(kSteps, "a glider moves (1, 1) every 4 generations, back after 4N on an N x N torus",
           [](const LifeStep& s) {
               // A step that runs all 4N generations in one launch (one block) would take minutes
               // at N = 128 under compute-sanitizer's racecheck (make sanitize-03), adding nothing.
               if (s.info.one_launch && under_sanitizer()) check_glider(s, {13});
               else if (s.info.one_launch) check_glider(s, {13, 40});
               else check_glider(s, {13, 40, 128});
           });
STEP_CASES(kSteps, "equals the CPU reference after 100 generations: 97x61, 1x1, 1x33, 33x1, ...", check_odd_sizes);
STEP_CASES(kSteps, "every shipped pattern equals the CPU reference after 100 generations", check_shipped);
STEP_CASE(kSteps, "global", "a lattice with no cells does nothing") { check_empty(run_global); }
STEP_CASE(kSteps, "single_block", "a lattice with no cells does nothing") {
    check_empty([](const uint8_t* in, uint8_t* out, int w, int h) { CHECK(run_single_block(in, out, w, h, 10)); });
}
STEP_CASE(kSteps, "shared", "a lattice with no cells does nothing") { check_empty(run_shared); }

// ---- Steps 1 and 3 (one block cannot hold these) --------------------------------------------------------
STEP_CASE(kSteps, "global", "equals the CPU reference after 100 generations on 1000x1000 (large)") {
    check_large_random(step);
}
STEP_CASE(kSteps, "global", "65536 x 32800 lattice, more than 2^31 cells (large)") { check_huge(step); }
STEP_CASE(kSteps, "shared", "equals the CPU reference after 100 generations on 1000x1000 (large)") {
    check_large_random(step);
}
STEP_CASE(kSteps, "shared", "65536 x 32800 lattice, more than 2^31 cells (large)") { check_huge(step); }

// ---- step 2 -----------------------------------------------------------------------------------------
STEP_CASE(kSteps, "single_block", "0 generations copy the lattice") {
    const auto start = random_lattice(45, 23, 0.4, 3);
    DeviceBuffer<uint8_t> in(start), out(start.size());
    out.poison();
    REQUIRE(run_single_block(in.get(), out.get(), 45, 23, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK_LATTICE(out.download(), start, 45, 23);
}
STEP_CASE(kSteps, "single_block", "1000x1000 does not fit one block: refused, nothing launched") {
    // The kernel keeps two copies of the lattice in one block's shared memory.
    const size_t max_cells = single_block_max_cells();
    CHECK(max_cells >= 16384);  // 48 KB or more on every GPU this course supports
    CHECK(max_cells < 1000u * 1000u);
    DeviceBuffer<uint8_t> in(1000 * 1000), out(1000 * 1000);
    out.poison();
    CHECK_FALSE(run_single_block(in.get(), out.get(), 1000, 1000, 100));
    CHECK_FALSE(run_single_block(in.get(), out.get(), (int)max_cells + 1, 1, 1));
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto untouched = out.download();
    CHECK(std::all_of(untouched.begin(), untouched.end(), [](uint8_t c) { return c == 0xFF; }));
}
STEP_CASE(kSteps, "single_block", "the largest lattices that fit (square, 1 x N, N x 1) (large)") {
    const int max_cells = (int)single_block_max_cells();
    const int side = (int)std::sqrt((double)max_cells);
    check_random(step, side, max_cells / side, 100, 1);
    check_random(step, 1, max_cells, 20, 1);
    check_random(step, max_cells, 1, 20, 1);
}

// ---- step 3 -----------------------------------------------------------------------------------------
STEP_CASE(kSteps, "shared", "a glider crosses 512-wide tiles and returns after 4N on a 528 x 528 torus (large)") {
    check_glider(step, {528});
}
STEP_CASE(kSteps, "shared", "widths and heights around the tile size, vector, word and byte paths") {
    for (int w : {15, 16, 17, 20, 496, 511, 512, 513, 516, 528, 1040})
        for (int h : {31, 33}) check_random(step, w, h, 20, 1);
}
STEP_CASE(kSteps, "shared", "lattices that do not start on a 16- or 4-byte boundary (offset pointers)") {
    const int w = 1024, h = 40;
    const size_t n = (size_t)w * h;
    const auto start = random_lattice(w, h, 0.3, 11);
    // Offsets 4 and 8: 4-byte words but no 16-byte vectors; 1 and 2: bytes only.
    for (auto [offset_a, offset_b] : {std::pair{4, 8}, std::pair{8, 4}, std::pair{1, 3}, std::pair{0, 2}}) {
        CAPTURE(offset_a);
        CAPTURE(offset_b);
        DeviceBuffer<uint8_t> a(n + 16), b(n + 16);
        a.poison();
        CUDA_CHECK(cudaMemcpy(a.get() + offset_a, start.data(), n, cudaMemcpyHostToDevice));
        uint8_t* cur = a.get() + offset_a;
        uint8_t* next = b.get() + offset_b;
        for (int g = 0; g < 20; ++g) {
            CUDA_CHECK(cudaMemset(next, 0xFF, n));
            run_shared(cur, next, w, h);
            std::swap(cur, next);
        }
        std::vector<uint8_t> got(n);
        CUDA_CHECK(cudaMemcpy(got.data(), cur, n, cudaMemcpyDeviceToHost));
        CHECK_LATTICE(got, life_reference(start, w, h, 20), w, h);
    }
}

// ---- predictions (host): each checked against its answer in answers.cpp ------------------------------
STEP_HOST_CASE(kSteps, "global", "prediction: blocks for a 1000 x 1000 lattice") {
    check_prediction("kGlobalBlocksAt1000x1000", (double)kGlobalBlocksAt1000x1000,
                     "a 2D grid rounds up in x and in y, each with its own block side");
}
STEP_HOST_CASE(kSteps, "single_block", "prediction: cells of thread (0, 0) per generation at 340 x 340") {
    check_prediction("kCellsOfThread00At340x340", (double)kCellsOfThread00At340x340,
                     "thread (tx, ty) handles cells (tx + 32 i, ty + 32 j): count the i and the j below the side");
}
STEP_HOST_CASE(kSteps, "shared", "prediction: bytes one launch copies into its tiles at 4096 x 4096") {
    check_prediction("kBytesCopiedAt4096x4096", (double)kBytesCopiedAt4096x4096,
                     "how many tiles cover the lattice, and what each block copies besides its own tile (its halo)");
}

// ---- host: the CPU reference ---------------------------------------------------------------------------
TEST_CASE("host: CPU reference: still lifes, period-2 oscillators, the glider") {
    for (const char* s : {kBlock, kBeehive}) {
        const auto start = lattice_with(s, 10, 10, 8, 9);  // across both edges
        CHECK(life_step_reference(start, 10, 10) == start);
    }
    for (const char* s : {kBlinker, kToad}) {
        const auto start = lattice_with(s, 10, 10, 4, 4);
        CHECK(life_step_reference(start, 10, 10) != start);
        CHECK(life_reference(start, 10, 10, 2) == start);
    }
    const auto glider = lattice_with(kGlider, 12, 12, 10, 10);
    CHECK(life_reference(glider, 12, 12, 4) == lattice_with(kGlider, 12, 12, 11, 11));
    CHECK(life_reference(glider, 12, 12, 48) == glider);
    CHECK(life_reference(glider, 12, 12, 47) != glider);
}

TEST_CASE("host: CPU reference: the Gosper gun has period 30 and fires a glider; diehard dies at 130") {
    const Pattern gun = load_pattern("gosper_glider_gun");
    const int w = 100, h = 80;
    const auto start = place_pattern(gun, w, h, 2, 2);
    CHECK(population(start) == 36);
    const auto later = life_reference(start, w, h, 30);
    CHECK(population(later) == 41);  // the gun again, and a glider of 5 cells
    for (int y = 2; y < 11; ++y)
        for (int x = 2; x < 38; ++x) CHECK(later[(size_t)y * w + x] == start[(size_t)y * w + x]);
    CHECK(population(life_reference(start, w, h, 90)) == 51);

    const Pattern diehard = load_pattern("diehard");
    const auto d = place_pattern(diehard, 40, 30);
    CHECK(population(life_reference(d, 40, 30, 129)) > 0);
    CHECK(population(life_reference(d, 40, 30, 130)) == 0);
}

TEST_CASE("host: CPU reference: tiny lattices, where neighbours wrap onto the cell itself") {
    // 1 x 1: the eight neighbours are the cell itself. Alive: 8 neighbours, dies. Dead stays dead.
    CHECK(life_step_reference({1}, 1, 1) == std::vector<uint8_t>{0});
    CHECK(life_step_reference({0}, 1, 1) == std::vector<uint8_t>{0});
    // A 3 x 1 ring with one live cell: each other cell sees it three times (above, level, below
    // are all the same row): 3 neighbours, born. The live cell sees itself twice (above and
    // below): 2, survives. Next, all three see 8 and die.
    CHECK(life_step_reference({1, 0, 0}, 3, 1) == std::vector<uint8_t>{1, 1, 1});
    CHECK(life_step_reference({1, 1, 1}, 3, 1) == std::vector<uint8_t>{0, 0, 0});
    // The same ring standing up (1 x 3) behaves the same way.
    CHECK(life_step_reference({0, 1, 0}, 1, 3) == std::vector<uint8_t>{1, 1, 1});
    // 2 x 2, one live cell: its diagonal neighbour sees it 4 times, the other two twice: nothing
    // is born, and the lone cell (0 neighbours) dies.
    CHECK(life_step_reference({1, 0, 0, 0}, 2, 2) == std::vector<uint8_t>{0, 0, 0, 0});
    // 2 x 2 with two live cells in a row: a live cell meets its partner twice (left and right)
    // and the dead row otherwise: 2 neighbours, it survives. A dead cell meets each live cell
    // three times (above, and diagonally on both sides): 6, nothing is born.
    CHECK(life_step_reference({1, 1, 0, 0}, 2, 2) == std::vector<uint8_t>{1, 1, 0, 0});
}

TEST_CASE("host: random lattices are seeded and have about the density asked for") {
    CHECK(random_lattice(50, 40, 0.3, 7) == random_lattice(50, 40, 0.3, 7));
    CHECK(random_lattice(50, 40, 0.3, 7) != random_lattice(50, 40, 0.3, 8));
    CHECK(population(random_lattice(50, 40, 0.0, 1)) == 0);
    CHECK(population(random_lattice(50, 40, 1.0, 1)) == 2000);
    const double p = population(random_lattice(1000, 1000, 0.25, 1)) / 1e6;
    CHECK(p > 0.245);
    CHECK(p < 0.255);
}

// ---- host: pattern files ----------------------------------------------------------------------------------
// One private folder per run of the tests, made with mkdtemp and removed at exit: two runs at
// once (or a folder left by another user) never meet. Each case works in a subfolder of it.
static std::filesystem::path scratch(const std::string& name) {
    struct Folder {
        std::filesystem::path path;
        Folder() {
            std::string pattern = (std::filesystem::temp_directory_path() / "life_tests_XXXXXX").string();
            REQUIRE(mkdtemp(&pattern[0]) != nullptr);
            path = pattern;
        }
        ~Folder() {
            std::error_code ec;
            std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
            std::filesystem::remove_all(path, ec);
        }
    };
    static Folder folder;
    const std::filesystem::path dir = folder.path / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

static std::string rle_error(const std::string& text) {
    try {
        parse_rle(text, "bad.rle");
    } catch (const PatternError& e) {
        return e.what();
    }
    return "(no error)";
}
static std::string cells_error(const std::string& text) {
    try {
        parse_cells(text, "bad.cells");
    } catch (const PatternError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST_CASE("host: RLE: the glider, with comments, a name and the rule") {
    const Pattern p = parse_rle("#N Glider\r\n#C a comment\r\nx = 3, y = 3, rule = B3/S23\r\nbo$2bo$3o!\r\n", "g.rle");
    CHECK(p.name == "Glider");
    CHECK(p.width == 3);
    CHECK(p.height == 3);
    CHECK(p.line == 3);
    CHECK(p.cells == std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 1, 1, 1});
}

TEST_CASE("host: RLE: runs, blank rows, left-out dead cells, line breaks, old rule names, free text after !") {
    const Pattern p = parse_rle("x=5,y=4\n2o2$\n  b3o !this is ignored\nso is this\n", "p.rle");
    CHECK(p.name == "p");
    CHECK(p.width == 5);
    CHECK(p.height == 4);
    CHECK(p.cells == std::vector<uint8_t>{1, 1, 0, 0, 0,  //
                                          0, 0, 0, 0, 0,  //
                                          0, 1, 1, 1, 0,  //
                                          0, 0, 0, 0, 0});
    CHECK(parse_rle("x = 2, y = 1, rule = 23/3\no\nb!", "q.rle").cells == std::vector<uint8_t>{1, 0});
    CHECK(parse_rle("x = 12, y = 1, rule = b3/s23\n12o!", "r.rle").cells == std::vector<uint8_t>(12, 1));
}

TEST_CASE("host: RLE: malformed files name the file, the line and the problem") {
    CHECK(rle_error("") == "bad.rle:1: no RLE header line such as 'x = 3, y = 3, rule = B3/S23'");
    CHECK(rle_error("#C only a comment\n") == "bad.rle:1: no RLE header line such as 'x = 3, y = 3, rule = B3/S23'");
    CHECK(rle_error("bo$2bo$3o!\n") ==
          "bad.rle:1: header field 'bo$2bo$3o!' is not 'name = value' (expected 'x = 3, y = 3, rule = B3/S23')");
    CHECK(rle_error("x = 3\nooo!") ==
          "bad.rle:1: the header needs both x and y, e.g. 'x = 3, y = 3, rule = B3/S23' (got 'x = 3')");
    CHECK(rle_error("#N x\nx = 0, y = 3\n!") == "bad.rle:2: x must be at least 1 (got 0)");
    CHECK(rle_error("x = -3, y = 3\n!") == "bad.rle:1: x = '-3' is not a whole number");
    CHECK(rle_error("x = 3, y = 9999999\n!") == "bad.rle:1: y = 9999999 is larger than 524288");
    CHECK(rle_error("x = 3, y = 3, rule = B36/S23\n!") ==
          "bad.rle:1: rule 'B36/S23' is not supported: this program runs Conway's Life, B3/S23");
    CHECK(rle_error("x = 3, y = 3, speed = 2\n!") == "bad.rle:1: unknown header field 'speed' (expected x, y and rule)");
    CHECK(rle_error("x = 3, y = 3\nbo$2bo$\n3x!") ==
          "bad.rle:3: unknown tag 'x' (RLE uses b for dead, o for alive, $ for a new row and ! at the end)");
    CHECK(rle_error("x = 3, y = 3\nbo$0o!") == "bad.rle:2: run count 0 before 'o' (a count is at least 1)");
    CHECK(rle_error("x = 3, y = 3\nbo$4o!") == "bad.rle:2: row 2 has 4 cells, more than the header's x = 3");
    CHECK(rle_error("x = 3, y = 2\no$o$o!") == "bad.rle:2: more rows than the header's y = 2");
    CHECK(rle_error("x = 3, y = 3\nbo$2\no!") ==
          "bad.rle:2: run count 2 at the end of the line is not followed by b, o, $ or !");
    CHECK(rle_error("x = 3, y = 3\nbo$2 o!") == "bad.rle:2: run count 2 is not followed by b, o, $ or !");
    CHECK(rle_error("x = 3, y = 3\nbo$2bo$3o\n") == "bad.rle:2: the pattern does not end with '!' (is the file cut short?)");
    CHECK(rle_error("x = 3, y = 3\n99999999999999999o!").find("bad.rle:2: run count too large") == 0);
}

TEST_CASE("host: .cells: rows, comments, ragged rows, O o and *") {
    const Pattern p = parse_cells("!Name: Thing\n! comment\n\n.O\nO*o.  \n\n.o\n\n", "t.cells");
    CHECK(p.name == "Thing");
    CHECK(p.line == 4);
    CHECK(p.width == 4);
    CHECK(p.height == 4);
    CHECK(p.cells == std::vector<uint8_t>{0, 1, 0, 0,  //
                                          1, 1, 1, 0,  //
                                          0, 0, 0, 0,  //
                                          0, 1, 0, 0});
}

TEST_CASE("host: .cells: malformed files name the file, the line and the problem") {
    CHECK(cells_error("") == "bad.cells:1: no cells: the file has only comments and blank lines");
    CHECK(cells_error("!Name: x\n!\n") == "bad.cells:2: no cells: the file has only comments and blank lines");
    CHECK(cells_error("!c\n.O.\n.X.\n") ==
          "bad.cells:3: unexpected character 'X': a .cells row uses '.' for dead and 'O' for alive");
    CHECK(cells_error(".O.\n O\n") ==
          "bad.cells:2: unexpected character ' ': a .cells row uses '.' for dead and 'O' for alive");
}

TEST_CASE("host: the shipped patterns are found and have their well-known shapes") {
    const std::string dir = patterns_dir();
    INFO("patterns_dir() = '" << dir << "'");
    REQUIRE(!dir.empty());
    const std::vector<std::string> expected = {"acorn",   "beacon",      "blinker", "diehard",
                                               "glider",  "gosper_glider_gun", "r_pentomino", "toad"};
    CHECK(shipped_pattern_names() == expected);
    struct Known {
        const char* name;
        int w, h;
        size_t alive;
    };
    for (Known k : {Known{"glider", 3, 3, 5}, Known{"blinker", 3, 1, 3}, Known{"toad", 4, 2, 6},
                    Known{"beacon", 4, 4, 8}, Known{"gosper_glider_gun", 36, 9, 36}, Known{"r_pentomino", 3, 3, 5},
                    Known{"acorn", 7, 3, 7}, Known{"diehard", 8, 3, 7}}) {
        CAPTURE(k.name);
        const Pattern p = load_pattern(k.name);
        CHECK(p.width == k.w);
        CHECK(p.height == k.h);
        CHECK(population(p.cells) == k.alive);
    }
    CHECK(load_pattern("glider").cells == cells_pattern(kGlider).cells);
    CHECK(load_pattern(dir + "/toad.cells").cells == cells_pattern(kToad).cells);
    CHECK(load_pattern("r_pentomino").cells == cells_pattern(".OO\nOO.\n.O.\n").cells);
    CHECK(load_pattern("acorn").cells == cells_pattern(".O.....\n...O...\nOO..OOO\n").cells);
}

TEST_CASE("host: loading: unknown names and formats, and errors that carry the file's name") {
    CHECK_THROWS_WITH(load_pattern("no_such_pattern"),
                      doctest::Contains("'no_such_pattern': no shipped pattern of that name (shipped: acorn,"));
    const std::filesystem::path tmp = scratch("pattern");
    std::filesystem::create_directories(tmp);
    {
        std::ofstream(tmp / "x.txt") << "OOO\n";
        std::ofstream(tmp / "broken.rle") << "#N broken\nx = 3, y = 3\nbo$2bo$3q!\n";
    }
    CHECK_THROWS_WITH(load_pattern((tmp / "x.txt").string()), doctest::Contains("unknown pattern format '.txt'"));
    CHECK_THROWS_WITH(load_pattern((tmp / "broken.rle").string()),
                      ((tmp / "broken.rle").string() + ":3: unknown tag 'q' (RLE uses b for dead, o for alive, $ for a new row and ! at the end)").c_str());
    CHECK_THROWS_WITH(load_pattern((tmp / "missing.rle").string()), doctest::Contains("missing.rle"));
    std::filesystem::remove_all(tmp);
}

TEST_CASE("host: placing a pattern: centred, at (x, y), wrapped, and too large") {
    const Pattern g = cells_pattern(kGlider);
    const auto centred = place_pattern(g, 7, 5);
    CHECK(centred == lattice_with(kGlider, 7, 5, 2, 1));
    CHECK(centred[1 * 7 + 3] == 1);  // the glider's top cell
    const auto wrapped = place_pattern(g, 5, 5, 4, 4);  // wraps across both edges
    CHECK(population(wrapped) == 5);
    CHECK(wrapped[4 * 5 + 0] == 1);  // (1, 0) of the glider lands at (0, 4)
    CHECK(wrapped[1 * 5 + 4] == 1);  // (0, 2) lands at (4, 1)
    CHECK_THROWS_WITH(place_pattern(load_pattern("gosper_glider_gun"), 20, 20),
                      doctest::Contains("gosper_glider_gun.rle:4: the pattern is 36x9 cells, larger than the 20x20 "
                                        "lattice (use a larger --size)"));
}

TEST_CASE("host: a pattern is checked against the lattice before its cells are stored") {
    // 25 bytes asking for 10^10 cells: refused at the header, nothing allocated.
    CHECK_THROWS_WITH(parse_rle("x = 100000, y = 100000\n!\n", "huge.rle", 64, 64),
                      "huge.rle:1: the pattern is 100000x100000 cells, larger than the 64x64 lattice (use a larger --size)");
    CHECK_THROWS_WITH(parse_cells("O\n.....O\n", "wide.cells", 4, 10),
                      "wide.cells:2: a row of more than 4 cells: the pattern is wider than the 4x10 lattice (use a larger --size)");
    CHECK_THROWS_WITH(parse_cells("O\n\n\nO\n", "tall.cells", 4, 3),
                      "tall.cells:4: more than 3 rows: the pattern is taller than the 4x3 lattice (use a larger --size)");
    CHECK(parse_cells("O\n\nO\n\n\n\n\n", "t.cells", 4, 3).height == 3);  // blank lines after the last row are no rows
    CHECK(parse_rle("x = 3, y = 3\nbo$2bo$3o!", "g.rle", 3, 3).cells == cells_pattern(kGlider).cells);
    const std::filesystem::path tmp = scratch("big");
    std::filesystem::create_directories(tmp);
    std::ofstream(tmp / "big.cells") << std::string(2 << 20, '!') << "\nO\n";  // 2 MB of comment
    CHECK_THROWS_WITH(load_pattern((tmp / "big.cells").string(), 8, 8),
                      doctest::Contains("big.cells': 2 MB, more than a pattern for a 8x8 lattice can need"));
    CHECK(load_pattern((tmp / "big.cells").string(), 2000, 2000).width == 1);
    std::filesystem::remove_all(tmp);
}

TEST_CASE("host: a pattern file is read as it streams in: junk stops at its first line, long comments are passed over") {
    const std::filesystem::path tmp = scratch("stream");
    // 20 MB of NUL bytes, one "line": refused at its first bytes, long before it is read whole.
    for (const char* name : {"junk.cells", "junk.rle"}) {
        std::ofstream(tmp / name, std::ios::binary) << std::string(20 << 20, '\0');
        const std::clock_t start = std::clock();  // CPU time, all threads: steady on a busy machine
        CHECK_THROWS_WITH(load_pattern((tmp / name).string(), 20000, 20000), doctest::Contains(":1: "));
        CHECK((double)(std::clock() - start) / CLOCKS_PER_SEC < 0.5);
    }
    // A comment line longer than any header or row is passed over, not kept.
    std::ofstream(tmp / "long.rle") << "#C " << std::string(3 << 20, 'c') << "\nx = 1, y = 1\no!\n";
    CHECK(load_pattern((tmp / "long.rle").string(), 2000, 2000).cells == std::vector<uint8_t>{1});
    CHECK_THROWS_WITH(parse_rle(std::string(5000, ' ') + "x\nx = 1, y = 1\no!\n", "wide.rle"),
                      doctest::Contains("wide.rle:1: a line longer than 4096 characters where the header should be"));
    CHECK_THROWS_WITH(parse_cells(std::string(100, '.') + "\n", "wide.cells", 10, 10),
                      doctest::Contains("wide.cells:1: a row of more than 10 cells"));
    CHECK_THROWS_WITH(parse_cells(".O" + std::string(100, ' ') + "\n", "spaces.cells", 10, 10),
                      "spaces.cells:1: a line longer than 74 characters (a row of the 10x10 lattice and its trailing spaces)");
    // Leading zeros are still the number.
    CHECK(parse_rle("x = 00000003, y = 0001\n3o!", "zeros.rle").width == 3);
    CHECK(rle_error("x = 00000000000000000000524289, y = 1\n!") == "bad.rle:1: x = 00000000000000000000524289 is larger than 524288");
}

TEST_CASE("host: a pattern whose bytes never come is given up after the reader's deadline") {
    // The stand-in: a pipe whose writing end stays open and silent, as a device posing as a file
    // (or a stalled network folder) would.
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const auto start = std::chrono::steady_clock::now();
    {
        PatternText in(fds[0], "stalled.rle", 0.3);
        CHECK_THROWS_WITH(parse_rle(in), "'stalled.rle': nothing could be read from it for 0.3 s (a device posing as a "
                                         "file, or a stalled network folder?)");
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(waited >= 0.3);
    CHECK(waited < 30);  // it gave up (generously: a loaded machine may be slow to wake it)
    close(fds[1]);
    // Bytes that come slowly but keep coming are read.
    REQUIRE(pipe(fds) == 0);
    std::thread writer([w = fds[1]] {
        for (const char* part : {"x = 3, y = 3\n", "bo$2bo$", "3o!\n"}) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (write(w, part, std::strlen(part)) < 0) break;
        }
        close(w);
    });
    PatternText slow(fds[0], "slow.rle", 2);
    CHECK(parse_rle(slow).cells == cells_pattern(kGlider).cells);
    writer.join();
}

TEST_CASE("host: a pattern path that cannot be read says why: loops, files on the way, pipes, links to nothing") {
    namespace fs = std::filesystem;
    const fs::path tmp = scratch("paths");
    fs::create_symlink("b.rle", tmp / "a.rle");
    fs::create_symlink("a.rle", tmp / "b.rle");
    CHECK_THROWS_WITH(load_pattern((tmp / "a.rle").string()), doctest::Contains("a.rle': cannot be reached: a loop of symbolic links"));
    std::ofstream(tmp / "file") << "x";
    CHECK_THROWS_WITH(load_pattern((tmp / "file/x.rle").string()),
                      doctest::Contains("x.rle': cannot be reached: a part of the path is a file, not a folder"));
    fs::create_symlink("gone.rle", tmp / "dangling.rle");
    CHECK_THROWS_WITH(load_pattern((tmp / "dangling.rle").string()), doctest::Contains("dangling.rle': a symbolic link to a file that does not exist"));
    REQUIRE(mkfifo((tmp / "pipe.rle").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(load_pattern((tmp / "pipe.rle").string()), doctest::Contains("pipe.rle': not a regular file"));
    fs::create_symlink("/dev/zero", tmp / "zero.cells");
    CHECK_THROWS_WITH(load_pattern((tmp / "zero.cells").string()), doctest::Contains("zero.cells': not a regular file"));
    // A folder that does not let you in (as root every folder does: make check's bad-input suite
    // tries this one as another user).
    fs::create_directories(tmp / "closed");
    std::ofstream(tmp / "closed" / "g.rle") << "x = 1, y = 1\no!\n";
    fs::permissions(tmp / "closed", fs::perms::none);
    if (geteuid() != 0)
        CHECK_THROWS_WITH(load_pattern((tmp / "closed" / "g.rle").string()),
                          doctest::Contains("g.rle': cannot be reached: a folder on the way does not let you in"));
    fs::permissions(tmp / "closed", fs::perms::owner_all);
    // A name from the file is echoed escaped, like every byte from it.
    CHECK(parse_rle("#N bad\x1b[2Jname\nx = 1, y = 1\no!", "n.rle").name == "bad\\x1B[2Jname");
}

TEST_CASE("host: bytes from a pattern file are echoed escaped; a byte-order mark at the start is skipped") {
    CHECK(rle_error("x = 3, y = \x01\x02\n!") == "bad.rle:1: y = '\\x01\\x02' is not a whole number");
    CHECK(rle_error("x = 3, \xEF\xBB\xBFy = 3\n!") ==
          "bad.rle:1: unknown header field '\\xEF\\xBB\\xBFy' (expected x, y and rule)");
    CHECK(rle_error("x = 3, y = 3, rule = B3/S23\x1b[2J\n!") ==
          "bad.rle:1: rule 'B3/S23\\x1B[2J' is not supported: this program runs Conway's Life, B3/S23");
    CHECK(rle_error("x = 3, y = 3\nbo$\x07!") ==
          "bad.rle:2: unknown tag '\\x07' (RLE uses b for dead, o for alive, $ for a new row and ! at the end)");
    CHECK(cells_error(".O\n\x01\n") == "bad.cells:2: unexpected character '\\x01': a .cells row uses '.' for dead and 'O' for alive");
    CHECK(parse_rle("\xEF\xBB\xBFx = 3, y = 3\nbo$2bo$3o!", "bom.rle").cells == cells_pattern(kGlider).cells);
    CHECK(parse_cells("\xEF\xBB\xBF.O.\n..O\nOOO\n", "bom.cells").cells == cells_pattern(kGlider).cells);
}

TEST_CASE("host: --pattern P is a file when it has a '/' or ends in .rle or .cells, else a shipped name") {
    CHECK_FALSE(names_a_file("glider"));
    CHECK_FALSE(names_a_file("my.pattern"));
    CHECK(names_a_file("./glider"));
    CHECK(names_a_file("glider.rle"));
    CHECK(names_a_file("GUN.CELLS"));
    CHECK(names_a_file("/tmp/x"));
    // A folder (or a file) called "glider" in the current directory does not hide the shipped one.
    const std::filesystem::path tmp = scratch("cwd");
    std::filesystem::create_directories(tmp / "glider");
    std::ofstream(tmp / "toad") << "OOO\n";
    const std::filesystem::path was = std::filesystem::current_path();
    std::filesystem::current_path(tmp);
    CHECK(load_pattern("glider").cells == cells_pattern(kGlider).cells);
    CHECK(load_pattern("toad").cells == cells_pattern(kToad).cells);
    CHECK_THROWS_WITH(load_pattern("glider/"), "'glider/': a folder, not a pattern file");
    CHECK_THROWS_WITH(load_pattern("./toad"), "'./toad': unknown pattern format '' (use a .rle or .cells file)");
    CHECK_THROWS_WITH(load_pattern("missing.rle"), "'missing.rle': no such file");
    std::filesystem::current_path(was);
    std::filesystem::remove_all(tmp);
}

TEST_CASE("host: --size and --at: two whole numbers in range, or one phrase saying what is wrong") {
    int a = -1, b = -1;
    CHECK(read_pair("640x480", 'x', "WxH", 1, kMaxSide, a, b) == "");
    CHECK((a == 640 && b == 480));
    CHECK(read_pair("0005,0", ',', "X,Y", 0, kMaxSide, a, b) == "");
    CHECK((a == 5 && b == 0));
    CHECK(read_pair("99999999999999x1", 'x', "WxH", 1, kMaxSide, a, b) ==
          "'99999999999999' is too large: each number must be at most 524288 (got 99999999999999x1)");
    CHECK(read_pair("1x99999999999999999999999", 'x', "WxH", 1, kMaxSide, a, b).find("is too large") != std::string::npos);
    CHECK(read_pair("524289x1", 'x', "WxH", 1, kMaxSide, a, b).find("is too large") != std::string::npos);
    CHECK(read_pair("0x5", 'x', "WxH", 1, kMaxSide, a, b) == "each number must be at least 1 (got 0x5)");
    CHECK(read_pair("-5x5", 'x', "WxH", 1, kMaxSide, a, b) == "'-5x5' has a negative number");
    CHECK(read_pair("5X5", 'x', "WxH", 1, kMaxSide, a, b) == "expected WxH in whole numbers (got '5X5')");
    CHECK(read_pair("1,\x1b", ',', "X,Y", 0, kMaxSide, a, b) == "expected X,Y in whole numbers (got '1,\\x1B')");
    CHECK(read_pair("", 'x', "WxH", 1, kMaxSide, a, b) == "expected WxH in whole numbers (got '')");
}

// ---- host: pictures --------------------------------------------------------------------------------------
TEST_CASE("host: half blocks: two cells, one above the other, in each character") {
    const std::vector<uint8_t> cells = {1, 0, 1, 0,  //
                                        1, 1, 0, 0,  //
                                        0, 1, 0, 0};
    const auto lines = half_block_lines(cells.data(), 4, 3, 4);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "\u2588\u2584\u2580 ");
    CHECK(lines[1] == " \u2580  ");
    CHECK(half_block_lines(cells.data() + 1, 2, 2, 4) == std::vector<std::string>{"\u2584\u2580"});
}

TEST_CASE("host: PGM and GIF files come out right (the GIF read back with giflib)") {
    const std::filesystem::path tmp = scratch("pictures");
    std::filesystem::create_directories(tmp);
    const std::vector<uint8_t> a = {1, 0, 0, 1, 1, 0}, b = {0, 0, 0, 1, 1, 1};
    const std::string pgm = (tmp / "f.pgm").string();
    write_pgm(pgm, a.data(), 3, 2, 2);
    std::ifstream in(pgm, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string header = "P5\n6 4\n255\n";
    REQUIRE(bytes.size() == header.size() + 24);
    CHECK(bytes.substr(0, header.size()) == header);
    CHECK((unsigned char)bytes[header.size()] == 255);      // (0, 0): alive
    CHECK((unsigned char)bytes[header.size() + 2] == 0);    // (1, 0): dead
    CHECK((unsigned char)bytes[header.size() + 18] == 255); // pixel (0, 3) is cell (0, 1): alive

    const std::string gif_path = (tmp / "a.gif").string();
    {
        GifWriter gif(gif_path, 3, 2, 5, 10);
        gif.add_frame(a.data());
        gif.add_frame(b.data());
        gif.add_frame(b.data());
        gif.close();
        CHECK(gif.frames() == 3);
    }
    int error = 0;
    GifFileType* g = DGifOpenFileName(gif_path.c_str(), &error);
    REQUIRE(g != nullptr);
    REQUIRE(DGifSlurp(g) == GIF_OK);
    CHECK(g->SWidth == 15);
    CHECK(g->SHeight == 10);
    CHECK(g->ImageCount == 3);
    // Frame 2 stores only the cells that changed: (0, 0) and (2, 1), so the 3 x 2 cell rectangle.
    CHECK(g->SavedImages[1].ImageDesc.Width == 15);
    CHECK(g->SavedImages[2].ImageDesc.Width == 5);  // nothing changed: one cell repainted
    GraphicsControlBlock gcb;
    REQUIRE(DGifSavedExtensionToGCB(g, 0, &gcb) == GIF_OK);
    CHECK(gcb.DelayTime == 10);
    // Pixel (0, 0) of frame 1 is inside cell (0, 0), alive: colour 1; pixel (5, 0), cell (1, 0): 0.
    CHECK(g->SavedImages[0].RasterBits[0] == 1);
    CHECK(g->SavedImages[0].RasterBits[5] == 0);
    CHECK(g->SavedImages[0].RasterBits[4] == 2);  // the grid line between cells (5 pixels a cell)
    DGifCloseFile(g, &error);
    CHECK_THROWS_WITH(GifWriter((tmp / "no/such/dir/x.gif").string(), 3, 2, 1, 10), doctest::Contains("cannot be written"));
    std::filesystem::remove_all(tmp);
}

TEST_CASE("host: the pictures of a run: a GIF and numbered PGM frames in a folder made for them") {
    namespace fs = std::filesystem;
    const fs::path tmp = scratch("run_pictures");
    const std::vector<uint8_t> cells = {1, 0, 0, 1, 1, 0};
    {
        RunPictures pictures((tmp / "run.gif").string(), (tmp / "frames").string(), 3, 2, 2, 25);
        CHECK(pictures.wanted());
        pictures.add(cells.data(), 0);
        pictures.add(cells.data(), 7);
        pictures.finish();
    }
    CHECK(fs::file_size(tmp / "frames" / "gen_000000.pgm") == std::string("P5\n6 4\n255\n").size() + 24);
    CHECK(fs::is_regular_file(tmp / "frames" / "gen_000007.pgm"));
    int error = 0;
    GifFileType* g = DGifOpenFileName((tmp / "run.gif").string().c_str(), &error);
    REQUIRE(g != nullptr);
    REQUIRE(DGifSlurp(g) == GIF_OK);
    CHECK(g->ImageCount == 2);
    GraphicsControlBlock gcb;
    REQUIRE(DGifSavedExtensionToGCB(g, 0, &gcb) == GIF_OK);
    CHECK(gcb.DelayTime == 4);  // 25 frames a second: 4 hundredths of a second each
    DGifCloseFile(g, &error);
    CHECK_FALSE(RunPictures("", "", 3, 2, 1, 10).wanted());
    fs::remove_all(tmp);
}
