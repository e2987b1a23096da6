#!/usr/bin/env bash
# status.sh (make status): for each exercise, does your starter.cu build, how many of its steps
# pass their tests, and how many hints (make hint-NN) you have used? It reads the two summary
# lines common/test_main.cpp prints, "steps: N of M passed (...)" and "result: ...": how steps
# are named is test_main's (steps.h). Like make test-NN, it records the steps line for make
# hint-NN; hints used come from .progress/ (common/hints.sh).
set -u
timeout_s=${TEST_TIMEOUT:-300}
progress=${COURSE_PROGRESS_DIR:-.progress}
mkdir -p build "$progress" 2>/dev/null
row() { printf '| %-20s | %-8s | %-14s | %-32s | %s\n' "$@"; }
row exercise builds "steps passed" "test cases" "hints used"
printf '|%s|%s|%s|%s|%s\n' "----------------------" "----------" "----------------" "----------------------------------" "------------"
no_gpu=
for ex in "$@"; do
  hints=$(bash common/hints.sh used "$ex")
  if ! make --no-print-directory "build/$ex/starter/tests" >"build/status-$ex.log" 2>&1; then
    row "$ex" "NO" "-" "see build/status-$ex.log" "$hints"
    continue
  fi
  out=$(COURSE_STEPS_LOG="$progress/$ex.steps" timeout -k 5 "$timeout_s" "build/$ex/starter/tests" 2>&1)
  steps=$(grep -E '^steps: ' <<<"$out" | tail -n 1 | sed -E 's/^steps: ([0-9]+ of [0-9]+).*/\1/')
  result=$(grep -E '^result: ' <<<"$out" | tail -n 1 | sed -E 's/^result: //')
  [ -n "$result" ] || result="the tests did not finish (crash or timeout)"
  grep -q '^note: GPU test cases are skipped' <<<"$out" && no_gpu=1
  row "$ex" "yes" "${steps:--}" "$result" "$hints"
done
[ -z "$no_gpu" ] || echo "(no GPU here: the GPU test cases were skipped)"
