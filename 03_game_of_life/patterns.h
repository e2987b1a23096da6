// patterns.h: reading Life patterns (patterns.cpp, support for main.cpp and tests.cpp).
//
// The two formats Life users share:
//   RLE      #N Glider                    comment lines start with #  (#N: the name)
//            x = 3, y = 3, rule = B3/S23  the header: width, height, and (optionally) the rule
//            bo$2bo$3o!                   runs: <count><tag>, count 1 if left out; b dead,
//                                         o alive, $ end of row, ! end of pattern. Dead cells at
//                                         the end of a row may be left out.
//   .cells   !Name: Glider                comment lines start with !
//            .O.                          one text line per row: . dead, O alive
//            ..O
//            OOO
// A UTF-8 byte-order mark at the start of a file is skipped. Every problem is a PatternError
// whose message is "file:line: what is wrong", one line, with control and non-ASCII bytes shown
// as \xNN. A file is read and checked as it streams in, line by line, and the first bad line
// stops it: nothing is kept but the rows, a pattern is checked against the lattice it is for
// (max_width x max_height) as soon as its size is known, and no line is held beyond what a row
// of that lattice can need. So a short file cannot ask for gigabytes, a large junk file is
// refused at its first line, and a file whose reads never return (a device posing as a file, a
// stalled network folder) is given up after kPatternStallSeconds without a byte.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "game_of_life.h"  // kMaxSide

struct PatternError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Pattern {
    std::string name;             // from #N or !Name:, else the file's name
    std::string source;           // where it came from, for messages
    int line = 0;                 // the line that sets its size (RLE header, first .cells row)
    int width = 0, height = 0;
    std::vector<uint8_t> cells;   // width * height, row-major, 0 or 1
    bool alive(int x, int y) const { return cells[(size_t)y * width + x] != 0; }
};

// The bytes of a pattern, one at a time: a string (the tests), or an open file read by a helper
// thread, so that a read that blocks forever cannot hang the program: get() gives up with a
// PatternError when no byte has come for `stall_seconds`.
constexpr double kPatternStallSeconds = 5;
class PatternText {
public:
    PatternText(std::string text, std::string source);
    // Takes the open file descriptor `fd` (closed when done); `source` names it in messages.
    PatternText(int fd, std::string source, double stall_seconds = kPatternStallSeconds);
    ~PatternText();
    PatternText(const PatternText&) = delete;
    PatternText& operator=(const PatternText&) = delete;
    int get() { return pos_ < buf_.size() ? (unsigned char)buf_[pos_++] : refill(); }  // -1 at the end
    // One line (without its '\n') into `line`, at most `cap` bytes of it. Returns 0 at the end of
    // the text, 1 for a line, 2 for a line longer than `cap` (its rest left unread: skip_line()).
    int read_line(std::string& line, size_t cap);
    void skip_line();
    const std::string& source() const { return source_; }
    struct Feed;  // the queue between the reading thread and get() (patterns.cpp)

private:
    int refill();
    std::shared_ptr<Feed> feed_;  // shared with the reading thread, which may outlive this
    std::string buf_, source_;
    size_t pos_ = 0;
    double stall_seconds_ = 0;
};

// Parse a pattern; `source` names it in error messages.
Pattern parse_rle(PatternText& in, int max_width = kMaxSide, int max_height = kMaxSide);
Pattern parse_cells(PatternText& in, int max_width = kMaxSide, int max_height = kMaxSide);
Pattern parse_rle(const std::string& text, const std::string& source, int max_width = kMaxSide,
                  int max_height = kMaxSide);
Pattern parse_cells(const std::string& text, const std::string& source, int max_width = kMaxSide,
                    int max_height = kMaxSide);

// A file or the name of a shipped pattern. P is a file when it contains a '/' or ends in .rle or
// .cells (any case), and the name of a shipped pattern ("glider") otherwise, so that a folder or
// file called "glider" in the current directory never hides the shipped one.
bool names_a_file(const std::string& path_or_name);
Pattern load_pattern(const std::string& path_or_name, int max_width = kMaxSide, int max_height = kMaxSide);

// The folder of shipped patterns (03_game_of_life/patterns), found from this source file's own
// path or from the program's location; "" when neither leads to it.
std::string patterns_dir();
// The names of the shipped patterns, sorted ("acorn", "beacon", ...).
std::vector<std::string> shipped_pattern_names();

// A width x height lattice with the pattern's top-left cell at (x, y), wrapping around the
// torus; centred when x and y are negative. A pattern larger than the lattice is a
// PatternError ("file:line: ...").
std::vector<uint8_t> place_pattern(const Pattern& p, int width, int height, int x = -1, int y = -1);

// The start of a run: a lattice, what it is ("pattern Glider (glider.rle, 3x3) at (78, 58)" or
// "random, ..."), and the cell a view of it is centred on.
struct Start {
    std::vector<uint8_t> cells;
    std::string description;
    int centre_x = 0, centre_y = 0;
};
// A file or shipped pattern (load_pattern) placed as place_pattern places it.
Start pattern_start(const std::string& path_or_name, int width, int height, int x = -1, int y = -1);

// ---- The lattice's options: --size WxH and --at X,Y ---------------------------------------------
// Two whole numbers from lo to hi separated by `sep` ("640x480", "10,20"; `form` shows the
// shape in messages) into a and b. Returns "" or the problem, for the caller to blame on its option.
std::string read_pair(const std::string& text, char sep, const std::string& form, int lo, int hi, int& a, int& b);
