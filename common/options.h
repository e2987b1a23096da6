// options.h: "--n 1000000"-style command-line options with validation.
//
// Every bad value gets one line naming the option and the problem, and exit code 2:
//   opts.size("--n", 1 << 20)        whole number >= 1; also accepts 2^25, 2^20+3, 2^31-1
//   opts.integer("--block", 256, 32, 1024)
//   opts.real("--density", 0.25, 0.0, 1.0)
//   opts.choice("--kernel", "all", {"all", "one_block", ...})
//   opts.flag("--bench")
//   opts.text("--gif", "")           any non-empty text
//   opts.given("--n")                was it typed at all
//   opts.not_with("--density", "--pattern", "the start is the pattern")   an option that cannot
//   opts.only_with("--fps", {"--watch", "--gif"}, "the pace of the frames") affect this run is
//                                                                          refused with the reason
//   opts.finish();                   rejects anything not asked for (typos), then the rules above
// The rules read an option given with its default value (--demo none, --kernel all) as left
// out: an explicitly given default means the same as leaving it out (opts.in_effect).
// Values may be written "--n 100" or "--n=100". "--help" prints the usage text and exits 0.
//
// Every option a program reads is recorded as it is read (its kind, range or choices, default
// and the rules above), so read every option unconditionally before finish(). `PROGRAM
// --list-options` prints that record, one option a line, and exits 0:
//   --n       size    1..18446744073709551615  default=1000000  not-with=--bench
//   --fps     real    0.1..1000                default=10       only-with=--watch,--gif
// (the bad-input suite, common/bad_input.cpp, builds its cases from it). Parsing only: no CUDA here (program.h checks
// memory and the GPU; output_file.h checks the files a program writes).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exit_codes.h"


// What a bad value raises when options_throw_for_tests() is set (common/tests.cpp uses it);
// programs never set it, so for them a bad value prints one line and exits with code 2.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
inline bool& options_throw_for_tests() {
    static bool on = false;
    return on;
}
// What --list-options raises instead of printing and exiting, when options_throw_for_tests() is set.
struct OptionList {
    std::string text;
};
// What --help raises instead, likewise.
struct HelpText {
    std::string text;
};

[[noreturn]] inline void bad_input(const std::string& program, const std::string& message) {
    if (options_throw_for_tests()) throw InputError(message);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
    std::exit(kExitBadInput);
}

// One declared option, as --list-options prints it.
struct DeclaredOption {
    std::string name;
    std::string kind;      // size, seed, integer, real, choice, flag, text, input-file, output-file, output-folder
    std::string values;    // "lo..hi", "a,b,c" (a choice), ".gif" (the kinds of file read or written), or "-"
    std::string def;       // the default as typed, "" for none
    std::vector<std::string> not_with, only_with, only_kernels;
};

class Options {
public:
    // `usage`: the help text, or (empty) made by usage() from what the program reads.
    Options(int argc, char** argv, std::string usage) : usage_(std::move(usage)) {
        std::string path = argc > 0 ? argv[0] : "program";
        program_ = path.substr(path.find_last_of('/') + 1);
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            if (a == "--help" || a == "-h") {  // what follows is not read: finish() prints the help
                helping_ = true;
                break;
            }
            if (a == "--list-options") {
                listing_ = true;
                continue;
            }
            if (a.rfind("--", 0) != 0) bad_input(program_, "unexpected argument '" + printable(a) + "' (try --help)");
            Arg arg;
            size_t eq = a.find('=');
            if (eq != std::string::npos) {
                arg.name = a.substr(0, eq);
                arg.value = a.substr(eq + 1);
                arg.has_value = true;
            } else {
                arg.name = a;
                if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
                    arg.value = argv[++i];
                    arg.has_value = true;
                }
            }
            args_.push_back(arg);
        }
        if (listing_ || helping_) args_.clear();  // the program reads its options only to record them
    }
    virtual ~Options() = default;

    const std::string& program() const { return program_; }
    // --list-options or --help was given: reading returns the defaults, finish() prints the list or the help.
    bool listing() const { return listing_ || helping_; }

    bool flag(const std::string& name) {
        declare(name, "flag", "-", "");
        Arg* a = find(name);
        if (a && a->has_value) fail(name, "takes no value (got '" + printable(a->value) + "')");
        return a != nullptr;
    }

    // A count: digits, or 2^K, 2^K+C, 2^K-C. Rejects signs, fractions, overflow, out of range.
    size_t size(const std::string& name, size_t def, size_t min = 1, size_t max = SIZE_MAX) {
        declare(name, "size", std::to_string(min) + ".." + std::to_string(max), std::to_string(def));
        const std::string* v = value(name);
        if (!v) return def;
        size_t x = parse_size(name, *v);
        if (x < min) fail(name, "must be at least " + std::to_string(min) + " (got " + printable(*v) + ")");
        if (x > max) fail(name, "must be at most " + std::to_string(max) + " (got " + printable(*v) + ")");
        return read_as(name, x, def);
    }

    int integer(const std::string& name, int def, int min, int max) {
        declare(name, "integer", std::to_string(min) + ".." + std::to_string(max), std::to_string(def));
        const std::string* v = value(name);
        if (!v) return def;
        bool negative = !v->empty() && (*v)[0] == '-';
        size_t mag = negative ? parse_digits(name, *v, v->substr(1)) : parse_size(name, *v);
        long long x = negative ? -(long long)std::min<size_t>(mag, (size_t)1 << 40)
                               : (long long)std::min<size_t>(mag, (size_t)1 << 40);
        if (x < min) fail(name, "must be at least " + std::to_string(min) + " (got " + printable(*v) + ")");
        if (x > max) fail(name, "must be at most " + std::to_string(max) + " (got " + printable(*v) + ")");
        return read_as(name, (int)x, def);
    }

    double real(const std::string& name, double def, double min, double max) {
        declare(name, "real", fmt(min) + ".." + fmt(max), fmt(def));
        const std::string* v = value(name);
        if (!v) return def;
        const std::string shown = "'" + printable(*v) + "'";
        // strtod would skip leading white space; a value is the number alone.
        if (v->empty() || !(std::isdigit((unsigned char)(*v)[0]) || (*v)[0] == '-' || (*v)[0] == '+' || (*v)[0] == '.'))
            fail(name, shown + " is not a number");
        char* end = nullptr;
        errno = 0;
        double x = std::strtod(v->c_str(), &end);
        if (*end != '\0' || std::isnan(x)) fail(name, shown + " is not a number");
        if (errno == ERANGE && std::fabs(x) <= DBL_MIN)
            fail(name, shown + " is too close to 0 for a double (it underflows); write 0 if 0 is meant");
        if (errno == ERANGE) fail(name, shown + " is too large for a double");
        if (!std::isfinite(x)) fail(name, shown + " is not a finite number");
        if (x < min || x > max)
            fail(name, "must be between " + fmt(min) + " and " + fmt(max) + " (got " + printable(*v) + ")");
        return read_as(name, x, def);
    }

    // Any text but the empty one (an empty file name or pattern is always a mistake).
    std::string text(const std::string& name, const std::string& def) {
        declare(name, "text", "-", def);
        return text_value(name, def);
    }

    // The path of a file the program reads, of one of the kinds `extensions` (".rle .cells"):
    // text like text(); recorded as an input file, so that the bad-input suite tries missing,
    // unreadable and junk files on it. The program's reader checks the file itself.
    std::string input_file(const std::string& name, const std::string& def, const std::string& extensions) {
        std::string kinds = extensions;
        std::replace(kinds.begin(), kinds.end(), ' ', ',');
        declare(name, "input-file", kinds, def);
        return text_value(name, def);
    }

    // Was the option typed? (Does not count as reading it.)
    bool given(const std::string& name) const {
        for (const auto& a : args_)
            if (a.name == name) return true;
        return false;
    }
    // Was it typed with a value other than its default (a flag: typed at all)? What the rules
    // below ask: an explicitly given default (--demo none) means the same as leaving it out.
    bool in_effect(const std::string& name) const {
        for (const auto& a : args_)
            if (a.name == name) return !a.at_default;
        return false;
    }

    std::string choice(const std::string& name, const std::string& def,
                       const std::vector<std::string>& allowed) {
        std::string list, commas;
        for (const auto& a : allowed) {
            list += (list.empty() ? "" : ", ") + a;
            commas += (commas.empty() ? "" : ",") + a;
        }
        declare(name, "choice", commas, def);
        std::string v = text_value(name, def);
        for (const auto& a : allowed)
            if (a == v) return v;
        fail(name, "unknown value '" + printable(v) + "' (choose one of: " + list + ")");
    }

    // ---- Options that cannot affect a run: refused with the reason, by finish() ------------------
    // `name` does nothing when `other` is given.
    void not_with(const std::string& name, const std::string& other, const std::string& why) {
        refuse_with(name, other, "does nothing with " + other + " (" + why + "); drop one of the two");
    }
    // `name` does something only when one of `others` is given too.
    void only_with(const std::string& name, const std::vector<std::string>& others, const std::string& why) {
        std::string list;
        for (size_t i = 0; i < others.size(); ++i)
            list += (i == 0 ? "" : i + 1 == others.size() ? " or " : ", ") + others[i];
        declared(name).only_with.insert(declared(name).only_with.end(), others.begin(), others.end());
        rules_.push_back({2, [name, others, list, why](const Options& o) {
            if (!o.in_effect(name)) return;
            for (const auto& other : others)
                if (o.in_effect(other)) return;
            o.fail(name, "does nothing without " + list + " (" + why + "); add one or drop " + name);
        }});
    }

    // Call after reading every option: anything left over is a typo or an unknown option; then
    // the rules above, in the order: not_with, only_with, then a program's own (program.h).
    // With --list-options: prints what was read, and exits 0.
    void finish() {
        if (helping_) print_and_exit(usage_.empty() ? usage() : usage_, "the help text", HelpText{});
        if (listing_) print_and_exit(option_list(), "the option list", OptionList{});
        for (const auto& a : args_)
            if (!a.used) bad_input(program_, "unknown option '" + printable(a.name) + "' (try --help)");
        std::stable_sort(rules_.begin(), rules_.end(), [](const Rule& a, const Rule& b) { return a.order < b.order; });
        for (const auto& r : rules_) r.check(*this);
        finished_ = true;
    }
    bool finished() const { return finished_; }

    [[noreturn]] void fail(const std::string& name, const std::string& problem) const {
        bad_input(program_, name + ": " + problem);
    }
    // For checks that return "" or the problem (why_not_output_file, a parser's message): fails
    // only when there is one.
    void fail_if(const std::string& name, const std::string& problem) const {
        if (!problem.empty()) fail(name, problem);
    }

    // The record of an option (made on first use): what --list-options prints. Const, because
    // checks that take a const Options& (output_file.h) record the kind of file they check.
    DeclaredOption& declared(const std::string& name) const {
        for (auto& d : declared_)
            if (d.name == name) return d;
        declared_.push_back({name, "text", "-", "", {}, {}, {}});
        return declared_.back();
    }
    void declare(const std::string& name, const std::string& kind, const std::string& values,
                 const std::string& def) const {
        DeclaredOption& d = declared(name);
        d.kind = kind;
        d.values = values;
        d.def = def;
    }
    // The files this run writes, as output_file.h tells them apart (option, the file): two
    // options must not write one file.
    std::vector<std::pair<std::string, std::string>>& outputs() const { return outputs_; }

    // Every option read so far, in the order read.
    const std::vector<DeclaredOption>& declared_options() const { return declared_; }
    // The list --list-options prints (one option a line; fields as in the comment at the top).
    std::string option_list() const {
        size_t w = 0;
        for (const auto& d : declared_) w = std::max(w, d.name.size());
        std::string out;
        for (const auto& d : declared_) {
            std::string line = d.name + std::string(w + 2 - d.name.size(), ' ') + d.kind;
            line += std::string(line.size() < w + 16 ? w + 16 - line.size() : 1, ' ') + d.values;
            if (!d.def.empty()) line += "  default=" + word(d.def);
            auto field = [&](const char* key, const std::vector<std::string>& v) {
                if (v.empty()) return;
                line += std::string("  ") + key + "=";
                for (size_t i = 0; i < v.size(); ++i) line += (i ? "," : "") + word(v[i]);
            };
            field("not-with", d.not_with);
            field("only-with", d.only_with);
            field("only-kernels", d.only_kernels);
            out += line + "\n";
        }
        return out;
    }

protected:
    // The help text of a program that gives none: a subclass makes it from what was read (program.h).
    virtual std::string usage() const { return "usage: " + program_ + " [options]\n"; }
    // A rule checked by finish(), lower `order` first (a function of the options, not of `this`,
    // so that a copied Options keeps working rules).
    struct Rule {
        int order;
        std::function<void(const Options&)> check;
    };
    std::vector<Rule> rules_;

    // `name` is refused with `problem` when `other` is given too.
    void refuse_with(const std::string& name, const std::string& other, const std::string& problem) {
        declared(name).not_with.push_back(other);
        rules_.push_back({1, [name, other, problem](const Options& o) {
            if (o.in_effect(name) && o.in_effect(other)) o.fail(name, problem);
        }});
    }

private:
    struct Arg {
        std::string name, value;
        bool has_value = false, used = false;
        bool at_default = false;  // its value is the option's default (see in_effect)
    };

    // Records whether the option's value, as read, is its default; returns the value.
    template <class T>
    T read_as(const std::string& name, T x, const T& def) {
        for (auto& a : args_)
            if (a.name == name) a.at_default = x == def;
        return x;
    }

    Arg* find(const std::string& name) {
        Arg* found = nullptr;
        for (auto& a : args_)
            if (a.name == name) {
                if (found) fail(name, "given more than once");
                a.used = true;
                found = &a;
            }
        return found;
    }
    const std::string* value(const std::string& name) {
        Arg* a = find(name);
        if (!a) return nullptr;
        if (!a->has_value) fail(name, "needs a value");
        return &a->value;
    }
    std::string text_value(const std::string& name, const std::string& def) {
        const std::string* v = value(name);
        if (v && v->empty()) fail(name, "needs a value (got an empty one)");
        return v ? read_as(name, *v, def) : def;
    }

    static bool all_digits(const std::string& s) {
        if (s.empty()) return false;
        for (char c : s)
            if (c < '0' || c > '9') return false;
        return true;
    }
    size_t parse_digits(const std::string& name, const std::string& whole, const std::string& s) {
        const std::string shown = "'" + printable(whole) + "'";
        if (!all_digits(s)) {
            if (whole.size() > 1 && whole[0] == '-' && all_digits(whole.substr(1))) fail(name, shown + " is negative");
            fail(name, shown + " is not a whole number");
        }
        errno = 0;
        unsigned long long x = std::strtoull(s.c_str(), nullptr, 10);
        if (errno == ERANGE || x > SIZE_MAX) fail(name, shown + " is too large");
        return (size_t)x;
    }
    size_t parse_size(const std::string& name, const std::string& v) {
        if (v.rfind("2^", 0) != 0) return parse_digits(name, v, v);
        const std::string shown = "'" + printable(v) + "'";
        size_t op = v.find_first_of("+-", 2);
        size_t k = parse_digits(name, v, v.substr(2, op == std::string::npos ? op : op - 2));
        size_t c = op == std::string::npos ? 0 : parse_digits(name, v, v.substr(op + 1));  // the whole value checked first
        if (k > 62) fail(name, shown + " is too large");
        size_t x = (size_t)1 << k;
        if (op == std::string::npos) return x;
        if (v[op] == '+') {
            if (c > SIZE_MAX - x) fail(name, shown + " is too large");
            return x + c;
        }
        if (c > x) fail(name, shown + " is negative");
        return x - c;
    }
    static std::string fmt(double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return buf;
    }
    // A value as one word of the list (a space would split it).
    static std::string word(const std::string& s) {
        std::string out;
        for (char c : printable(s, 200)) out += c == ' ' ? std::string("\\x20") : std::string(1, c);
        return out;
    }
    // A text that could not be written (a full disk, a closed pipe) is an error.
    template <class Thrown>
    [[noreturn]] void print_and_exit(const std::string& text, const char* what, Thrown) const {
        if (options_throw_for_tests()) throw Thrown{text};
        std::printf("%s", text.c_str());
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::fprintf(stderr, "%s: error: could not write %s\n", program_.c_str(), what);
            std::exit(kExitBadInput);
        }
        std::exit(0);
    }

public:
    // Text safe to echo in one line: control bytes and non-ASCII bytes as \xNN, at most
    // max_chars characters (a file's path: pass kPathChars).
    static constexpr size_t kPathChars = 400;
    static std::string printable(const std::string& s, size_t max_chars = 60) {
        std::string out;
        for (unsigned char c : s) {
            if (out.size() >= max_chars) {
                out += "...";
                break;
            }
            if (c >= 0x20 && c < 0x7f) {
                out += (char)c;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02X", c);
                out += buf;
            }
        }
        return out;
    }

private:
    std::string usage_, program_;
    std::vector<Arg> args_;
    bool listing_ = false, helping_ = false, finished_ = false;
    mutable std::vector<DeclaredOption> declared_;
    mutable std::vector<std::pair<std::string, std::string>> outputs_;
};
