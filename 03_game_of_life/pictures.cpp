// pictures.cpp (support): half-block text, PGM, GIF (through giflib: no hand-written encoder),
// the terminal set-up of --watch, and the run that --watch, --frames and --gif show.
#include "pictures.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <gif_lib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"       // strf
#include "cuda_check.h"
#include "options.h"     // Options::printable

// ---- Text ------------------------------------------------------------------------------------
std::vector<std::string> half_block_lines(const uint8_t* cells, int width, int height, size_t pitch) {
    static const char* const kGlyph[4] = {" ", "\u2580", "\u2584", "\u2588"};  // none, top, bottom, both
    std::vector<std::string> lines;
    for (int y = 0; y < height; y += 2) {
        std::string line;
        line.reserve((size_t)width * 3);
        const uint8_t* top = cells + (size_t)y * pitch;
        const uint8_t* bottom = y + 1 < height ? top + pitch : nullptr;
        for (int x = 0; x < width; ++x) line += kGlyph[(top[x] ? 1 : 0) | (bottom && bottom[x] ? 2 : 0)];
        lines.push_back(std::move(line));
    }
    return lines;
}

// ---- Pictures --------------------------------------------------------------------------------
int default_scale(int width, int height) { return std::max(1, std::min(8, 512 / std::max(width, height))); }

std::string picture_size_problem(int width, int height, int scale) {
    if ((long long)width * scale <= kMaxImageSide && (long long)height * scale <= kMaxImageSide) return "";
    return strf("a %dx%d lattice at %d pixel(s) per cell is over %d pixels a side; use a smaller --size or --scale",
                width, height, scale, kMaxImageSide);
}

static std::string quoted(const std::string& path) { return "'" + Options::printable(path, Options::kPathChars) + "'"; }

void write_pgm(const std::string& path, const uint8_t* cells, int width, int height, int scale) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error(path + ": cannot be written (" + std::strerror(errno) + ")");
    out << "P5\n" << width * scale << " " << height * scale << "\n255\n";
    std::vector<char> row((size_t)width * scale);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x)
            std::fill_n(row.begin() + (size_t)x * scale, scale, cells[(size_t)y * width + x] ? (char)255 : (char)0);
        for (int r = 0; r < scale; ++r) out.write(row.data(), (std::streamsize)row.size());
    }
    out.close();
    if (!out) throw std::runtime_error(path + ": writing failed (disk full?)");
}

// Palette: 0 dead, 1 alive, 2 the thin grid drawn between cells when they are 4 pixels or more.
static const GifColorType kPalette[4] = {{16, 21, 28}, {255, 196, 61}, {31, 40, 52}, {0, 0, 0}};

static GifFileType* as_gif(void* p) { return static_cast<GifFileType*>(p); }

GifWriter::GifWriter(const std::string& path, int width, int height, int scale, int delay_centiseconds)
    : path_(path), width_(width), height_(height), scale_(scale), delay_(delay_centiseconds) {
    int error = 0;
    GifFileType* gif = EGifOpenFileName(path.c_str(), false, &error);
    if (!gif) throw std::runtime_error(path + ": cannot be written (" + GifErrorString(error) + ")");
    gif_ = gif;
    auto check = [&](int rc, const char* what) {
        if (rc == GIF_ERROR) throw std::runtime_error(path_ + ": " + what + " failed (" + GifErrorString(gif->Error) + ")");
    };
    EGifSetGifVersion(gif, true);  // GIF89a: needed for frame delays and looping
    ColorMapObject* map = GifMakeMapObject(4, kPalette);
    if (!map) throw std::runtime_error(path + ": out of memory");
    const int rc = EGifPutScreenDesc(gif, width * scale, height * scale, 8, 0, map);  // copies the map
    GifFreeMapObject(map);
    check(rc, "writing the header");
    // The NETSCAPE2.0 application extension: loop count 0, i.e. for ever.
    static const unsigned char kLoopForever[3] = {1, 0, 0};
    check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "writing the loop extension");
    check(EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0"), "writing the loop extension");
    check(EGifPutExtensionBlock(gif, 3, kLoopForever), "writing the loop extension");
    check(EGifPutExtensionTrailer(gif), "writing the loop extension");
}

GifWriter::~GifWriter() {
    if (gif_) {
        int error = 0;
        EGifCloseFile(as_gif(gif_), &error);
    }
}

void GifWriter::add_frame(const uint8_t* cells) {
    GifFileType* gif = as_gif(gif_);
    if (!gif) throw std::runtime_error(path_ + ": the GIF is already closed");
    auto check = [&](int rc) {
        if (rc == GIF_ERROR) throw std::runtime_error(path_ + ": writing frame " + std::to_string(frames_) +
                                                      " failed (" + GifErrorString(gif->Error) + ")");
    };
    // The rectangle of cells that changed since the last frame (all of them for the first).
    int x0 = 0, y0 = 0, x1 = width_, y1 = height_;
    const size_t n = (size_t)width_ * height_;
    if (previous_.size() == n) {
        x0 = width_, y0 = height_, x1 = 0, y1 = 0;
        for (int y = 0; y < height_; ++y)
            for (int x = 0; x < width_; ++x)
                if (cells[(size_t)y * width_ + x] != previous_[(size_t)y * width_ + x]) {
                    x0 = std::min(x0, x), x1 = std::max(x1, x + 1);
                    y0 = std::min(y0, y), y1 = std::max(y1, y + 1);
                }
        if (x1 == 0) x0 = 0, y0 = 0, x1 = 1, y1 = 1;  // nothing changed: repaint one cell
    }
    previous_.assign(cells, cells + n);

    GraphicsControlBlock gcb;
    gcb.DisposalMode = DISPOSE_DO_NOT;  // the next frame paints over this one
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType extension[4];
    const size_t len = EGifGCBToExtension(&gcb, extension);
    check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)len, extension));

    const int s = scale_, pw = (x1 - x0) * s, ph = (y1 - y0) * s;
    const bool grid = s >= 4;
    check(EGifPutImageDesc(gif, x0 * s, y0 * s, pw, ph, false, nullptr));
    std::vector<GifPixelType> line(pw);
    for (int py = 0; py < ph; ++py) {
        const int y = y0 + py / s;
        const bool grid_row = grid && py % s == s - 1;
        for (int px = 0; px < pw; ++px) {
            const int x = x0 + px / s;
            line[px] = (grid_row || (grid && px % s == s - 1)) ? 2 : (cells[(size_t)y * width_ + x] ? 1 : 0);
        }
        check(EGifPutLine(gif, line.data(), pw));
    }
    ++frames_;
}

void GifWriter::close() {
    if (!gif_) return;
    int error = 0;
    const int rc = EGifCloseFile(as_gif(gif_), &error);  // frees the handle, even on failure
    gif_ = nullptr;
    if (rc == GIF_ERROR) throw std::runtime_error(path_ + ": closing the GIF failed (" + GifErrorString(error) + ")");
}

// ---- The pictures of a run ------------------------------------------------------------------------
RunPictures::RunPictures(const std::string& gif_path, const std::string& frames_dir, int width, int height, int scale,
                         double fps)
    : gif_path_(gif_path), frames_dir_(frames_dir), width_(width), height_(height), scale_(scale) {
    if (!frames_dir_.empty() && mkdir(frames_dir_.c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot make the folder " + quoted(frames_dir_) + " (" + std::strerror(errno) + ")");
    if (!gif_path_.empty())  // delays in hundredths of a second; browsers play one under 2 as 10
        gif_ = std::make_unique<GifWriter>(gif_path_, width, height, scale, std::max(2, (int)std::lround(100.0 / fps)));
}

void RunPictures::add(const uint8_t* cells, long long generation) {
    if (gif_) gif_->add_frame(cells);
    if (frames_dir_.empty()) return;
    char name[32];
    std::snprintf(name, sizeof name, "/gen_%06lld.pgm", generation);
    write_pgm(frames_dir_ + name, cells, width_, height_, scale_);
    ++pgm_count_;
}

void RunPictures::finish() {
    if (gif_) {
        gif_->close();
        struct stat st;
        std::printf("wrote %s: %d frames of %dx%d pixels, %.1f KB\n", gif_path_.c_str(), gif_->frames(),
                    width_ * scale_, height_ * scale_, stat(gif_path_.c_str(), &st) == 0 ? st.st_size / 1024.0 : 0.0);
    }
    if (!frames_dir_.empty())
        std::printf("wrote %d PGM frames of %dx%d pixels to %s/\n", pgm_count_, width_ * scale_, height_ * scale_,
                    frames_dir_.c_str());
}

// ---- The terminal ------------------------------------------------------------------------------
namespace {
volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_screen_taken = 0;  // alternate screen on, cursor hidden
const char kRestore[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

void restore_screen() {
    if (g_screen_taken) {
        g_screen_taken = 0;
        std::fflush(stdout);
        ssize_t ignored = write(STDOUT_FILENO, kRestore, sizeof kRestore - 1);
        (void)ignored;
    }
}

// Only async-signal-safe work here: set a flag that the main loop reads. A second Ctrl-C (the
// program did not stop, e.g. a long kernel) restores the screen itself and leaves.
void on_signal(int) {
    if (g_interrupted) {
        if (g_screen_taken) {
            ssize_t ignored = write(STDOUT_FILENO, kRestore, sizeof kRestore - 1);
            (void)ignored;
        }
        _exit(130);
    }
    g_interrupted = 1;
}
}  // namespace

TerminalView::TerminalView(double fps)
    : period_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / fps))),
      deadline_(Clock::now() + period_) {
    interactive_ = isatty(STDOUT_FILENO) == 1;
    g_interrupted = 0;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    static bool registered = false;
    if (!registered) {
        std::atexit(restore_screen);  // also after exit(1) from a failed CUDA call
        registered = true;
    }
    if (interactive_) {
        std::fputs("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J", stdout);  // alternate screen, hide the cursor
        std::fflush(stdout);
        g_screen_taken = 1;
    }
}

TerminalView::~TerminalView() {
    restore_screen();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

void TerminalView::size(int& columns, int& rows) const {
    columns = 80, rows = 24;
    struct winsize ws;
    if (interactive_ && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        columns = ws.ws_col;
        rows = ws.ws_row;
    }
}

TerminalView::Window TerminalView::window(int width, int height, int cx, int cy) const {
    int columns = 0, rows = 0;
    size(columns, rows);
    // One status line, and a free last line so that the frame never scrolls the screen.
    const int vw = std::min(width, columns), vh = std::min(height, 2 * std::max(1, rows - 2));
    return {std::clamp(cx - vw / 2, 0, width - vw), std::clamp(cy - vh / 2, 0, height - vh), vw, vh};
}

void TerminalView::show(std::string status, const uint8_t* cells, const Window& win, int width, int height) {
    std::vector<std::string> lines = half_block_lines(cells, win.width, win.height, win.width);
    if (win.width < width || win.height < height)
        status += "  view x " + std::to_string(win.x0) + "-" + std::to_string(win.x0 + win.width - 1) + " y " +
                  std::to_string(win.y0) + "-" + std::to_string(win.y0 + win.height - 1);
    if (interactive_) {
        int columns = 0, rows = 0;
        size(columns, rows);
        status = (status + "  (Ctrl-C quits)").substr(0, std::max(columns, 1));
    }
    lines.insert(lines.begin(), status);
    std::string out;
    if (interactive_) out += "\x1b[H";  // cursor home: draw over the last frame
    for (const auto& l : lines) {
        out += l;
        if (interactive_) out += "\x1b[K";  // clear what a wider old frame left on this line
        out += '\n';
    }
    if (interactive_) out += "\x1b[J";  // and below the frame
    else out += '\n';
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
}

void TerminalView::pace() {
    while (Clock::now() < deadline_ && !interrupted())
        std::this_thread::sleep_for(std::min<Clock::duration>(deadline_ - Clock::now(), std::chrono::milliseconds(20)));
    deadline_ = std::max(deadline_ + period_, Clock::now());
}

bool TerminalView::interrupted() { return g_interrupted != 0; }

// ---- The run that --watch, --frames and --gif show -------------------------------------------------
static void show_frames(const Show& s, RunPictures& pictures, int w, int h, long long generations,
                        const Start& start) {
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
}

int run_show(const Show& s, const std::string& program, int w, int h, long long generations, const Start& start) {
    std::printf("start: %s\n", start.description.c_str());
    try {
        RunPictures pictures(s.gif_path, s.frames_dir, w, h, s.scale, s.fps);
        show_frames(s, pictures, w, h, generations, start);
        return 0;
    } catch (const std::runtime_error& e) {  // a picture could not be written
        std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
        return kExitBadInput;
    }
}
