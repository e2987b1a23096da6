// patterns.cpp (support): RLE and .cells readers, the shipped patterns, and placing a pattern on
// a lattice. See patterns.h for the two formats.
#include "patterns.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "game_of_life.h"
#include "options.h"  // Options::printable: bytes safe to echo

namespace fs = std::filesystem;

// ---- The bytes of a pattern ------------------------------------------------------------------
// A file's bytes come from a thread that reads chunks into a short queue; get() waits for the
// next chunk at most stall_seconds. The thread owns the descriptor; when the reader is given up
// (a stall, or the first bad line), it is told to stop and left to finish on its own.
struct PatternText::Feed {
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::string> chunks;
    bool eof = false, stop = false;
    int error = 0;
};

namespace {

constexpr size_t kChunkBytes = 1 << 16, kQueuedChunks = 4;

void read_chunks(std::shared_ptr<PatternText::Feed> f, int fd) {
    // Non-blocking, so that a file with nothing to read yet (a device posing as one) is polled
    // and the thread can stop; a regular file's reads are unaffected.
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    std::string buf;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(f->m);
            f->cv.wait(lock, [&] { return f->stop || f->chunks.size() < kQueuedChunks; });
            if (f->stop) break;
        }
        buf.resize(kChunkBytes);
        const ssize_t got = read(fd, &buf[0], buf.size());
        if (got > 0) {
            buf.resize((size_t)got);
            std::lock_guard<std::mutex> lock(f->m);
            f->chunks.push_back(std::move(buf));
            f->cv.notify_all();
            buf = std::string();
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && errno == EAGAIN) {
            pollfd pfd{fd, POLLIN, 0};
            poll(&pfd, 1, 100);
            continue;
        }
        std::lock_guard<std::mutex> lock(f->m);
        f->error = got < 0 ? errno : 0;
        f->eof = true;
        f->cv.notify_all();
        break;
    }
    close(fd);
}

}  // namespace

PatternText::PatternText(std::string text, std::string source) : buf_(std::move(text)), source_(std::move(source)) {}

PatternText::PatternText(int fd, std::string source, double stall_seconds)
    : feed_(std::make_shared<Feed>()), source_(std::move(source)), stall_seconds_(stall_seconds) {
    std::thread(read_chunks, feed_, fd).detach();
}

PatternText::~PatternText() {
    if (!feed_) return;
    std::lock_guard<std::mutex> lock(feed_->m);
    feed_->stop = true;
    feed_->cv.notify_all();
}

int PatternText::refill() {
    if (!feed_) return -1;
    std::unique_lock<std::mutex> lock(feed_->m);
    const auto ready = [&] { return !feed_->chunks.empty() || feed_->eof; };
    if (!feed_->cv.wait_for(lock, std::chrono::duration<double>(stall_seconds_), ready)) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", stall_seconds_);
        throw PatternError("'" + source_ + "': nothing could be read from it for " + secs +
                           " s (a device posing as a file, or a stalled network folder?)");
    }
    if (feed_->chunks.empty()) {
        if (feed_->error) throw PatternError("'" + source_ + "': cannot be read (" + std::strerror(feed_->error) + ")");
        return -1;
    }
    buf_ = std::move(feed_->chunks.front());
    feed_->chunks.pop_front();
    feed_->cv.notify_all();
    pos_ = 1;
    return (unsigned char)buf_[0];
}

int PatternText::read_line(std::string& line, size_t cap) {
    line.clear();
    for (bool any = false;; any = true) {
        if (pos_ == buf_.size()) {
            if (refill() < 0) return any ? 1 : 0;
            pos_ = 0;  // refill() handed out the chunk's first byte: take it back
        }
        const char* start = buf_.data() + pos_;
        const size_t n = buf_.size() - pos_;
        const char* newline = static_cast<const char*>(std::memchr(start, '\n', n));
        const size_t take = newline ? (size_t)(newline - start) : n;
        if (line.size() + take > cap) {
            pos_ += cap - line.size();
            line.append(start, cap - line.size());
            return 2;
        }
        line.append(start, take);
        pos_ += take;
        if (newline) {
            ++pos_;
            return 1;
        }
    }
}

void PatternText::skip_line() {
    for (;;) {
        if (pos_ == buf_.size()) {
            if (refill() < 0) return;
            pos_ = 0;
        }
        const char* start = buf_.data() + pos_;
        const char* newline = static_cast<const char*>(std::memchr(start, '\n', buf_.size() - pos_));
        if (newline) {
            pos_ += (size_t)(newline - start) + 1;
            return;
        }
        pos_ = buf_.size();
    }
}

namespace {

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& problem) {
    throw PatternError(source + ":" + std::to_string(line) + ": " + problem);
}

// Text from a file or the command line, safe to echo in one line (a file's path is shown whole).
std::string shown(const std::string& s) { return Options::printable(s); }
std::string shown_path(const fs::path& p) { return Options::printable(p.string(), Options::kPathChars); }
// A character for a message, quoted: itself when printable, else \xNN.
std::string shown(char c) { return "'" + shown(std::string(1, c)) + "'"; }

// One line of a pattern (PatternText::read_line).
enum class LineRead { end, line, truncated };
LineRead read_line(PatternText& in, std::string& line, size_t cap) { return LineRead(in.read_line(line, cap)); }
void skip_rest_of_line(PatternText& in) { in.skip_line(); }
// A UTF-8 byte-order mark, as some editors write, before the first line.
void drop_byte_order_mark(std::string& first_line) {
    if (first_line.rfind("\xEF\xBB\xBF", 0) == 0) first_line.erase(0, 3);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }  // \r: files written on Windows

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

std::string lower(std::string s) {
    for (char& c : s) c = (char)std::tolower((unsigned char)c);
    return s;
}

std::string stem_of(const std::string& source) { return fs::path(source).stem().string(); }

// A side length from an RLE header: digits only (leading zeros allowed), 1 .. kMaxSide.
int parse_side(const std::string& source, size_t line, const std::string& key, const std::string& value) {
    if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(source, line, key + " = '" + shown(value) + "' is not a whole number");
    const size_t first = value.find_first_not_of('0');
    const std::string digits = first == std::string::npos ? "0" : value.substr(first);
    if (digits.size() > 7 || std::stol(digits) > kMaxSide)
        fail(source, line, key + " = " + shown(value) + " is larger than " + std::to_string(kMaxSide));
    const int v = std::stoi(digits);
    if (v < 1) fail(source, line, key + " must be at least 1 (got " + value + ")");
    return v;
}

// Checked before a pattern's cells are stored, and again when it is placed.
void check_fits(const Pattern& p, int width, int height) {
    if (p.width > width || p.height > height)
        fail(p.source, p.line, "the pattern is " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                                   " cells, larger than the " + std::to_string(width) + "x" + std::to_string(height) +
                                   " lattice (use a larger --size)");
}

// The longest header or comment line kept (a longer comment is passed over unread).
constexpr size_t kMaxHeaderChars = 4096;

}  // namespace

Pattern parse_rle(PatternText& in, int max_width, int max_height) {
    Pattern p;
    p.source = in.source();
    p.name = stem_of(p.source);
    const std::string& source = p.source;

    // Comment lines (#N is the name, #C, #O and others are ignored) and blank lines, then the header.
    std::string line, header;
    size_t ln = 0;
    for (LineRead r; header.empty() && (r = read_line(in, line, kMaxHeaderChars)) != LineRead::end;) {
        if (++ln == 1) drop_byte_order_mark(line);
        const std::string t = trim(line);
        if (!t.empty() && t[0] == '#') {
            if (t.size() > 1 && t[1] == 'N' && !trim(t.substr(2)).empty()) p.name = shown(trim(t.substr(2)));
            if (r == LineRead::truncated) skip_rest_of_line(in);
            continue;
        }
        if (r == LineRead::truncated)
            fail(source, ln, "a line longer than " + std::to_string(kMaxHeaderChars) + " characters where the header " +
                                 "should be ('x = 3, y = 3, rule = B3/S23')");
        header = t;
    }
    if (header.empty())
        fail(source, std::max<size_t>(ln, 1), "no RLE header line such as 'x = 3, y = 3, rule = B3/S23'");
    const size_t header_line = ln;
    bool have_x = false, have_y = false;
    std::string field;
    std::istringstream fields(header);
    while (std::getline(fields, field, ',')) {
        const size_t eq = field.find('=');
        if (eq == std::string::npos)
            fail(source, header_line, "header field '" + shown(trim(field)) + "' is not 'name = value' (expected 'x = 3, y = 3, rule = B3/S23')");
        const std::string key = lower(trim(field.substr(0, eq))), value = trim(field.substr(eq + 1));
        if (key == "x" || key == "y") {
            bool& have = key == "x" ? have_x : have_y;
            if (have) fail(source, header_line, key + " is given twice");
            have = true;
            (key == "x" ? p.width : p.height) = parse_side(source, header_line, key, value);
        } else if (key == "rule") {
            std::string rule;
            for (char c : value)
                if (!is_space(c)) rule += (char)std::toupper((unsigned char)c);
            if (rule != "B3/S23" && rule != "S23/B3" && rule != "23/3")
                fail(source, header_line, "rule '" + shown(value) + "' is not supported: this program runs Conway's Life, B3/S23");
        } else {
            fail(source, header_line, "unknown header field '" + shown(trim(field.substr(0, eq))) + "' (expected x, y and rule)");
        }
    }
    if (!have_x || !have_y)
        fail(source, header_line, "the header needs both x and y, e.g. 'x = 3, y = 3, rule = B3/S23' (got '" + shown(header) + "')");
    p.line = (int)header_line;
    check_fits(p, max_width, max_height);
    p.cells.assign((size_t)p.width * p.height, 0);

    // The runs, byte by byte: <count><tag>, white space and line breaks between runs, not inside one.
    long long count = -1;  // -1: no count pending
    long long x = 0, y = 0;
    size_t at = header_line + 1, last = header_line;  // the line being read; the last that had a byte
    const auto dangling = [&](const char* where) {
        fail(source, last, "run count " + std::to_string(count) + where + " is not followed by b, o, $ or !");
    };
    for (int b = in.get(); b >= 0; b = in.get()) {
        const char c = (char)b;
        if (c == '\n') {
            if (count >= 0) dangling(" at the end of the line");
            ++at;
            continue;
        }
        last = at;
        if (c >= '0' && c <= '9') {
            count = (count < 0 ? 0 : count) * 10 + (c - '0');
            if (count > (long long)kMaxSide * kMaxSide)
                fail(source, at, "run count too large (more than " + std::to_string((long long)kMaxSide * kMaxSide) + ")");
            continue;
        }
        if (is_space(c)) {
            if (count >= 0) dangling("");
            continue;
        }
        if (count == 0) fail(source, at, std::string("run count 0 before ") + shown(c) + " (a count is at least 1)");
        const long long n = count < 0 ? 1 : count;
        count = -1;
        if (c == 'b' || c == 'o') {
            if (y >= p.height) fail(source, at, "more rows than the header's y = " + std::to_string(p.height));
            if (x + n > p.width)
                fail(source, at, "row " + std::to_string(y + 1) + " has " + std::to_string(x + n) +
                                     " cells, more than the header's x = " + std::to_string(p.width));
            if (c == 'o')
                for (long long k = 0; k < n; ++k) p.cells[(size_t)y * p.width + (size_t)(x + k)] = 1;
            x += n;
        } else if (c == '$') {
            y += n;
            x = 0;
        } else if (c == '!') {
            return p;  // anything after '!' is free text, and is not read
        } else {
            fail(source, at, "unknown tag " + shown(c) + " (RLE uses b for dead, o for alive, $ for a new row and ! at the end)");
        }
    }
    if (count >= 0) dangling(" at the end of the line");
    fail(source, last, "the pattern does not end with '!' (is the file cut short?)");
}

Pattern parse_cells(PatternText& in, int max_width, int max_height) {
    Pattern p;
    p.source = in.source();
    p.name = stem_of(p.source);
    const std::string& source = p.source;
    const std::string lattice = "the " + std::to_string(max_width) + "x" + std::to_string(max_height) + " lattice";
    // A row is at most max_width cells, then white space: a longer line is refused unread.
    const size_t cap = (size_t)max_width + 64;
    std::vector<std::string> rows;
    size_t blank_rows = 0;  // blank lines since the last row with cells (kept only if one follows)
    std::string line;
    size_t ln = 0;
    for (LineRead r; (r = read_line(in, line, cap)) != LineRead::end;) {
        if (++ln == 1) drop_byte_order_mark(line);
        if (!line.empty() && line[0] == '!') {  // a comment; "!Name: ..." names the pattern
            if (line.rfind("!Name:", 0) == 0 && !trim(line.substr(6)).empty()) p.name = shown(trim(line.substr(6)));
            if (r == LineRead::truncated) skip_rest_of_line(in);
            continue;
        }
        size_t end = line.size();
        while (end > 0 && is_space(line[end - 1])) --end;
        for (size_t i = 0; i < end; ++i)
            if (line[i] != '.' && line[i] != 'O' && line[i] != 'o' && line[i] != '*')
                fail(source, ln, "unexpected character " + shown(line[i]) + ": a .cells row uses '.' for dead and 'O' for alive");
        if (end > (size_t)max_width)
            fail(source, ln, "a row of more than " + std::to_string(max_width) + " cells: the pattern is wider than " +
                                 lattice + " (use a larger --size)");
        if (r == LineRead::truncated)
            fail(source, ln, "a line longer than " + std::to_string(cap) + " characters (a row of " + lattice +
                                 " and its trailing spaces)");
        if (end == 0) {
            if (!rows.empty()) ++blank_rows;  // blank lines before the first row are not rows
            continue;
        }
        if (rows.size() + blank_rows + 1 > (size_t)max_height)
            fail(source, ln, "more than " + std::to_string(max_height) + " rows: the pattern is taller than " + lattice +
                                 " (use a larger --size)");
        if (rows.empty()) p.line = (int)ln;
        rows.resize(rows.size() + blank_rows);
        blank_rows = 0;
        rows.push_back(line.substr(0, end));
    }
    if (rows.empty()) fail(source, std::max<size_t>(ln, 1), "no cells: the file has only comments and blank lines");
    p.height = (int)rows.size();
    for (const auto& r : rows) p.width = std::max(p.width, (int)r.size());
    check_fits(p, max_width, max_height);
    p.cells.assign((size_t)p.width * p.height, 0);
    for (int y = 0; y < p.height; ++y)
        for (size_t x = 0; x < rows[y].size(); ++x) p.cells[(size_t)y * p.width + x] = rows[y][x] != '.';
    return p;
}

Pattern parse_rle(const std::string& text, const std::string& source, int max_width, int max_height) {
    PatternText in(text, source);
    return parse_rle(in, max_width, max_height);
}
Pattern parse_cells(const std::string& text, const std::string& source, int max_width, int max_height) {
    PatternText in(text, source);
    return parse_cells(in, max_width, max_height);
}

std::string patterns_dir() {
    auto good = [](const fs::path& d) {
        std::error_code ec;
        return fs::is_regular_file(d / "glider.rle", ec);
    };
    std::error_code ec;
    // 1. Next to this source file (__FILE__ is the path the compiler was given: absolute, or
    //    relative to the folder make runs in, the repository root).
    const fs::path source_dir = fs::path(__FILE__).parent_path();
    if (good(source_dir / "patterns")) return fs::absolute(source_dir / "patterns", ec).string();
    // 2. From the program's location, build/03_game_of_life/<variant>/<program>: up the tree
    //    until a folder holds 03_game_of_life/patterns (wherever the program is started from).
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        for (fs::path d = exe.parent_path(); !d.empty(); d = d.parent_path()) {
            if (good(d / source_dir.filename() / "patterns")) return (d / source_dir.filename() / "patterns").string();
            if (d == d.root_path()) break;
        }
    // 3. The current folder.
    if (good("patterns")) return fs::absolute("patterns", ec).string();
    return "";
}

std::vector<std::string> shipped_pattern_names() {
    std::vector<std::string> names;
    const std::string dir = patterns_dir();
    if (dir.empty()) return names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".rle" || ext == ".cells") names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool names_a_file(const std::string& path_or_name) {
    const std::string ext = lower(fs::path(path_or_name).extension().string());
    return path_or_name.find('/') != std::string::npos || ext == ".rle" || ext == ".cells";
}

Pattern load_pattern(const std::string& path_or_name, int max_width, int max_height) {
    std::error_code ec;
    fs::path path = path_or_name;
    const std::string quoted = "'" + shown_path(path_or_name) + "'";
    if (!names_a_file(path_or_name)) {  // a shipped pattern's name
        const std::string dir = patterns_dir();
        path.clear();
        for (const char* ext : {".rle", ".cells"})
            if (!dir.empty() && fs::is_regular_file(fs::path(dir) / (path_or_name + ext), ec)) path = fs::path(dir) / (path_or_name + ext);
        if (path.empty()) {
            std::string list;
            for (const auto& n : shipped_pattern_names()) list += (list.empty() ? "" : ", ") + n;
            throw PatternError(quoted + ": no shipped pattern of that name (shipped: " + (list.empty() ? "none found" : list) +
                               "); a file's name ends in .rle or .cells");
        }
    }
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
        const int e = errno;
        struct stat link;
        if (e == ENOENT && lstat(path.c_str(), &link) == 0) throw PatternError(quoted + ": a symbolic link to a file that does not exist");
        if (e == ENOENT) throw PatternError(quoted + ": no such file");
        if (e == EACCES) throw PatternError(quoted + ": cannot be reached: a folder on the way does not let you in");
        if (e == ELOOP) throw PatternError(quoted + ": cannot be reached: a loop of symbolic links");
        if (e == ENOTDIR) throw PatternError(quoted + ": cannot be reached: a part of the path is a file, not a folder");
        throw PatternError(quoted + ": cannot be reached (" + std::strerror(e) + ")");
    }
    if (S_ISDIR(st.st_mode)) throw PatternError(quoted + ": a folder, not a pattern file");
    if (!S_ISREG(st.st_mode)) throw PatternError(quoted + ": not a regular file (a device, a pipe or a socket)");
    const std::string ext = lower(path.extension().string());
    if (ext != ".rle" && ext != ".cells")
        throw PatternError(quoted + ": unknown pattern format '" + shown(path.extension().string()) + "' (use a .rle or .cells file)");
    // A .cells file of the largest pattern that fits has a byte per cell and a line break per row.
    const double bytes = (double)st.st_size;
    if (bytes > ((double)max_width + 2) * max_height + (1 << 20))
        throw PatternError(quoted + ": " + std::to_string((long long)(bytes / 1e6)) + " MB, more than a pattern for a " +
                           std::to_string(max_width) + "x" + std::to_string(max_height) + " lattice can need");
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // O_NONBLOCK: an open that would wait
    if (fd < 0) {
        const int e = errno;
        throw PatternError(quoted + ": cannot be read (" + (e == EACCES ? std::string("permission denied") : std::strerror(e)) + ")");
    }
    PatternText in(fd, shown_path(path));
    return ext == ".rle" ? parse_rle(in, max_width, max_height) : parse_cells(in, max_width, max_height);
}

std::vector<uint8_t> place_pattern(const Pattern& p, int width, int height, int x, int y) {
    check_fits(p, width, height);
    if (x < 0) x = (width - p.width) / 2;
    if (y < 0) y = (height - p.height) / 2;
    x %= width, y %= height;
    std::vector<uint8_t> cells((size_t)width * height, 0);
    // Each row of the pattern lands in one row of the lattice, in at most two pieces (it may wrap).
    const int first = std::min(p.width, width - x);  // cells before the right edge
    for (int py = 0; py < p.height; ++py) {
        const uint8_t* from = p.cells.data() + (size_t)py * p.width;
        uint8_t* row = cells.data() + (size_t)((y + py) % height) * width;
        std::copy(from, from + first, row + x);
        std::copy(from + first, from + p.width, row);
    }
    return cells;
}

Start pattern_start(const std::string& path_or_name, int width, int height, int x, int y) {
    const Pattern p = load_pattern(path_or_name, width, height);
    if (x < 0) x = (width - p.width) / 2;
    if (y < 0) y = (height - p.height) / 2;
    char text[80];
    std::snprintf(text, sizeof text, ", %dx%d) at (%d, %d)", p.width, p.height, x, y);
    return {place_pattern(p, width, height, x, y), "pattern " + p.name + " (" + p.source + text,
            (x + p.width / 2) % width, (y + p.height / 2) % height};
}

std::string read_pair(const std::string& text, char sep, const std::string& form, int lo, int hi, int& a, int& b) {
    const size_t at = text.find(sep);
    const std::string parts[2] = {text.substr(0, at), at == std::string::npos ? "" : text.substr(at + 1)};
    unsigned long long v[2];
    for (int i = 0; i < 2; ++i) {
        if (at == std::string::npos || parts[i].empty() || parts[i].find_first_not_of("0123456789") != std::string::npos)
            return text.find('-') != std::string::npos ? "'" + shown(text) + "' has a negative number"
                                                       : "expected " + form + " in whole numbers (got '" + shown(text) + "')";
        const size_t digits = parts[i].find_first_not_of('0');
        const std::string d = digits == std::string::npos ? "0" : parts[i].substr(digits);
        v[i] = d.size() > 18 ? ~0ull : std::stoull(d);  // more than 18 digits: larger than any side
    }
    for (int i = 0; i < 2; ++i) {
        if (v[i] < (unsigned long long)lo)
            return "each number must be at least " + std::to_string(lo) + " (got " + text + ")";
        if (v[i] > (unsigned long long)hi)
            return "'" + shown(parts[i]) + "' is too large: each number must be at most " + std::to_string(hi) + " (got " + shown(text) + ")";
    }
    a = (int)v[0], b = (int)v[1];
    return "";
}
