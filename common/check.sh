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
# Then the bad-input suite and the hint tool's own tests, which need no GPU.
# Ends with one line: check: N passed, N failed, N skipped (test cases).
set -u
timeout_s=${TEST_TIMEOUT:-300}
strict=${STRICT_STARTERS:-}
[ "${CI:-}" = true ] && strict=1
passed=0 failed=0 skipped=0
hints_passed=0 hints_failed=0
problems=()

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

for ex in "$@"; do
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

# "P F" from a suite's last line "NAME: P passed, F failed"; "0 1" when it printed none.
suite_counts() {  # name, output
  local line
  line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed\$" <<<"$2" | tail -n 1)
  if [ -n "$line" ]; then sed -E "s/^$1: ([0-9]+) passed, ([0-9]+) failed\$/\1 \2/" <<<"$line"; else echo 0 1; fi
}

# 4. what a careless user types: one line and exit 2, never a crash (common/bad_input.sh); a
#    folder whose program cannot list its options fails there
out=$(bash common/bad_input.sh 2>&1)
read -r p f < <(suite_counts "bad input" "$out")
passed=$((passed + p)); failed=$((failed + f))
# Its cases per exercise folder (built from each program's --list-options), then the total.
grep -E '^bad input: .* cases, ' <<<"$out" | sed 's/^bad input: /bad input  /'
printf '%-22s %3d passed, %d failed\n' "bad input" "$p" "$f"
[ "$f" -ne 0 ] && grep -E '^bad input FAILED' <<<"$out" | head -n 40

# 5. hints: every exercise's hints.md (2b. above), and make hint-NN's own tests (common/hints_test.sh)
out=$(bash common/hints_test.sh 2>&1)
read -r p f < <(suite_counts "hints tool" "$out")
passed=$((passed + p + hints_passed)); failed=$((failed + f + hints_failed))
printf '%-22s %3d passed, %d failed\n' "hints.md" "$hints_passed" "$hints_failed"
printf '%-22s %3d passed, %d failed\n' "make hint-NN" "$p" "$f"
[ "$f" -ne 0 ] && { grep -E '^hints tool FAILED' <<<"$out" | head -n 40; [ -n "$line" ] || tail -n 20 <<<"$out"; }

[ -n "${skip_note:-}" ] && echo "${skip_note#note: } (REQUIRE_GPU=1 makes that a failure)"
for pr in "${problems[@]+"${problems[@]}"}"; do echo "problem: $pr"; done
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
