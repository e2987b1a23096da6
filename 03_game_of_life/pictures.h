// pictures.h: showing a lattice (pictures.cpp, support for main.cpp and tests.cpp): text with
// Unicode half blocks for a live terminal view, PGM frames, animated GIFs through giflib, and the
// run that --watch, --frames and --gif show.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "patterns.h"  // Start (and, through game_of_life.h, LifeStep)

// Text lines for a width x height block of cells (row y at cells + y * pitch): each character
// shows two cells, one above the other, with the half blocks U+2580 (upper) and U+2584 (lower),
// the full block U+2588 and a space. ceil(height / 2) lines of `width` characters (UTF-8).
std::vector<std::string> half_block_lines(const uint8_t* cells, int width, int height, size_t pitch);

// Pictures: `scale` x `scale` pixels per cell, at most kMaxImageSide pixels a side.
constexpr int kMaxImageSide = 8192;
// Pixels per cell so that the longer side is about 512 pixels (1 to 8).
int default_scale(int width, int height);
// Why a width x height lattice cannot be drawn at `scale` pixels per cell ("" when it can).
std::string picture_size_problem(int width, int height, int scale);

// --gif and --frames are checked before the run by common/output_file.h (require_output_file).

// A binary PGM (P5): live cells white, dead cells black. Throws std::runtime_error("path: why").
void write_pgm(const std::string& path, const uint8_t* cells, int width, int height, int scale);

// An animated GIF that loops forever, written frame by frame (only the rectangle that changed
// since the previous frame is stored). Errors throw std::runtime_error("path: why").
class GifWriter {
public:
    GifWriter(const std::string& path, int width, int height, int scale, int delay_centiseconds);
    ~GifWriter();  // closes the file if close() was not called (errors ignored)
    GifWriter(const GifWriter&) = delete;
    GifWriter& operator=(const GifWriter&) = delete;
    void add_frame(const uint8_t* cells);  // width * height cells
    void close();
    int frames() const { return frames_; }

private:
    void* gif_ = nullptr;  // a GifFileType*; opaque here, so this header needs no gif_lib.h
    std::string path_;
    int width_, height_, scale_, delay_;
    int frames_ = 0;
    std::vector<uint8_t> previous_;
};

// The pictures a run writes: a GIF (--gif) and PGM files gen_NNNNNN.pgm in a folder (--frames,
// made here if missing); either path may be "". Errors throw std::runtime_error("path: why").
class RunPictures {
public:
    RunPictures(const std::string& gif_path, const std::string& frames_dir, int width, int height, int scale, double fps);
    bool wanted() const { return gif_ || !frames_dir_.empty(); }
    void add(const uint8_t* cells, long long generation);  // width * height cells
    void finish();  // closes the GIF, and prints one line per kind of picture written

private:
    std::unique_ptr<GifWriter> gif_;
    std::string gif_path_, frames_dir_;
    int width_, height_, scale_;
    int pgm_count_ = 0;
};

// The terminal during --watch: the alternate screen and a hidden cursor while it lives (only
// when standard output is a terminal), and Ctrl-C caught so that the program can stop cleanly.
// Both are undone when it is destroyed, at exit(), and on a second Ctrl-C.
class TerminalView {
public:
    explicit TerminalView(double fps);  // frames per second, kept by pace()
    ~TerminalView();
    TerminalView(const TerminalView&) = delete;
    TerminalView& operator=(const TerminalView&) = delete;
    bool interactive() const { return interactive_; }
    // The part of a width x height lattice that the terminal shows under a status line (two
    // cells a character, one above the other), centred on (cx, cy) and kept inside the lattice.
    struct Window {
        int x0, y0, width, height;
    };
    Window window(int width, int height, int cx, int cy) const;
    // Shows a frame: the status line and the window's cells (row y at cells + y * win.width) of
    // a width x height lattice; redrawn in place on a terminal, printed one after another otherwise.
    void show(std::string status, const uint8_t* cells, const Window& win, int width, int height);
    // Waits until the next frame is due, in short naps so that Ctrl-C is quick.
    void pace();
    static bool interrupted();  // Ctrl-C (or SIGTERM) since the view opened

private:
    using Clock = std::chrono::steady_clock;
    void size(int& columns, int& rows) const;  // of the terminal (80 x 24 when it is not one)
    bool interactive_ = false;
    Clock::duration period_;
    Clock::time_point deadline_;
};

// --watch, --frames, --gif: prints the start, then runs `step` from it on a width x height torus,
// `every` generations from one frame to the next, until `generations` or Ctrl-C; each frame is
// shown in the terminal (watch, `fps` frames a second) and written to the GIF and the PGM folder
// (either path may be ""). Prints one summary line. Returns the exit code: 0, or kExitBadInput
// after one line "program: error: path: why" when a picture cannot be written.
struct Show {
    const LifeStep& step;
    long long every;
    double fps;
    bool watch;
    std::string gif_path, frames_dir;
    int scale;
};
int run_show(const Show& s, const std::string& program, int w, int h, long long generations, const Start& start);
