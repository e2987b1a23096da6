#!/usr/bin/env bash
# status.sh (make status): for each exercise, does your starter.cu build, and how many of its
# steps pass their tests? It reads the two summary lines common/test_main.cpp prints,
# "steps: N of M passed (...)" and "result: ...": how steps are named is test_main's (steps.h).
set -u
timeout_s=${TEST_TIMEOUT:-300}
printf '| %-20s | %-8s | %-14s | %s\n' exercise builds "steps passed" "test cases"
printf '|%s|%s|%s|%s\n' "----------------------" "----------" "----------------" "------------"
for ex in "$@"; do
  if ! make --no-print-directory "build/$ex/starter/tests" >"build/status-$ex.log" 2>&1; then
    printf '| %-20s | %-8s | %-14s | %s\n' "$ex" "NO" "-" "see build/status-$ex.log"
    continue
  fi
  out=$(timeout -k 5 "$timeout_s" "build/$ex/starter/tests" 2>&1)
  steps=$(grep -E '^steps: ' <<<"$out" | tail -n 1 | sed -E 's/^steps: ([0-9]+ of [0-9]+).*/\1/')
  result=$(grep -E '^result: ' <<<"$out" | tail -n 1 | sed -E 's/^result: //')
  [ -n "$result" ] || result="the tests did not finish (crash or timeout)"
  grep -q '^note: GPU test cases are skipped' <<<"$out" && result+=" (no GPU here: GPU cases skipped)"
  printf '| %-20s | %-8s | %-14s | %s\n' "$ex" "yes" "${steps:--}" "$result"
done
