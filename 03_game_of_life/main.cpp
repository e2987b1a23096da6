// 03_game_of_life/main.cpp: runs each step from the same start, checks it against the CPU
// reference and times it; --watch, --frames and --gif show a run as it happens; --bench prints
// the benchmark tables.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "game_of_life.h"
#include "life_reference.h"
#include "output_file.h"
#include "patterns.h"
#include "pictures.h"
#include "program.h"

// Cell updates per second, "6.7 G" or "835.4 M".
static std::string rate(double per_second) {
    if (!(per_second > 0)) return "-";
    if (per_second >= 1e9) return strf("%.1f G", per_second / 1e9);
    if (per_second >= 1e6) return strf("%.1f M", per_second / 1e6);
    return strf("%.0f", per_second);
}

// ---- The default run: every step from the same start, checked, then timed ------------------------
static int run(const Program& p, int w, int h, long long generations, const Start& start) {
    const DeviceFacts dev = device_facts();
    const size_t cells = (size_t)w * h;
    std::printf("Conway's Game of Life on %s (%d SMs): %d x %d torus, %lld generations\n", dev.name.c_str(),
                dev.sm_count, w, h, generations);
    std::printf("start: %s, %zu live cells\n", start.description.c_str(), population(start.cells));
    if ((double)cells * generations > 2e9)
        std::fprintf(stderr, "(the CPU reference has %.2g cell updates to do: this takes a while)\n",
                     (double)cells * generations);
    const std::vector<uint8_t> ref = life_reference(start.cells, w, h, generations);
    std::printf("CPU reference after %lld generations: %zu live cells\n\n", generations, population(ref));

    DeviceBuffer<uint8_t> cur(cells), spare(cells);
    bool checking = false;  // the checked run poisons the output before every launch; timed runs do not
    long long launches = 0;
    std::vector<StepRow> rows;
    for (const auto& s : kSteps) {
        if (!p.selected(s.name)) continue;
        const bool fits = s.run != advance_single_block || cells <= single_block_max_cells();
        rows.push_back({std::to_string(s.number), s.name,
                        [&, s] { launches = s.run(cur, spare, w, h, generations, checking); },
                        [&] {
                            checking = false;
                            const std::vector<uint8_t> got = cur.download();
                            if (got != ref) return Check{false, lattice_difference(got, ref, w)};
                            return Check{true, lattice_difference(got, ref, w),
                                         {std::to_string(launches), std::to_string(count_alive(cur.get(), cells))}};
                        },
                        fits ? "" : strf("one block holds at most %zu cells (two bytes each) on this GPU",
                                         single_block_max_cells()),
                        [&] {
                            cur.upload(start.cells);
                            checking = true;
                        }});
    }
    StepTable table{"cell updates/s", (double)cells * generations, {"launches", "live cells"},
                    strf("time (ms): all %lld generations, launches included.", generations)};
    table.rate_text = rate;
    const int failures = run_steps(rows, table, BenchConfig{1, 1, false});
    return failures ? 1 : 0;
}

// ---- --watch, --frames, --gif ------------------------------------------------------------------------
struct Show {
    const Step<AdvanceFn>& step;
    long long every;
    double fps;
    bool watch;
};

static int run_show(const Show& s, RunPictures& pictures, int w, int h, long long generations, const Start& start) {
    const size_t cells = (size_t)w * h;
    DeviceBuffer<uint8_t> cur(start.cells), spare(cells);
    std::unique_ptr<TerminalView> view;
    if (s.watch) view = std::make_unique<TerminalView>(s.fps);
    std::vector<uint8_t> host, window;
    auto emit = [&](long long gen) {
        if (pictures.wanted()) {
            host = cur.download();
            pictures.add(host.data(), gen);
        }
        if (view) {
            const TerminalView::Window win = view->window(w, h, start.centre_x, start.centre_y);
            window.resize((size_t)win.width * win.height);
            CUDA_CHECK(cudaMemcpy2D(window.data(), win.width, cur.get() + (size_t)win.y0 * w + win.x0, w, win.width,
                                    win.height, cudaMemcpyDeviceToHost));
            view->show(strf("generation %lld  live cells %llu  %dx%d torus  kernel %s", gen,
                            count_alive(cur.get(), cells), w, h, s.step.name),
                       window.data(), win, w, h);
        }
    };

    long long gen = 0;
    emit(0);
    while (gen < generations && !TerminalView::interrupted()) {
        const long long k = std::min(s.every, generations - gen);
        s.step.run(cur, spare, w, h, k, false);
        gen += k;
        if (view) view->pace();
        if (TerminalView::interrupted()) break;
        emit(gen);
    }
    view.reset();  // gives the terminal back before the summary
    std::printf("%s generation %lld: %llu live cells on a %dx%d torus (kernel %s)\n",
                gen < generations ? "stopped (Ctrl-C) at" : "done:", gen, count_alive(cur.get(), cells), w, h,
                s.step.name);
    pictures.finish();
    return 0;
}

// ---- --bench ---------------------------------------------------------------------------------------
static int run_bench(const Program& p) {
    const BenchConfig cfg;
    const DeviceFacts dev = print_bench_header("Conway's Game of Life on a torus, one byte per cell", cfg);
    std::printf("One generation per launch. GB/s counts 2 bytes per cell (one read, one written: the least any\n"
                "kernel must move); %% of copy compares with cudaMemcpy device to device of the lattice, measured\n"
                "in this run.\n\n");
    Table table({"lattice", "MB moved", "copy GB/s", "kernel", "time (ms)", "cell updates/s", "GB/s", "% of copy",
                 "% of peak"});
    int failures = 0;
    for (int side : {1024, 4096, 16384}) {
        const size_t cells = (size_t)side * side;
        const double bytes = 2.0 * cells;
        const std::vector<uint8_t> start = random_lattice(side, side, 0.25, p.seed + side);
        const std::vector<uint8_t> ref = life_step_reference(start, side, side);
        DeviceBuffer<uint8_t> in(start), out(cells);
        const double copy_gbs = gb_per_s(bytes, time_device_copy(cells, cfg).median_ms);
        for (const auto& s : kSteps) {
            std::vector<std::string> row = {strf("%d^2", side), strf("%.1f", bytes / 1e6), strf("%.0f", copy_gbs),
                                            s.name};
            if (s.run == advance_single_block && cells > single_block_max_cells()) {
                row.insert(row.end(), {"-", "-", "-", "-", strf("does not fit one block (%zu cells at most)",
                                                                 single_block_max_cells())});
                table.row(row);
                continue;
            }
            // One generation from `in` into `out`: the step swaps the pair, and swapping it back
            // makes every timed run read `in` and write `out`.
            out.poison();
            const Timing t = time_gpu([&, s] {
                s.run(in, out, side, side, 1, false);
                std::swap(in, out);
            }, cfg);
            const bool ok = out.download() == ref;  // re-checked after timing: a fast wrong kernel is no result
            const double gbs = gb_per_s(bytes, t.median_ms);
            failures += ok ? 0 : 1;
            row.insert(row.end(), {ok ? strf("%.4f", t.median_ms) : "FAILED check",
                                   ok ? rate(cells / (t.median_ms * 1e-3)) : "-", ok ? strf("%.0f", gbs) : "-",
                                   ok ? strf("%.1f", 100 * gbs / copy_gbs) : "-",
                                   ok ? strf("%.1f", 100 * gbs / dev.dram_gbs) : "-"});
            table.row(row);
        }
    }
    table.print();

    std::printf("\nMany generations on lattices small enough for one block: what a launch costs.\n"
                "global and shared launch once per generation, single_block once in all; timed as above.\n\n");
    Table small({"lattice", "generations", "kernel", "launches", "time (ms)", "us per generation", "cell updates/s",
                 "check"});
    const long long generations = 1000;
    for (int side : {64, 128}) {
        const size_t cells = (size_t)side * side;
        const std::vector<uint8_t> start = random_lattice(side, side, 0.25, p.seed + side);
        const std::vector<uint8_t> ref = life_reference(start, side, side, generations);
        DeviceBuffer<uint8_t> first(start), cur(cells), spare(cells);
        for (const auto& s : kSteps) {
            long long launches = 0;
            const Timing t = time_gpu([&, s] {
                CUDA_CHECK(cudaMemcpyAsync(cur.get(), first.get(), cells, cudaMemcpyDeviceToDevice));
                launches = s.run(cur, spare, side, side, generations, false);
            }, cfg);
            const bool ok = cur.download() == ref;
            failures += ok ? 0 : 1;
            small.row({strf("%d^2", side), std::to_string(generations), s.name, std::to_string(launches),
                       strf("%.3f", t.median_ms), strf("%.2f", t.median_ms * 1e3 / generations),
                       rate((double)cells * generations / (t.median_ms * 1e-3)), ok ? "ok" : "FAILED"});
        }
    }
    small.print();
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"Conway's Game of Life on a torus, on the GPU",
               "  --size WxH        lattice width x height in cells (default 160x120; sides 1 to 524288)\n"
               "  --generations G   generations to run (default 100)\n"
               "  --pattern P       start from a pattern instead of random cells: a file when P has a '/'\n"
               "                    or ends in .rle or .cells, else a shipped one by name: glider, blinker,\n"
               "                    toad, beacon, gosper_glider_gun, r_pentomino, acorn, diehard\n"
               "  --at X,Y          put the pattern's top-left cell at (X, Y) (default: centred)\n"
               "  --density D       random start: the chance that a cell is alive (default 0.25)\n"
               "  --watch           live view in the terminal; stops after G generations or on Ctrl-C\n"
               "  --fps F           frames per second of --watch and --gif (default 10)\n"
               "  --every K         generations from one frame to the next (default 1)\n"
               "  --frames DIR      write a PGM picture every K generations into DIR (made if missing)\n"
               "  --gif FILE        write an animated GIF, a frame every K generations\n"
               "  --scale S         pixels per cell in pictures (default: about 512 pixels a side)\n"
               "                    (--watch, --frames and --gif run one kernel: shared unless --kernel says)\n",
               step_names(kSteps), {}, "the two benchmark tables"});
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
        for (const char* show : {"--watch", "--frames", "--gif"}) p.not_with(file, show, "showing a run prints no table");
    p.finish();
    auto refuse_unless_fine = [&](const char* name, const std::string& why) {
        if (!why.empty()) p.fail(name, why);
    };

    if (p.bench) {
        // 16384^2: on the host the start, its reference and the result; on the GPU the pair and
        // the copy test's two buffers.
        require_memory(p, "--bench", 3.0 * 16384 * 16384, 4.5 * 16384.0 * 16384.0);
        return run_bench(p);
    }
    int w = 0, h = 0, x = -1, y = -1;
    refuse_unless_fine("--size", read_pair(size_text, 'x', "WIDTHxHEIGHT such as 640x480", 1, kMaxSide, w, h));
    const bool have_pattern = p.given("--pattern");
    if (!at_text.empty()) refuse_unless_fine("--at", read_pair(at_text, ',', "X,Y such as 10,20", 0, kMaxSide, x, y));
    if (x >= w || y >= h) p.fail("--at", strf("(%d, %d) is outside the %dx%d lattice", x, y, w, h));
    const bool writes_pictures = !frames_dir.empty() || !gif_path.empty();
    if (scale == 0) scale = default_scale(w, h);
    if (writes_pictures && ((long long)w * scale > kMaxImageSide || (long long)h * scale > kMaxImageSide))
        p.fail(gif_path.empty() ? "--frames" : "--gif",
               strf("a %dx%d lattice at %d pixel(s) per cell is over %d pixels a side; use a smaller --size or "
                    "--scale", w, h, scale, kMaxImageSide));
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
    if (p.kernel == "single_block" && (size_t)w * h > single_block_max_cells())
        p.fail("--kernel", strf("single_block keeps the lattice in one block's shared memory: at most %zu "
                                "cells on this GPU, and %dx%d is %zu (use global or shared)",
                                single_block_max_cells(), w, h, (size_t)w * h));
    if (!have_pattern) start.cells = random_lattice(w, h, density, p.seed);
    if (!watch && !writes_pictures) return run(p, w, h, generations, start);

    const std::string shown = p.kernel == "all" ? "shared" : p.kernel;  // one kernel shows the run
    const auto& step = *std::find_if(std::begin(kSteps), std::end(kSteps), [&](auto& s) { return shown == s.name; });
    std::printf("start: %s\n", start.description.c_str());
    try {
        RunPictures pictures(gif_path, frames_dir, w, h, scale, fps);
        return run_show({step, every, fps, watch}, pictures, w, h, generations, start);
    } catch (const std::runtime_error& e) {  // a picture could not be written
        std::fprintf(stderr, "%s: error: %s\n", p.program().c_str(), e.what());
        return kExitBadInput;
    }
}
