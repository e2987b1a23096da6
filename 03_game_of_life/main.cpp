// 03_game_of_life/main.cpp: runs each step from the same start, checks it against the CPU
// reference and times it; --watch, --frames and --gif show a run as it happens; --bench prints
// the benchmark table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "buffer.h"
#include "compare.h"
#include "game_of_life.h"
#include "gpu.h"
#include "program.h"
#include "patterns.h"
#include "pictures.h"

static std::string rate(double per_second) {
    if (per_second >= 1e9) return strf("%.1f G", per_second / 1e9);
    if (per_second >= 1e6) return strf("%.1f M", per_second / 1e6);
    return strf("%.0f", per_second);
}

static std::string describe_mismatch(const std::vector<uint8_t>& got, const std::vector<uint8_t>& ref, int w) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < ref.size(); ++i)
        if (got[i] != ref[i] && bad++ == 0) first = i;
    return strf("%zu of %zu cells differ; first at (%zu, %zu): got %d, expected %d", bad, ref.size(), first % w,
                first / w, got[first], ref[first]);
}

// ---- The default run: every step from the same start, checked, then timed ------------------------
static int run_steps(const std::string& which, int w, int h, long long generations, const std::vector<uint8_t>& start,
                     const std::string& start_text) {
    DeviceFacts dev = device_facts();
    const size_t cells = (size_t)w * h;
    std::printf("Conway's Game of Life on %s (%d SMs): %d x %d torus, %lld generations\n", dev.name.c_str(),
                dev.sm_count, w, h, generations);
    std::printf("start: %s, %zu live cells\n", start_text.c_str(), population(start));
    if ((double)cells * generations > 2e9)
        std::fprintf(stderr, "(the CPU reference has %.2g cell updates to do: this takes a while)\n",
                     (double)cells * generations);
    const std::vector<uint8_t> ref = life_reference(start, w, h, generations);
    std::printf("CPU reference after %lld generations: %zu live cells\n\n", generations, population(ref));

    DeviceBuffer<uint8_t> cur(cells), spare(cells);
    Table table({"step", "kernel", "launches", "time (ms)", "cell updates/s", "live cells", "check"});
    int failures = 0;
    for (Kernel k : kKernels) {
        const std::string name = kernel_name(k), step = std::to_string(step_number(k));
        if (which != "all" && which != name) continue;
        if (k == Kernel::single_block && cells > single_block_max_cells()) {
            table.row({step, name, "-", "-", "-", "-",
                       strf("skipped: one block holds at most %zu cells (two bytes each) on this GPU",
                            single_block_max_cells())});
            continue;
        }
        // Checked run: the buffer about to be written is poisoned before every launch.
        cur.upload(start);
        advance(k, cur, spare, w, h, generations, true);
        const std::vector<uint8_t> got = cur.download();
        if (got != ref) {
            ++failures;
            table.row({step, name, "-", "-", "-", "-",
                       "FAILED: " + describe_mismatch(got, ref, w) + " (is TODO step " + step + " done?)"});
            continue;
        }
        const unsigned long long alive = count_alive(cur.get(), cells);
        // Timed run from the same start, after one warm-up generation (module loading, clocks).
        cur.upload(start);
        advance(k, cur, spare, w, h, 1, false);
        cur.upload(start);
        GpuTimer timer;
        timer.start();
        advance(k, cur, spare, w, h, generations, false);
        const double ms = timer.stop_ms();
        const long long launches = k == Kernel::single_block ? (generations > 0 ? 1 : 0) : generations;
        table.row({step, name, std::to_string(launches), strf("%.3f", ms),
                   generations > 0 ? rate((double)cells * generations / (ms * 1e-3)) : "-", std::to_string(alive),
                   strf("ok: all %zu cells match", cells)});
    }
    table.print();
    std::printf("\ntime: all %lld generations, launches included, one run after a warm-up.\n", generations);
    return failures ? 1 : 0;
}

// ---- --watch, --frames, --gif ------------------------------------------------------------------------
struct Show {
    Kernel kernel;
    long long every;
    double fps;
    bool watch;
    std::string frames_dir, gif_path;
    int scale;
    int view_x, view_y;  // the cell the terminal view is centred on
};

static int run_show(const Show& s, int w, int h, long long generations, const std::vector<uint8_t>& start) {
    const size_t cells = (size_t)w * h;
    DeviceBuffer<uint8_t> cur(start), spare(cells);
    std::unique_ptr<GifWriter> gif;
    if (!s.gif_path.empty())
        gif = std::make_unique<GifWriter>(s.gif_path, w, h, s.scale,
                                          std::max(2, (int)std::lround(100.0 / s.fps)));
    std::unique_ptr<TerminalView> view;
    if (s.watch) view = std::make_unique<TerminalView>();
    std::vector<uint8_t> host, window;
    int pgm_count = 0;

    auto emit = [&](long long gen) {
        if (gif || !s.frames_dir.empty()) {
            host = cur.download();
            if (gif) gif->add_frame(host.data());
            if (!s.frames_dir.empty()) {
                write_pgm(strf("%s/gen_%06lld.pgm", s.frames_dir.c_str(), gen), host.data(), w, h, s.scale);
                ++pgm_count;
            }
        }
        if (view) {
            int columns = 0, rows = 0;
            view->size(columns, rows);
            // One status line, and a free last line so that the frame never scrolls the screen.
            const int vw = std::min(w, columns), vh = std::min(h, 2 * std::max(1, rows - 2));
            const int x0 = std::clamp(s.view_x - vw / 2, 0, w - vw), y0 = std::clamp(s.view_y - vh / 2, 0, h - vh);
            window.resize((size_t)vw * vh);
            CUDA_CHECK(cudaMemcpy2D(window.data(), vw, cur.get() + (size_t)y0 * w + x0, w, vw, vh,
                                    cudaMemcpyDeviceToHost));
            std::vector<std::string> lines = half_block_lines(window.data(), vw, vh, vw);
            std::string status = strf("generation %lld  live cells %llu  %dx%d torus  kernel %s", gen,
                                      count_alive(cur.get(), cells), w, h, kernel_name(s.kernel));
            if (vw < w || vh < h) status += strf("  view x %d-%d y %d-%d", x0, x0 + vw - 1, y0, y0 + vh - 1);
            if (view->interactive()) status += "  (Ctrl-C quits)";
            lines.insert(lines.begin(), view->interactive() ? status.substr(0, std::max(columns, 1)) : status);
            view->show(lines);
        }
    };

    using Clock = std::chrono::steady_clock;
    const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / s.fps));
    auto deadline = Clock::now() + period;
    long long gen = 0;
    emit(0);
    while (gen < generations && !TerminalView::interrupted()) {
        const long long k = std::min(s.every, generations - gen);
        advance(s.kernel, cur, spare, w, h, k, false);
        gen += k;
        if (view) {  // pace the live view; sleep in short naps so that Ctrl-C is quick
            while (Clock::now() < deadline && !TerminalView::interrupted())
                std::this_thread::sleep_for(std::min<Clock::duration>(deadline - Clock::now(), std::chrono::milliseconds(20)));
            deadline = std::max(deadline + period, Clock::now());
        }
        if (TerminalView::interrupted()) break;
        emit(gen);
    }
    const bool stopped = gen < generations;
    view.reset();  // gives the terminal back before the summary
    std::printf("%s generation %lld: %llu live cells on a %dx%d torus (kernel %s)\n",
                stopped ? "stopped (Ctrl-C) at" : "done:", gen, count_alive(cur.get(), cells), w, h,
                kernel_name(s.kernel));
    if (gif) {
        gif->close();
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(s.gif_path, ec);
        std::printf("wrote %s: %d frames of %dx%d pixels, %.1f KB\n", s.gif_path.c_str(), gif->frames(), w * s.scale,
                    h * s.scale, ec ? 0.0 : bytes / 1024.0);
    }
    if (!s.frames_dir.empty())
        std::printf("wrote %d PGM frames of %dx%d pixels to %s/\n", pgm_count, w * s.scale, h * s.scale,
                    s.frames_dir.c_str());
    return 0;
}

// ---- --bench ---------------------------------------------------------------------------------------
static int run_bench(uint64_t seed) {
    DeviceFacts dev = device_facts();
    std::printf("Benchmark on %s: %d SMs, theoretical DRAM bandwidth %.0f GB/s\n", dev.name.c_str(), dev.sm_count,
                dev.dram_gbs);
    std::printf("One generation per launch. GB/s counts 2 bytes per cell (one read, one written: the least any\n"
                "kernel must move); %% of copy compares with cudaMemcpy device to device of the lattice, measured\n"
                "in this run. Median of 20 runs, L2 flushed between runs; outputs re-checked after timing.\n\n");
    Table table({"lattice", "MB moved", "copy GB/s", "kernel", "time (ms)", "cell updates/s", "GB/s", "% of copy",
                 "% of peak"});
    int failures = 0;
    for (int side : {1024, 4096, 16384}) {
        const size_t cells = (size_t)side * side;
        const double bytes = 2.0 * cells;
        const std::vector<uint8_t> start = random_lattice(side, side, 0.25, seed + side);
        const std::vector<uint8_t> ref = life_step_reference(start, side, side);
        DeviceBuffer<uint8_t> in(start), out(cells);
        const double copy_gbs = gb_per_s(bytes, time_device_copy(cells).median_ms);
        const std::string lattice = strf("%d^2", side);
        for (Kernel k : kKernels) {
            if (k == Kernel::single_block) {
                table.row({lattice, strf("%.1f", bytes / 1e6), strf("%.0f", copy_gbs), kernel_name(k), "-", "-", "-",
                           "-", strf("does not fit one block (%zu cells at most)", single_block_max_cells())});
                continue;
            }
            auto run = [&] {
                if (k == Kernel::global) run_global(in.get(), out.get(), side, side);
                else run_shared(in.get(), out.get(), side, side);
            };
            out.poison();
            const Timing t = time_gpu(run);
            const bool ok = out.download() == ref;  // re-checked after timing: a fast wrong kernel is no result
            if (!ok) ++failures;
            const double gbs = gb_per_s(bytes, t.median_ms);
            table.row({lattice, strf("%.1f", bytes / 1e6), strf("%.0f", copy_gbs), kernel_name(k),
                       ok ? strf("%.4f", t.median_ms) : "FAILED check", ok ? rate(cells / (t.median_ms * 1e-3)) : "-",
                       ok ? strf("%.0f", gbs) : "-", ok ? strf("%.1f", 100 * gbs / copy_gbs) : "-",
                       ok ? strf("%.1f", 100 * gbs / dev.dram_gbs) : "-"});
        }
    }
    table.print();

    std::printf("\nMany generations on lattices small enough for one block: what a launch costs.\n"
                "global and shared launch once per generation, single_block once in all. Median of 20 runs.\n\n");
    Table small({"lattice", "generations", "kernel", "launches", "time (ms)", "us per generation", "cell updates/s",
                 "check"});
    const long long generations = 1000;
    for (int side : {64, 128}) {
        const size_t cells = (size_t)side * side;
        const std::vector<uint8_t> start = random_lattice(side, side, 0.25, seed + side);
        const std::vector<uint8_t> ref = life_reference(start, side, side, generations);
        DeviceBuffer<uint8_t> first(start), cur(cells), spare(cells);
        for (Kernel k : kKernels) {
            auto run = [&] {
                CUDA_CHECK(cudaMemcpyAsync(cur.get(), first.get(), cells, cudaMemcpyDeviceToDevice));
                advance(k, cur, spare, side, side, generations, false);
            };
            const Timing t = time_gpu(run);
            const bool ok = cur.download() == ref;
            if (!ok) ++failures;
            small.row({strf("%d^2", side), std::to_string(generations), kernel_name(k),
                       k == Kernel::single_block ? "1" : std::to_string(generations), strf("%.3f", t.median_ms),
                       strf("%.2f", t.median_ms * 1e3 / generations),
                       rate((double)cells * generations / (t.median_ms * 1e-3)), ok ? "ok" : "FAILED"});
        }
    }
    small.print();
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    std::vector<std::string> names;
    for (Kernel k : kKernels) names.push_back(kernel_name(k));
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
               names, {}, "the two benchmark tables"});
    const std::string size_text = p.text("--size", "160x120");
    const long long generations = (long long)p.size("--generations", 100, 0, (size_t)1 << 30);
    const std::string pattern_arg = p.text("--pattern", "");
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
    p.finish();
    const std::string kernel = p.kernel;
    const uint64_t seed = p.seed;
    const bool bench = p.bench;

    int w = 0, h = 0;
    if (const std::string why = read_pair(size_text, 'x', "WIDTHxHEIGHT such as 640x480", 1, kMaxSide, w, h); !why.empty())
        p.fail("--size", why);
    const bool have_pattern = p.given("--pattern");
    if (p.given("--at") && !have_pattern) p.fail("--at", "places a --pattern; give one");
    for (const char* random_only : {"--density", "--seed"})
        if (have_pattern && p.given(random_only))
            p.fail(random_only, "--density and --seed make a random start; leave them out with --pattern");
    if (!gif_path.empty())
        if (const std::string why = why_not_writable_file(gif_path); !why.empty()) p.fail("--gif", why);
    if (!frames_dir.empty())
        if (const std::string why = why_not_writable_folder(frames_dir); !why.empty()) p.fail("--frames", why);
    // Host: the start, the CPU reference and its working copy, the result downloaded (or a frame).
    if (!bench) require_fits_in_host(p, "--size", 3.0 * w * h);

    // The start: a pattern, or random cells.
    std::vector<uint8_t> start;
    std::string start_text;
    int view_x = w / 2, view_y = h / 2;
    if (have_pattern) {
        int x = -1, y = -1;
        if (!at_text.empty())
            if (const std::string why = read_pair(at_text, ',', "X,Y such as 10,20", 0, kMaxSide, x, y); !why.empty())
                p.fail("--at", why);
        if (x >= w || y >= h)
            p.fail("--at", strf("(%d, %d) is outside the %dx%d lattice", x, y, w, h));
        try {
            const Pattern pat = load_pattern(pattern_arg, w, h);
            start = place_pattern(pat, w, h, x, y);
            const int px = x < 0 ? (w - pat.width) / 2 : x, py = y < 0 ? (h - pat.height) / 2 : y;
            view_x = (px + pat.width / 2) % w, view_y = (py + pat.height / 2) % h;
            start_text = strf("pattern %s (%s, %dx%d) at (%d, %d)", pat.name.c_str(), pat.source.c_str(), pat.width,
                              pat.height, px, py);
        } catch (const PatternError& e) {
            p.fail("--pattern", e.what());
        }
    }

    const bool show = watch || !frames_dir.empty() || !gif_path.empty();
    if (scale == 0) scale = default_scale(w, h);
    if (show && (!frames_dir.empty() || !gif_path.empty()) &&
        ((long long)w * scale > kMaxImageSide || (long long)h * scale > kMaxImageSide))
        p.fail(gif_path.empty() ? "--frames" : "--gif",
                  strf("a %dx%d lattice at %d pixel(s) per cell is over %d pixels a side; use a smaller --size or "
                       "--scale", w, h, scale, kMaxImageSide));

    require_gpu(p.program().c_str());
    if (bench) {
        require_fits_in_gpu(p, "--bench", 4.5 * 16384.0 * 16384.0);
        return run_bench(seed);
    }
    require_fits_in_gpu(p, "--size", 2.0 * w * h + (1 << 20));
    if (kernel == "single_block" && (size_t)w * h > single_block_max_cells())
        p.fail("--kernel", strf("single_block keeps the lattice in one block's shared memory: at most %zu "
                                   "cells on this GPU, and %dx%d is %zu (use global or shared)",
                                   single_block_max_cells(), w, h, (size_t)w * h));
    if (!have_pattern) {
        start = random_lattice(w, h, density, seed);
        start_text = strf("random, density %g, seed %llu", density, (unsigned long long)seed);
    }
    if (!show) return run_steps(kernel, w, h, generations, start, start_text);

    if (!frames_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(frames_dir, ec);
        if (ec || !std::filesystem::is_directory(frames_dir))
            p.fail("--frames", "cannot create the folder '" + frames_dir + "' (" + ec.message() + ")");
    }
    Show s;
    s.kernel = kernel == "global" ? Kernel::global : kernel == "single_block" ? Kernel::single_block : Kernel::shared;
    s.every = every;
    s.fps = fps;
    s.watch = watch;
    s.frames_dir = frames_dir;
    s.gif_path = gif_path;
    s.scale = scale;
    s.view_x = view_x;
    s.view_y = view_y;
    std::printf("start: %s\n", start_text.c_str());
    try {
        return run_show(s, w, h, generations, start);
    } catch (const std::runtime_error& e) {  // a picture could not be written
        std::fprintf(stderr, "%s: error: %s\n", p.program().c_str(), e.what());
        return kExitBadInput;
    }
}
