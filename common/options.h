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
//   opts.finish();                   rejects anything not asked for (typos)
// Values may be written "--n 100" or "--n=100". "--help" prints the usage text and exits 0.
// Parsing only: no CUDA here (program.h checks memory and the GPU).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

// The exit code for bad input (the same as for "no usable GPU", gpu.h: both are the user's to fix).
constexpr int kExitBadInput = 2;

// What a bad value raises when options_throw_for_tests() is set (common/tests.cpp uses it);
// programs never set it, so for them a bad value prints one line and exits with code 2.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
inline bool& options_throw_for_tests() {
    static bool on = false;
    return on;
}

[[noreturn]] inline void bad_input(const std::string& program, const std::string& message) {
    if (options_throw_for_tests()) throw InputError(message);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
    std::exit(kExitBadInput);
}

class Options {
public:
    Options(int argc, char** argv, std::string usage) : usage_(std::move(usage)) {
        std::string path = argc > 0 ? argv[0] : "program";
        program_ = path.substr(path.find_last_of('/') + 1);
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            if (a == "--help" || a == "-h") {
                std::printf("%s", usage_.c_str());
                // A help text that could not be written (a full disk, a closed pipe) is an error.
                if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
                    std::fprintf(stderr, "%s: error: could not write the help text\n", program_.c_str());
                    std::exit(kExitBadInput);
                }
                std::exit(0);
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
    }

    const std::string& program() const { return program_; }

    bool flag(const std::string& name) {
        Arg* a = find(name);
        if (a && a->has_value) fail(name, "takes no value (got '" + printable(a->value) + "')");
        return a != nullptr;
    }

    // A count: digits, or 2^K, 2^K+C, 2^K-C. Rejects signs, fractions, overflow, out of range.
    size_t size(const std::string& name, size_t def, size_t min = 1, size_t max = SIZE_MAX) {
        const std::string* v = value(name);
        if (!v) return def;
        size_t x = parse_size(name, *v);
        if (x < min) fail(name, "must be at least " + std::to_string(min) + " (got " + *v + ")");
        if (x > max) fail(name, "must be at most " + std::to_string(max) + " (got " + *v + ")");
        return x;
    }

    int integer(const std::string& name, int def, int min, int max) {
        const std::string* v = value(name);
        if (!v) return def;
        bool negative = !v->empty() && (*v)[0] == '-';
        size_t mag = negative ? parse_digits(name, *v, v->substr(1)) : parse_size(name, *v);
        long long x = negative ? -(long long)std::min<size_t>(mag, (size_t)1 << 40)
                               : (long long)std::min<size_t>(mag, (size_t)1 << 40);
        if (x < min) fail(name, "must be at least " + std::to_string(min) + " (got " + *v + ")");
        if (x > max) fail(name, "must be at most " + std::to_string(max) + " (got " + *v + ")");
        return (int)x;
    }

    double real(const std::string& name, double def, double min, double max) {
        const std::string* v = value(name);
        if (!v) return def;
        char* end = nullptr;
        errno = 0;
        double x = std::strtod(v->c_str(), &end);
        if (v->empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x))
            fail(name, "'" + printable(*v) + "' is not a number");
        if (x < min || x > max)
            fail(name, "must be between " + fmt(min) + " and " + fmt(max) + " (got " + *v + ")");
        return x;
    }

    // Any text but the empty one (an empty file name or pattern is always a mistake).
    std::string text(const std::string& name, const std::string& def) {
        const std::string* v = value(name);
        if (v && v->empty()) fail(name, "needs a value (got an empty one)");
        return v ? *v : def;
    }

    // Was the option typed? (Does not count as reading it.)
    bool given(const std::string& name) const {
        for (const auto& a : args_)
            if (a.name == name) return true;
        return false;
    }

    std::string choice(const std::string& name, const std::string& def,
                       const std::vector<std::string>& allowed) {
        std::string v = text(name, def);
        for (const auto& a : allowed)
            if (a == v) return v;
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(name, "unknown value '" + printable(v) + "' (choose one of: " + list + ")");
    }

    // Call after reading every option: anything left over is a typo or an unknown option.
    void finish() const {
        for (const auto& a : args_)
            if (!a.used) bad_input(program_, "unknown option '" + printable(a.name) + "' (try --help)");
    }

    [[noreturn]] void fail(const std::string& name, const std::string& problem) const {
        bad_input(program_, name + ": " + problem);
    }

private:
    struct Arg {
        std::string name, value;
        bool has_value = false, used = false;
    };

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

    static bool all_digits(const std::string& s) {
        if (s.empty()) return false;
        for (char c : s)
            if (c < '0' || c > '9') return false;
        return true;
    }
    size_t parse_digits(const std::string& name, const std::string& whole, const std::string& s) {
        if (!all_digits(s)) {
            if (whole.size() > 1 && whole[0] == '-' && all_digits(whole.substr(1)))
                fail(name, "'" + whole + "' is negative");
            fail(name, "'" + printable(whole) + "' is not a whole number");
        }
        errno = 0;
        unsigned long long x = std::strtoull(s.c_str(), nullptr, 10);
        if (errno == ERANGE || x > SIZE_MAX) fail(name, "'" + whole + "' is too large");
        return (size_t)x;
    }
    size_t parse_size(const std::string& name, const std::string& v) {
        if (v.rfind("2^", 0) != 0) return parse_digits(name, v, v);
        size_t op = v.find_first_of("+-", 2);
        size_t k = parse_digits(name, v, v.substr(2, op == std::string::npos ? op : op - 2));
        if (k > 62) fail(name, "'" + v + "' is too large");
        size_t x = (size_t)1 << k;
        if (op == std::string::npos) return x;
        size_t c = parse_digits(name, v, v.substr(op + 1));
        if (v[op] == '+') {
            if (c > SIZE_MAX - x) fail(name, "'" + v + "' is too large");
            return x + c;
        }
        if (c > x) fail(name, "'" + v + "' is negative");
        return x - c;
    }
    static std::string fmt(double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return buf;
    }

public:
    // Text safe to echo in one line: control bytes and non-ASCII bytes as \xNN, at most
    // max_chars characters (a file's path is shown whole: pass SIZE_MAX).
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
};
