#!/usr/bin/env bash
# profile.sh FOLDER PROGRAM TOOL (make profile-NN): the hardware counters behind each step.
#
# Runs PROGRAM's default run under Nsight Compute (ncu) with COURSE_PROFILE=1, so that each step
# runs once, untimed, and prints the counters of every step's kernels as one Markdown table
# (TOOL, build/common/profile_table, reads ncu's CSV). The exercise's exercise.mk says what:
#   PROFILE_ARGS      the program options of a representative size (ARGS=... replaces them)
#   PROFILE_KERNELS   STEP=KERNEL ...: the kernels to profile and their steps; helpers such as
#                     the L2 flush and library baselines are left out by not being listed
#   PROFILE_COLUMNS   the exercise's own counters, "plain-words header = formula; ..."
#   PROFILE_LAUNCHES  the most launches ncu profiles (each takes several replays)
#   PROFILE_ONCE      1: profile only the first launch of each kernel (quick; for a program
#                     that repeats its launches, e.g. one that times its steps)
# NCU=/path/to/ncu chooses the profiler. The full report stays in build/FOLDER/profile/ for
# Nsight Compute's window (ncu-ui). Where it cannot run: one line, exit code 2.
set -u
ex=$1 program=$2 tool=$3
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

# The exercise's lists, checked (and turned into ncu's options) by the tool: a mistake in
# exercise.mk gets one line here.
[ -n "${PROFILE_KERNELS:-}" ] || fail "PROFILE_KERNELS in $ex/exercise.mk is empty: list the kernels to profile, STEP=KERNEL ..."
columns=()
[ -n "${PROFILE_COLUMNS:-}" ] && columns=(--columns "$PROFILE_COLUMNS")
metrics=$("$tool" --print-metrics "${columns[@]+"${columns[@]}"}" 2>&1) || fail "PROFILE_COLUMNS in $ex/exercise.mk: ${metrics#*--columns: }"
regex=$("$tool" --print-kernel-regex --kernels "${PROFILE_KERNELS:-}" 2>&1) || fail "PROFILE_KERNELS in $ex/exercise.mk: ${regex#*--kernels: }"
launches=${PROFILE_LAUNCHES:-64}
[[ "$launches" =~ ^[1-9][0-9]{0,5}$ ]] || fail "PROFILE_LAUNCHES must be a whole number from 1 to 999999 (got '$launches')"
once=${PROFILE_ONCE:-0}
[[ "$once" =~ ^[01]?$ ]] || fail "PROFILE_ONCE must be 0 or 1 (got '$once')"
if [ "$once" = 1 ]; then
  which=(--kernel-id "::regex:$regex:1")  # the first invocation of each kernel
  limit="the first launch of each kernel"
else
  which=(--kernel-name "regex:$regex" --launch-count "$launches")
  limit="at most $launches launches"
fi

dir=build/$ex/profile
mkdir -p "$dir"
report=$dir/report log=$dir/run.log csv=$dir/counters.csv
rm -f "$report.ncu-rep" "$csv"
# The program's words: ARGS if given (split by with_args.sh), else the representative size.
[ -n "${ARGS:-}" ] || ARGS=${PROFILE_ARGS:-}
export ARGS
version=$("$ncu" --version 2>/dev/null | sed -nE 's/^Version ([0-9][0-9.]*).*/\1/p' | head -n 1)
COURSE_PROFILE=1 "$ncu" --target-processes all --clock-control none \
  --kernel-name-base function "${which[@]}" \
  --metrics "$metrics" --export "$report" --force-overwrite \
  bash common/with_args.sh "$program" >"$log" 2>&1
rc=$?

# Why it could not profile, in one line.
if grep -q ERR_NVGPUCTRPERM "$log"; then
  fail "no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM): run as an administrator (root), or let every user profile by loading the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0; see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
fi
if grep -qiE -- '--list-chips|(device|gpu|chip|architecture)[^.]* not supported|not supported[^.]* (device|gpu|chip|architecture)' "$log"; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  fail "Nsight Compute ${version:-(version unknown)} at $ncu does not support this GPU${gpu:+ ($gpu)}: it is too old; install a newer one (it comes with the CUDA Toolkit) or name it: make profile-$number NCU=/path/to/ncu"
fi
no_gpu=$(grep -m 1 -E ': no usable GPU: ' "$log")
[ -n "$no_gpu" ] && fail "no usable GPU here: Nsight Compute reads the counters of kernels as they run, so it needs one; the program says: ${no_gpu#*: no usable GPU: }"

# The program's own output (its table says whether each step is right), without ncu's progress.
output=$(grep -vE '^==(PROF|WARNING)==|^==ERROR== The application returned an error code' "$log")
if [ ! -f "$report.ncu-rep" ]; then
  if [ -z "$output" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    fail "no usable GPU here (nvidia-smi finds none): Nsight Compute reads the counters of kernels as they run, so it needs one"
  fi
  [ -n "$output" ] && printf '%s\n' "$output"
  grep -q ': error: ' <<<"$output" && exit 2  # a bad option: the program's one line
  [ "$rc" -ne 0 ] && exit "$rc"
  echo "profile-$number: ncu profiled no kernel: none of $regex was launched (the full log: $log)"
  exit 1
fi
echo "Nsight Compute ${version:-?} ($ncu) ran: $(basename "$program") $ARGS"
echo "with COURSE_PROFILE=1, clocks as the GPU sets them (--clock-control none), $limit"
echo "(full report for Nsight Compute's window, ncu-ui: $report.ncu-rep)"
echo
printf '%s\n' "$output"
if ! "$ncu" --import "$report.ncu-rep" --csv --page raw --print-units base --print-kernel-base demangled \
  >"$csv" 2>"$dir/import.log"; then
  fail "ncu could not read back its report $report.ncu-rep: $(head -n 1 "$dir/import.log")"
fi
# A program that honours COURSE_PROFILE=1 says so under its table (run_steps); one that times
# its steps launched each kernel many times.
mode=(--launch-cap "$launches")
if [ "$once" = 1 ]; then
  mode=(--first-launch-only --note "PROFILE_ONCE=1: ncu profiled the first launch of each kernel only.")
elif ! grep -q '^COURSE_PROFILE=1: each step ran once' "$log"; then
  mode+=(--first-launch-only --note "This program does not run each step once under COURSE_PROFILE=1 (it times its kernels), so it repeats every launch.")
fi
echo
"$tool" --csv "$csv" --kernels "$PROFILE_KERNELS" "${columns[@]+"${columns[@]}"}" "${mode[@]}"
