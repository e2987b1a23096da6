// bad_input.cpp: the bad-input suite (`build/common/course bad-input`, run by make check, GPU or
// not): what a new or careless user might type, and what the course promises for it: exit code 2
// and ONE printable line (control bytes escaped, at most 1000 characters) that names the option
// (or setting) and the problem, before any GPU work.
//
// The cases are built, kind by kind, for every exercise folder found (NN_name/), from what its
// program lists (PROGRAM --list-options: each option's kind, range or choices, and the options that
// cannot affect a run), from the test program every folder has, and from make's settings; a folder
// may add cases only it knows in NN_name/bad_input_cases.txt (folder_cases below says the format). A folder
// whose program cannot list its options fails. Programs are the solutions' (make all).
// Ends with one line per group ("bad input: NN_x  N cases, N passed"), then the total; VERBOSE=1
// also lists every case that passes; with COURSE_RECORD=FILE (make check) it leaves its suite
// record there (course.cpp).
//
// Each case is one process, started by a shell that sets its limits: the program's own CPU time
// (ulimit -t, 10 s: a refusal is quick) and its memory (ulimit -v, 2 GB: an allocation made before
// the check fails the case). Neither depends on how busy the machine is; a wall-clock guard of
// 120 s catches only a hang.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "json.h"
#include "options.h"

namespace fs = std::filesystem;

int run(const std::string& command);  // course.cpp
std::string sh_quote(const std::string& s);
std::string read_all(const std::string& path);

namespace {

const int kCpuS = 10, kGuardS = 120;
const char* const kMemoryKb = "2000000";
using Words = std::vector<std::string>;

struct Out {
    int rc = 0;
    std::string out;  // as $(...) gives it: trailing line breaks removed
};

std::string strip_breaks(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }
std::string last_line(const std::string& s) {
    const size_t at = s.rfind('\n');
    return at == std::string::npos ? s : s.substr(at + 1);
}
std::string flat(const std::string& s, size_t max) {  // head -c MAX | tr '\n' '|'
    std::string out = s.substr(0, max);
    std::replace(out.begin(), out.end(), '\n', '|');
    return out;
}
std::string quote_words(const Words& words) {
    std::string out;
    for (const auto& w : words) out += " " + sh_quote(w);
    return out;
}
// The words as a case names them: each escaped, the whole cut at 200 characters.
std::string shown(const Words& words) {
    std::string out;
    for (const auto& w : words) {
        const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%^") == std::string::npos;
        out += (plain ? w : "'" + Options::printable(w, 1000000) + "'") + " ";
    }
    return out.substr(0, 200);
}
std::string stamp(const std::string& path) {  // stat -c %Y:%s
    std::error_code ec;
    const auto t = fs::last_write_time(path, ec);
    if (ec) return "";
    return std::to_string(t.time_since_epoch().count()) + ":" + std::to_string(fs::file_size(path, ec));
}
void write(const std::string& path, const std::string& text, bool append = false) {
    std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    out << text;
}
bool root() { return geteuid() == 0; }
bool can_be_user() { return !root() || run("command -v setpriv >/dev/null 2>&1") == 0; }
std::string as_user_prefix() { return root() ? "setpriv --reuid=65534 --regid=65534 --clear-groups -- " : ""; }

struct Suite {
    std::string tmp, group;
    Words groups, failures, skip_reasons;
    std::map<std::string, std::pair<long, long>> counts;  // group -> ran, passed
    int passed = 0, failed = 0, skipped = 0;
    std::map<std::string, std::string> user_start;        // program -> why another user cannot start it

    void in_group(const std::string& name) {
        group = name;
        if (!counts.count(name)) groups.push_back(name), counts[name] = {0, 0};
    }
    void pass(const std::string& what) {
        ++passed, ++counts[group].first, ++counts[group].second;
        if (std::getenv("VERBOSE")) std::printf("ok   [%s] %s\n", group.c_str(), what.c_str());
    }
    void fail(const std::string& what) {
        ++failed, ++counts[group].first;
        failures.push_back("[" + group + "] " + what);
    }
    void skip(const std::string& why) {  // a case that cannot be tried here (said once per reason)
        ++skipped;
        if (std::find(skip_reasons.begin(), skip_reasons.end(), why) == skip_reasons.end()) skip_reasons.push_back(why);
    }
    void check_that(const std::string& what, bool ok) { ok ? pass(what) : fail(what); }

    // A shell that starts one process, written to a file (so that no argument meets the kernel's
    // limit on the length of one): its output and exit code.
    Out shell(const std::string& line) {
        const std::string script = tmp + "/case.sh", out = tmp + "/case.out";
        write(script, line + "\n");
        Out o;
        o.rc = run("bash " + sh_quote(script) + " >" + sh_quote(out) + " 2>&1 </dev/null");
        o.out = strip_breaks(read_all(out));
        return o;
    }
    std::string limits(bool memory) {
        return "ulimit -t " + std::to_string(kCpuS) + (memory ? std::string(" -v ") + kMemoryKb : std::string()) + "; ";
    }

    // Does OUT satisfy NEEDLE? Alternatives " || ", each of parts " && "; a part "!text" must not appear.
    static bool matches(const std::string& needle, const std::string& out) {
        size_t from = 0;
        for (;;) {
            const size_t bar = needle.find(" || ", from);
            const std::string alt = needle.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
            bool all = true;
            size_t p = 0;
            for (;;) {
                const size_t amp = alt.find(" && ", p);
                const std::string part = alt.substr(p, amp == std::string::npos ? std::string::npos : amp - p);
                if (!part.empty() && part[0] == '!') all = all && !has(out, part.substr(1));
                else all = all && has(out, part);
                if (amp == std::string::npos) break;
                p = amp + 4;
            }
            if (all) return true;
            if (bar == std::string::npos) return false;
            from = bar + 4;
        }
    }
    // The promise for one output: exit 2, one line, printable, short, and the needle.
    void judge(const std::string& what, const std::string& needle, const Out& o) {
        std::string why;
        const long lines = o.out.empty() ? 0 : 1 + std::count(o.out.begin(), o.out.end(), '\n');
        if (o.rc != 2) {
            why = "exit " + std::to_string(o.rc);
            if (o.rc == 152 || o.rc == 137) why += " (over " + std::to_string(kCpuS) + " s of CPU time, or killed)";
            if (o.rc == 124) why += " (still running after " + std::to_string(kGuardS) + " s: a hang)";
        } else if (lines != 1) {
            why = std::to_string(lines) + " lines";
        } else if (std::any_of(o.out.begin(), o.out.end(), [](char c) { return (unsigned char)c < 0x20 || (unsigned char)c > 0x7e; })) {
            why = "bytes that are not printable";
        } else if (o.out.size() > 1000) {
            why = "a line of " + std::to_string(o.out.size()) + " characters";
        } else if (!matches(needle, o.out)) {
            why = "wanted '" + needle + "'";
        }
        if (why.empty()) return pass(what + " -> " + o.out);
        std::string head = o.out.substr(0, 300);
        for (char& c : head) c = c == '\n' ? '|' : ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) ? '?' : c;
        fail(what + " -> " + why + ": " + head);
    }

    // Can another user start PROGRAM at all? Its libraries may lie where that user cannot read (a
    // course under a private home, with giflib in .deps/): then every case run as that user would
    // test the loader, not the input. Why not (checked once per program), or nothing.
    std::string user_cannot_start(const std::string& program) {
        if (!user_start.count(program)) {
            const Out o = shell("(" + limits(true) + as_user_prefix() + "timeout -k 2 " + std::to_string(kGuardS) + " " +
                                sh_quote(program) + " --help) 2>&1 </dev/null");
            std::string why;
            if (o.rc != 0) {
                std::string line = first_line(o.out) + "?";  // (tr turns head's line break into a ?)
                for (char& c : line) c = ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) ? '?' : c;
                why = program + " cannot start as another user (uid 65534): exit " + std::to_string(o.rc) + ", " + line.substr(0, 200);
            }
            user_start[program] = why;
        }
        return user_start[program];
    }
    // One case: PROGRAM ARGS... must keep the promise with NEEDLE in its line (as another user:
    // as root, every folder can be entered and every file read).
    void expect(const std::string& needle, const std::string& program, const Words& args, bool as_user = false) {
        if (as_user) {
            const std::string why = user_cannot_start(program);
            if (!why.empty()) return skip("cases run as another user: " + why);
        }
        const Out o = shell("(" + limits(true) + (as_user ? as_user_prefix() : std::string("exec ")) + "timeout -k 2 " +
                            std::to_string(kGuardS) + " " + sh_quote(program) + quote_words(args) + ") 2>&1 </dev/null");
        judge(std::string(as_user ? "(as a user) " : "") + fs::path(program).filename().string() + " " + shown(args), needle, o);
    }
    // A make setting: make's own one line, exit 2, before anything is built (run: make runs the
    // program, which prints its one line among make's).
    Out make(const Words& args, const std::string& prefix = "exec ") {
        return shell("(" + limits(false) + prefix + "timeout -k 2 " + std::to_string(kGuardS) +
                     " make --no-print-directory" + quote_words(args) + ") 2>&1 </dev/null");
    }
    void expect_make(const std::string& needle, const Words& args) { judge("make " + shown(args), needle, make(args)); }
    void expect_make_run(const std::string& needle, const Words& args) {
        const Out o = make(args);
        if (o.rc == 2 && matches(needle, o.out)) pass("make " + shown(args) + " -> " + last_line(o.out));
        else fail("make " + shown(args) + " -> exit " + std::to_string(o.rc) + ", wanted '" + needle + "': " + flat(o.out, 300));
    }
    void quiet(const std::string& line) { shell("(" + limits(false) + line + ") >/dev/null 2>&1 </dev/null"); }
};

// ---- Values that are wrong for every option of a kind ------------------------------------------
const std::string kLongDigits(131000, '9');  // a 131,000-digit number: echoed capped, not whole
const Words kBadCounts = {"", "abc", "-1", "-0", "1.5", "12abc", "0x10", "1e3", "+5", " 7", "7 ", "2^", "2^-1", "2^64", "2^63+2^1",
                          "2^70", "2^10x", "18446744073709551616", "99999999999999999999999", "5;", "$(id)", "-h",
                          "2^63\n1", "2^99\x1b[2J", "7\r", "2^70\x01", kLongDigits};
const Words kBadIntegers = {"", "abc", "1.5", "12abc", "0x10", "2^64", "99999999999", "-99999999999", "-1e30", "$(id)", "3\n4",
                            "2^99\x1b[2J", kLongDigits, "-" + kLongDigits};
const Words kBadReals = {"", "abc", "nan", "inf", "-inf", "1e999", "1,5", "0x1p3zz", "2.5 ", " 1", "\t1", "--", "1\x1b[2J",
                         "1e5\n2", kLongDigits + ".5"};
const Words kBadChoices = {"", "bogus", "ALL", "all ", "1", "all\n", "\x1b[31mall"};

Words split(const std::string& s, char sep) {
    Words out;
    size_t start = 0;
    for (;;) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}
Words fields(const std::string& line) {  // words at blanks
    Words out;
    std::string w;
    for (char c : line) {
        if (c == ' ' || c == '\t') {
            if (!w.empty()) out.push_back(w), w.clear();
        } else {
            w += c;
        }
    }
    if (!w.empty()) out.push_back(w);
    return out;
}
// Whole numbers as bash's $(( )) reads them (64-bit, wrapping).
long long number(const std::string& s) { return (long long)std::strtoull(s.c_str() + (s[0] == '-'), nullptr, 10) * (s[0] == '-' ? -1 : 1); }

struct Option {
    std::string name, kind, values, def;
    std::vector<std::pair<std::string, std::string>> rules;  // key, value (not-with=..., ...)
    std::string lo() const { return values.substr(0, values.find("..")); }
    std::string hi() const { return values.find("..") == std::string::npos ? values : values.substr(values.rfind("..") + 2); }
};

// A value each kind accepts (for the cases about rules, which need a valid value), never the
// option's default: an option given with its default means the same as leaving it out.
std::string valid_value(const Suite& s, const Option& o) {
    const std::string lo = o.lo();
    if (o.kind == "size" || o.kind == "seed" || o.kind == "integer") return lo == o.def ? std::to_string(number(lo) + 1) : lo;
    if (o.kind == "real") return lo == o.def ? o.hi() : lo;
    if (o.kind == "choice") {
        for (const auto& c : split(o.values, ','))
            if (c != o.def) return c;
        return "";
    }
    if (o.kind == "text") return o.def.empty() ? "x" : o.def;
    if (o.kind == "input-file") return s.tmp + "/none" + split(o.values, ',')[0];
    if (o.kind == "output-file") return s.tmp + "/ok" + split(o.values, ',')[0];
    if (o.kind == "output-folder") return s.tmp + "/okframes";
    return "";
}

// ---- A folder's own cases: NN_name/bad_input_cases.txt -------------------------------------------
// One case or file a line ("#" starts a comment line):
//   case NEEDLE WORD...     the folder's program with these words must keep the promise
//   file NAME CONTENT       writes CONTENT to NAME in the suite's scratch folder
// Words are separated by blanks; '...' takes text as it is, $'...' with \n \r \t \e \\ \' and
// \xHH; 'TEXT'*N is TEXT N times; {tmp} in a word is the scratch folder.
bool parse_words(const std::string& line, Words& out, std::string& problem) {
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size()) break;
        std::string w;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            if (line[i] != '\'' && line.compare(i, 2, "$'") != 0) {
                w += line[i++];
                continue;
            }
            std::string text;
            if (line[i] == '$') {  // $'...': C escapes
                for (i += 2; i < line.size() && line[i] != '\''; ++i) {
                    if (line[i] != '\\' || i + 1 >= line.size()) {
                        text += line[i];
                        continue;
                    }
                    const char c = line[++i];
                    if (c == 'n') text += '\n';
                    else if (c == 'r') text += '\r';
                    else if (c == 't') text += '\t';
                    else if (c == 'e') text += '\x1b';
                    else if (c == 'x' && i + 2 < line.size()) text += (char)std::strtol(line.substr(i + 1, 2).c_str(), nullptr, 16), i += 2;
                    else text += c;
                }
            } else {  // '...': as it is
                for (++i; i < line.size() && line[i] != '\''; ++i) text += line[i];
            }
            if (i >= line.size()) return problem = "a quote is not closed", false;
            ++i;
            if (i < line.size() && line[i] == '*') {  // 'TEXT'*N
                size_t e = i + 1;
                while (e < line.size() && std::isdigit((unsigned char)line[e])) ++e;
                const long n = std::atol(line.substr(i + 1, e - i - 1).c_str());
                std::string repeated;
                for (long k = 0; k < n; ++k) repeated += text;
                text = repeated, i = e;
            }
            w += text;
        }
        out.push_back(w);
    }
    return true;
}

void folder_cases(Suite& s, const std::string& ex, const std::string& program) {
    const std::string file = ex + "/bad_input_cases.txt";
    if (!fs::exists(file)) return;
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.empty() || line[0] == '#') continue;
        Words w;
        std::string problem;
        if (!parse_words(line, w, problem) || w.size() < 2 || (w[0] != "case" && w[0] != "file") || (w[0] == "file" && w.size() != 3)) {
            s.fail(file + ":" + std::to_string(n) + ": not a case (" + (problem.empty() ? "case NEEDLE WORD... or file NAME CONTENT" : problem) + ")");
            continue;
        }
        for (auto& word : w)
            for (size_t at = word.find("{tmp}"); at != std::string::npos; at = word.find("{tmp}", at)) word.replace(at, 5, s.tmp);
        if (w[0] == "file") write(s.tmp + "/" + w[1], w[2]);
        else s.expect(w[1], program, Words(w.begin() + 2, w.end()));
    }
}

// ---- The folders' programs, case by case from their lists ---------------------------------------
void exercise_cases(Suite& s, const std::string& ex, const std::string& record, const std::string& record_before,
                    const std::string& readme_before) {
    s.in_group(ex);
    const std::string tmp = s.tmp;
    const std::string program = "build/" + ex + "/solution/" + ex.substr(ex.find('_') + 1), tests = "build/" + ex + "/solution/tests";
    if (access(program.c_str(), X_OK) != 0) return s.fail(program + " is not built (make all first): its options cannot be listed");
    const Out listed = s.shell("(" + s.limits(true) + "timeout -k 2 " + std::to_string(kGuardS) + " " + sh_quote(program) + " --list-options) 2>&1");
    std::vector<Option> options;
    for (const auto& line : split(listed.out, '\n')) {
        const Words f = fields(line);
        if (f.size() < 3 || f[0].rfind("--", 0) != 0) continue;
        Option o{f[0], f[1], f[2], "", {}};
        for (size_t i = 3; i < f.size(); ++i) {
            const size_t eq = f[i].find('=');
            if (f[i].rfind("default=", 0) == 0) o.def = f[i].substr(8);
            else if (eq != std::string::npos) o.rules.push_back({f[i].substr(0, eq), f[i].substr(eq + 1)});
        }
        options.push_back(o);
    }
    const bool lists = std::any_of(options.begin(), options.end(), [](const Option& o) { return o.name.size() > 2 && std::islower((unsigned char)o.name[2]); });
    if (listed.rc != 0 || !lists)
        return s.fail(program + " --list-options does not list its options (read every option with common/options.h before finish()): " +
                      flat(listed.out, 200));
    auto find = [&](const std::string& name) -> const Option* {
        for (const auto& o : options)
            if (o.name == name) return &o;
        return nullptr;
    };

    for (const Option& o : options) {
        const std::string& name = o.name;
        const std::string lo = o.lo(), hi = o.hi();
        const bool unbounded = hi == "18446744073709551615";
        if (o.kind == "size" || o.kind == "seed") {
            for (const auto& v : kBadCounts) s.expect(name, program, {name, v});
            if (lo != "0") s.expect(name + ": must be at least " + lo, program, {name, std::to_string(number(lo) - 1)});
            if (!unbounded) {
                s.expect(name + ": must be at most " + hi, program, {name, std::to_string(number(hi) + 1)});
                s.expect(name, program, {name, "2^62"});
            }
            // The largest count it takes: refused, or stopped at the GPU check, before anything is
            // allocated (the memory cap turns an allocation made first into a crash).
            if (o.kind == "size") s.expect(name + " || no usable GPU", program, {name, unbounded ? "2^62" : hi});
        } else if (o.kind == "integer") {
            Words values = kBadIntegers;
            values.push_back(std::to_string(number(lo) - 1));
            values.push_back(std::to_string(number(hi) + 1));
            for (const auto& v : values) s.expect(name, program, {name, v});
        } else if (o.kind == "real") {
            for (const auto& v : kBadReals) s.expect(name, program, {name, v});
            s.expect(name, program, {name, "-1" + hi});
            s.expect(name, program, {name, "1" + hi});
            s.expect(name + ": '1e-400' is too close to 0 && !not a number", program, {name, "1e-400"});
        } else if (o.kind == "choice") {
            for (const auto& v : kBadChoices) s.expect(name, program, {name, v});
        } else if (o.kind == "flag") {
            s.expect(name + ": takes no value", program, {name + "=yes"});
        } else if (o.kind == "text") {
            s.expect(name + ": needs a value", program, {name, ""});
        } else if (o.kind == "input-file") {
            const std::string ext = split(o.values, ',')[0], in = tmp + "/in";
            std::error_code ec;
            fs::create_directories(in + "/folder" + ext, ec);
            fs::permissions(in, fs::perms(0755), ec);
            if (!fs::is_fifo(in + "/pipe" + ext)) run("mkfifo " + sh_quote(in + "/pipe" + ext));
            run("ln -sf /dev/zero " + sh_quote(in + "/device" + ext) + " && ln -sf " + sh_quote("loop2" + ext) + " " + sh_quote(in + "/loop1" + ext) +
                " && ln -sf " + sh_quote("loop1" + ext) + " " + sh_quote(in + "/loop2" + ext) + " && ln -sf " + sh_quote("gone" + ext) + " " +
                sh_quote(in + "/dangling" + ext));
            write(in + "/empty" + ext, "");
            write(in + "/junk" + ext, std::string(64u << 20, '\0'));
            write(in + "/control" + ext, "\xef\xbb\xbf\x1b[2J\r\n\x01\x02\n");
            write(in + "/other.txt", "x");
            s.expect(name + ": && no such file", program, {name, in + "/missing" + ext});
            s.expect(name + ": && folder", program, {name, in + "/folder" + ext});
            s.expect(name + ": && not a regular file", program, {name, in + "/pipe" + ext});
            s.expect(name + ": && not a regular file", program, {name, in + "/device" + ext});
            s.expect(name + ": && loop && !no such file", program, {name, in + "/loop1" + ext});
            s.expect(name + ": && does not exist", program, {name, in + "/dangling" + ext});
            s.expect(name + ": && a part of the path is a file && !no such file", program, {name, tmp + "/file/x" + ext});
            s.expect(name + ":", program, {name, in + "/empty" + ext});
            s.expect(name + ":", program, {name, in + "/junk" + ext});
            s.expect(name + ":", program, {name, in + "/control" + ext});
            s.expect(name + ":", program, {name, in + "/other.txt"});
            if (can_be_user()) {
                fs::permissions(tmp + "/closed", fs::perms(0700), ec);
                fs::copy_file(in + "/control" + ext, tmp + "/closed/in" + ext, fs::copy_options::overwrite_existing, ec);
                fs::permissions(tmp + "/closed", fs::perms::none, ec);
                s.expect(name + ": && does not let you in && !no such file", program, {name, tmp + "/closed/in" + ext}, true);
                fs::copy_file(in + "/control" + ext, in + "/secret" + ext, fs::copy_options::overwrite_existing, ec);
                fs::permissions(in + "/secret" + ext, fs::perms::none, ec);
                s.expect(name + ": && cannot be read", program, {name, in + "/secret" + ext}, true);
            }
        } else if (o.kind == "output-file" || o.kind == "output-folder") {
            const std::string ext = split(o.values, ',')[0];
            const std::string probe = o.kind == "output-file" ? "bad_input_probe" + ext : "bad_input_probe";
            for (const auto& folder : {ex, std::string("common"), std::string(".ci")}) {
                if (!fs::is_directory(folder)) continue;
                s.expect(name + ": && a folder of the course's sources", program, {name, folder + "/" + probe});
                s.check_that(ex + ": " + name + " wrote nothing into " + folder + "/", !fs::exists(folder + "/" + probe));
                std::error_code ec;
                fs::remove_all(folder + "/" + probe, ec);
            }
            std::vector<std::string> cpps;
            for (const auto& e : fs::directory_iterator(ex))
                if (e.path().extension() == ".cpp") cpps.push_back(ex + "/" + e.path().filename().string());
            std::sort(cpps.begin(), cpps.end());
            const std::string target = cpps.empty() ? "" : cpps[0], cwd = fs::current_path().string();
            const std::string before = stamp(target);
            run("ln -sf " + sh_quote(cwd + "/" + target) + " " + sh_quote(tmp + "/link" + ext));
            s.expect(name + ": && a folder of the course's sources", program, {name, tmp + "/link" + ext});
            s.check_that(ex + ": " + name + " left " + target + " as it was", stamp(target) == before);
            if (o.kind == "output-file") {
                // The file written is checked, not the name typed: a link of the right name to a file
                // of the course outside build/ (its top files, a progress record), a link to a file
                // of another kind, a file of two names (a hard link).
                for (const auto& t : {std::string("README.md"), std::string("Makefile"), record}) {
                    if (!fs::exists(t)) continue;
                    const std::string was = stamp(t);
                    run("ln -sfn " + sh_quote(cwd + "/" + t) + " " + sh_quote(tmp + "/course_link" + ext));
                    s.expect(name + ": && is a symbolic link to '" + t + "' in the course", program, {name, tmp + "/course_link" + ext});
                    s.check_that(ex + ": " + name + " left " + t + " as it was", stamp(t) == was);
                }
                run("ln -sfn " + sh_quote(tmp + "/file") + " " + sh_quote(tmp + "/other_kind" + ext));
                s.expect(name + ": && is a symbolic link to && not a " + ext + " file", program, {name, tmp + "/other_kind" + ext});
                s.check_that(ex + ": " + name + " left a file of another kind as it was", read_all(tmp + "/file") == "keep\n");
                run("ln -f " + sh_quote(tmp + "/hard_source.txt") + " " + sh_quote(tmp + "/hard" + ext));
                s.expect(name + ": && has 2 names (hard links)", program, {name, tmp + "/hard" + ext});
                fs::remove(tmp + "/hard" + ext);
                s.expect(name + ": && must be a file name ending in " + ext, program, {name, tmp + "/existing.notakind"});
                std::error_code ec;
                s.check_that(ex + ": " + name + " left another kind of file as it was", fs::file_size(tmp + "/existing.notakind", ec) == 0);
                s.expect(name + ": && is a folder", program, {name, tmp + "/folder.x"});
                s.expect(name + ": && does not exist", program, {name, tmp + "/missing/x" + ext});
                s.expect(name + ": && cannot be created", program, {name, "/proc/x" + ext});
                s.expect(name + ": && a part of the path is a file", program, {name, tmp + "/file/x" + ext});
                if (can_be_user()) s.expect(name + ": && cannot be", program, {name, tmp + "/closed/x" + ext}, true);
            } else {
                s.expect(name + ": && is a file, not a folder", program, {name, tmp + "/existing.notakind"});
                s.expect(name + ": && does not exist", program, {name, tmp + "/missing/frames"});
                s.expect(name + ": && cannot make the folder", program, {name, "/proc/frames"});
                if (can_be_user()) s.expect(name + ": && cannot", program, {name, tmp + "/closed/frames"}, true);
            }
            s.expect(name + ": needs a value", program, {name, ""});
        }
        // Every option: its value left out (a flag: given with a value above), and given twice.
        if (o.kind != "flag") s.expect(name, program, {name});
        s.expect(name, program, {name, "1", name, "1"});
    }

    // The rules: an option that cannot affect the run is refused with the reason. An option given
    // with its default value means the same as leaving it out (--demo none --kernel stats runs the
    // steps): the same rules with one side at its default are not refused.
    auto args_for = [&](const std::string& name) {  // the option with a valid value
        const Option* o = find(name);
        const std::string v = o ? valid_value(s, *o) : "";
        return v.empty() ? Words{name} : Words{name, v};
    };
    auto at_default = [&](const std::string& name) -> Words {  // with its default, or nothing (a flag, no
        const Option* o = find(name);                          // default, or one no one can type, such as 0 for "from n")
        if (!o || o->kind == "flag" || o->def.empty() || has(o->def, "\\x")) return {};
        if (o->kind == "size" || o->kind == "seed" || o->kind == "integer" || o->kind == "real") {
            const double d = std::atof(o->def.c_str()), lo = std::atof(o->lo().c_str()), hi = std::atof(o->hi().c_str());
            if (!(d >= lo && d <= hi)) return {};
        }
        if (o->kind == "choice" && !has("," + o->values + ",", "," + o->def + ",")) return {};
        return {name, o->def};
    };
    const std::string not_refused = "!does nothing && !is not used by --bench && !--bench measures every step";
    // A text option's one known valid value is its default (a size such as 160x120): its rule cases
    // with another value are the folder's own (bad_input_cases.txt).
    auto other_value_known = [&](const std::string& name) {
        const Option* o = find(name);
        return !o || o->kind != "text" || o->def.empty();
    };
    auto plus = [](Words a, const Words& b) { a.insert(a.end(), b.begin(), b.end()); return a; };
    for (const Option& o : options) {
        if (!other_value_known(o.name)) continue;
        const Words mine = args_for(o.name), mine_default = at_default(o.name);
        for (const auto& rule : o.rules) {
            const Words others = split(rule.second, ',');
            if (rule.first == "not-with") {
                for (const auto& other : others) {
                    if (!other_value_known(other)) continue;
                    const Words theirs = args_for(other), theirs_default = at_default(other);
                    const std::string needle = other == "--bench" ? o.name + ": && --bench" : o.name + ": does nothing with " + other;
                    s.expect(needle, program, plus(mine, theirs));
                    if (!mine_default.empty()) s.expect(not_refused, program, plus(mine_default, theirs));
                    if (!theirs_default.empty()) s.expect(not_refused, program, plus(mine, theirs_default));
                }
            } else if (rule.first == "only-with") {
                s.expect(o.name + ": does nothing without", program, mine);
                if (!mine_default.empty()) s.expect(not_refused, program, mine_default);
            } else if (rule.first == "only-kernels") {
                std::string kernel;
                const Option* k = find("--kernel");
                for (const auto& c : split(k ? k->values : "", ','))
                    if (kernel.empty() && !has("," + rule.second + ",all,", "," + c + ",")) kernel = c;
                if (!kernel.empty()) s.expect(o.name + ": does nothing with --kernel " + kernel, program, plus({"--kernel", kernel}, mine));
                if (!kernel.empty() && !mine_default.empty()) s.expect(not_refused, program, plus({"--kernel", kernel}, mine_default));
            }
        }
    }

    // Every count at its largest, together: one line naming one of them (or the GPU check),
    // nothing allocated.
    Words all;
    std::string needle = "no usable GPU";
    for (const Option& o : options)
        if (o.kind == "size") {
            all.push_back(o.name), all.push_back(o.hi() == "18446744073709551615" ? "2^62" : o.hi());
            needle += " || " + o.name;
        }
    if (all.size() > 2) s.expect(needle, program, all);

    // Two outputs of one run that are one file: --plot through a link to --csv's file.
    if (find("--csv") && find("--plot")) {
        write(tmp + "/same.csv", "");
        run("ln -sfn " + sh_quote(tmp + "/same.csv") + " " + sh_quote(tmp + "/same.svg"));
        s.expect("--plot: && is a symbolic link to && same.csv", program, {"--csv", tmp + "/same.csv", "--plot", tmp + "/same.svg"});
    }

    // What every program refuses, whatever its options.
    s.expect("unknown option '--bogus'", program, {"--bogus"});
    s.expect("unknown option '--bogus'", program, {"--bogus=1"});
    s.expect("unknown option '--b\\x1B[2Jogus'", program, {"--b\x1b[2Jogus"});
    s.expect("unexpected argument 'extra'", program, {"extra"});
    s.expect("unexpected argument '-x'", program, {"-x"});
    s.expect("unexpected argument '\\x0D'", program, {"\r"});
    s.expect("'--'", program, {"--"});

    // Its test program (doctest): words it does not know, and a report file (--out) that would
    // land in the course's sources or over another kind of file.
    if (access(tests.c_str(), X_OK) != 0) {
        s.fail(tests + " is not built (make all first)");
    } else {
        const std::string cwd = fs::current_path().string();
        s.expect("is not a test option", tests, {"--bogus"});
        s.expect("'--b\\x1B[2Jogus' is not a test option", tests, {"--b\x1b[2Jogus"});
        s.expect("--out: && a folder of the course's sources", tests, {"--out=" + ex + "/bad_input_probe.txt"});
        s.check_that(ex + ": the tests' --out wrote nothing into " + ex + "/", !fs::exists(ex + "/bad_input_probe.txt"));
        s.expect("--out: && must be a file name ending in", tests, {"-o=" + tmp + "/existing.notakind"});
        s.expect("--out: needs a file name", tests, {"--out="});
        for (const auto& t : {std::string("README.md"), record}) {
            run("ln -sfn " + sh_quote(cwd + "/" + t) + " " + sh_quote(tmp + "/report_link.log"));
            s.expect("--out: && is a symbolic link to '" + t + "' in the course", tests, {"--out=" + tmp + "/report_link.log"});
        }
        s.check_that(ex + ": the tests' --out left the progress record as it was", stamp(record) == record_before);
        run("ln -f " + sh_quote(tmp + "/hard_source.txt") + " " + sh_quote(tmp + "/hard_report.txt"));
        s.expect("--out: && has 2 names (hard links)", tests, {"--out=" + tmp + "/hard_report.txt"});
        fs::remove(tmp + "/hard_report.txt");
        // The record of progress (COURSE_STEPS_LOG, set by make test-NN) under the same rule: a
        // source file, a link into the course, a FIFO are not written (nor waited on); the tests run.
        std::error_code ec;
        fs::create_directories(tmp + "/records", ec);
        if (!fs::is_fifo(tmp + "/records/fifo.steps")) run("mkfifo " + sh_quote(tmp + "/records/fifo.steps"));
        run("ln -sfn " + sh_quote(cwd + "/README.md") + " " + sh_quote(tmp + "/records/link.steps"));
        const std::string starter_before = stamp(ex + "/starter.cu");
        for (const auto& log : {ex + "/starter.cu", tmp + "/records/fifo.steps", tmp + "/records/link.steps"}) {
            const Out o = s.shell("(" + s.limits(true) + "COURSE_STEPS_LOG=" + sh_quote(log) + " timeout -k 2 20 " + sh_quote(tests) +
                                  " '-tc=*no case has this name*') 2>&1 </dev/null");
            bool noted = false;
            for (const auto& line : split(o.out, '\n'))
                noted = noted || line.rfind("note: this run is not recorded (make hint-NN will not know it): COURSE_STEPS_LOG: ", 0) == 0;
            if (o.rc == 2 && noted) s.pass(ex + ": COURSE_STEPS_LOG=" + log + " is not written, and the tests run");
            else s.fail(ex + ": COURSE_STEPS_LOG=" + log + " -> exit " + std::to_string(o.rc) + ": " + flat(o.out, 300));
        }
        s.check_that(ex + ": COURSE_STEPS_LOG left the starter as it was", stamp(ex + "/starter.cu") == starter_before);
        s.check_that(ex + ": COURSE_STEPS_LOG left README.md as it was", stamp("README.md") == readme_before);
    }

    // Kinds only this folder knows about.
    folder_cases(s, ex, program);
}

// ---- make settings (any exercise will do: the first one found) ----------------------------------
void make_cases(Suite& s, const std::string& folder) {
    s.in_group("make settings");
    const std::string tmp = s.tmp, n = folder.substr(0, folder.find('_')), cpu = s.limits(false);
    // The cases that run a program use the compiler and architecture the build was made with (read
    // from build/flags), so that none of them rebuilds anything.
    if (fs::exists("build/flags")) {
        const std::string flags = read_all("build/flags");
        const Words f = fields(flags);
        std::string arch;
        for (const auto& w : f)
            if (arch.empty() && w.rfind("-arch=", 0) == 0) arch = w.substr(6);
        if (has(flags, "-gencode")) arch = "fat";
        setenv("ARCH", arch.empty() ? "auto" : arch.c_str(), 1);
        setenv("NVCC", f.empty() ? "" : f[0].c_str(), 1);
    }
    s.expect_make("USE must be", {"run-" + n, "USE=bogus"});
    s.expect_make("USE must be", {"run-" + n, "USE="});
    s.expect_make("USE must be && (got 'solution ')", {"run-" + n, "USE=solution "});
    s.expect_make("REQUIRE_GPU", {"test-" + n, "REQUIRE_GPU=yes"});
    s.expect_make("REQUIRE_GPU", {"test-" + n, "REQUIRE_GPU=0 1"});
    for (const std::string v : {"many", "-1", "100", "2 ", ""}) s.expect_make("REQUIRE_GPUS", {"test-" + n, "REQUIRE_GPUS=" + v});
    for (const std::string v : {"0", "00", "000", "abc", "-5", "1000000", "1 2", "1.5", "3\n"})
        s.expect_make("TEST_TIMEOUT", {"test-" + n, "TEST_TIMEOUT=" + v});
    for (const std::string v : {"0", "00", "abc", "2 2"}) s.expect_make("JOBS", {"check", "JOBS=" + v});
    s.expect_make("V must be 0 or 1", {"build-" + n, "V=2"});
    for (const std::string v : {"sm_50", "sm_79", "sm_99", "sm_75a", "bogus", "native fat", "sm_90'"}) s.expect_make("ARCH", {"build-" + n, "ARCH=" + v});
    if (run("nvidia-smi -L >/dev/null 2>&1") != 0) s.expect_make("ARCH=native && nvidia-smi finds none", {"build-" + n, "ARCH=native"});
    for (const std::string v : {"/nonexistent/nvcc", "/bin/false", "gcc", "", "nvcc --x"}) s.expect_make("NVCC", {"build-" + n, "NVCC=" + v});
    s.expect_make("NCU must be", {"help", "NCU=a b"});
    s.expect_make("no exercise '99'", {"run-99"});
    s.expect_make("no exercise '7'", {"test-7"});
    s.expect_make("no exercise '\\x1B[2J9'", {"run-\x1b[2J9"});
    s.expect_make("run make in the course's folder", {"-C", tmp, "-f", fs::current_path().string() + "/Makefile", "run-" + n});
    // A quote in a setting is a character: nothing runs, even for make help.
    for (const std::string setting : {"TEST_TIMEOUT", "JOBS", "ARCH", "NVCC", "USE", "REQUIRE_GPU", "REQUIRE_GPUS"}) {
        s.expect_make(setting, {"help", setting + "=1' ]] ; touch " + tmp + "/pwned_" + setting + " ; [[ '1"});
        s.check_that("make: a quote in " + setting + " ran nothing", !fs::exists(tmp + "/pwned_" + setting));
    }
    s.expect_make("TEST_TIMEOUT", {"-n", "test-" + n, "TEST_TIMEOUT=1' ]] ; touch " + tmp + "/pwned_n ; [[ '1"});
    s.check_that("make -n: a quote in TEST_TIMEOUT ran nothing", !fs::exists(tmp + "/pwned_n"));
    // ARGS is taken as typed: make expands nothing in it, and no shell runs it.
    const std::string run_n = "run-" + n, test_n = "test-" + n;
    s.expect_make_run("has an unmatched double quote", {run_n, "USE=solution", "ARGS=--n \"5"});
    // A quoted line break is part of a word; one left open is named on one line, escaped.
    s.expect_make_run("unknown option '--bogus'", {run_n, "USE=solution", "ARGS=--bogus \"a\nb\""});
    s.expect_make_run("has an unmatched double quote && --n \"5\\x0A6", {run_n, "USE=solution", "ARGS=--n \"5\n6"});
    s.expect_make_run("unexpected argument '$(shell'", {run_n, "USE=solution", "ARGS=$(shell touch " + tmp + "/pwned_args)"});
    s.expect_make_run("unexpected argument '`touch'", {run_n, "USE=solution", "ARGS=`touch " + tmp + "/pwned_tick`"});
    s.expect_make_run("unexpected argument '$HOME/x'", {run_n, "USE=solution", "ARGS=$HOME/x"});
    s.expect_make_run("unexpected argument '$$'", {run_n, "USE=solution", "ARGS=$$"});
    s.expect_make_run("unexpected argument 'touch'", {run_n, "USE=solution", "ARGS=--bogus 5; touch " + tmp + "/pwned_semi"});
    for (const std::string f : {"pwned_args", "pwned_tick", "pwned_semi"}) s.check_that("make: ARGS ran nothing (" + f + ")", !fs::exists(tmp + "/" + f));
    s.expect_make_run("not a test option", {test_n, "USE=solution", "ARGS=--bogus"});
    s.expect_make_run("no test case matched", {test_n, "USE=solution", "ARGS=-tc=nomatch"});
    // The test-name filter takes time linear in a name, whatever its stars (10 s of CPU at most here).
    s.expect_make_run("no test case matched", {test_n, "USE=solution", "ARGS=-tc=*?*?*?*?*?*?*?*?*#"});
    s.expect_make_run("no test case matched", {test_n, "USE=solution", "ARGS=-tc=*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*# -tce=*?*?*?*?*?*?*?*?*?*?*#"});

    // Every setting is taken as typed: $(shell ...) in one runs nothing, given on the command line or
    // in the environment, for make help and for a goal that runs its scripts.
    for (const std::string setting : {"USE", "ARGS", "ARCH", "REQUIRE_GPU", "REQUIRE_GPUS", "TEST_TIMEOUT", "NCU", "NVCC", "JOBS", "V", "STEP",
                                      "LEVEL", "COURSE_PROGRESS_DIR", "STRICT_STARTERS", "CI"}) {
        s.quiet("make --no-print-directory help " + sh_quote(setting + "=$(shell touch " + tmp + "/literal_line_" + setting + ")"));
        s.quiet("env " + sh_quote(setting + "=$(shell touch " + tmp + "/literal_env_" + setting + ")") + " make --no-print-directory help");
        s.check_that("make: $(shell ...) in " + setting + " ran nothing (command line, environment)",
                     !fs::exists(tmp + "/literal_line_" + setting) && !fs::exists(tmp + "/literal_env_" + setting));
    }
    s.quiet("make --no-print-directory hint-" + n + " " + sh_quote("STEP=$(shell touch " + tmp + "/literal_step)"));
    s.quiet("make --no-print-directory hint-" + n + " " + sh_quote("COURSE_PROGRESS_DIR=" + tmp + "/$(shell touch " + tmp + "/literal_progress)"));
    s.check_that("make hint-" + n + ": $(shell ...) in STEP and COURSE_PROGRESS_DIR ran nothing; the folder is the one typed",
                 !fs::exists(tmp + "/literal_step") && !fs::exists(tmp + "/literal_progress") &&
                     fs::is_regular_file(tmp + "/$(shell touch " + tmp + "/literal_progress)/" + folder + ".hints"));
    // Anything else on the command line is no setting: refused, and never expanded.
    s.expect_make("'FOO' is not a setting of this course", {"help", "FOO=1"});
    s.expect_make("'ARG' is not a setting of this course", {run_n, "ARG=--n"});
    s.expect_make("'shell_quote' is not a setting of this course", {"help", "shell_quote=$(shell touch " + tmp + "/pwned_function)"});
    s.expect_make("'CUDA_HOME' is not a setting of this course", {"help", "CUDA_HOME=$(shell touch " + tmp + "/pwned_cuda_home)"});
    s.quiet("env " + sh_quote("CUDA_HOME=$(shell touch " + tmp + "/pwned_cuda_home_env)") + " make --no-print-directory help");
    for (const std::string f : {"pwned_function", "pwned_cuda_home", "pwned_cuda_home_env"})
        s.check_that("make: a variable that is no setting ran nothing (" + f + ")", !fs::exists(tmp + "/" + f));
    // COURSE_STEPS_LOG and COURSE_RECORD are internal: refused on the command line, ignored in the environment.
    std::string starter_before = stamp(folder + "/starter.cu");
    s.expect_make("'COURSE_STEPS_LOG' is not a setting of this course", {test_n, "COURSE_STEPS_LOG=" + folder + "/starter.cu"});
    s.quiet("COURSE_STEPS_LOG=" + sh_quote(folder + "/starter.cu") + " make --no-print-directory " + test_n + " USE=solution ARGS=-tse=gpu");
    s.check_that("make " + test_n + " with COURSE_STEPS_LOG=" + folder + "/starter.cu left the starter as it was", stamp(folder + "/starter.cu") == starter_before);
    // Every echoed value is escaped and bounded: control bytes, line breaks, 131,000 characters.
    s.expect_make("USE must be && (got '\\x1B[2Jsolution')", {"help", "USE=\x1b[2Jsolution"});
    s.expect_make("USE must be && (got '9999", {"help", "USE=" + kLongDigits});
    s.expect_make("NVCC && \\x1B[2J", {"build-" + n, "NVCC=/bin/\x1b[2Jfalse"});
    s.expect_make("STEP must be one line && (got '1\\x0A2')", {"hint-" + n, "STEP=1\n2"});
    s.expect_make("STEP must be a step of && (got '\\x1B[2J')", {"hint-" + n, "STEP=\x1b[2J"});
    s.expect_make("STEP must be a step of && (got '9999", {"hint-" + n, "STEP=" + kLongDigits});
    s.expect_make("LEVEL must be a hint level of && (got '\\x1B[2J')", {"hint-" + n, "STEP=1", "LEVEL=\x1b[2J"});
    s.expect_make("COURSE_PROGRESS_DIR must be one line", {"help", "COURSE_PROGRESS_DIR=a\nb"});
    for (const auto& v : {std::string("\x1b[2J"), kLongDigits}) {
        s.expect("REQUIRE_GPU must be 0 or 1", "env", {"REQUIRE_GPU=" + v, "build/" + folder + "/solution/tests"});
        s.expect("REQUIRE_GPUS must be a number of GPUs", "env", {"REQUIRE_GPUS=" + v, "build/" + folder + "/solution/tests"});
    }
    Out o = s.make({"doctor", "NVCC=/bin/false"});
    if (has(o.out, "WARNING: NVCC '/bin/false' (/bin/false) is not nvcc")) s.pass("make doctor NVCC=/bin/false says it is not nvcc");
    else s.fail("make doctor NVCC=/bin/false does not say it is not nvcc: " + flat(o.out, 300));

    // COURSE_PROGRESS_DIR reaches the tools as a value, never a rule: ':', ';', '#', a space, a
    // quote, '$(...)' in it; make test-NN records there, make hint-NN reads the record there.
    for (const std::string odd : {"a:b", "a;b", "a#b", "a b", "a'b", "a$(x)b"}) {
        const std::string dir = tmp + "/progress " + odd;
        s.quiet("make --no-print-directory " + test_n + " USE=starter ARGS=-tse=gpu " + sh_quote("COURSE_PROGRESS_DIR=" + dir));
        o = s.make({"hint-" + n, "COURSE_PROGRESS_DIR=" + dir});
        std::error_code ec;
        if (read_all(dir + "/" + folder + ".steps").rfind("{\"record\":\"tests\",", 0) == 0 && fs::file_size(dir + "/" + folder + ".hints", ec) > 0 &&
            !has(o.out, "no make test-"))
            s.pass("COURSE_PROGRESS_DIR='" + odd + "': make " + test_n + " recorded there, make hint-" + n + " read it there");
        else
            s.fail("COURSE_PROGRESS_DIR='" + odd + "': the record or the hint missed '" + dir + "': " + flat(o.out, 300));
    }
    s.check_that("COURSE_PROGRESS_DIR: no stray folder in the course", !fs::exists("progress") && !fs::exists("progress a b"));
    starter_before = stamp(folder + "/starter.cu");
    s.expect_make_run("--out: && a folder of the course's sources", {test_n, "USE=solution", "ARGS=--out=" + folder + "/starter.cu"});
    s.check_that("make " + test_n + " ARGS=--out=" + folder + "/starter.cu left the starter as it was", stamp(folder + "/starter.cu") == starter_before);
    // Looking at a setting changes nothing: build/flags (whose change rebuilds everything) stays.
    if (fs::exists("build/flags")) {
        const std::string was = stamp("build/flags");
        run("make --no-print-directory help ARCH=sm_80 >/dev/null 2>&1; make --no-print-directory -n build-" + n +
            " ARCH=sm_80 >/dev/null 2>&1; make --no-print-directory doctor NVCC=/bin/false >/dev/null 2>&1");
        s.check_that("make help/-n/doctor with other settings left build/flags as it was", stamp("build/flags") == was);
    }
    // A checkout that cannot be written: one line saying where make needs to write.
    if (can_be_user()) {
        const std::string copy = tmp + "/readonly";
        fs::create_directories(copy);
        run("cp -r Makefile common " + sh_quote(folder) + " " + sh_quote(copy + "/") + " 2>/dev/null; chmod -R a+rX,a-w " + sh_quote(copy));
        auto as_user_make = [&](const std::string& needle, const Words& args) {
            const Out r = s.shell("(" + cpu + as_user_prefix() + "timeout -k 2 " + std::to_string(kGuardS) + " make --no-print-directory -C " +
                                  sh_quote(copy) + quote_words(args) + ") 2>&1 </dev/null");
            s.judge("(as a user, read-only) make " + shown(args), needle, r);
        };
        as_user_make("cannot write there", {run_n, "ARCH=sm_90"});
        run("chmod u+w " + sh_quote(copy) + " && mkdir -p " + sh_quote(copy + "/build") + " && printf 'old flags' >" +
            sh_quote(copy + "/build/flags") + " && chmod -R a-w " + sh_quote(copy));
        as_user_make("cannot be rewritten", {run_n, "ARCH=sm_90"});
    }
}

// ---- The course's own tools in odd states (a scratch copy of the course where they change it) ----
void tool_cases(Suite& s, const std::string& folder, const std::string& self) {
    s.in_group("course tools");
    const std::string tmp = s.tmp, n = folder.substr(0, folder.find('_')), scratch = tmp + "/scratch";
    fs::create_directories(scratch);
    run("cp -r Makefile common " + sh_quote(folder) + " " + sh_quote(scratch + "/"));
    // With the course tool built in it already, as in the course (make builds it as it starts).
    fs::create_directories(scratch + "/build/common");
    fs::copy_file(self, scratch + "/build/common/course", fs::copy_options::overwrite_existing);
    // (As the make a user types: a make started by make check would name stray sources no more.)
    auto scratch_make = [&](const Words& args) {
        return s.shell("(" + s.limits(false) + "exec env -u MAKELEVEL timeout -k 2 " + std::to_string(kGuardS) +
                       " make --no-print-directory -C " + sh_quote(scratch) + quote_words(args) + ") 2>&1 </dev/null");
    };
    const std::string ex_dir = scratch + "/" + folder;
    // An exercise's sources are the ones its exercise.mk lists (SUPPORT): a merge tool's backup and an
    // editor's copy in the folder are named in one line and left out of the build.
    write(ex_dir + "/starter_BACKUP_1234.cu", "int main() { return 0; }\n");
    fs::copy_file(ex_dir + "/starter.cu", ex_dir + "/starter copy.cu");
    Out o = scratch_make({"-n", "build-" + n});
    const std::string rest = o.out.find('\n') == std::string::npos ? "" : o.out.substr(o.out.find('\n') + 1);
    if (o.rc == 0 &&
        first_line(o.out) == "note: " + folder + "/ holds starter copy.cu, starter_BACKUP_1234.cu, not part of the exercise (its exercise.mk lists its sources in SUPPORT): ignored" &&
        !has(rest, "BACKUP") && !has(rest, "starter copy"))
        s.pass("make build-" + n + " with stray sources in " + folder + "/: named once, not built");
    else
        s.fail("make build-" + n + " with stray sources in " + folder + "/ -> exit " + std::to_string(o.rc) + ": " + flat(o.out, 300));
    fs::remove(ex_dir + "/starter_BACKUP_1234.cu");
    fs::remove(ex_dir + "/starter copy.cu");
    const std::string saved = read_all(ex_dir + "/exercise.mk");
    for (const std::string bad : {"missing.cu", "notes.txt", "main.cpp"}) {
        write(ex_dir + "/exercise.mk", "SUPPORT += " + bad + "\n", true);
        s.judge("make build-" + n + " with SUPPORT naming " + bad, folder + "/exercise.mk: SUPPORT names " + bad + ", which", scratch_make({"-n", "build-" + n}));
        write(ex_dir + "/exercise.mk", saved);
    }
    // make check's own bookkeeping: a suite of the course that ends without its record counts as one
    // failure, its last lines are shown, and make check still ends with its check: line.
    write(tmp + "/no_summary.sh", "echo \"partial output\"\nexit 3\n");
    o = s.shell("cd " + sh_quote(scratch) + " && " + sh_quote(self) + " check " + sh_quote(tmp + "/no_summary.sh") + " 2>&1");
    if (o.rc == 1 && last_line(o.out) == "check: 0 passed, 1 failed, 0 skipped" && has("\n" + o.out + "\n", "\npartial output\n"))
        s.pass("make check: a suite that leaves no record is one failure, its last lines shown, and check: ends the output");
    else
        s.fail("make check with a suite that leaves no record -> exit " + std::to_string(o.rc) + ": " + flat(o.out.substr(o.out.size() > 300 ? o.out.size() - 300 : 0), 300));
    // A copy of the course without an exercise another one USES (10 compiles 08's kernel): one line.
    write(ex_dir + "/exercise.mk", "USES += 99_not_here/solution.cu\n", true);
    s.judge("make build-" + n + " with USES naming a source this copy does not have",
            folder + "/exercise.mk: USES names 99_not_here/solution.cu, which this copy of the course does not have", scratch_make({"-n", "build-" + n}));
    write(ex_dir + "/exercise.mk", saved);
    // make status where build/ exists but cannot be written (the course tool built in it already):
    // every row points at a log that exists.
    if (can_be_user()) {
        run("chmod -R a+rX,a-w " + sh_quote(scratch));
        o = s.shell("(" + s.limits(false) + "cd /; " + as_user_prefix() + "timeout -k 2 " + std::to_string(kGuardS) +
                    " make --no-print-directory -C " + sh_quote(scratch) + " status) 2>&1 </dev/null");
        run("chmod -R u+w " + sh_quote(scratch));
        std::string log;
        const size_t see = o.out.find("see ");
        if (see != std::string::npos) log = o.out.substr(see + 4, o.out.find(' ', see + 4) - see - 4);
        std::error_code ec;
        if (has(log, "status-") && fs::file_size(log, ec) > 0 && has("\n" + o.out, "\n(build/ cannot be written here: the build logs go to"))
            s.pass("make status with build/ not writable: its rows point at logs that exist");
        else
            s.fail("make status with build/ not writable: " + flat(o.out, 400));
        if (!log.empty()) fs::remove_all(fs::path(log).parent_path(), ec);
    }
    // NCCL's set-up where nothing can install it (stand-ins for nvcc, apt-get, sudo and python3): one
    // line naming what failed and each log; and a pip-installed NCCL is found.
    const std::string setup = tmp + "/setup", bin = setup + "/bin", site = setup + "/site/nvidia/nccl";
    for (const auto& d : {bin, setup + "/course", site + "/include", site + "/lib"}) fs::create_directories(d);
    write(bin + "/nvcc", "#!/bin/sh\necho \"Cuda compilation tools, release 13.0, V13.0.48\"\n");
    write(bin + "/apt-get", "#!/bin/sh\necho \"E: Unable to locate package libnccl-dev\"\nexit 100\n");
    write(bin + "/sudo", "#!/bin/sh\nexit 1\n");
    write(bin + "/python3", "#!/bin/sh\necho \"ERROR: no network\" >&2\nexit 1\n");
    run("chmod +x " + sh_quote(bin) + "/*");
    const std::string cwd = fs::current_path().string();
    auto set_up = [&] {
        return s.shell("(cd " + sh_quote(setup + "/course") + " && PATH=" + sh_quote(bin) + ":$PATH NVCC=nvcc timeout -k 2 " +
                       std::to_string(kGuardS) + " bash " + sh_quote(cwd + "/common/setup_deps.sh") + " nccl) 2>&1 </dev/null");
    };
    const bool system_nccl = run("for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do [ -e $d/libnccl.so ] && exit 0; done; exit 1") == 0;
    if (system_nccl) {
        s.skip("NCCL's set-up failure: this machine has libnccl.so in a system folder, where the set-up finds it");
    } else {
        o = set_up();
        const std::string last = last_line(o.out);
        const long lines = o.out.empty() ? 0 : 1 + std::count(o.out.begin(), o.out.end(), '\n');
        if (o.rc == 1 && lines <= 3 && last.rfind("setup: libnccl-dev is missing: ", 0) == 0 &&
            has(last, "the download of nvidia-nccl-cu13 from PyPI failed (log: build/setup_nccl.log)") &&
            has(last, "python3 -m pip install nvidia-nccl-cu13") && !has(last, "doctest") && fs::exists(setup + "/course/build/setup_nccl.log"))
            s.pass("NCCL's set-up failure: one line naming what failed and its logs, advice for what is missing");
        else
            s.fail("NCCL's set-up failure -> exit " + std::to_string(o.rc) + ": " + flat(o.out, 600));
        write(site + "/include/nccl.h", "");
        write(site + "/lib/libnccl.so.2", "");
        write(bin + "/python3", "#!/bin/sh\necho " + site + "\n");
        o = set_up();
        if (o.rc == 0 && fs::exists(setup + "/course/.deps/usr/lib/x86_64-linux-gnu/libnccl.so") && has(o.out, "where pip installed it"))
            s.pass("NCCL's set-up: a pip-installed NCCL is found and linked into .deps/");
        else
            s.fail("NCCL's set-up with a pip-installed NCCL -> exit " + std::to_string(o.rc) + ": " + flat(o.out, 300));
    }
    // The cases run as another user skip, with the reason, a program that user cannot start.
    if (can_be_user() && root()) {
        const std::string priv = tmp + "/private", name = folder.substr(folder.find('_') + 1);
        fs::create_directories(priv);
        fs::copy_file("build/" + folder + "/solution/" + name, priv + "/" + name, fs::copy_options::overwrite_existing);
        fs::permissions(priv, fs::perms(0700));
        const std::string why = s.user_cannot_start(priv + "/" + name);
        if (!why.empty()) s.pass("a program another user cannot start is told apart (" + why + ")");
        else s.fail("a program in a folder another user cannot enter was taken for one that user can start");
    }
}

// ---- make profile-NN where it cannot run (stand-ins for ncu play each failure) -------------------
void profile_cases(Suite& s, const std::string& folder, const std::string& self) {
    s.in_group("make profile");
    const std::string tmp = s.tmp;
    auto fake_ncu = [&](const std::string& name, const std::string& then) {
        write(tmp + "/" + name, "#!/usr/bin/env bash\n[ \"${1:-}\" = --version ] && { printf \"NVIDIA (R) Nsight Compute Command Line "
                                "Profiler\\nVersion 2019.1.0 (stand-in)\\n\"; exit 0; }\n" + then + "\n");
        fs::permissions(tmp + "/" + name, fs::perms(0755));
    };
    fake_ncu("ncu_perm", "echo \"==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\"; exit 1");
    fake_ncu("ncu_old", "echo \"==ERROR== Profiling is not supported on device 0. To find out supported GPUs refer --list-chips option.\"; exit 1");
    fake_ncu("ncu_run", "while [ $# -gt 0 ] && [[ \"$1\" != */course ]]; do shift; done; \"$@\"; rc=$?; echo \"==WARNING== No kernels were profiled.\"; exit $rc");
    // A stand-in for a program that ran its steps on a GPU under COURSE_PROFILE=1 (measure.h's record).
    write(tmp + "/ran_steps", "#!/usr/bin/env bash\necho \"| 1 | some_step | ok |\"\n[ -n \"${COURSE_RECORD:-}\" ] && echo "
                              "'{\"record\":\"program\",\"rows\":[],\"ranges\":[{\"label\":\"step 1 some_step\",\"step\":true}],\"failures\":0}' "
                              ">\"$COURSE_RECORD\"\n");
    fs::permissions(tmp + "/ran_steps", fs::perms(0755));
    const std::string real = "build/" + folder + "/solution/" + folder.substr(folder.find('_') + 1);
    auto profile = [&](const std::string& needle, const std::string& ncu, const std::string& program, const Words& settings = {}) {
        Words args = {"NCU=" + ncu};
        args.insert(args.end(), settings.begin(), settings.end());
        Words tail = {"bash", "common/profile.sh", folder, program, "build/common/profile_table", self};
        args.insert(args.end(), tail.begin(), tail.end());
        s.expect(needle, "env", args);
    };
    profile("is not a program", tmp + "/no_such_ncu", tmp + "/ran_steps");
    profile("is not Nsight Compute", "/bin/echo", tmp + "/ran_steps");
    profile("NVreg_RestrictProfilingToAdminUsers=0", tmp + "/ncu_perm", tmp + "/ran_steps");
    profile("too old", tmp + "/ncu_old", tmp + "/ran_steps");
    profile("unknown option '--bogus'", tmp + "/ncu_run", real, {"ARGS=--bogus"});
    profile("PROFILE_COLUMNS", tmp + "/ncu_run", real, {"PROFILE_COLUMNS=x = a__b.sum +"});
    profile("PROFILE_LAUNCHES", tmp + "/ncu_run", real, {"PROFILE_LAUNCHES=lots"});
    profile("no usable GPU", tmp + "/ncu_run", real);
}

}  // namespace

int bad_input_suite(const std::string& self) {
    Suite s;
    // No case may reach GPU work, on any machine: CUDA is shown no device at all, so a value that
    // slips through the checks meets "no usable GPU" (still one line) instead of a run. Nor may the
    // settings of the make that ran the suite (make check REQUIRE_GPU=1 REQUIRE_GPUS=2 hands them on
    // in MAKEFLAGS) turn that into a failure; ARCH, NVCC and the rest pass on, so the suite's own
    // make calls find everything built.
    setenv("REQUIRE_GPU", "0", 1);
    setenv("LC_ALL", "C", 1);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    unsetenv("REQUIRE_GPUS");
    if (const char* flags = std::getenv("MAKEFLAGS")) {
        std::string kept;
        for (const auto& w : split(flags, ' '))
            if (w.rfind("REQUIRE_GPU=", 0) != 0 && w.rfind("REQUIRE_GPUS=", 0) != 0) kept += (kept.empty() ? "" : " ") + w;
        setenv("MAKEFLAGS", kept.c_str(), 1);
    }
    // The file of this suite's record (make check sets it), kept from the programs the cases run.
    const std::string suite_record = std::getenv("COURSE_RECORD") ? std::getenv("COURSE_RECORD") : "";
    unsetenv("COURSE_RECORD");
    std::string pattern = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/bad-input.XXXXXX";
    if (!mkdtemp(&pattern[0])) {
        std::printf("bad input: cannot make a scratch folder\n");
        return 2;
    }
    s.tmp = pattern;
    fs::permissions(s.tmp, fs::perms(0755));  // the cases run as another user reach into it

    std::vector<std::string> exercises;
    for (const auto& e : fs::directory_iterator(".")) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name.size() > 3 && std::isdigit((unsigned char)name[0]) && std::isdigit((unsigned char)name[1]) &&
            name[2] == '_' && fs::exists(name + "/main.cpp"))
            exercises.push_back(name);
    }
    std::sort(exercises.begin(), exercises.end());
    const std::string readme_before = stamp("README.md");
    for (const auto& d : {s.tmp + "/folder.x", s.tmp + "/closed", s.tmp + "/notdir"}) fs::create_directories(d);
    write(s.tmp + "/existing.notakind", "");
    write(s.tmp + "/file", "keep\n");
    write(s.tmp + "/hard_source.txt", "keep\n");
    // A record of the student's progress, to which links are made (removed again at the end).
    const bool made_progress = !fs::is_directory(".progress") && fs::create_directory(".progress");
    const std::string record = ".progress/bad_input_probe.steps";
    write(record, "{\"record\":\"tests\",\"steps\":[{\"number\":1,\"name\":\"probe\",\"state\":\"ok\"}],\"steps_passed\":1,"
                  "\"cases\":{\"passed\":1,\"failed\":0,\"skipped\":0}}\n");
    const std::string record_before = stamp(record);
    fs::permissions(s.tmp + "/closed", fs::perms::none);
    fs::create_symlink("loop_b", s.tmp + "/loop_a");
    fs::create_symlink("loop_a", s.tmp + "/loop_b");

    for (const auto& ex : exercises) exercise_cases(s, ex, record, record_before, readme_before);
    if (!exercises.empty()) {
        make_cases(s, exercises[0]);
        tool_cases(s, exercises[0], self);
        profile_cases(s, exercises[0], self);
    }
    s.check_that("the progress record is as it was after every case", stamp(record) == record_before);

    std::error_code ec;
    fs::remove(record, ec);
    if (made_progress) fs::remove(".progress", ec);
    run("chmod -R u+rwx " + sh_quote(s.tmp) + " 2>/dev/null");
    fs::remove_all(s.tmp, ec);

    for (const auto& f : s.failures) std::printf("bad input FAILED: %s\n", f.c_str());
    for (const auto& r : s.skip_reasons) std::printf("bad input skipped: %s\n", r.c_str());
    std::vector<std::string> groups;
    for (const auto& g : s.groups) {
        std::printf("bad input: %-22s %4ld cases, %4ld passed\n", g.c_str(), s.counts[g].first, s.counts[g].second);
        groups.push_back("{\"name\":" + json::quote(g) + ",\"cases\":" + std::to_string(s.counts[g].first) +
                         ",\"passed\":" + std::to_string(s.counts[g].second) + "}");
    }
    std::printf("bad input: %d passed, %d failed%s\n", s.passed, s.failed, s.skipped ? (", " + std::to_string(s.skipped) + " skipped").c_str() : "");
    if (!suite_record.empty()) {
        std::ofstream out(suite_record, std::ios::binary | std::ios::trunc);
        out << "{\"record\":\"suite\",\"name\":\"bad input\",\"cases\":{\"passed\":" << s.passed << ",\"failed\":" << s.failed
            << ",\"skipped\":" << s.skipped << "},\"groups\":" << json::list(groups) << ",\"skips\":" << json::strings(s.skip_reasons)
            << ",\"failures\":" << json::strings(s.failures) << "}\n";
    }
    return s.failed == 0 ? 0 : 1;
}
