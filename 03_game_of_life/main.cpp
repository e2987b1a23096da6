// 03_game_of_life/main.cpp: runs each step from the same start, checks it against the CPU
// reference and times it; --watch, --frames and --gif show a run as it happens; --bench prints
// the benchmark tables.
#include <iterator>
#include <utility>

#include "game_of_life.h"
#include "life_reference.h"
#include "output_file.h"
#include "patterns.h"
#include "pictures.h"
#include "program.h"

// Cell updates per second, "6.7 G" or "835.4 M".
static std::string rate(double per_second) {
    if (per_second >= 1e9) return strf("%.1f G", per_second / 1e9);
    if (per_second >= 1e6) return strf("%.1f M", per_second / 1e6);
    return strf("%.0f", per_second);
}

// One lattice: every selected step runs `generations` generations from `start`, checked against the
// CPU; with one generation, cudaMemcpy of the lattice (the same bytes) is the 100%.
static void measure(Measurements& m, const Program& p, const std::string& title, int w, int h,
                    const std::vector<uint8_t>& start, long long generations) {
    const size_t cells = (size_t)w * h;
    const std::vector<uint8_t> ref = life_reference(start, w, h, generations);
    DeviceBuffer<uint8_t> first(start), cur(cells), spare(cells);
    const DeviceBuffer<uint8_t>* result = &cur;
    bool poison_next = false;  // set by prepare: the next run poisons each generation's output first
    long long launches = 0;
    auto advance = [&](const LifeStep& s) {  // the same work every time it runs: it starts from `start`
        const bool poison = std::exchange(poison_next, false);
        if (generations == 1) {  // reads `first`, writes `spare`; the pair trades back afterwards
            launches = s.run(first, spare, w, h, 1, poison);
            std::swap(first, spare);
            result = &spare;
        } else {  // the start copied into place first (in the time: 2 bytes a cell)
            CUDA_CHECK(cudaMemcpyAsync(cur.get(), first.get(), cells, cudaMemcpyDeviceToDevice));
            launches = s.run(cur, spare, w, h, generations, poison);
            result = &cur;
        }
    };
    auto check = [&] {
        const std::vector<uint8_t> got = result->download();
        return Check{got == ref, lattice_difference(got, ref, w),
                     {std::to_string(launches), std::to_string(count_alive(result->get(), cells))}};
    };
    std::vector<StepRow> rows;
    for (const auto& s : p.selected(kSteps)) {
        const size_t most = s.info.max_cells ? s.info.max_cells() : cells;
        rows.push_back({std::to_string(s.number), s.name, [&, s] { advance(s); }, check,
                        cells > most ? strf("at most %zu cells on this GPU: %s", most, s.info.limit) : "",
                        [&] { poison_next = true; }, RowKind::step,
                        Work{2.0 * cells * (s.info.one_launch ? 1 : generations), (double)cells * generations}});
    }
    auto copied = [&] {
        const std::vector<uint8_t> got = spare.download();
        return Check{got == start, lattice_difference(got, start, w)};
    };
    if (generations == 1)  // (each step's run leaves first and spare where they are now: see advance)
        rows.push_back(copy_row("cudaMemcpy device to device", spare.get(), first.get(), cells, copied,
                                RowKind::baseline));
    m.section(title, Work{}, rows);
}

// The default run (every selected step from `start`) or --bench (what a launch costs, then what
// bandwidth allows): cell updates per second, and the GB/s they take.
static int run(const Program& p, int w, int h, long long generations, const Start& start) {
    const BenchConfig cfg = p.bench ? BenchConfig{} : BenchConfig{1, 1, false};
    const DeviceFacts dev =
        print_header(p, cfg, "Conway's Game of Life on a torus, one byte per cell", "Conway's Game of Life",
                     strf("%d x %d torus, %lld generations\nstart: %s, %zu live cells", w, h, generations,
                          start.description.c_str(), population(start.cells)));
    TableSpec t;
    t.title = "Conway's Game of Life";
    t.rate = ops_rate("cell updates/s", 1, "cell updates");
    t.rate.text = rate;
    t.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(t.rate), cols::gb_per_s()};
    if (p.bench || generations == 1) t.columns.push_back(cols::of_baseline("% of copy"));
    t.columns.insert(t.columns.end(), {cols::of_bytes_peak("DRAM peak", dev.dram_gbs), cols::own("launches"),
                                       cols::own("live cells"), cols::check()});
    t.footer = "GB/s counts 2 bytes per cell and launch (one read, one written: the least a launch moves);\n"
               "single_block launches once for all generations. A time is of all the generations, launches\n"
               "included, and when there are several, of a copy of the start into place (2 bytes a cell).";
    Measurements m(t, cfg, p.outputs());
    if (p.bench) {
        std::printf("First 1000 generations on lattices that fit one block: global and shared launch once per\n"
                    "generation, single_block once in all (a time in ms is also the microseconds per generation).\n"
                    "Then one generation on large lattices, against cudaMemcpy device to device of the lattice\n"
                    "(timed before and after the steps, the faster counting).\n\n");
        for (int side : {64, 128})
            measure(m, p, strf("%d x %d cells, 1000 generations", side, side), side, side,
                    random_lattice(side, side, 0.25, p.seed + side), 1000);
        for (int side : {1024, 4096, 16384})
            measure(m, p, strf("%d x %d cells, one generation (%.1f MB moved)", side, side, 2.0 * side * side / 1e6),
                    side, side, random_lattice(side, side, 0.25, p.seed + side), 1);
        return m.finish() ? 1 : 0;
    }
    if ((double)w * h * generations > 2e9)
        std::fprintf(stderr, "(the CPU reference has %.2g cell updates to do: this takes a while)\n",
                     (double)w * h * generations);
    measure(m, p, "", w, h, start.cells, generations);
    return m.finish() ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"Conway's Game of Life on a torus, on the GPU",
               {{"--size WxH", "lattice width x height in cells, sides 1 to 524288"},
                {"--generations G", "generations to run"},
                {"--pattern P", "start from a pattern instead of random cells: a file when P has a '/' or ends in "
                                ".rle or .cells, else a shipped one by name: glider, blinker, toad, beacon, "
                                "gosper_glider_gun, r_pentomino, acorn, diehard"},
                {"--at X,Y", "put the pattern's top-left cell at (X, Y)", "centred"},
                {"--density D", "random start: the chance that a cell is alive"},
                {"--watch", "live view in the terminal; stops after G generations or on Ctrl-C (--watch, --frames "
                            "and --gif run one kernel: shared unless --kernel says)"},
                {"--fps F", "frames per second of --watch and --gif"},
                {"--every K", "generations from one frame to the next"},
                {"--frames DIR", "write a PGM picture every K generations into DIR (made if missing)"},
                {"--gif FILE", "write an animated GIF, a frame every K generations"},
                {"--scale S", "pixels per cell in pictures", "about 512 pixels a side"}},
               step_decls(kSteps), {}, "the two benchmark tables"});
    const std::string size_text = p.text("--size", "160x120");
    const long long generations = (long long)p.size("--generations", 100, 0, (size_t)1 << 30);
    const std::string pattern_arg = p.input_file("--pattern", "", ".rle .cells");
    const std::string at_text = p.text("--at", "");
    const double density = p.real("--density", 0.25, 0.0, 1.0);
    const bool watch = p.flag("--watch");
    const double fps = p.real("--fps", 10, 0.1, 1000);
    const long long every = (long long)p.size("--every", 1, 1, (size_t)1 << 30);
    const std::string frames_dir = p.text("--frames", "");
    const std::string gif_path = p.text("--gif", "");
    int scale = p.integer("--scale", 0, 1, 64);
    p.not_with_bench({"--size", "--generations", "--pattern", "--at", "--density", "--watch", "--fps", "--every",
                      "--frames", "--gif", "--scale"});
    require_output_file(p, "--gif", gif_path, ".gif");
    require_output_folder(p, "--frames", frames_dir, ".pgm");
    p.only_with("--at", {"--pattern"}, "it places the pattern");
    for (const char* random_only : {"--density", "--seed"})
        p.not_with(random_only, "--pattern", "it shapes a random start, and the start is the pattern");
    p.only_with("--fps", {"--watch", "--gif"}, "it paces the live view and the GIF");
    p.only_with("--every", {"--watch", "--frames", "--gif"}, "it spaces the frames shown or written");
    p.only_with("--scale", {"--frames", "--gif"}, "it sizes the pictures written");
    for (const char* file : {"--csv", "--plot"})
        for (const char* show : {"--watch", "--frames", "--gif"})
            p.not_with(file, show, "showing a run prints no table");
    p.finish();

    if (p.bench) {
        // 16384^2: on the host the start, its reference and the result; on the GPU the pair and
        // the copy test's two buffers.
        require_memory(p, "--bench", 3.0 * 16384 * 16384, 4.5 * 16384.0 * 16384.0);
        return run(p, 0, 0, 0, Start{});
    }
    int w = 0, h = 0, x = -1, y = -1;
    p.fail_if("--size", read_pair(size_text, 'x', "WIDTHxHEIGHT such as 640x480", 1, kMaxSide, w, h));
    const bool have_pattern = p.given("--pattern");
    if (!at_text.empty()) p.fail_if("--at", read_pair(at_text, ',', "X,Y such as 10,20", 0, kMaxSide, x, y));
    if (x >= w || y >= h) p.fail("--at", strf("(%d, %d) is outside the %dx%d lattice", x, y, w, h));
    const bool writes_pictures = !frames_dir.empty() || !gif_path.empty();
    if (scale == 0) scale = default_scale(w, h);
    if (writes_pictures) p.fail_if(gif_path.empty() ? "--frames" : "--gif", picture_size_problem(w, h, scale));
    // Host: the start, the CPU reference and its working copy, the result downloaded (or a frame).
    require_fits_in_host(p, "--size", 3.0 * w * h);

    // The start: a pattern (read only now that the lattice is known to fit), or random cells.
    Start start{{}, strf("random, density %g, seed %llu", density, (unsigned long long)p.seed), w / 2, h / 2};
    if (have_pattern) {
        try {
            start = pattern_start(pattern_arg, w, h, x, y);
        } catch (const PatternError& e) {
            p.fail("--pattern", e.what());
        }
    }

    require_gpu(p.program().c_str());
    require_fits_in_gpu(p, "--size", 2.0 * w * h + (1 << 20));
    const LifeStep* chosen = &kSteps[std::size(kSteps) - 1];  // shows a run, unless --kernel names another
    for (const auto& s : kSteps)
        if (p.kernel == s.name) chosen = &s;
    if (p.kernel == chosen->name && chosen->info.max_cells && (size_t)w * h > chosen->info.max_cells())
        p.fail("--kernel", strf("%s takes at most %zu cells on this GPU (%s), and %dx%d is %zu", chosen->name,
                                chosen->info.max_cells(), chosen->info.limit, w, h, (size_t)w * h));
    if (!have_pattern) start.cells = random_lattice(w, h, density, p.seed);
    if (!watch && !writes_pictures) return run(p, w, h, generations, start);
    return run_show({*chosen, every, fps, watch, gif_path, frames_dir, scale}, p.program(), w, h, generations, start);
}
