#!/usr/bin/env bash
# with_args.sh [--timeout] [--record NN_x] PROGRAM [WORDS...]: runs PROGRAM with WORDS and then
# the words of $ARGS (make's ARGS=...). ARGS is split into words at blanks (spaces, tabs, line
# breaks) outside quotes; '...' and "..." group words, and nothing else in it is special or run:
# ; | & $ ` * \ are plain characters, so ARGS='--n 5; rm x' gives the program the words --n,
# 5; rm and x, and the program refuses them. A quote left open gets one line, exit 2.
# With --timeout, the program is stopped after $TEST_TIMEOUT seconds (a stuck kernel).
# With --record NN_x (make test-NN with your starter), the test program appends its record
# (common/records.h) to NN_x.steps in the progress folder ($COURSE_PROGRESS_DIR, default .progress),
# through COURSE_STEPS_LOG; otherwise COURSE_STEPS_LOG is never set, whatever the environment says.
set -u
source "$(dirname "$0")/printable.sh"
timeout_s= record=
unset COURSE_STEPS_LOG
while [ $# -gt 0 ]; do
  case $1 in
    --timeout) timeout_s=${TEST_TIMEOUT:-300}; shift ;;
    --record) record=$2; shift 2 ;;
    *) break ;;
  esac
done
program=$1
shift
if [ -n "$record" ]; then
  progress=${COURSE_PROGRESS_DIR:-.progress}
  mkdir -p -- "$progress" 2>/dev/null  # if it cannot be made, the tests still run and say so
  export COURSE_STEPS_LOG=$progress/$record.steps
fi
args=()
if [ -n "${ARGS:-}" ]; then
  split=$(mktemp)
  printf '%s' "$ARGS" | LC_ALL=C awk '
    BEGIN { RS = "^$" }  # the whole of ARGS is one record
    {
      s = $0; n = length(s); word = ""; have = 0; quote = ""
      for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (quote != "") { if (c == quote) quote = ""; else word = word c; continue }
        if (c == " " || c == "\t" || c == "\n") {
          if (have) { printf "%s%c", word, 0; word = ""; have = 0 }
          continue
        }
        have = 1
        if (c == "\047" || c == "\"") { quote = c; at = i } else word = word c
      }
      if (quote != "") { printf "%s\t%d", quote == "\"" ? "double" : "single", at >"/dev/stderr"; exit 3 }
      if (have) printf "%s%c", word, 0
    }' >"$split" 2>"$split.why"
  if [ $? -ne 0 ]; then
    IFS=$'\t' read -r kind at <"$split.why"
    rm -f "$split" "$split.why"
    echo "make: ARGS has an unmatched ${kind:-} quote (character ${at:-?}): every quote that opens a group of words must close it (got '$(printable "$ARGS" 200)')" >&2
    exit 2
  fi
  mapfile -d '' -t args <"$split"
  rm -f "$split" "$split.why"
fi
if [ -z "$timeout_s" ]; then
  exec "$program" "$@" "${args[@]+"${args[@]}"}"
fi
timeout -k 5 "$timeout_s" "$program" "$@" "${args[@]+"${args[@]}"}"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "$(basename "$(dirname "$(dirname "$program")")"): stopped after $timeout_s s: a kernel is probably stuck (a deadlock or an endless loop)"
fi
exit $rc
