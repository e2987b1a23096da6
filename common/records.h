// records.h: the record a test program leaves for the course's tools, written and read here
// only. A test program prints its lines for people ("steps: 2 of 3 passed (...)", "result: ...");
// the tools (build/common/course: make status, make check, make hint-NN) read this record instead,
// one JSON object on one line:
//
//   {"record":"tests","steps":[{"number":1,"name":"one_block","state":"ok"},...],"steps_passed":1,
//    "cases":{"passed":12,"failed":5,"skipped":3},"no_gpu":"why","skips":["why",...],"errors":[...]}
//
// state: "ok", "failed", "needs a GPU" (its GPU cases could not run here) or "not run".
// no_gpu: present when the GPU cases were left out, and why. skips: each SKIP_CASE reason once.
// errors: what stopped the suite before it ran. matching: with --count, the cases the filters pass.
// It goes to the file COURSE_RECORD names (the tools set it), and, without skips and errors, as
// one more line of the progress record that COURSE_STEPS_LOG names (make test-NN with your
// starter; make hint-NN reads it). An exercise program's record is measure.h's.
#pragma once

#include <string>
#include <vector>

#include "json.h"
#include "steps.h"

struct StepOutcome {
    int number = 0;
    std::string name;
    std::string state;  // ok, failed, needs a GPU, not run
    std::string label() const { return step_label(number, name); }
};

struct TestRecord {
    std::vector<StepOutcome> steps;
    int passed = 0, failed = 0, skipped = 0;
    std::string no_gpu;
    std::vector<std::string> skips, errors;
    long long matching = -1;

    int steps_passed() const {
        int n = 0;
        for (const auto& s : steps) n += s.state == "ok";
        return n;
    }
    // The lines for people, made from the record (test_main.cpp prints them; the tools repeat them).
    std::string steps_detail() const {  // "step 1 one_block: ok; step 2 many_blocks: FAILED"
        std::string detail;
        for (const auto& s : steps) {
            const std::string shown = s.state == "failed" ? "FAILED" : s.state == "needs a GPU" ? "not run (needs a GPU)" : s.state;
            detail += (detail.empty() ? "" : "; ") + s.label() + ": " + shown;
        }
        return detail;
    }
    std::string steps_count() const {  // "2 of 3 passed"
        return std::to_string(steps_passed()) + " of " + std::to_string(steps.size()) + " passed";
    }
    std::string counts() const {  // "12 passed, 5 failed, 3 skipped"
        return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed, " + std::to_string(skipped) +
               " skipped";
    }

    // One line; `progress`: the smaller record of the progress file (no skips, no errors).
    std::string json(bool progress = false) const {
        std::vector<std::string> items;
        for (const auto& s : steps)
            items.push_back("{\"number\":" + std::to_string(s.number) + ",\"name\":" + json::quote(s.name) +
                            ",\"state\":" + json::quote(s.state) + "}");
        std::string out = "{\"record\":\"tests\",\"steps\":" + json::list(items) +
                          ",\"steps_passed\":" + std::to_string(steps_passed()) + ",\"cases\":{\"passed\":" +
                          std::to_string(passed) + ",\"failed\":" + std::to_string(failed) +
                          ",\"skipped\":" + std::to_string(skipped) + "}";
        if (!no_gpu.empty()) out += ",\"no_gpu\":" + json::quote(no_gpu);
        if (!progress) {
            out += ",\"skips\":" + json::strings(skips) + ",\"errors\":" + json::strings(errors);
            if (matching >= 0) out += ",\"matching\":" + std::to_string(matching);
        }
        return out + "}";
    }

    // A record as json() writes it, checked whole: the steps numbered 1, 2, ... with a name and a
    // known state, steps_passed and the counts as they must be. False for anything else.
    static bool read(const std::string& text, TestRecord& out) {
        json::Value v;
        out = TestRecord();
        if (!json::parse(text, v) || !v.is_object() || v["record"].text != "tests" || !v["steps"].is_array()) return false;
        for (size_t i = 0; i < v["steps"].items.size(); ++i) {
            const json::Value& s = v["steps"][i];
            StepOutcome o;
            o.number = (int)s["number"].whole(1, 1000000);
            o.name = s["name"].text;
            o.state = s["state"].text;
            const bool known = o.state == "ok" || o.state == "failed" || o.state == "needs a GPU" || o.state == "not run";
            if (o.number != (int)i + 1 || o.name.empty() || !s["name"].is_string() || !known) return false;
            out.steps.push_back(o);
        }
        const json::Value& c = v["cases"];
        out.passed = (int)c["passed"].whole(0, 1 << 30);
        out.failed = (int)c["failed"].whole(0, 1 << 30);
        out.skipped = (int)c["skipped"].whole(0, 1 << 30);
        if (out.passed < 0 || out.failed < 0 || out.skipped < 0) return false;
        if (v["steps_passed"].whole(0, 1000000) != out.steps_passed()) return false;
        out.no_gpu = v["no_gpu"].text;
        for (const auto* list : {&v["skips"], &v["errors"]})
            for (const auto& item : list->items) (list == &v["skips"] ? out.skips : out.errors).push_back(item.text);
        out.matching = v["matching"].whole(0, 1LL << 40);
        return true;
    }
};
