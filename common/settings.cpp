// settings.cpp: the course tool's two commands that stand between make and a process.
//
//   course settings DIR     make's settings, checked once, while make reads the Makefile: DIR holds
//                           one file per value, as typed (the Makefile writes them with $(file ...),
//                           each followed by an x, so that a value ending in a line break arrives
//                           whole). Prints the first problem, one line, for make's $(error) (make
//                           stops, exit 2), and notes for people on stderr; removes DIR.
//   course run [--timeout] [--record NN_x] PROGRAM WORDS...
//                           runs PROGRAM with WORDS, then the words of $ARGS (make run/test/bench)
//
// ARGS is split into words at blanks (spaces, tabs, line breaks) outside quotes; '...' and "..."
// group words, and nothing else in it is special or run: ; | & $ ` * \ are plain characters, so
// ARGS='--n 5; rm x' gives the program the words --n, 5; rm and x, and the program refuses them. A
// quote left open gets one line, exit 2. With --timeout, the program is stopped after
// $TEST_TIMEOUT seconds (a stuck kernel). With --record NN_x (make test-NN with your starter), the
// test program appends its record (common/records.h) to NN_x.steps in the progress folder
// ($COURSE_PROGRESS_DIR, default .progress) through COURSE_STEPS_LOG; otherwise COURSE_STEPS_LOG is
// never set, whatever the environment says.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "exit_codes.h"
#include "options.h"
#include "require_gpu.h"

namespace fs = std::filesystem;

int run(const std::string& command);  // course.cpp
std::string sh_quote(const std::string& s);
std::string read_all(const std::string& path);

namespace {

using Words = std::vector<std::string>;

std::string shown(const std::string& s, size_t max = 200) { return Options::printable(s, max); }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }
Words words(const std::string& s) {
    Words out;
    std::string w;
    for (char c : s + " ")
        if (blank(c)) {
            if (!w.empty()) out.push_back(w), w.clear();
        } else {
            w += c;
        }
    return out;
}
// One word, with no blank, tab or line break in it or around it.
bool one_word(const std::string& s) { return !s.empty() && std::none_of(s.begin(), s.end(), blank); }
// A whole number from 1 to 999999, written without a leading zero.
bool count(const std::string& s) {
    return !s.empty() && s.size() <= 6 && s[0] != '0' && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
std::string capture(const std::string& command) {  // its standard output, line breaks as spaces
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
        pclose(p);
    }
    std::replace(out.begin(), out.end(), '\n', ' ');
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

struct Given {
    std::string dir;
    std::string operator[](const std::string& name) const {  // the value, its x and make's line break taken off
        std::string v = read_all(dir + "/" + name);
        if (!v.empty() && v.back() == '\n') v.pop_back();
        if (!v.empty() && v.back() == 'x') v.pop_back();
        return v;
    }
};

std::string first(const std::string& list) {
    const Words w = words(list);
    return w.empty() ? "" : w[0];
}
const std::set<std::string> kOwnSources = {"starter.cu", "solution.cu", "main.cpp", "tests.cpp", "answers.cpp"};

// The first problem with the settings and the exercises' sources, or "".
std::string problem(const Given& g) {
    const std::string not_setting = first(g["_not_settings"]);
    if (!not_setting.empty())
        return "'" + shown(not_setting) + "' is not a setting of this course: its settings are " + g["_SETTINGS"] + " (make help lists the common ones)";
    const std::string use = g["USE"], require = g["REQUIRE_GPU"], gpus = g["REQUIRE_GPUS"], v = g["V"];
    if (use != "starter" && use != "solution") return "USE must be starter or solution (got '" + shown(use) + "')";
    // Read by the test programs, which check them with the same functions (require_gpu.h).
    if (!require_gpu_problem(require).empty()) return require_gpu_problem(require);
    if (!require_gpus_problem(gpus).empty()) return require_gpus_problem(gpus);
    if (v != "0" && v != "1") return "V must be 0 or 1 (got '" + shown(v) + "')";
    if (!count(g["TEST_TIMEOUT"]))
        return "TEST_TIMEOUT must be a whole number of seconds from 1 to 999999 (got '" + shown(g["TEST_TIMEOUT"]) + "')";
    if (!count(g["JOBS"])) return "JOBS must be a whole number of parallel compiles from 1 to 999999 (got '" + shown(g["JOBS"]) + "')";
    const std::string nvcc = g["NVCC"], ncu = g["NCU"];
    if (!one_word(nvcc))
        return "NVCC must be the CUDA compiler, one word such as nvcc or /usr/local/cuda/bin/nvcc (got '" + shown(nvcc) + "')";
    if (!ncu.empty() && !one_word(ncu))
        return "NCU must be Nsight Compute's ncu, one word such as /usr/local/cuda/bin/ncu (got '" + shown(ncu) + "')";
    // STEP and LEVEL (their values are the hint command's to check) and COURSE_PROGRESS_DIR are any text on one line.
    for (const char* s : {"STEP", "LEVEL", "COURSE_PROGRESS_DIR"})
        if (g[s].find('\n') != std::string::npos) return std::string(s) + " must be one line (got '" + shown(g[s]) + "')";
    // sm_ then digits, maybe an a or an f (sm_90a, sm_100f): which of those nvcc knows is asked below.
    const std::string arch = g["ARCH"];
    std::string digits = arch.rfind("sm_", 0) == 0 ? arch.substr(3) : "";
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
    const bool arch_ok = arch == "auto" || arch == "native" || arch == "fat" ||
                         (!digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }));
    if (!arch_ok) return "ARCH must be auto, native, fat or a target such as sm_89 (got '" + shown(arch) + "')";

    // A goal for an exercise that does not exist gets the list of those that do.
    const Words exercises = words(g["_EXERCISES"]), goals = words(g["_goals"]);
    std::string numbers;
    for (const auto& e : exercises) numbers += (numbers.empty() ? "" : " ") + e.substr(0, e.find('_'));
    auto number_of = [&](const std::string& goal) -> std::string {  // NN of run-NN and the like, or ""
        for (const char* verb : {"run-", "test-", "bench-", "sanitize-", "build-", "profile-"})
            if (goal.rfind(verb, 0) == 0) return goal.substr(std::string(verb).size());
        return "";
    };
    for (const auto& goal : goals) {
        const std::string n = number_of(goal);
        if (!n.empty() && (" " + numbers + " ").find(" " + n + " ") == std::string::npos)
            return "there is no exercise '" + shown(n) + "' (exercises: " + numbers + ")";
    }
    if (g["_BUILDING"].empty()) return "";

    // The goals that compile: the compiler and the architecture.
    const std::string nvcc_path = g["_NVCC_PATH"];
    if (nvcc_path.empty())
        return "NVCC: '" + shown(nvcc) + "' is not a program here: install the CUDA Toolkit and put its bin/ on PATH, or give NVCC=/path/to/nvcc";
    if (capture(sh_quote(nvcc_path) + " --version 2>/dev/null").find("Cuda compilation tools") == std::string::npos)
        return "NVCC: '" + shown(nvcc) + "' (" + shown(nvcc_path) + ") is not nvcc, the CUDA compiler: its --version does not say \"Cuda compilation tools\"";
    // nvcc itself says which targets it knows (nvcc --list-gpu-code; sm_90a, sm_100f and the like too).
    if (run(sh_quote(nvcc_path) + " " + g["_ARCH_FLAGS"] + " --dryrun -c -x cu /dev/null -o /dev/null >/dev/null 2>&1") != 0)
        return "ARCH=" + g["_ARCH_USED"] + ": nvcc " + shown(nvcc_path) + " does not know this target (its targets: " +
               capture(sh_quote(nvcc_path) + " --list-gpu-code 2>/dev/null") + ")";
    if (g["_ARCH_USED"] == "native" && g["_HAVE_GPU"].empty())
        return "ARCH=native compiles for the GPU of this machine, and nvidia-smi finds none: use ARCH=fat or a target such as ARCH=sm_89";

    // An exercise's sources are its own five and the ones its exercise.mk lists in SUPPORT; USES
    // names another exercise's source it is built with. Any other .cu or .cpp in the folder is
    // named in one line, by the make you typed (not again by the makes it runs).
    std::string notes;
    for (const auto& ex : exercises) {
        const Words support = words(g["SUPPORT." + ex]), uses = words(g["USES." + ex]);
        for (const auto& f : support) {
            const bool source = f.size() > 3 && (f.substr(f.size() - 3) == ".cu" || (f.size() > 4 && f.substr(f.size() - 4) == ".cpp"));
            if (source && !kOwnSources.count(f) && fs::is_regular_file(ex + "/" + f)) continue;
            return ex + "/exercise.mk: SUPPORT names " + f + ", " +
                   (kOwnSources.count(f) ? "which is always part of it" : source ? "which is not a file in " + ex + "/" : "which is not a .cu or .cpp file") +
                   ": it lists the exercise's own .cu and .cpp files besides starter.cu, solution.cu, main.cpp, tests.cpp and answers.cpp";
        }
        const std::string n = ex.substr(0, ex.find('_'));
        bool wanted = false;
        for (const auto& goal : goals)
            wanted = wanted || goal == "all" || goal == "check" || goal == "status" || goal == "sanitize" || number_of(goal) == n;
        if (!wanted) continue;
        for (const auto& f : uses) {
            if (f.size() > 3 && f.substr(f.size() - 3) == ".cu" && fs::is_regular_file(f)) continue;
            return ex + "/exercise.mk: USES names " + f + ", " +
                   (f.size() > 3 && f.substr(f.size() - 3) == ".cu"
                        ? "which this copy of the course does not have: " + ex + " is built with it (copy its exercise's folder too)"
                        : std::string("which is not a .cu file"));
        }
        if (g["_MAKELEVEL"] != "0") continue;
        Words others;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(ex, ec)) {
            const std::string name = e.path().filename().string(), ext = e.path().extension().string();
            if ((ext == ".cu" || ext == ".cpp") && e.is_regular_file() && !kOwnSources.count(name) &&
                std::find(support.begin(), support.end(), name) == support.end())
                others.push_back(shown(name, 400));
        }
        std::sort(others.begin(), others.end());
        std::string list;
        for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
        if (!list.empty())
            notes += "note: " + ex + "/ holds " + list + ", not part of the exercise (its exercise.mk lists its sources in SUPPORT): ignored\n";
    }
    std::fputs(notes.c_str(), stderr);
    return "";
}

// ARGS as words (see the top of this file); false, with the open quote and where, when one is left open.
bool split_args(const std::string& s, Words& out, std::string& kind, size_t& at) {
    std::string word;
    bool have = false;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
            else word += c;
        } else if (blank(c)) {
            if (have) out.push_back(word), word.clear(), have = false;
        } else {
            have = true;
            if (c == '\'' || c == '"') quote = c, at = i + 1;
            else word += c;
        }
    }
    if (quote) return kind = quote == '"' ? "double" : "single", false;
    if (have) out.push_back(word);
    return true;
}

}  // namespace

int settings(const Words& args) {
    if (args.size() != 1) return 2;
    const Given g{args[0]};
    const std::string why = problem(g);
    std::error_code ec;
    fs::remove_all(args[0], ec);
    if (!why.empty()) std::printf("%s\n", why.c_str());
    return why.empty() ? 0 : 2;
}

int run_program(Words args) {
    std::string timeout_s, record;
    unsetenv("COURSE_STEPS_LOG");
    while (!args.empty() && (args[0] == "--timeout" || args[0] == "--record")) {
        if (args[0] == "--timeout") {
            const char* t = std::getenv("TEST_TIMEOUT");
            timeout_s = t && *t ? t : "300";
            args.erase(args.begin());
        } else if (args.size() > 1) {
            record = args[1];
            args.erase(args.begin(), args.begin() + 2);
        } else {
            return 2;
        }
    }
    if (args.empty()) return 2;
    const std::string program = args[0];
    if (!record.empty()) {
        const char* dir = std::getenv("COURSE_PROGRESS_DIR");
        const std::string progress = dir && *dir ? dir : ".progress";
        std::error_code ec;
        fs::create_directories(progress, ec);  // if it cannot be made, the tests still run and say so
        setenv("COURSE_STEPS_LOG", (progress + "/" + record + ".steps").c_str(), 1);
    }
    const char* given = std::getenv("ARGS");
    std::string kind;
    size_t at = 0;
    if (given && !split_args(given, args, kind, at)) {
        std::fprintf(stderr, "make: ARGS has an unmatched %s quote (character %zu): every quote that opens a group of words must close it (got '%s')\n",
                     kind.c_str(), at, shown(given).c_str());
        return kExitBadInput;
    }
    std::vector<char*> argv;
    if (!timeout_s.empty()) {
        static std::string t, k = "-k", five = "5", name = "timeout";
        t = timeout_s;
        argv = {&name[0], &k[0], &five[0], &t[0]};
    }
    for (auto& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    std::fflush(stdout);
    if (timeout_s.empty()) {
        execv(program.c_str(), argv.data());
        std::perror(program.c_str());
        return 127;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        execvp("timeout", argv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 124 || rc == 137)
        std::printf("%s: stopped after %s s: a kernel is probably stuck (a deadlock or an endless loop)\n",
                    fs::path(program).parent_path().parent_path().filename().string().c_str(), timeout_s.c_str());
    return rc;
}
