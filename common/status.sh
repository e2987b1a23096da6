#!/usr/bin/env bash
# status.sh (make status): for each exercise, does your starter.cu build, how many of its steps
# pass their tests, and how many hints (make hint-NN) you have used? It reads the two summary
# lines common/test_main.cpp prints, "steps: N of M passed (...)" and "result: ...": how steps
# are named is test_main's (steps.h). Like make test-NN, it records the steps line for make
# hint-NN; hints used come from .progress/ (common/hints.sh).
# Each build's output goes to build/status-NN_x.log, or, where build/ cannot be written, to a
# folder of its own under $TMPDIR (said once, above the table): a row never points at a log that
# was not written.
set -u
source "$(dirname "$0")/printable.sh"
timeout_s=${TEST_TIMEOUT:-300}
progress=${COURSE_PROGRESS_DIR:-.progress}
mkdir -p build "$progress" 2>/dev/null
logs=build
if ! { [ -d build ] && [ -w build ] && [ -x build ]; }; then
  logs=$(mktemp -d "${TMPDIR:-/tmp}/course-status.XXXXXX" 2>/dev/null) || logs=
  if [ -n "$logs" ]; then
    echo "(build/ cannot be written here: the build logs go to $(printable "$logs" 400)/)"
  else
    echo "(build/ cannot be written here, nor a folder under ${TMPDIR:-/tmp}: no build logs are kept)"
  fi
fi
row() { printf '| %-20s | %-8s | %-14s | %-32s | %s\n' "$@"; }
row exercise builds "steps passed" "test cases" "hints used"
printf '|%s|%s|%s|%s|%s\n' "----------------------" "----------" "----------------" "----------------------------------" "------------"
no_gpu=
for ex in "$@"; do
  hints=$(bash common/hints.sh used "$ex")
  log=${logs:+$logs/status-$ex.log}
  if ! make --no-print-directory "build/$ex/starter/tests" >"${log:-/dev/null}" 2>&1; then
    row "$ex" "NO" "-" "${log:+see $(printable "$log" 400)}" "$hints"
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
