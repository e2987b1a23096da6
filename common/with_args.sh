#!/usr/bin/env bash
# with_args.sh [--timeout] PROGRAM [WORDS...]: runs PROGRAM with WORDS and then the words of
# $ARGS (make's ARGS=...). ARGS is split the way a shell splits quoted words ('a b', "a b"), but
# nothing in it is run or expanded: ; | & $ ` * are plain characters, so ARGS='--n 5; rm x'
# gives the program the words --n, 5; rm and x, and the program refuses them.
# With --timeout, the program is stopped after $TEST_TIMEOUT seconds (a stuck kernel).
set -u
timeout_s=
if [ "${1:-}" = --timeout ]; then timeout_s=${TEST_TIMEOUT:-300}; shift; fi
program=$1
shift
args=()
if [ -n "${ARGS:-}" ]; then
  split=$(mktemp)
  if ! printf '%s' "$ARGS" | xargs -r printf '%s\0' >"$split" 2>/dev/null; then
    rm -f "$split"
    echo "make: ARGS has an unmatched quote: $ARGS" >&2
    exit 2
  fi
  mapfile -d '' -t args <"$split"
  rm -f "$split"
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
