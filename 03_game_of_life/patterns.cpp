// patterns.cpp (support): RLE and .cells readers, the shipped patterns, and placing a pattern on
// a lattice. See patterns.h for the two formats.
#include "patterns.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "game_of_life.h"
#include "options.h"  // Options::printable: bytes safe to echo

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& problem) {
    throw PatternError(source + ":" + std::to_string(line) + ": " + problem);
}

// Text from a file or the command line, safe to echo in one line (a file's path is shown whole).
std::string shown(const std::string& s) { return Options::printable(s); }
std::string shown_path(const fs::path& p) { return Options::printable(p.string(), SIZE_MAX); }
// A character for a message, quoted: itself when printable, else \xNN.
std::string shown(char c) { return "'" + shown(std::string(1, c)) + "'"; }

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    const bool bom = text.rfind("\xEF\xBB\xBF", 0) == 0;  // a UTF-8 byte-order mark, as some editors write
    std::istringstream in(bom ? text.substr(3) : text);
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();  // files written on Windows
        lines.push_back(line);
    }
    return lines;
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

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

// A side length from an RLE header: digits only, 1 .. kMaxSide.
int parse_side(const std::string& source, size_t line, const std::string& key, const std::string& value) {
    if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(source, line, key + " = '" + shown(value) + "' is not a whole number");
    if (value.size() > 7 || std::stol(value) > kMaxSide)
        fail(source, line, key + " = " + value + " is larger than " + std::to_string(kMaxSide));
    const int v = std::stoi(value);
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

}  // namespace

Pattern parse_rle(const std::string& text, const std::string& source, int max_width, int max_height) {
    const std::vector<std::string> lines = split_lines(text);
    Pattern p;
    p.source = source;
    p.name = stem_of(source);

    // Comment lines (#N is the name, #C, #O and others are ignored) and blank lines, then the header.
    size_t i = 0;
    for (; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (t.empty()) continue;
        if (t[0] != '#') break;
        if (t.size() > 1 && t[1] == 'N' && !trim(t.substr(2)).empty()) p.name = trim(t.substr(2));
    }
    if (i == lines.size())
        fail(source, std::max<size_t>(lines.size(), 1), "no RLE header line such as 'x = 3, y = 3, rule = B3/S23'");
    const size_t header_line = i + 1;
    bool have_x = false, have_y = false;
    std::string field;
    std::istringstream fields(trim(lines[i]));
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
        fail(source, header_line, "the header needs both x and y, e.g. 'x = 3, y = 3, rule = B3/S23' (got '" + shown(trim(lines[i])) + "')");
    p.line = (int)header_line;
    check_fits(p, max_width, max_height);
    p.cells.assign((size_t)p.width * p.height, 0);

    // The runs: <count><tag>, whitespace and line breaks allowed between runs, not inside one.
    long long count = -1;  // -1: no count pending
    long long x = 0, y = 0;
    bool done = false;
    size_t ln = header_line;
    for (++i; i < lines.size() && !done; ++i) {
        ln = i + 1;
        for (char c : lines[i]) {
            if (c >= '0' && c <= '9') {
                count = (count < 0 ? 0 : count) * 10 + (c - '0');
                if (count > (long long)kMaxSide * kMaxSide)
                    fail(source, ln, "run count too large (more than " + std::to_string((long long)kMaxSide * kMaxSide) + ")");
                continue;
            }
            if (is_space(c)) {
                if (count >= 0) fail(source, ln, "run count " + std::to_string(count) + " is not followed by b, o, $ or !");
                continue;
            }
            if (count == 0) fail(source, ln, std::string("run count 0 before ") + shown(c) + " (a count is at least 1)");
            const long long n = count < 0 ? 1 : count;
            count = -1;
            if (c == 'b' || c == 'o') {
                if (y >= p.height) fail(source, ln, "more rows than the header's y = " + std::to_string(p.height));
                if (x + n > p.width)
                    fail(source, ln, "row " + std::to_string(y + 1) + " has " + std::to_string(x + n) +
                                         " cells, more than the header's x = " + std::to_string(p.width));
                if (c == 'o')
                    for (long long k = 0; k < n; ++k) p.cells[(size_t)y * p.width + (size_t)(x + k)] = 1;
                x += n;
            } else if (c == '$') {
                y += n;
                x = 0;
            } else if (c == '!') {
                done = true;  // anything after '!' is free text
                break;
            } else {
                fail(source, ln, "unknown tag " + shown(c) + " (RLE uses b for dead, o for alive, $ for a new row and ! at the end)");
            }
        }
        if (!done && count >= 0) fail(source, ln, "run count " + std::to_string(count) + " at the end of the line is not followed by b, o, $ or !");
    }
    if (!done) fail(source, ln, "the pattern does not end with '!' (is the file cut short?)");
    return p;
}

Pattern parse_cells(const std::string& text, const std::string& source, int max_width, int max_height) {
    const std::vector<std::string> lines = split_lines(text);
    Pattern p;
    p.source = source;
    p.name = stem_of(source);
    std::vector<std::string> rows;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& s = lines[i];
        if (!s.empty() && s[0] == '!') {  // a comment; "!Name: ..." names the pattern
            if (s.rfind("!Name:", 0) == 0 && !trim(s.substr(6)).empty()) p.name = trim(s.substr(6));
            continue;
        }
        std::string row = s;
        while (!row.empty() && is_space(row.back())) row.pop_back();
        if (rows.empty() && row.empty()) continue;  // blank lines before the first row
        for (char c : row)
            if (c != '.' && c != 'O' && c != 'o' && c != '*')
                fail(source, i + 1, "unexpected character " + shown(c) + ": a .cells row uses '.' for dead and 'O' for alive");
        if (rows.empty()) p.line = (int)(i + 1);
        if ((int)row.size() > kMaxSide) fail(source, i + 1, "a row longer than " + std::to_string(kMaxSide) + " cells");
        rows.push_back(row);
    }
    while (!rows.empty() && rows.back().empty()) rows.pop_back();
    if (rows.empty()) fail(source, std::max<size_t>(lines.size(), 1), "no cells: the file has only comments and blank lines");
    if ((int)rows.size() > kMaxSide) fail(source, lines.size(), "more than " + std::to_string(kMaxSide) + " rows");
    p.height = (int)rows.size();
    for (const auto& r : rows) p.width = std::max(p.width, (int)r.size());
    check_fits(p, max_width, max_height);
    p.cells.assign((size_t)p.width * p.height, 0);
    for (int y = 0; y < p.height; ++y)
        for (size_t x = 0; x < rows[y].size(); ++x) p.cells[(size_t)y * p.width + x] = rows[y][x] != '.';
    return p;
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
    if (!fs::exists(path, ec)) throw PatternError(quoted + ": no such file");
    if (fs::is_directory(path, ec)) throw PatternError(quoted + ": a folder, not a pattern file");
    if (!fs::is_regular_file(path, ec)) throw PatternError(quoted + ": not a regular file");
    const std::string ext = lower(path.extension().string());
    if (ext != ".rle" && ext != ".cells")
        throw PatternError(quoted + ": unknown pattern format '" + shown(path.extension().string()) + "' (use a .rle or .cells file)");
    // A .cells file of the largest pattern that fits has a byte per cell and a line break per row.
    const uintmax_t bytes = fs::file_size(path, ec);
    if (!ec && (double)bytes > ((double)max_width + 2) * max_height + (1 << 20))
        throw PatternError(quoted + ": " + std::to_string(bytes / 1000000) + " MB, more than a pattern for a " +
                           std::to_string(max_width) + "x" + std::to_string(max_height) + " lattice can need");
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) throw PatternError(quoted + ": cannot be opened");
    std::ostringstream text;
    if (in.peek() != std::ifstream::traits_type::eof()) text << in.rdbuf();
    const std::string source = shown_path(path);
    return ext == ".rle" ? parse_rle(text.str(), source, max_width, max_height)
                         : parse_cells(text.str(), source, max_width, max_height);
}

std::vector<uint8_t> place_pattern(const Pattern& p, int width, int height, int x, int y) {
    check_fits(p, width, height);
    if (x < 0) x = (width - p.width) / 2;
    if (y < 0) y = (height - p.height) / 2;
    std::vector<uint8_t> cells((size_t)width * height, 0);
    for (int py = 0; py < p.height; ++py)
        for (int px = 0; px < p.width; ++px)
            if (p.alive(px, py)) {
                const int cx = (int)(((long long)x + px) % width), cy = (int)(((long long)y + py) % height);
                cells[(size_t)cy * width + cx] = 1;
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
