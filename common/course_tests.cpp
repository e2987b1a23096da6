// course_tests.cpp: the course tool's own tests (`build/common/course test`, run by make check,
// GPU or not): make hint-NN and make status's hints column, through the real Makefile.
//   - In a scratch course of two made-up exercises (this common/ and this tool linked in), with
//     records of make test-NN written here: the next level, every level seen, STEP=, LEVEL=, the
//     first step not passed, merged progress, hints used, records in odd states (cut short, junk,
//     huge, a FIFO, a link), and bad input (no such exercise, step or level, each kind of
//     malformed hints.md): one line, exit 2, like every other target.
//   - make check's lint: sections against the declared steps, and each rule of the levels
//     (level 1 a question, no code statement in level 2, a /* ... */ hole in level 3's code).
//   - In this course: make test-NN with your starter records its run (first exercise, host cases
//     only), as a line of its own after a record cut short; with USE=solution it does not.
//   - The settings and run commands (settings.cpp) on their own: each setting's refusal, a value
//     ending in a line break or in x, ARGS split into words, a test program stopped by TEST_TIMEOUT.
// Ends with "course tool: N passed, N failed" (VERBOSE=1 also lists every case that passes), and
// leaves a suite record (course.cpp) where COURSE_RECORD says.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hints.h"
#include "json.h"
#include "records.h"

namespace fs = std::filesystem;

int run(const std::string& command);  // course.cpp
std::string sh_quote(const std::string& s);
std::string read_all(const std::string& path);

namespace {

struct Tally {
    int passed = 0, failed = 0;
    std::vector<std::string> failures;
    void pass(const std::string& name) {
        ++passed;
        if (std::getenv("VERBOSE")) std::printf("ok   %s\n", name.c_str());
    }
    void fail(const std::string& what) {
        ++failed;
        failures.push_back(what);
    }
    void same(const std::string& name, const std::string& got, const std::string& want) {
        if (got == want) pass(name);
        else fail(name + ": got '" + got + "', wanted '" + want + "'");
    }
};

std::string strip_trailing_breaks(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}
std::string first_line_of(const std::string& s) { return s.substr(0, s.find('\n')); }
int count_lines(const std::string& out) {
    const std::string s = strip_trailing_breaks(out);
    if (s.empty()) return 0;
    int n = 1;
    for (char c : s) n += c == '\n';
    return n;
}
std::string shown(const std::string& s, size_t max) {  // for a failure's message: one line
    std::string out = s.substr(0, max);
    for (char& c : out)
        if (c == '\n') c = '|';
    return out;
}
std::string flat(const std::string& s) {  // tr '\t\n' ':|'
    std::string out = s;
    for (char& c : out) c = c == '\t' ? ':' : c == '\n' ? '|' : c;
    return out;
}
void write(const std::string& path, const std::string& text, bool append = false) {
    std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    out << text;
}

struct Course {
    std::string root, tmp, dir;
    Tally t;

    struct Out {
        int rc;
        std::string out;
    };
    Out shell(const std::string& command) {
        const std::string file = tmp + "/out.txt";
        Out o;
        o.rc = run(command + " >" + sh_quote(file) + " 2>&1 </dev/null");
        o.out = strip_trailing_breaks(read_all(file));
        return o;
    }
    std::string make_words(const std::vector<std::string>& args) {
        std::string words = "make --no-print-directory -C " + sh_quote(dir) + " -f " + sh_quote(root + "/Makefile") +
                            " STEP= LEVEL= USE=starter";
        for (const auto& a : args) words += " " + sh_quote(a);
        return words;
    }
    Out make(const std::vector<std::string>& args) { return shell(make_words(args)); }

    // exit 0, the first line as given, and every needle somewhere in the output
    void expect(const std::string& name, const std::string& first, const std::vector<std::string>& needles,
                const std::vector<std::string>& args) {
        const Out o = make(args);
        if (o.rc != 0 || first_line_of(o.out) != first) {
            t.fail(name + ": make -> exit " + std::to_string(o.rc) + ", wanted first line '" + first + "': " + shown(o.out, 400));
            return;
        }
        for (const auto& n : needles)
            if (o.out.find(n) == std::string::npos) {
                t.fail(name + ": no '" + n + "' in: " + shown(o.out, 400));
                return;
            }
        t.pass(name);
    }
    // exit 2 and one line that holds the needle
    void refuse(const std::string& name, const std::string& needle, const std::vector<std::string>& args) {
        const Out o = shell("timeout -k 1 20 " + make_words(args));
        const int lines = count_lines(o.out);
        if (o.rc == 2 && lines == 1 && o.out.find(needle) != std::string::npos)
            t.pass(name);
        else
            t.fail(name + ": make -> exit " + std::to_string(o.rc) + ", " + std::to_string(lines) + " line(s), wanted '" + needle +
                   "': " + shown(o.out, 300));
    }
};

// A record of make test-NN's run, as the tests append it (records.h), for the steps of 71_alpha.
std::string record_of(const std::vector<std::string>& states) {
    static const char* names[] = {"one_block", "many_blocks", "grid_stride"};
    TestRecord r;
    for (size_t i = 0; i < states.size(); ++i) r.steps.push_back({(int)i + 1, names[i], states[i]});
    return r.json(true);
}

const char* kAlphaHints = R"(# Hints: 71_alpha
(served one level at a time by make hint-71)

## step 1 one_block
### level 1
Which thread writes which element?

### level 2
One thread per element: the thread's index is the element's.
### level 3
```
out[i] = f(x[i]);   # a fenced line that looks like a heading
```

## step 2 many_blocks
### level 1
How many blocks cover n?
### level 2
Round n / block up.

## step 3 grid_stride
### level 1
What if the grid is smaller than n?
### level 2
Loop with a stride of the whole grid.
)";

void hint_cases(Course& c) {
    Tally& t = c.t;
    const std::string alpha = c.dir + "/71_alpha", beta = c.dir + "/72_beta";
    fs::create_directories(alpha);
    fs::create_directories(beta);
    write(alpha + "/hints.md", kAlphaHints);
    const std::string steps = c.dir + "/.progress/71_alpha.steps", hints = c.dir + "/.progress/71_alpha.hints";
    const std::string h1 = "== 71_alpha · step 1 one_block · hint ", h2 = "== 71_alpha · step 2 many_blocks · hint ",
                      h3 = "== 71_alpha · step 3 grid_stride · hint ";

    // Next level, in order, with no test recorded yet: step 1.
    c.expect("first call: step 1, level 1", h1 + "1 of 3 ==",
             {"Which thread writes which element?", "no make test-71", "make hint-71 shows hint 2 of 3"}, {"hint-71"});
    c.expect("second call: level 2", h1 + "2 of 3 ==", {"One thread per element"}, {"hint-71"});
    c.expect("third call: level 3, near-code kept verbatim", h1 + "3 of 3 ==",
             {"out[i] = f(x[i]);   # a fenced line that looks like a heading", "That was the last hint of step 1 one_block"},
             {"hint-71"});
    c.expect("fourth call: all seen", "You have seen all 3 hints of step 1 one_block (71_alpha).", {}, {"hint-71"});
    t.same("hints recorded, one line per hint shown", flat(read_all(hints)),
           "step 1 one_block:1|step 1 one_block:2|step 1 one_block:3|");

    // Progress: the first step not passed, from the recorded runs (later ok/failed win, "not run"
    // changes nothing).
    fs::create_directories(c.dir + "/.progress");
    write(steps, record_of({"ok", "failed", "failed"}) + "\n");
    c.expect("progress: the first step that fails", h2 + "1 of 2 ==",
             {"How many blocks cover n?", "the first step that has not passed make test-71 yet"}, {"hint-71"});
    write(steps, record_of({"not run", "ok", "not run"}) + "\n", true);
    c.expect("progress: merged over runs", h3 + "1 of 2 ==", {}, {"hint-71"});
    write(steps, record_of({"ok", "ok", "ok"}) + "\n", true);
    c.expect("progress: every step passes", "Every step of 71_alpha passed your last make test-71: no hint needed.", {}, {"hint-71"});
    c.refuse("progress: LEVEL with every step passed asks for STEP", "say which step's hint with STEP=K", {"hint-71", "LEVEL=1"});
    write(steps, record_of({"failed", "not run", "needs a GPU"}) + "\n", true);
    c.expect("progress: a step that fails again", "You have seen all 3 hints of step 1 one_block (71_alpha).", {}, {"hint-71"});

    // STEP= and LEVEL=
    c.expect("STEP=2: that step's next level", h2 + "2 of 2 ==", {"Round n / block up.", "That was the last hint of step 2 many_blocks"},
             {"hint-71", "STEP=2"});
    c.expect("STEP=02 is step 2", h2 + "1 of 2 ==", {}, {"hint-71", "STEP=02", "LEVEL=1"});
    c.expect("STEP by name", h3 + "2 of 2 ==", {}, {"hint-71", "STEP=grid_stride"});
    c.expect("LEVEL=2 shows level 2 again", h1 + "2 of 3 ==", {}, {"hint-71", "LEVEL=2"});
    c.expect("STEP=3 LEVEL=1", h3 + "1 of 2 ==", {"What if the grid is smaller than n?"}, {"hint-71", "STEP=3", "LEVEL=1"});
    fs::remove(hints);
    c.expect("LEVEL=3 counts as seen, and the next call shows level 1", h1 + "3 of 3 ==", {"make hint-71 shows hint 1 of 3"},
             {"hint-71", "LEVEL=3"});
    c.expect("... level 1", h1 + "1 of 3 ==", {}, {"hint-71"});

    // make status: hints used, per step (the made-up exercises do not build: their row says so)
    const std::string used_records =
        "step 3 grid_stride\t1\nstep 3 grid_stride\t2\nstep 1 one_block\t2\nstep 1 one_block\t1\nstep 3 grid_stride\t1\n";
    write(hints, used_records);
    const fs::path here = fs::current_path();
    fs::current_path(c.dir);
    t.same("hints used", hints::used(".progress", "71_alpha"), "4 (step 1: 2, step 3: 2)");
    t.same("hints used: none", hints::used(".progress", "72_beta"), "none");
    fs::current_path(here);
    c.expect("make status shows hints used", "| exercise             | builds   | steps passed   | test cases                       | hints used",
             {"| 71_alpha             | NO       | -              | see build/status-71_alpha.log    | 4 (step 1: 2, step 3: 2)"},
             {"status"});
    // ... only of the steps hints.md has: junk records (control bytes, no such step, level 0) are not counted
    write(hints, "\x1b[2Jjunk\t1\nstep 9 nowhere\t1\nstep 1 one_block\t0\nstep 1 one_block\t\x1b[2J\n", true);
    fs::current_path(c.dir);
    t.same("hints used: junk records are not counted", hints::used(".progress", "71_alpha"), "4 (step 1: 2, step 3: 2)");
    fs::current_path(here);

    // The progress records, in odd states: read in one bounded pass; a line that does not read
    // whole is ignored; what is not a regular file is neither read nor written (nor waited on).
    fs::remove(hints);
    const std::string cut = record_of({"ok", "ok", "ok"}).substr(0, 60);
    write(steps, cut + "\n" + record_of({"ok", "ok", "failed"}) + "\n");
    c.expect("a record cut short is ignored, the next one counts", h3 + "1 of 2 ==", {}, {"hint-71"});
    write(steps, cut + record_of({"failed", "failed", "failed"}) + "\n", true);
    c.expect("a line that does not read whole is ignored", h3 + "2 of 2 ==", {}, {"hint-71"});
    const std::string all_ok = record_of({"ok", "ok", "ok"});
    std::string wrong_count = all_ok;
    wrong_count.replace(wrong_count.find("\"steps_passed\":3"), 16, "\"steps_passed\":1");
    std::string wrong_state = all_ok;
    wrong_state.replace(wrong_state.find("\"state\":\"ok\""), 12, "\"state\":\"maybe\"");
    for (const std::string& bad : {wrong_count, wrong_state, all_ok + "\x1b[2J", all_ok.substr(0, all_ok.size() - 1)})
        write(steps, bad + "\n", true);
    c.expect("records of the wrong count, state or end are ignored", "You have seen all 2 hints of step 3 grid_stride (71_alpha).", {},
             {"hint-71"});
    fs::remove(hints);
    {
        std::ofstream out(steps, std::ios::binary | std::ios::trunc);
        const std::string one = record_of({"ok", "failed", "not run"}) + "\n";
        for (int i = 0; i < 100000; ++i) out << one;
        const std::string junk(1 << 20, 'j');
        for (int i = 0; i < 64; ++i) out << junk;
        out << "\n";
    }
    const auto start = std::chrono::steady_clock::now();
    const Course::Out big = c.shell("ulimit -v 200000; " + c.make_words({"hint-71"}));
    const long ms = (long)std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (first_line_of(big.out) == h1 + "1 of 3 ==" && ms < 2000 &&
        big.out.find("holds no readable record of make test-71 in its last 8 MB") != std::string::npos)
        t.pass("100,000 records, then a 64 MB line: read in " + std::to_string(ms) + " ms, under 200 MB, and said so");
    else
        t.fail("100,000 records and a 64 MB line: " + std::to_string(ms) + " ms: " + shown(big.out, 300));
    write(steps, record_of({"ok", "failed", "not run"}) + "\n", true);
    c.expect("... and a record after it counts", h2 + "1 of 2 ==", {}, {"hint-71"});
    fs::remove(steps);
    fs::remove(hints);
    run("mkfifo " + sh_quote(steps) + " " + sh_quote(hints));
    const Course::Out fifo = c.shell("timeout -k 1 20 " + c.make_words({"hint-71"}));
    if (fifo.rc == 0 && first_line_of(fifo.out) == h1 + "1 of 3 ==" &&
        fifo.out.find("(could not record this hint in '.progress/71_alpha.hints' (it is not a regular file): make hint-71 will show it again)") !=
            std::string::npos)
        t.pass("FIFOs at the records: not read, not written, not waited on");
    else
        t.fail("FIFOs at the records -> exit " + std::to_string(fifo.rc) + ": " + shown(fifo.out, 300));
    fs::remove(steps);
    fs::remove(hints);
    write(c.tmp + "/elsewhere.txt", "keep\n");
    fs::create_symlink(c.tmp + "/elsewhere.txt", hints);
    c.expect("a link at the hints record is not written through", h1 + "1 of 3 ==", {"(it is a symbolic link)"}, {"hint-71"});
    t.same("... and its file is as it was", read_all(c.tmp + "/elsewhere.txt"), "keep\n");
    fs::remove(hints);
    write(hints, "step 1 one_block\t1");  // a record cut short of its line break
    c.expect("after a hints record cut short, the next is a line of its own", h1 + "2 of 3 ==", {}, {"hint-71"});
    t.same("... written as one", flat(read_all(hints)), "step 1 one_block:1|step 1 one_block:2|");
    write(hints, used_records);

    // Bad input: one line, exit 2, nothing shown
    c.refuse("no such exercise", "there is no exercise '7' (exercises: 71 72)", {"hint-7"});
    c.refuse("no such exercise (letters)", "there is no exercise 'x1'", {"hint-x1"});
    c.refuse("no exercise named", "say which exercise's hint: make hint-NN", {"hint"});
    for (const std::string v : {"0", "4", "9", "abc", "-1", "1 2", "';id;'"})
        c.refuse("STEP='" + v + "'", "STEP must be a step of 71_alpha: a number from 1 to 3 or a name (got '" + v + "')",
                 {"hint-71", "STEP=" + v});
    for (const std::string v : {"0", "4", "abc", "-1", "1.5", "2x", "9999999"})
        c.refuse("LEVEL='" + v + "'", "LEVEL must be a hint level of step 1 one_block of 71_alpha: 1 to 3 (got '" + v + "')",
                 {"hint-71", "STEP=1", "LEVEL=" + v});
    c.refuse("LEVEL past a two-level step", "1 to 2 (got '3')", {"hint-71", "STEP=2", "LEVEL=3"});
    c.refuse("no hints.md", "72_beta has no hints.md", {"hint-72"});
    t.same("a refused call records nothing", std::to_string(count_lines(read_all(hints))), "5");

    // Malformed hints.md: one line naming the file, the line and the problem
    auto malformed = [&](const std::string& needle, const std::string& content) {
        write(beta + "/hints.md", content);
        c.refuse("malformed: " + needle, needle, {"hint-72"});
    };
    const std::string ok = "### level 1\nq?\n### level 2\nidea\n";
    malformed("72_beta/hints.md:1: the file is empty", "");
    malformed("72_beta/hints.md:1: the first line must be a title \"# Hints: 72_beta\"", "# Notes\n## step 1 a\n" + ok);
    malformed("72_beta/hints.md:2: no \"## step N name\" section", "# Hints: 72_beta\nintro only\n");
    malformed("72_beta/hints.md:2: \"## step 2 a\": expected step 1 here", "# Hints: 72_beta\n## step 2 a\n" + ok);
    malformed("72_beta/hints.md:7: \"## step 3 b\": expected step 2 here", "# Hints: 72_beta\n## step 1 a\n" + ok + "## step 3 b\n" + ok);
    malformed("72_beta/hints.md:2: step 1 a has 1 hint level: every step needs at least two", "# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n");
    malformed("72_beta/hints.md:2: step 1 a has 0 hint levels", "# Hints: 72_beta\n## step 1 a\n## step 2 b\n");
    malformed("72_beta/hints.md:5: \"### level 3\" in step 1 a: expected ### level 2 here",
              "# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### level 3\nx\n");
    malformed("72_beta/hints.md:3: ### level 1 of step 1 a is empty", "# Hints: 72_beta\n## step 1 a\n### level 1\n\n### level 2\nx\n");
    malformed("72_beta/hints.md:3: text before \"### level 1\" of step 1 a", "# Hints: 72_beta\n## step 1 a\nstray\n" + ok);
    malformed("72_beta/hints.md:2: \"## Step 1 a\": the only headings are", "# Hints: 72_beta\n## Step 1 a\n" + ok);
    malformed("72_beta/hints.md:5: \"### Level 2\": the only headings are", "# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### Level 2\nx\n");
    malformed("72_beta/hints.md:2: \"### level 1\" before any \"## step N name\" section", "# Hints: 72_beta\n### level 1\nq?\n");
    malformed("72_beta/hints.md:4: level 1 of step 1 a holds code (a `...` span)",
              "# Hints: 72_beta\n## step 1 a\n### level 1\nIs `i < n` enough?\n### level 2\nx\n");
    malformed("72_beta/hints.md:4: level 1 of step 1 a holds a code block", "# Hints: 72_beta\n## step 1 a\n### level 1\n```\nx\n```\n### level 2\nx\n");
    malformed("72_beta/hints.md:6: a code block opened here is never closed", "# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### level 2\n```\nx\n");
    malformed("72_beta/hints.md:2: a step name cannot hold", "# Hints: 72_beta\n## step 1 a: b\n" + ok);
    // ... and a well-formed one with Windows line ends, a "####" line and a "#" inside code
    write(beta + "/hints.md", "# Hints: 72_beta\r\n## step 1 a\r\n### level 1\r\nq?\r\n### level 2\r\n```\r\n# not a heading\r\n```\r\n#### a sub-heading\r\n");
    c.expect("CRLF, #### and # in code are fine", "== 72_beta · step 1 a · hint 2 of 2 ==", {"# not a heading", "#### a sub-heading"},
             {"hint-72", "LEVEL=2"});
}

void lint_cases(Course& c) {
    Tally& t = c.t;
    const std::string beta = c.dir + "/72_beta";
    const fs::path here = fs::current_path();
    fs::current_path(c.dir);  // the lint names files as make check does: 72_beta/hints.md
    auto lint = [](const std::vector<std::string>& declared) { return hints::lint("72_beta", declared); };
    const std::string ok3 =
        "### level 1\nq?\n### level 2\nthe idea, with `i < n`, `a == b`, `i <= n`, `a >= b`, `x != y` and half = n / 2 in prose\n"
        "### level 3\n```\nfor (...) /* the key line */;\n```\n";
    write(beta + "/hints.md", "# Hints: 72_beta\n## step 1 a\n" + ok3 + "## step 2 b\n" + ok3);
    t.same("lint: matching steps", lint({"step 1 a", "step 2 b"}), "");
    for (const auto& declared : std::vector<std::vector<std::string>>{{"step 1 a", "step 2 b", "step 3 c"}, {"step 1 a"}, {"step 1 a", "step 2 bb"}}) {
        std::string name = "lint:";
        for (const auto& d : declared) name += " " + d;
        const std::string out = lint(declared);
        if (out.find("72_beta/hints.md: its sections (step 1 a, step 2 b) are not the steps its tests declare") != std::string::npos)
            t.pass(name);
        else
            t.fail(name + ": said '" + out + "'");
    }
    auto refuses = [&](const std::string& name, const std::string& content, const std::vector<std::string>& needles) {
        write(beta + "/hints.md", content);
        const std::string out = lint({"step 1 a"});
        if (out.empty()) return t.fail("lint passed: " + name);
        for (const auto& n : needles)
            if (out.find(n) == std::string::npos) return t.fail("lint, " + name + ": no '" + n + "' in: " + out);
        t.pass("lint refuses: " + name);
    };
    auto accepts = [&](const std::string& name, const std::string& content) {
        write(beta + "/hints.md", content);
        t.same("lint accepts: " + name, lint({"step 1 a"}), "");
    };
    const std::string head = "# Hints: 72_beta\n## step 1 a\n", l1 = "### level 1\nq?\n", l3 = "### level 3\n`f(/* the key */)`\n";
    refuses("no level 3", head + l1 + "### level 2\nidea\n", {"72_beta/hints.md:2: step 1 a has no ### level 3"});
    refuses("level 1 without a question", head + "### level 1\nLook at it.\n### level 2\nidea\n" + l3,
            {"72_beta/hints.md:3: level 1 of step 1 a asks no question"});
    refuses("level 2 with a code block", head + l1 + "### level 2\n```\nx\n```\n" + l3, {"72_beta/hints.md:6: level 2 of step 1 a holds a code block"});
    for (const std::string span : {"f(x);", "i = 0", "s += x", "v >>= 1", "{1, x, 0}", "if (a) {"})
        refuses("level 2 with `" + span + "`", head + l1 + "### level 2\nthe idea: `" + span + "`\n" + l3,
                {"72_beta/hints.md:6: level 2 of step 1 a holds a code statement (`" + span + "`)"});
    refuses("a statement in a span over two lines", head + l1 + "### level 2\nthe idea: `s\n+= x` and more\n" + l3,
            {"72_beta/hints.md:6: level 2 of step 1 a holds a code statement (`s += x`)"});
    refuses("a statement in a double-backtick span", head + l1 + "### level 2\nthe idea: ``a `b` = c``\n" + l3,
            {"level 2 of step 1 a holds a code statement (`a `b` = c`)"});
    refuses("level 3 without a hole", head + l1 + "### level 2\nidea\n### level 3\n```\nfor (;;) f();\n```\n",
            {"72_beta/hints.md:7: level 3 of step 1 a leaves no hole"});
    refuses("level 3 with a hole in prose only", head + l1 + "### level 2\nidea\n### level 3\nwrite /* this */ here, `f(x)`\n",
            {"level 3 of step 1 a leaves no hole"});
    refuses("a hole in level 4 does not count", head + l1 + "### level 2\nidea\n### level 3\nnear\n### level 4\n`f(/* x */)`\n",
            {"level 3 of step 1 a leaves no hole"});
    refuses("every problem, one line each", head + "### level 1\nLook.\n### level 2\n`x = 1`\n## step 2 b\n" + l1 + "### level 2\nidea\n",
            {"level 1 of step 1 a asks no question", "level 2 of step 1 a holds a code statement (`x = 1`)", "step 1 a has no ### level 3",
             "step 2 b has no ### level 3"});
    accepts("a hole over several lines of a code block",
            head + l1 + "### level 2\nidea\n### level 3\n```\nfor (;;) {\n    /* the key\n       line */\n}\n```\n");
    accepts("a hole in a span, a later level with anything", head + l1 + "### level 2\nan idea; in words = fine\n" + l3 + "### level 4\n```\nx = 1;\n```\n");
    accepts("a backtick alone is no span", head + l1 + "### level 2\nthe ` key and the idea\n" + l3);
    fs::current_path(here);
    // The lint needs the steps the tests declare: with no test program to ask, it fails.
    const Course::Out none = c.shell("cd " + sh_quote(c.dir) + " && " + sh_quote(c.dir + "/build/common/course") + " hint lint 72_beta");
    if (none.rc != 0 && none.out.find("left no record of its steps") != std::string::npos)
        t.pass("lint: no record of the steps");
    else
        t.fail("lint with no test program -> exit " + std::to_string(none.rc) + ": " + shown(none.out, 300));
}

// This course: make test-NN records its run, a whole line after a record cut short.
void record_cases(Course& c) {
    Tally& t = c.t;
    std::vector<std::string> folders;
    for (const auto& e : fs::directory_iterator(c.root)) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name.size() > 3 && std::isdigit((unsigned char)name[0]) && std::isdigit((unsigned char)name[1]) && name[2] == '_')
            folders.push_back(name);
    }
    if (folders.empty()) return;
    std::sort(folders.begin(), folders.end());
    const std::string first = folders[0], n = first.substr(0, 2);
    const std::string progress = c.tmp + "/progress", file = progress + "/" + first + ".steps";
    auto test = [&](const std::string& use, const std::string& dir) {
        return c.shell("make --no-print-directory -C " + sh_quote(c.root) + " test-" + n + " USE=" + use +
                       " REQUIRE_GPU=0 ARGS=-tse=gpu COURSE_PROGRESS_DIR=" + sh_quote(dir));
    };
    auto last_record = [&](size_t line) {  // the record on line `line` (from 1), read whole
        const std::vector<std::string> lines = hints::records(file);
        TestRecord r;
        return line <= lines.size() && TestRecord::read(lines[line - 1], r) && !r.steps.empty() && r.steps[0].number == 1;
    };
    const Course::Out out = test("starter", progress);
    if (last_record(1) && hints::records(file).size() == 1)
        t.pass("make test-" + n + " records its run");
    else
        t.fail("make test-" + n + " USE=starter did not record its run in " + file + ": " + shown(out.out.substr(out.out.size() > 300 ? out.out.size() - 300 : 0), 300));
    test("solution", c.tmp + "/progress2");
    if (fs::exists(c.tmp + "/progress2")) t.fail("make test-" + n + " USE=solution recorded progress");
    else t.pass("USE=solution records nothing");
    // After a record cut short (a full disk, a crash), the next run's record is a whole line of its own.
    write(file, "{\"record\":\"tests\",\"steps\":[{\"number\":1,\"na");
    test("starter", progress);
    const std::vector<std::string> lines = hints::records(file);
    if (lines.size() == 2 && lines[0] == "{\"record\":\"tests\",\"steps\":[{\"number\":1,\"na" && last_record(2))
        t.pass("make test-" + n + " after a record cut short: its record is a line of its own");
    else
        t.fail("make test-" + n + " after a record cut short: " + shown(read_all(file), 300));
}


// The course tool's settings and run commands (settings.cpp), on their own: make hands the settings
// over in a folder of files, each value followed by an x; run splits ARGS into words.
void settings_cases(Course& c, const std::string& self) {
    Tally& t = c.t;
    const std::vector<std::pair<std::string, std::string>> fine = {
        {"USE", "starter"}, {"REQUIRE_GPU", "0"}, {"REQUIRE_GPUS", "0"}, {"V", "0"}, {"TEST_TIMEOUT", "300"}, {"JOBS", "2"},
        {"NVCC", "nvcc"}, {"ARCH", "auto"}, {"_EXERCISES", "71_alpha"}, {"_goals", "help"}, {"_SETTINGS", "USE ARCH"}};
    auto check = [&](const std::string& name, const std::vector<std::pair<std::string, std::string>>& changed, const std::string& want) {
        const std::string dir = c.tmp + "/settings";
        fs::create_directories(dir);
        for (const auto& [k, v] : fine) write(dir + "/" + k, v + "x\n");
        for (const auto& [k, v] : changed) write(dir + "/" + k, v + "x\n");
        const Course::Out o = c.shell(sh_quote(self) + " settings " + sh_quote(dir));
        if (o.out == want && o.rc == (want.empty() ? 0 : 2) && !fs::exists(dir)) t.pass(name);
        else t.fail(name + ": exit " + std::to_string(o.rc) + ", got '" + shown(o.out, 300) + "', wanted '" + want + "'");
    };
    check("settings: the defaults pass", {}, "");
    check("settings: a value ending in x arrives whole", {{"STEP", "x"}}, "");
    check("settings: a name that is no setting", {{"_not_settings", "FOO BAR"}},
          "'FOO' is not a setting of this course: its settings are USE ARCH (make help lists the common ones)");
    check("settings: a blank after the value", {{"USE", "solution "}}, "USE must be starter or solution (got 'solution ')");
    check("settings: a line break at the end", {{"TEST_TIMEOUT", "3\n"}},
          "TEST_TIMEOUT must be a whole number of seconds from 1 to 999999 (got '3\\x0A')");
    check("settings: a leading zero", {{"JOBS", "02"}}, "JOBS must be a whole number of parallel compiles from 1 to 999999 (got '02')");
    check("settings: STEP on two lines", {{"STEP", "1\n2"}}, "STEP must be one line (got '1\\x0A2')");
    check("settings: a quote in ARCH", {{"ARCH", "sm_90'"}}, "ARCH must be auto, native, fat or a target such as sm_89 (got 'sm_90'')");
    check("settings: no such exercise", {{"_goals", "help run-7"}}, "there is no exercise '7' (exercises: 71)");
    // run: ARGS's words after the program's own; quotes group, nothing else is special.
    auto run_with = [&](const std::string& args, const std::string& words) {
        return c.shell("ARGS=" + sh_quote(args) + " " + sh_quote(self) + " run " + words);
    };
    Course::Out o = run_with("a \"b c\" 'd\"e' $HOME;x", "/usr/bin/printf '%s|'");
    t.same("run: ARGS split at blanks outside quotes", o.out, "a|b c|d\"e|$HOME;x|");
    o = run_with("--n \"5", "/usr/bin/printf '%s|'");
    t.same("run: a quote left open", std::to_string(o.rc) + " " + o.out,
           "2 make: ARGS has an unmatched double quote (character 5): every quote that opens a group of words must close it (got '--n \"5')");
    fs::create_directories(c.tmp + "/build/71_alpha/solution");  // a test program that hangs
    write(c.tmp + "/build/71_alpha/solution/tests", "#!/bin/sh\nsleep 5\n");
    fs::permissions(c.tmp + "/build/71_alpha/solution/tests", fs::perms(0755));
    o = c.shell("TEST_TIMEOUT=1 " + sh_quote(self) + " run --timeout " + sh_quote(c.tmp + "/build/71_alpha/solution/tests"));
    t.same("run --timeout: a program stopped after TEST_TIMEOUT", std::to_string(o.rc) + " " + o.out,
           "124 71_alpha: stopped after 1 s: a kernel is probably stuck (a deadlock or an endless loop)");
}
}  // namespace

int self_test(const std::string& self) {
    Course c;
    c.root = fs::current_path().string();
    if (!fs::exists(c.root + "/common/course.cpp")) {
        std::printf("course test: run it in the course's folder (make check does)\n");
        return 2;
    }
    std::string pattern = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) + "/course-test.XXXXXX";
    if (!mkdtemp(&pattern[0])) {
        std::printf("course test: cannot make a scratch folder\n");
        return 2;
    }
    c.tmp = pattern;
    c.dir = c.tmp + "/course";
    // An enclosing make check passes its settings on (ARCH must stay, or this course's build would
    // start over); STEP, LEVEL and USE are set on every command line here instead.
    const std::string record = std::getenv("COURSE_RECORD") ? std::getenv("COURSE_RECORD") : "";
    for (const char* v : {"STEP", "LEVEL", "COURSE_PROGRESS_DIR", "COURSE_STEPS_LOG", "COURSE_RECORD", "HINT_SETTINGS"}) unsetenv(v);
    setenv("REQUIRE_GPU", "0", 1);
    // The scratch course: this common/, and this tool as its own (so that make builds nothing).
    fs::create_directories(c.dir + "/build/common");
    fs::create_symlink(c.root + "/common", c.dir + "/common");
    fs::create_symlink(self, c.dir + "/build/common/course");
    hint_cases(c);
    lint_cases(c);
    record_cases(c);
    settings_cases(c, self);
    std::error_code ec;
    fs::remove_all(c.tmp, ec);

    for (const auto& f : c.t.failures) std::printf("course tool FAILED: %s\n", f.c_str());
    std::printf("course tool: %d passed, %d failed\n", c.t.passed, c.t.failed);
    if (!record.empty()) {
        std::ofstream out(record, std::ios::binary | std::ios::trunc);
        out << "{\"record\":\"suite\",\"name\":\"course tool\",\"cases\":{\"passed\":" << c.t.passed << ",\"failed\":" << c.t.failed
            << ",\"skipped\":0},\"groups\":[],\"skips\":[],\"failures\":" << json::strings(c.t.failures) << "}\n";
    }
    return c.t.failed == 0 ? 0 : 1;
}
