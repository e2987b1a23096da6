// hints.h: every exercise's hints (NN_x/hints.md), served one level at a time, and the records
// of your progress, for the course tool (course.cpp: make hint-NN, make status, make check).
//
// hints.md, one section per step the tests declare, in order (nothing else is a heading):
//   # Hints: NN_x
//   (a line or two saying what the file is)
//   ## step 1 name     exactly the step's label in the tests' record ("step 1 name")
//   ### level 1        a question that points at the idea: no code at all
//   ...                (no `code` span, no fenced block)
//   ### level 2        the idea in words; ### level 3 near-code; at least two levels per step
//                      (make hint-NN serves any such file; make check's lint asks for more, below)
//
// make check lints every hints.md (lint below): its sections are the steps its tests declare, and
// in every step
//   level 1  asks a question (holds a "?") and holds no code;
//   level 2  holds no code statement: no fenced block, and no `code` span with a ";", a "{" or an
//            assignment (an "=" that is not part of ==, <=, >= or !=): `i < n` may stand there,
//            `i += stride` may not;
//   level 3  exists, and leaves the step's key line or expression to the student as a hole: a C
//            comment /* ... */ inside code (a fenced block or a `code` span) where that line goes,
//            saying what belongs there without writing it, e.g. `if (/* tid is a multiple of 2s */)`.
// Later levels are free. What a lint cannot see stays the author's: that level 1 gives no answer,
// that level 2 holds no arithmetic that is a prediction's answer, that no level 3 states one.
//
// What you have done lives in .progress/ at the top (make clean keeps it, git ignores it; delete
// it to start over; COURSE_PROGRESS_DIR names another folder):
//   NN_x.steps   the record of every `make test-NN` with your starter, one a line (records.h):
//                a step's latest "ok" or "failed" counts, any other state changes nothing
//   NN_x.hints   one line per hint shown: "step K name<TAB>level"
// A record file is read in one pass over its last 8 MB only (about 40,000 runs), each line cut at
// 4096 bytes (a record is a few hundred): a file of any size, 100,000 records or a junk line of
// 200 MB, takes milliseconds and a few MB. A line that does not read whole (a record cut short,
// junk) is ignored. What is not a regular file (a FIFO, a device) is not read, and a hint is never
// recorded through a link or into a file of two names.
#pragma once

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "options.h"      // Options::printable
#include "output_file.h"  // append_line
#include "records.h"

namespace hints {

// ---- hints.md -----------------------------------------------------------------------------------
struct Level {
    size_t first = 0, last = 0;  // its text: lines first..last (1-based)
};
struct Hints {
    std::string folder;
    std::vector<std::string> labels;          // "step 1 one_block", in order
    std::vector<std::vector<Level>> levels;   // per step
    std::vector<std::string> lines;           // the file, line ends removed
    std::string problem;                      // "" or one line: what is wrong with the file
};

inline std::vector<std::string> read_lines(const std::string& path, bool* ok = nullptr) {
    std::ifstream in(path, std::ios::binary);
    if (ok) *ok = (bool)in;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

inline bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }
inline std::string trim_right(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    return s;
}
// The digits at `pos` (at least one), and where they end; npos when there are none.
inline size_t digits_end(const std::string& s, size_t pos) {
    size_t i = pos;
    while (i < s.size() && std::isdigit((unsigned char)s[i])) ++i;
    return i == pos ? std::string::npos : i;
}
inline bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
// "## step N x..." (a step heading: N, then a name that starts with no blank)
inline bool step_heading(const std::string& s) {
    if (!starts(s, "## step ")) return false;
    const size_t e = digits_end(s, 8);
    return e != std::string::npos && e + 1 < s.size() && s[e] == ' ' && s[e + 1] != ' ' && s[e + 1] != '\t';
}
// "### level N" with only blanks after
inline bool level_heading(const std::string& s) {
    if (!starts(s, "### level ")) return false;
    const size_t e = digits_end(s, 10);
    return e != std::string::npos && blank(s.substr(e));
}
inline bool fence_line(const std::string& s) {
    const size_t i = s.find_first_not_of(" \t");
    return i != std::string::npos && (s.compare(i, 3, "```") == 0 || s.compare(i, 3, "~~~") == 0);
}
inline bool any_heading(const std::string& s) {  // "#", "##" or "###", then a blank or the end
    size_t n = 0;
    while (n < s.size() && n < 4 && s[n] == '#') ++n;
    return n >= 1 && n <= 3 && (n == s.size() || s[n] == ' ' || s[n] == '\t');
}
inline int number_at(const std::string& s, size_t pos) {  // as awk's $3 + 0
    const size_t e = digits_end(s, pos);
    return e == std::string::npos ? 0 : std::atoi(s.substr(pos, std::min<size_t>(e - pos, 9)).c_str());
}

// The file's sections; on a problem, `problem` names the file, the line and what is wrong.
inline Hints parse(const std::string& folder) {
    Hints h;
    h.folder = folder;
    const std::string file = folder + "/hints.md";
    if (!std::filesystem::is_regular_file(file)) {
        h.problem = folder + " has no hints.md (make hint-NN serves it; its format is described in common/hints.h)";
        return h;
    }
    bool readable = false;
    h.lines = read_lines(file, &readable);
    const auto& L = h.lines;
    size_t step = 0, level = 0, step_line = 0, level_line = 0, fence_at = 0;
    bool fence = false, text = false;
    std::string label;
    auto fail = [&](size_t line, const std::string& msg) {
        if (h.problem.empty()) h.problem = file + ":" + std::to_string(line) + ": " + msg;
    };
    auto end_level = [&](size_t last) {
        if (level == 0) return;
        if (!text) fail(level_line, "### level " + std::to_string(level) + " of " + label + " is empty");
        h.levels[step - 1].push_back({level_line + 1, last});
    };
    auto end_step = [&](size_t last) {
        end_level(last);
        if (step > 0 && level < 2)
            fail(step_line, label + " has " + std::to_string(level) + " hint level" + (level == 1 ? "" : "s") +
                                ": every step needs at least two (### level 1, ### level 2)");
    };
    for (size_t n = 1; n <= L.size() && h.problem.empty(); ++n) {
        const std::string& s = L[n - 1];
        if (n == 1) {
            if (!starts(s, "# Hints: ") || s.size() < 10 || s[9] == ' ')
                fail(1, "the first line must be a title \"# Hints: " + folder + "\"");
            continue;
        }
        if (fence_line(s)) {
            fence = !fence;
            fence_at = n;
            if (level == 1) fail(n, "level 1 of " + label + " holds a code block: level 1 asks a question or points at something, with no code");
        }
        if (!fence && any_heading(s)) {
            if (step_heading(s)) {
                end_step(n - 1);
                const int k = number_at(s, 8);
                if (k != (int)step + 1) {
                    fail(n, "\"" + s + "\": expected step " + std::to_string(step + 1) + " here (steps are numbered 1, 2, ... in order)");
                    continue;
                }
                step = k, level = 0, step_line = n;
                label = trim_right(s.substr(3));
                if (label.find("; ") != std::string::npos || label.find(": ") != std::string::npos) {
                    fail(n, "a step name cannot hold \"; \" or \": \"");
                    continue;
                }
                h.labels.push_back(label);
                h.levels.emplace_back();
                continue;
            }
            if (level_heading(s)) {
                if (step == 0) {
                    fail(n, "\"" + s + "\" before any \"## step N name\" section");
                    continue;
                }
                end_level(n - 1);
                const int k = number_at(s, 10);
                if (k != (int)level + 1) {
                    fail(n, "\"" + s + "\" in " + label + ": expected ### level " + std::to_string(level + 1) + " here");
                    continue;
                }
                level = k, level_line = n, text = false;
                continue;
            }
            fail(n, "\"" + s + "\": the only headings are \"## step N name\" and \"### level N\"");
            continue;
        }
        if (step > 0 && level == 0 && !blank(s)) {
            fail(n, "text before \"### level 1\" of " + label);
            continue;
        }
        if (level > 0 && !blank(s)) text = true;
        if (level == 1 && s.find('`') != std::string::npos)
            fail(n, "level 1 of " + label + " holds code (a `...` span): level 1 asks a question or points at something, with no code");
    }
    if (h.problem.empty()) {
        if (L.empty()) {
            fail(1, "the file is empty");
        } else {
            end_step(L.size());
            if (fence) fail(fence_at, "a code block opened here is never closed");
            if (step == 0) fail(L.size(), "no \"## step N name\" section");
        }
    }
    if (h.problem.empty() && (!readable || h.labels.empty())) h.problem = file + ": could not be read";
    return h;
}

// Level k (from 1) of step i (from 1), without the blank lines around it.
inline std::string level_text(const Hints& h, size_t i, size_t k) {
    const Level& lv = h.levels[i - 1][k - 1];
    std::string out;
    size_t blanks = 0;
    bool started = false;
    for (size_t n = lv.first; n <= lv.last && n <= h.lines.size(); ++n) {
        const std::string& s = h.lines[n - 1];
        if (!blank(s)) {
            for (; blanks > 0; --blanks) out += "\n";
            out += s + "\n";
            started = true;
        } else if (started) {
            ++blanks;
        }
    }
    return out;
}

// ---- make check: the rules of each level (see the top) ---------------------------------------------
// A code statement: a ";", a "{" or an assignment (not ==, <=, >=, !=).
inline bool statement(const std::string& code) {
    if (code.find("<<=") != std::string::npos || code.find(">>=") != std::string::npos) return true;
    std::string c;
    for (size_t i = 0; i < code.size(); ++i) {
        const std::string two = code.substr(i, 2);
        if (two == "==" || two == "<=" || two == ">=" || two == "!=") {
            ++i;
            continue;
        }
        c += code[i];
    }
    return c.find_first_of(";{=") != std::string::npos;
}
inline bool holds_hole(const std::string& code) {  // a /* ... */ comment
    const size_t open = code.find("/*");
    return open != std::string::npos && code.find("*/", open + 2) != std::string::npos;
}

// One line "FILE:LINE: problem" per break of the level rules (none when the file keeps them). The
// file has passed parse(): its headings and fences are well formed.
inline std::vector<std::string> lint_levels(const Hints& h) {
    const std::string file = h.folder + "/hints.md";
    std::vector<std::string> out;
    auto problem = [&](size_t line, const std::string& msg) { out.push_back(file + ":" + std::to_string(line) + ": " + msg); };
    size_t step = 0, level = 0, top = 0, step_line = 0, level_line = 0, span_line = 0;
    bool fence = false, asked = false, hole = false, span_open = false;
    std::string label, fence_code, span_ticks, span_code;
    auto end_level = [&] {
        if (level == 1 && !asked)
            problem(level_line, "level 1 of " + label + " asks no question (no \"?\"): level 1 is a question that points at the idea");
        if (level == 3 && !hole)
            problem(level_line, "level 3 of " + label + " leaves no hole: put a /* ... */ comment inside its code where the step's key line or expression goes");
        span_open = false;
    };
    auto end_step = [&] {
        end_level();
        if (step && top < 3) problem(step_line, label + " has no ### level 3: every step needs near-code that leaves its key line as a /* ... */ hole");
    };
    auto code_seen = [&](const std::string& code, size_t line) {
        if (level == 2 && statement(code))
            problem(line, "level 2 of " + label + " holds a code statement (`" + code + "`): level 2 says the idea in words");
        if (level == 3 && holds_hole(code)) hole = true;
    };
    // The `code` spans of a line; a span may go on over the next lines of its paragraph.
    auto spans = [&](std::string text, size_t line) {
        while (!text.empty()) {
            if (span_open) {
                const size_t k = span_ticks.size();
                size_t p = std::string::npos;
                for (size_t q = text.find(span_ticks); q != std::string::npos; q = text.find(span_ticks, q + 1))
                    if ((q == 0 || text[q - 1] != '`') && (q + k == text.size() || text[q + k] != '`')) {
                        p = q;
                        break;
                    }
                if (p == std::string::npos) {
                    span_code += text + " ";
                    return;
                }
                code_seen(span_code + text.substr(0, p), span_line);
                text = text.substr(p + k);
                span_open = false;
            } else {
                const size_t p = text.find('`');
                if (p == std::string::npos) return;
                size_t e = p;
                while (e < text.size() && text[e] == '`') ++e;
                span_ticks = text.substr(p, e - p), span_open = true, span_code.clear(), span_line = line;
                text = text.substr(e);
            }
        }
    };
    for (size_t n = 1; n <= h.lines.size(); ++n) {
        const std::string& s = h.lines[n - 1];
        if (fence_line(s)) {
            if (!fence) {
                fence = true, fence_code.clear();
                if (level == 2) problem(n, "level 2 of " + label + " holds a code block: level 2 says the idea in words");
            } else {
                fence = false;
                if (level == 3 && holds_hole(fence_code)) hole = true;
            }
            continue;
        }
        if (fence) {
            fence_code += s + "\n";
            continue;
        }
        if (starts(s, "## step ") && digits_end(s, 8) != std::string::npos && digits_end(s, 8) < s.size() &&
            s[digits_end(s, 8)] == ' ') {
            end_step();
            ++step, label = trim_right(s.substr(3)), step_line = n, level = 0, top = 0;
            continue;
        }
        if (level_heading(s)) {
            end_level();
            level = (size_t)number_at(s, 10), top = level, level_line = n, asked = false, hole = false;
            continue;
        }
        if (level == 0) continue;
        if (blank(s)) {  // a blank line ends a paragraph, and any span left open
            span_open = false;
            continue;
        }
        if (level == 1 && s.find('?') != std::string::npos) asked = true;
        spans(s, n);
    }
    end_step();
    return out;
}

// hints.md against the steps the tests declare (labels), and the rules of each level: "" when it
// keeps them, else the problems, one a line.
inline std::string lint(const std::string& folder, const std::vector<std::string>& declared) {
    const Hints h = parse(folder);
    if (!h.problem.empty()) return h.problem;
    std::string levels;
    for (const auto& l : lint_levels(h)) levels += (levels.empty() ? "" : "\n") + l;
    std::string have, want;
    for (const auto& l : h.labels) have += (have.empty() ? "" : ", ") + l;
    for (const auto& l : declared) want += (want.empty() ? "" : ", ") + l;
    if (have != want)
        return folder + "/hints.md: its sections (" + have + ") are not the steps its tests declare (" + want + ")" +
               (levels.empty() ? "" : "\n" + levels);
    return levels;
}

// ---- progress -------------------------------------------------------------------------------------
constexpr size_t kRecordsWindow = 8u << 20, kRecordLine = 4096;

// A record file's lines, bounded as above; none when it is not a regular file or cannot be read.
inline std::vector<std::string> records(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return {};
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff from = size > (std::streamoff)kRecordsWindow ? size - (std::streamoff)kRecordsWindow : 0;
    in.seekg(from);
    std::string window((size_t)(size - from), '\0');
    in.read(&window[0], (std::streamsize)window.size());
    window.resize((size_t)in.gcount());
    std::vector<std::string> lines;
    for (size_t start = 0; start < window.size();) {
        size_t end = window.find('\n', start);
        if (end == std::string::npos) end = window.size();
        lines.push_back(window.substr(start, std::min(end - start, kRecordLine)));
        start = end + 1;
    }
    return lines;
}

struct Progress {
    bool recorded = false;                    // some record of the tests read whole
    std::map<std::string, std::string> state; // label -> ok | failed, the latest counting
    std::set<std::string> seen;               // "label:level" of every hint shown
};
inline Progress progress(const std::string& dir, const std::string& folder) {
    Progress p;
    for (const auto& line : records(dir + "/" + folder + ".steps")) {
        TestRecord r;
        if (!TestRecord::read(line, r)) continue;
        p.recorded = true;
        for (const auto& s : r.steps)
            if (s.state == "ok" || s.state == "failed") p.state[s.label()] = s.state;
    }
    for (const auto& line : records(dir + "/" + folder + ".hints")) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos || line.find('\t', tab + 1) != std::string::npos) continue;
        const std::string label = line.substr(0, tab), level = line.substr(tab + 1);
        const size_t e = starts(label, "step ") ? digits_end(label, 5) : std::string::npos;
        const bool label_ok = e != std::string::npos && e + 1 < label.size() && label[e] == ' ' &&
                              label.find_first_of(";:", e + 1) == std::string::npos;
        const bool level_ok = !level.empty() && level[0] != '0' && digits_end(level, 0) == level.size();
        if (label_ok && level_ok) p.seen.insert(label + ":" + level);
    }
    return p;
}

// "" when a record may be appended to `file`, else why not (the rule of output_file.h, for the
// one file the tool writes): a regular file of one name, not a link, or a new file.
inline std::string why_not_record(const std::string& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(file, ec);
    if (fs::is_symlink(link)) return "it is a symbolic link";
    if (!fs::exists(link)) return "";
    if (!fs::is_regular_file(link)) return "it is not a regular file";
    if (fs::hard_link_count(file, ec) != 1) return "it has more than one name (a hard link)";
    return "";
}

// make status's column: the hints shown of the steps hints.md has, "4 (step 1: 2, step 3: 2)" or "none".
inline std::string used(const std::string& dir, const std::string& folder) {
    const Progress p = progress(dir, folder);
    const Hints h = parse(folder);
    int total = 0;
    std::string out;
    for (size_t i = 0; h.problem.empty() && i < h.labels.size(); ++i) {
        int n = 0;
        for (const auto& key : p.seen) n += key.substr(0, key.rfind(':')) == h.labels[i];
        if (n == 0) continue;
        total += n;
        out += (out.empty() ? "" : ", ") + std::string("step ") + std::to_string(i + 1) + ": " + std::to_string(n);
    }
    return total == 0 ? "none" : std::to_string(total) + " (" + out + ")";
}

// ---- make hint-NN ---------------------------------------------------------------------------------
struct Settings {
    std::string step, level, progress = ".progress";
};
struct Choice {
    std::string folder, number, why, problem;  // problem: one line, nothing else holds then
    Hints hints;
    size_t step = 0, level = 0;                // level 0: the next one not seen
    bool all_passed = false;
};

inline std::string printable(const std::string& s, size_t max = 60) { return Options::printable(s, max); }

// Which exercise, step and level `make hint-NUMBER` means, or the problem with what was asked.
inline Choice resolve(const std::string& number, const std::vector<std::string>& exercises, const Settings& set) {
    Choice c;
    std::string numbers;
    for (const auto& e : exercises) {
        const std::string n = e.substr(0, e.find('_'));
        numbers += (numbers.empty() ? "" : " ") + n;
        if (n == number) c.folder = e;
    }
    if (c.folder.empty()) {
        c.problem = "there is no exercise '" + printable(number) + "' (exercises: " + numbers + ")";
        return c;
    }
    c.number = number;
    c.hints = parse(c.folder);
    if (!c.hints.problem.empty()) {
        c.problem = c.hints.problem;
        return c;
    }
    const size_t n = c.hints.labels.size();
    if (!set.step.empty()) {
        std::string as_number = set.step;  // STEP=03 is step 3
        if (set.step.size() >= 2 && set.step.size() <= 6 && set.step[0] == '0' && digits_end(set.step, 0) == set.step.size())
            as_number = std::to_string(std::stoi(set.step));
        for (size_t i = 1; i <= n; ++i) {
            const std::string prefix = "step " + std::to_string(i) + " ";
            const std::string& label = c.hints.labels[i - 1];
            if (as_number == std::to_string(i) || (starts(label, prefix) && set.step == label.substr(prefix.size()))) c.step = i;
        }
        if (c.step == 0) {
            c.problem = "STEP must be a step of " + c.folder + ": a number from 1 to " + std::to_string(n) + " or a name (got '" +
                        printable(set.step) + "')";
            return c;
        }
    } else {
        const Progress p = progress(set.progress, c.folder);
        for (size_t i = 1; i <= n && c.step == 0; ++i) {
            const auto s = p.state.find(c.hints.labels[i - 1]);
            if (s == p.state.end() || s->second != "ok") c.step = i;
        }
        const std::string steps_file = set.progress + "/" + c.folder + ".steps";
        std::error_code ec;
        const bool has_content = std::filesystem::is_regular_file(steps_file, ec) && std::filesystem::file_size(steps_file, ec) > 0;
        if (!p.recorded && has_content)
            c.why = "step 1: '" + printable(steps_file, 400) + "' holds no readable record of make test-" + number +
                    " in its last 8 MB (delete it to start over)";
        else if (!p.recorded)
            c.why = "step 1: no make test-" + number + " of your starter is recorded yet; after one, hints follow your progress";
        else if (c.step == 0)
            c.all_passed = true;
        else
            c.why = "the first step that has not passed make test-" + number + " yet";
    }
    if (!set.level.empty()) {
        const size_t top = c.hints.levels[(c.step ? c.step : 1) - 1].size();
        if (c.all_passed) {
            c.problem = "every step of " + c.folder + " passes make test-" + number + ": say which step's hint with STEP=K (1 to " +
                        std::to_string(n) + ")";
            return c;
        }
        const bool digits = set.level.size() <= 6 && digits_end(set.level, 0) == set.level.size();
        const long value = digits ? std::stol(set.level) : 0;
        if (!digits || value < 1 || value > (long)top) {
            c.problem = "LEVEL must be a hint level of " + c.hints.labels[c.step - 1] + " of " + c.folder + ": 1 to " +
                        std::to_string(top) + " (got '" + printable(set.level) + "')";
            return c;
        }
        c.level = (size_t)value;
    }
    return c;
}

// make hint-NN: the hint's text, recorded as seen (what is printed; the caller has checked c.problem).
inline std::string show(Choice c, const Settings& set) {
    const std::string& folder = c.folder;
    const std::string& number = c.number;
    const size_t n = c.hints.labels.size();
    if (c.all_passed)
        return "Every step of " + folder + " passed your last make test-" + number + ": no hint needed.\n" + "make hint-" + number +
               " STEP=K shows step K's hints all the same (K from 1 to " + std::to_string(n) + ").\n";
    const std::string label = c.hints.labels[c.step - 1];
    const size_t top = c.hints.levels[c.step - 1].size();
    Progress p = progress(set.progress, folder);
    auto seen = [&](size_t k) { return p.seen.count(label + ":" + std::to_string(k)) > 0; };
    for (size_t k = 1; k <= top && c.level == 0; ++k)
        if (!seen(k)) c.level = k;
    if (c.level == 0)
        return "You have seen all " + std::to_string(top) + " hints of " + label + " (" + folder + ").\n" + "make hint-" + number +
               " STEP=" + std::to_string(c.step) + " LEVEL=" + std::to_string(top) +
               " shows the last one again; the step's \"Your task\" in " + folder + "/README.md states what it must do.\n";
    const std::string record = set.progress + "/" + folder + ".hints";
    std::string not_recorded = why_not_record(record);
    if (not_recorded.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(set.progress, ec);
        if (!append_line(record, label + "\t" + std::to_string(c.level))) not_recorded = "it cannot be written";
    }
    p.seen.insert(label + ":" + std::to_string(c.level));
    std::string out = "== " + folder + " · " + label + " · hint " + std::to_string(c.level) + " of " + std::to_string(top) + " ==\n";
    if (!c.why.empty()) out += "(" + c.why + ")\n";
    out += "\n" + level_text(c.hints, c.step, c.level) + "\n";
    if (!not_recorded.empty())
        out += "(could not record this hint in '" + printable(record, 400) + "' (" + not_recorded + "): make hint-" + number +
               " will show it again)\n";
    std::string again = "make hint-" + number + (set.step.empty() ? "" : " STEP=" + std::to_string(c.step));
    size_t next = 0;
    for (size_t k = 1; k <= top && next == 0; ++k)
        if (!seen(k)) next = k;
    if (next)
        out += "Still stuck? " + again + " shows hint " + std::to_string(next) + " of " + std::to_string(top) + ".\n";
    else
        out += "That was the last hint of " + label + ". make hint-" + number + " STEP=" + std::to_string(c.step) +
               " LEVEL=L shows level L again.\n";
    return out;
}

}  // namespace hints
