// steps.h: an exercise's steps, declared once in its header and read by everything else.
//
//   inline const Step<ScaleFn> kSteps[] = {{1, "one_block", run_one_block_any_block},
//                                          {2, "many_blocks", run_many_blocks}, ...};
//
// The program's --kernel choices, its table rows, the test cases ("step 2 many_blocks: ...") and
// the "steps: N of M passed" summary all come from this one list.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

template <class Fn>
struct Step {
    int number;        // as in the TODOs: TODO(step 2)
    const char* name;  // as in --kernel and the test names
    Fn run;            // the launcher the student writes (or an adapter to it)
};

template <class Fn, size_t N>
std::vector<std::string> step_names(const Step<Fn> (&steps)[N]) {
    std::vector<std::string> names;
    for (const auto& s : steps) names.push_back(s.name);
    return names;
}
