#!/usr/bin/env bash
# sanitize.sh [FOLDER PROGRAM 'ARGS' 'DEMO ARGS' 'SKIP']...: compute-sanitizer's four tools
# (memcheck with leak checking, racecheck, synccheck, initcheck) over each solution's program,
# run with ARGS, and over its tests (all but the cases named "(large)" and those SKIP names,
# comma-separated doctest wildcards: cases whose kernels are a library's own); fails on any
# report. DEMO ARGS, if not empty, run the program's deliberately racy demo: racecheck must
# report hazards in it. (The Makefile passes each exercise's SANITIZE_ARGS, _DEMO and _SKIP.)
# sanitize.sh --need-gpu: only checks that there is a GPU and compute-sanitizer (exit 2, one line).
#
# Each tool runs once on each binary and input, and the runs go in parallel (SANITIZE_JOBS at a
# time, default: the number of cores; `make sanitize` passes JOBS): a sanitized run is mostly
# host work, and several share the GPU well. So that no single run holds up the end, the tests
# are split into SANITIZE_PARTS ranges of cases (default 4; doctest's --first/--last), and the
# longest runs start first (build/sanitize-times.txt keeps each run's time from the last time).
# The program runs with COURSE_PROFILE=1: each step once, untimed (timing would repeat the same
# kernel on the same input). The tests run with COURSE_SANITIZE=1 (testing.h): cases that repeat
# one code path many times (generations, sizes past the last new path) repeat it less. Each log
# lists every case with its seconds. Logs: build/FOLDER/sanitize/.
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
if [ $# -eq 0 ] || [ $(($# % 5)) -ne 0 ]; then
  echo "usage: sanitize.sh [FOLDER PROGRAM 'ARGS' 'DEMO ARGS' 'SKIP']... (make sanitize, make sanitize-NN)" >&2
  exit 2
fi
need
jobs=${SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}
parts=${SANITIZE_PARTS:-4}
limit=${SANITIZE_TIMEOUT:-1800}
for v in "$jobs" "$parts" "$limit"; do
  [[ "$v" =~ ^[1-9][0-9]{0,5}$ ]] || { echo "sanitize: SANITIZE_JOBS, SANITIZE_PARTS and SANITIZE_TIMEOUT are whole numbers from 1 (got '$v')"; exit 2; }
done
times_file=build/sanitize-times.txt
declare -A last_time=()
if [ -f "$times_file" ]; then
  while read -r key secs; do last_time[$key]=$secs; done <"$times_file"
fi

# ---- The runs: one line each in keys/cmds (a group is FOLDER TOOL WHAT; a run is a group's part)
keys=() cmds=() groups=() folders=()
add_run() {  # key, group, command words...
  local key=$1 group=$2
  shift 2
  keys+=("$key")
  cmds+=("$(printf '%q ' "$@")")
  [[ " ${groups[*]-} " == *" $group "* ]] || groups+=("$group")
}
while [ $# -gt 0 ]; do
  ex=$1 program=$2 args=$3 demo=$4 skip=$5
  shift 5
  exclude="--test-case-exclude=*(large)*${skip:+,$skip}"
  tests=$(dirname "$program")/tests
  folders+=("$ex")
  mkdir -p "build/$ex/sanitize"
  rm -f "build/$ex/sanitize/"*.log "build/$ex/sanitize/"*.rc "build/$ex/sanitize/count.json"
  # How many test cases (not "(large)") there are, for the parts: from the record of doctest's
  # --count (common/records.h), read by the course tool.
  COURSE_RECORD=build/$ex/sanitize/count.json "$tests" --count "$exclude" >/dev/null 2>&1
  count=$(build/common/course record "build/$ex/sanitize/count.json" matching 2>/dev/null)
  if ! [[ "${count:-}" =~ ^[0-9]+$ ]] || [ "$count" -eq 0 ]; then
    echo "sanitize: $tests does not list its test cases (doctest --count): build it with make build-${ex%%_*}"
    exit 2
  fi
  n_parts=$((count < parts ? count : parts))
  per=$(((count + n_parts - 1) / n_parts))
  read -r -a words <<<"$args"
  for tool in memcheck racecheck synccheck initcheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    sanitizer=(compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 86)
    # initcheck runs each launch to its end before the next (CUDA_LAUNCH_BLOCKING=1): which bytes
    # were written before they are read needs no concurrency, and initcheck itself (CUDA 13.0) faults
    # with an illegal address in 9 of 12 runs of a test whose streams read each other's buffers,
    # when other processes share the GPU; 0 of 12 with launches blocking, without the sanitizer,
    # or under memcheck (H100, 2026-11-25). The other three tools keep the launches concurrent.
    [ "$tool" = initcheck ] && sanitizer=(env CUDA_LAUNCH_BLOCKING=1 "${sanitizer[@]}")
    add_run "$ex/$tool-program" "$ex/$tool/program" env COURSE_PROFILE=1 "${sanitizer[@]}" "$program" "${words[@]+"${words[@]}"}"
    for ((first = 1; first <= count; first += per)); do
      last=$((first + per - 1 < count ? first + per - 1 : count))
      add_run "$ex/$tool-tests-$first-$last" "$ex/$tool/tests" env COURSE_SANITIZE=1 "${sanitizer[@]}" "$tests" \
        "$exclude" "--first=$first" "--last=$last" --duration=true
    done
  done
  if [ -n "$demo" ]; then
    read -r -a words <<<"$demo"
    add_run "$ex/racecheck-demo" "$ex/racecheck/demo" compute-sanitizer --tool racecheck "$program" "${words[@]}"
  fi
done

# Longest first: last time's seconds, else racecheck and the tests before the rest.
guess() {
  local key=$1
  if [ -n "${last_time[$key]:-}" ]; then echo "${last_time[$key]}"; return; fi
  case $key in
    *racecheck-tests*) echo 60 ;; *-tests-*) echo 40 ;; *racecheck*) echo 20 ;; *) echo 10 ;;
  esac
}
order=$(for i in "${!keys[@]}"; do echo "$(guess "${keys[$i]}") $i"; done | sort -rn -k1,1 | cut -d' ' -f2)

echo "sanitize: ${#keys[@]} runs of compute-sanitizer over ${#folders[@]} solution(s), $jobs at a time (logs: build/FOLDER/sanitize/)"
start_all=$(date +%s.%N)
run() {  # index
  local i=$1 key=${keys[$1]} log rc t0 t1
  log=build/${key%%/*}/sanitize/${key#*/}.log
  t0=$(date +%s.%N)
  eval "timeout -k 10 $limit ${cmds[$i]}" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >"${log%.log}.rc"
}
running=0
for i in $order; do
  while [ "$running" -ge "$jobs" ]; do
    wait -n
    running=$((running - 1))
  done
  run "$i" &
  running=$((running + 1))
done
wait
wall=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')

# ---- Results, by group, in the order of the folders and tools -------------------------------
status=0
: >"$times_file.new"
for group in "${groups[@]}"; do
  ex=${group%%/*} rest=${group#*/}
  tool=${rest%%/*} what=${rest#*/}
  parts_n=0 bad=() secs=0 summary=""
  for i in "${!keys[@]}"; do
    key=${keys[$i]}
    case $key in "$ex/$tool-$what" | "$ex/$tool-$what-"*) ;; *) continue ;; esac
    log=build/$ex/sanitize/${key#*/}.log
    read -r rc t <"${log%.log}.rc" 2>/dev/null || { rc=1 t=0; }
    echo "$key $t" >>"$times_file.new"
    parts_n=$((parts_n + 1))
    secs=$(awk -v a="$secs" -v b="$t" 'BEGIN { printf "%.1f", a + b }')
    s=$(grep -E '========= (ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY)' "$log" | tail -n 1 | sed 's/^========= //')
    [ -n "$s" ] && summary=$s
    if [ "$what" = demo ]; then
      grep -qE 'RACECHECK SUMMARY: [1-9][0-9]* hazard' "$log" || bad+=("$log")
    elif [ "$rc" -ne 0 ]; then
      bad+=("$log (exit $rc$([ "$rc" -eq 124 ] && echo ": stopped after $limit s"))")
    fi
  done
  took="$secs s"
  [ "$parts_n" -gt 1 ] && took="$parts_n parts, $secs s in all"
  if [ "$what" = demo ]; then
    if [ ${#bad[@]} -eq 0 ]; then
      printf 'sanitize %-20s %-9s %-7s caught, as it should be (%s; %s)\n' "$ex" "$tool" "$what" "$summary" "$took"
    else
      printf 'sanitize %-20s %-9s %-7s NOT caught: the deliberately racy demo shows no hazard (log %s)\n' "$ex" "$tool" "$what" "${bad[0]}"
      status=1
    fi
  elif [ ${#bad[@]} -eq 0 ]; then
    printf 'sanitize %-20s %-9s %-7s clean (%s; %s)\n' "$ex" "$tool" "$what" "${summary:-no errors}" "$took"
  else
    printf 'sanitize %-20s %-9s %-7s FAILED (log %s)\n' "$ex" "$tool" "$what" "${bad[*]}"
    grep -hE '^=========' "${bad[0]%% *}" | head -n 30
    status=1
  fi
done
mv -f "$times_file.new" "$times_file"
if [ $status -eq 0 ]; then
  echo "sanitize: every solution is clean (${#keys[@]} runs, ${wall} s, $jobs at a time)"
else
  echo "sanitize: FAILED (see above; ${#keys[@]} runs, ${wall} s)"
fi
exit $status
