#!/usr/bin/env bash
# sanitize.sh FOLDER "PROGRAM ARGS" TESTS ["DEMO ARGS"]: runs compute-sanitizer's four tools over
# a solution's program and its tests (leaving out cases named "(large)"), failing on any report.
# DEMO, if given, is a deliberately racy demo: racecheck must report hazards in it.
# SANITIZE_SKIP (exercise.mk): test-name patterns left out besides "(large)", e.g. the cases whose
# kernels are a library's own (comma-separated, doctest's wildcards).
# sanitize.sh --need-gpu: only checks that there is a GPU and compute-sanitizer (exit 2, one line).
set -u
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v "${NVCC:-nvcc}" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")")
for d in "$toolkit/bin" "$toolkit/compute-sanitizer"; do [ -x "$d/compute-sanitizer" ] && PATH=$PATH:$d; done
need() {
  if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "sanitize: compute-sanitizer is not on PATH (it comes with the CUDA Toolkit, in its bin/)"
    exit 2
  fi
  if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "sanitize: no GPU here (nvidia-smi finds none): compute-sanitizer checks kernels as they run, so it needs one"
    exit 2
  fi
}
if [ "${1:-}" = --need-gpu ]; then need; exit 0; fi
ex=$1 program=$2 tests=$3 demo=${4:-}
need
logdir=build/$ex/sanitize
mkdir -p "$logdir"
status=0
for tool in memcheck racecheck synccheck initcheck; do
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  for what in program tests; do
    log=$logdir/$tool-$what.log
    if [ "$what" = program ]; then
      # shellcheck disable=SC2086
      compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 86 $program >"$log" 2>&1
    else
      compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 86 "$tests" \
        "--test-case-exclude=*(large)*${SANITIZE_SKIP:+,$SANITIZE_SKIP}" >"$log" 2>&1
    fi
    rc=$?
    summary=$(grep -E '========= (ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY)' "$log" | tail -n 1 | sed 's/^========= //')
    if [ $rc -eq 0 ]; then
      printf 'sanitize %-20s %-9s %-7s clean (%s)\n' "$ex" "$tool" "$what" "${summary:-no errors}"
    else
      printf 'sanitize %-20s %-9s %-7s FAILED (exit %d; log %s)\n' "$ex" "$tool" "$what" "$rc" "$log"
      grep -E '^=========' "$log" | head -n 30
      status=1
    fi
  done
done
if [ -n "$demo" ]; then
  log=$logdir/racecheck-demo.log
  # shellcheck disable=SC2086
  compute-sanitizer --tool racecheck $demo >"$log" 2>&1
  summary=$(grep -E '========= RACECHECK SUMMARY' "$log" | tail -n 1 | sed 's/^========= //')
  if grep -qE 'RACECHECK SUMMARY: [1-9][0-9]* hazard' "$log"; then
    printf 'sanitize %-20s %-9s %-7s caught, as it should be (%s)\n' "$ex" racecheck demo "$summary"
  else
    printf 'sanitize %-20s %-9s %-7s NOT caught: the deliberately racy demo shows no hazard (log %s)\n' "$ex" racecheck demo "$log"
    status=1
  fi
fi
exit $status
