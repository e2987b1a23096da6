// answers.h: where the answers to an exercise's predictions live.
//
// A prediction is a number the student works out on paper and writes in starter.cu (kTreeRounds96
// = -1 until then). Its answer is derived in plain code in the exercise's answers.cpp, a file the
// student opens only once the prediction passes (the README says so): not in tests.cpp, which
// the student reads, and never typed as a number anywhere in the reading path.
//
//   // NN_x/answers.cpp
//   const std::vector<Answer>& prediction_answers() {
//       static const std::vector<Answer> answers = {
//           {"kTreeRounds96", [] { ... return rounds; }},
//           {"kSaxpyFlopPerByte", [] { return 2.0 / 12; }, 0.03},  // within 3%
//       };
//       return answers;
//   }
//
// The tests check a constant against its answer by name (testing.h: check_prediction), and
// `make check` runs every test program with --check-reading-path to make sure that no answer
// stands in what a student reads before answering (reading_path_leaks below).
#pragma once

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

struct Answer {
    const char* name;              // the constant in starter.cu
    std::function<double()> derive;
    double rel_tol = 0;            // exact unless given
};

// Defined by the exercise's answers.cpp (a program without predictions gets an empty list).
const std::vector<Answer>& prediction_answers();

inline const Answer* find_answer(const std::string& name) {
    for (const Answer& a : prediction_answers())
        if (name == a.name) return &a;
    return nullptr;
}

namespace course_answers {

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The ways a number is written on a page: 402653184, 402,653,184; 0.167 and 0.1667 for a fraction.
inline std::vector<std::string> written_forms(double v) {
    std::vector<std::string> forms;
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        const long long i = (long long)v;
        forms.push_back(std::to_string(i));
        std::string digits = std::to_string(i < 0 ? -i : i), grouped;
        for (size_t k = 0; k < digits.size(); ++k) {
            if (k > 0 && (digits.size() - k) % 3 == 0) grouped += ',';
            grouped += digits[k];
        }
        if (grouped != digits) forms.push_back((i < 0 ? "-" : "") + grouped);
    } else {
        for (int digits : {2, 3, 4}) {
            std::snprintf(buf, sizeof buf, "%.*g", digits, v);
            forms.push_back(buf);
        }
    }
    return forms;
}

// Too common to tell a leak from a coincidence: numbers below 10 and powers of two.
inline bool too_common(double v) {
    const double a = std::fabs(v);
    if (a < 10) return true;
    if (a == std::floor(a) && a < 1e15) {
        const long long i = (long long)a;
        return (i & (i - 1)) == 0;
    }
    return false;
}

inline bool is_word_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// Does `form` stand in `text` as a number of its own (not part of a longer number or a name)?
inline int line_of(const std::string& text, const std::string& form) {
    for (size_t at = text.find(form); at != std::string::npos; at = text.find(form, at + 1)) {
        const char before = at > 0 ? text[at - 1] : ' ';
        const size_t end = at + form.size();
        const char after = end < text.size() ? text[end] : ' ';
        const char after2 = end + 1 < text.size() ? text[end + 1] : ' ';
        if (is_word_char(before) || before == '.' || before == ',') continue;
        if (is_word_char(after) || after == ',') continue;
        if (after == '.' && std::isdigit((unsigned char)after2)) continue;
        int line = 1;
        for (size_t k = 0; k < at; ++k) line += text[k] == '\n';
        return line;
    }
    return 0;
}

}  // namespace course_answers

// One line per answer found in the reading path: `files`, hints.md included (every level of a hint
// is read before the prediction is answered). Empty when nothing leaks.
inline std::vector<std::string> reading_path_leaks(const std::vector<std::string>& files) {
    using namespace course_answers;
    std::vector<std::string> leaks;
    for (const Answer& a : prediction_answers()) {
        const double v = a.derive();
        if (too_common(v)) continue;
        for (const std::string& path : files) {
            const std::string text = read_file(path);
            for (const std::string& form : written_forms(v))
                if (const int line = line_of(text, form)) {
                    leaks.push_back(path + ":" + std::to_string(line) + ": the answer to " + a.name + " (" + form +
                                    ") stands in the reading path");
                    break;
                }
        }
    }
    return leaks;
}
