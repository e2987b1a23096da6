// steps.h: an exercise's steps, declared once in its header and read by everything else.
//
//   inline const Step<ScaleFn> kSteps[] = {{1, "one_block", run_one_block_any_block},
//                                          {2, "many_blocks", run_many_blocks}, ...};
//
// The program's --kernel choices, which of its options matter to which step, its table rows, the test cases ("step 2 many_blocks: ...") and
// the "steps: N of M passed" summary all come from this one list.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

// What a step is besides its launcher: its size limit, why it skips a size, its traffic model,
// what it takes. Each exercise that has such facts declares its own Info struct, so that no
// code branches on a step's number, name or function pointer.
struct NoInfo {};

// A prediction the student works out on paper and writes in starter.cu (kRadixBytesPerKey,
// -1 until then) whose answer a column of the program's table would print, such as a model's bytes per key.
// The program shows that cell only once the prediction is right, so that running the starter
// gives no answer away; the tests say whether it is right (testing.h: check_prediction).
struct Prediction {
    const char* name = nullptr;        // nullptr: the cell answers no prediction
    const long long* value = nullptr;  // the student's constant
    // `cell`, or "? (kRadixBytesPerKey)" while the prediction is not `answer`.
    std::string shown(const std::string& cell, double answer) const {
        return !value || (double)*value == answer ? cell : std::string("? (") + name + ")";
    }
};

template <class Fn, class Info = NoInfo>
struct Step {
    int number;        // as in the TODOs: TODO(step 2)
    const char* name;  // as in --kernel and the test names
    Fn run;            // the launcher the student writes (or an adapter to it): one meaning everywhere
    Info info{};       // the exercise's facts about this step
    const char* options = "";  // the program's options that matter to this step (and the steps that name
                               // them too) alone, e.g. "--rows --cols": with --kernel naming another step, refused
};

// How a step is named everywhere: "step 2 many_blocks". Its test cases are "step 2 many_blocks:
// what they check" (testing.h), and test_main.cpp counts each case for the step step_of_case()
// finds in its name; the course's tools read its record of the steps (records.h), never its lines.
inline std::string step_label(int number, const std::string& name) {
    return "step " + std::to_string(number) + " " + name;
}
// "step 2 many_blocks: n = 10000" -> "step 2 many_blocks"; "" for a case of no step ("host: ...").
inline std::string step_of_case(const std::string& case_name) {
    if (case_name.rfind("step ", 0) != 0) return "";
    return case_name.substr(0, case_name.find(':'));
}

template <class Fn, class Info, size_t N>
std::vector<std::string> step_names(const Step<Fn, Info> (&steps)[N]) {
    std::vector<std::string> names;
    for (const auto& s : steps) names.push_back(s.name);
    return names;
}
