#!/usr/bin/env bash
# profile.sh FOLDER PROGRAM TOOL COURSE (make profile-NN): the hardware counters behind each step.
#
# Runs PROGRAM's default run with COURSE_PROFILE=1, so that each step runs once, untimed, inside
# an NVTX range named by its label ("step 3 sequential", common/measure.h), and reads the ranges
# from the run's record (COURSE_RECORD; COURSE, build/common/course, reads it). Then, for each step,
# runs it again under Nsight Compute (ncu) profiling only the launches inside that step's range
# (--nvtx-include), and prints the counters of every step's kernels as one Markdown table (TOOL,
# build/common/profile_table, reads ncu's CSVs). The exercise's exercise.mk says what:
#   PROFILE_ARGS      the program options of a representative size (ARGS=... replaces them)
#   PROFILE_COLUMNS   the exercise's own counters, "plain-words header = formula; ..."
#   PROFILE_LAUNCHES  the most launches ncu profiles in one step (each takes several replays)
# NCU=/path/to/ncu chooses the profiler. The full reports stay in build/FOLDER/profile/ for
# Nsight Compute's window (ncu-ui). Where it cannot run: one line, exit code 2.
set -u
ex=$1 program=$2 tool=$3 course=$4
number=${ex%%_*}
fail() {
  echo "profile-$number: $*" >&2
  exit 2
}

toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v "${NVCC:-nvcc}" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")")
find_ncu() {
  if [ -n "${NCU:-}" ]; then
    command -v "$NCU" 2>/dev/null
    return
  fi
  command -v ncu 2>/dev/null && return
  local found="" c
  for c in "$toolkit"/bin/ncu "$toolkit"/nsight-compute*/ncu /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -x "$c" ] && [ -z "$found" ] && found=$c
  done
  [ -n "$found" ] && echo "$found"
}
if ! ncu=$(find_ncu); then
  if [ -n "${NCU:-}" ]; then fail "NCU=$NCU is not a program (give the path of Nsight Compute's ncu)"; fi
  fail "Nsight Compute (ncu) is not on PATH, in $toolkit/bin or in /opt/nvidia/nsight-compute: install it (it comes with the CUDA Toolkit) or name it: make profile-$number NCU=/path/to/ncu"
fi
# A program that is not Nsight Compute (NCU=/bin/echo) would "profile" nothing in many lines.
if ! "$ncu" --version 2>/dev/null | grep -q 'Nsight Compute'; then
  fail "${NCU:+NCU=$NCU: }$ncu is not Nsight Compute (its --version does not say so): give the path of ncu, e.g. make profile-$number NCU=/usr/local/cuda/bin/ncu"
fi

# The exercise's counters, checked (and turned into ncu's options) by the tool: a mistake in
# exercise.mk gets one line here.
columns=()
[ -n "${PROFILE_COLUMNS:-}" ] && columns=(--columns "$PROFILE_COLUMNS")
metrics=$("$tool" --print-metrics "${columns[@]+"${columns[@]}"}" 2>&1) || fail "PROFILE_COLUMNS in $ex/exercise.mk: ${metrics#*--columns: }"
launches=${PROFILE_LAUNCHES:-64}
[[ "$launches" =~ ^[1-9][0-9]{0,5}$ ]] || fail "PROFILE_LAUNCHES must be a whole number from 1 to 999999 (got '$launches')"

dir=build/$ex/profile
mkdir -p "$dir"
rm -f "$dir"/step_*.ncu-rep "$dir"/step_*.csv "$dir"/step_*.json "$dir"/steps.txt "$dir"/run.json
log=$dir/run.log
# The program's words: ARGS if given (split by the course tool's run), else the representative size.
[ -n "${ARGS:-}" ] || ARGS=${PROFILE_ARGS:-}
export ARGS
version=$("$ncu" --version 2>/dev/null | sed -nE 's/^Version ([0-9][0-9.]*).*/\1/p' | head -n 1)

# 1. The run itself, without ncu: its table says whether each step is right, and its record
#    names the NVTX range of each step. A bad option or no GPU (exit code 2) stops here with the
#    program's one line, its last.
COURSE_PROFILE=1 COURSE_RECORD=$dir/run.json "$course" run "$program" >"$log" 2>&1
rc=$?
output=$(cat "$log")
if [ "$rc" -eq 2 ]; then
  tail -n 1 "$log" >&2
  exit 2
fi
mapfile -t ranges < <("$course" record "$dir/run.json" ranges 2>/dev/null)
if [ ${#ranges[@]} -eq 0 ]; then
  [ -n "$output" ] && printf '%s\n' "$output"
  fail "the program ran no step under COURSE_PROFILE=1 (its record names no step's range: $dir/run.json; the log: $log)"
fi

# 2. One ncu run per step, profiling only the launches inside that step's NVTX range.
for i in "${!ranges[@]}"; do
  label=${ranges[$i]}
  report=$dir/step_$((i + 1))
  COURSE_PROFILE=1 COURSE_RECORD=$report.json "$ncu" --target-processes all --clock-control none --nvtx --nvtx-include "$label/" \
    --launch-count "$launches" --kernel-name-base function \
    --metrics "$metrics" --export "$report" --force-overwrite \
    "$course" run "$program" >"$report.log" 2>&1
  # Why it could not profile, in one line.
  if grep -q ERR_NVGPUCTRPERM "$report.log"; then
    fail "no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM): run as an administrator (root), or let every user profile by loading the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0; see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
  fi
  if grep -qiE -- '--list-chips|(device|gpu|chip|architecture)[^.]* not supported|not supported[^.]* (device|gpu|chip|architecture)' "$report.log"; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
    fail "Nsight Compute ${version:-(version unknown)} at $ncu does not support this GPU${gpu:+ ($gpu)}: it is too old; install a newer one (it comes with the CUDA Toolkit) or name it: make profile-$number NCU=/path/to/ncu"
  fi
  if ! "$course" record "$report.json" ranges >/dev/null 2>&1; then
    fail "$ncu did not run the program as Nsight Compute would (is it ncu? NCU=...; its log: $report.log)"
  fi
  : >"$report.csv"
  if [ -f "$report.ncu-rep" ] && ! "$ncu" --import "$report.ncu-rep" --csv --page raw --print-units base \
    --print-kernel-base demangled >"$report.csv" 2>"$report.import.log"; then
    fail "ncu could not read back its report $report.ncu-rep: $(head -n 1 "$report.import.log")"
  fi
  printf '%s\t%s\n' "$label" "$report.csv" >>"$dir/steps.txt"
done

echo "Nsight Compute ${version:-?} ($ncu) ran: $(basename "$program") $ARGS"
echo "with COURSE_PROFILE=1, clocks as the GPU sets them (--clock-control none), one ncu run per step"
echo "(full reports for Nsight Compute's window, ncu-ui: $dir/step_*.ncu-rep)"
echo
printf '%s\n' "$output"
echo
"$tool" --steps "$dir/steps.txt" "${columns[@]+"${columns[@]}"}" --launch-cap "$launches"
