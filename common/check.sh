#!/usr/bin/env bash
# check.sh (run by `make check` after everything is built): for each exercise,
#   1. the committed starter.cu must equal the one generated from solution.cu (under CI or
#      STRICT_STARTERS=1 a difference is an error; otherwise a note, since students edit theirs);
#   2. the tests pass against solution.cu;
#   3. on a GPU, the tests FAIL against the untouched starter: a suite that passes on it
#      could not tell a finished exercise from an unfinished one;
#   and its hints.md (make hint-NN) follows the rules of each level (common/hints.sh lint); and no
#   prediction's answer (its answers.cpp) stands in the reading path (tests --check-reading-path,
#   common/answers.h).
# Then the course's own suites named after the exercises (the Makefile names common/bad_input.sh
# and common/hints_test.sh), which need no GPU:
#   bash common/check.sh common NN_x... common/bad_input.sh common/hints_test.sh
# Ends with one line: check: N passed, N failed, N skipped (test cases).
set -u
timeout_s=${TEST_TIMEOUT:-300}
strict=${STRICT_STARTERS:-}
[ "${CI:-}" = true ] && strict=1
passed=0 failed=0 skipped=0
hints_passed=0 hints_failed=0
problems=()
folders=() scripts=()
for a in "$@"; do
  if [[ $a == *.sh ]]; then scripts+=("$a"); else folders+=("$a"); fi
done

# Reads the summary lines common/test_main.cpp prints: "result: P passed, F failed, S skipped"
# and "steps: N of M passed (...)" (how steps are named is test_main's business, steps.h).
run_suite() {  # $1 binary, then its options; sets out, rc, p, f, s
  out=$(timeout -k 5 "$timeout_s" "$@" 2>&1)
  rc=$?
  local line
  line=$(grep -E '^result: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' <<<"$out" | tail -n 1)
  if [ -n "$line" ]; then
    read -r p f s < <(sed -E 's/^result: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' <<<"$line")
  else
    # no summary line: the program crashed, was stopped, or is not a course test program
    p=0 f=1 s=0
    out+=$'\n'"(no 'result:' line: the test program did not finish; exit code $rc)"
  fi
  steps_line=$(grep -E '^steps: [0-9]+ of [0-9]+ passed' <<<"$out" | tail -n 1)
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed, timed out, or failed to start
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then out+=$'\n'"(stopped after ${timeout_s} s: a kernel is probably stuck)"; fi
}

for ex in "${folders[@]+"${folders[@]}"}"; do
  if [ "$ex" = common ]; then  # the shared helpers' own host tests
    run_suite build/common/tests
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    printf '%-22s %3d passed, %d failed, %d skipped\n' "common/" "$p" "$f" "$s"
    [ "$f" -ne 0 ] && tail -n 40 <<<"$out"
    continue
  fi
  # 1. starter generated from the solution
  if ! diff -q <(awk -f common/make_starter.awk "$ex/solution.cu") "$ex/starter.cu" >/dev/null; then
    if [ -n "$strict" ]; then
      problems+=("$ex/starter.cu is not what common/make_starter.awk makes of solution.cu (regenerate it)")
      failed=$((failed + 1))
    else
      echo "note: $ex/starter.cu differs from the generated starter (expected once you have started on it)"
    fi
  fi
  # 2. the solution passes
  run_suite "build/$ex/solution/tests"
  if [ -z "${skip_note:-}" ]; then skip_note=$(grep -m1 '^note: GPU test cases are skipped' <<<"$out"); fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  printf '%-22s solution: %3d passed, %d failed, %d skipped\n' "$ex" "$p" "$f" "$s"
  if [ "$f" -ne 0 ]; then
    echo "---- $ex: output of the failing run (last 40 lines) ----"
    tail -n 40 <<<"$out"
    echo "----"
  fi
  # 2b. (while steps_line is the solution's) its hints cover the steps the tests declare
  if hint_problem=$(bash common/hints.sh lint "$ex" "$steps_line" 2>&1); then
    hints_passed=$((hints_passed + 1))
  else
    hints_failed=$((hints_failed + 1))
    problems+=("$hint_problem")
  fi
  # 2c. no prediction's answer (answers.cpp) stands where a student reads before answering: the
  #     pages, the generated starter, the headers, the hints, the other sources
  reading=("$ex"/README.md "$ex"/LECTURE.md "$ex"/hints.md "build/$ex/pristine.cu")
  for file in "$ex"/*.h "$ex"/*.cu "$ex"/*.cpp; do
    case ${file##*/} in solution.cu | starter.cu | answers.cpp) ;; *) [ -f "$file" ] && reading+=("$file") ;; esac
  done
  if leaks=$("build/$ex/solution/tests" --check-reading-path "${reading[@]}" 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    while IFS= read -r leak; do problems+=("$leak"); done <<<"$leaks"
  fi
  # 3. the untouched starter fails (only meaningful where the GPU cases ran); its "(large)"
  #    cases would only fail more slowly
  #    and every one of its steps must fail: finishing a step turns exactly that step to ok
  run_suite "build/$ex/pristine/tests" '--test-case-exclude=*(large)*'
  if ! grep -q '^result: ' <<<"$out"; then
    problems+=("$ex: the tests of the untouched starter did not finish (exit code $rc): a crash is not an expected failure")
    failed=$((failed + 1))
    tail -n 20 <<<"$out"
  elif grep -q '^note: GPU test cases are skipped' <<<"$out"; then
    printf '%-22s untouched starter: %d expected failures (GPU cases not run here)\n' "$ex" "$f"
  elif [ "$f" -eq 0 ]; then
    problems+=("$ex: the tests PASS against the untouched starter, so they cannot tell a finished exercise from an unfinished one")
    failed=$((failed + 1))
  elif ! grep -qE '^steps: 0 of [0-9]+ passed' <<<"$steps_line"; then
    problems+=("$ex: some steps pass against the untouched starter (${steps_line#steps: }): each step's tests must fail until its TODO is done")
    failed=$((failed + 1))
  else
    printf '%-22s untouched starter: %d expected failures, %s\n' "$ex" "$f" "${steps_line%% (*}"
  fi
done

# The course's own suites (scripts named on the command line, e.g. common/bad_input.sh): each
# ends with "NAME: P passed, F failed"; one that prints no such line (it crashed or was stopped)
# counts as one failure, and its last lines are shown.
[ $((hints_passed + hints_failed)) -gt 0 ] && printf '%-22s %3d passed, %d failed\n' "hints.md" "$hints_passed" "$hints_failed"
passed=$((passed + hints_passed)); failed=$((failed + hints_failed))
for script in "${scripts[@]+"${scripts[@]}"}"; do
  out=$(bash "$script" 2>&1)
  rc=$?
  summary=$(grep -E '^[a-z][a-z -]*: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' <<<"$out" | tail -n 1)
  if [ -n "$summary" ]; then
    name=${summary%%: *}
    read -r p f s < <(sed -E 's/^.*: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/' <<<"$summary")
    s=${s:-0}
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1  # a summary of no failures, yet it failed
  else
    name=$(basename "$script" .sh)
    p=0 f=1 s=0
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  # Its cases per group (bad input: per exercise folder, from each program's --list-options).
  grep -E "^$name: .* cases, " <<<"$out" | sed "s/^$name: /$name  /"
  printf '%-22s %3d passed, %d failed%s\n' "$name" "$p" "$f" "$([ "$s" -gt 0 ] && echo ", $s skipped")"
  grep -E "^$name skipped: " <<<"$out"
  if [ -z "$summary" ]; then
    problems+=("$script printed no summary line (exit code $rc): its last lines are above")
    tail -n 20 <<<"$out"
  elif [ "$f" -ne 0 ]; then
    grep -E "^$name FAILED" <<<"$out" | head -n 40
  fi
done

[ -n "${skip_note:-}" ] && echo "${skip_note#note: } (REQUIRE_GPU=1 makes that a failure)"
for pr in "${problems[@]+"${problems[@]}"}"; do echo "problem: $pr"; done
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
