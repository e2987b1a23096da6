#!/usr/bin/env bash
# bad_input.sh (run by `make check`, GPU or not): what a new or careless user might type, and
# what the course promises for it: exit code 2 and ONE line that names the option (or setting)
# and the problem, within 5 seconds and under a memory cap, before any GPU work. Nothing here
# needs a GPU: every case must be refused before the program looks for one.
#
#   bash common/bad_input.sh            all cases; ends with "bad input: N passed, N failed"
#   VERBOSE=1 bash common/bad_input.sh  also lists every case that passes
#
# Cases are generated from a small table of each program's options and their kinds, plus
# hand-written cases (files, make settings). Programs are the solutions' (build/NN_x/solution/).
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0
failures=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export REQUIRE_GPU=0

# One case: expect PROGRAM ARGS... to exit 2 with one line containing NEEDLE.
# The memory cap (2 GB of address space) turns an allocation made before the check into a crash.
expect() {  # needle, program, args...
  local needle=$1 program=$2
  shift 2
  local out rc lines
  out=$( (ulimit -v 2000000; timeout -k 1 5 "$program" "$@") 2>&1)
  rc=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then
    passed=$((passed + 1))
    [ -n "${VERBOSE:-}" ] && echo "ok   $(basename "$program") $* -> $out"
  else
    failed=$((failed + 1))
    failures+=("$(basename "$program") $(printf '%q ' "$@")-> exit $rc, $lines line(s), wanted '$needle': $(head -c 300 <<<"$out" | tr '\n' '|')")
  fi
}
# A make setting: make's own error format, one line, exit 2, before anything is built.
# With a program to run (expect_make_run), make frames the program's line with its own.
expect_make() { make_case 1 "$@"; }
expect_make_run() { make_case 0 "$@"; }
make_case() {  # one_line, needle, make arguments...
  local one_line=$1
  shift
  local needle=$1
  shift
  local out rc lines
  out=$(timeout -k 1 20 make --no-print-directory "$@" 2>&1)
  rc=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "$rc" -eq 2 ] && grep -qF -- "$needle" <<<"$out" && { [ "$one_line" = 0 ] || [ "$lines" -eq 1 ]; }; then
    passed=$((passed + 1))
    [ -n "${VERBOSE:-}" ] && echo "ok   make $* -> $out"
  else
    failed=$((failed + 1))
    failures+=("make $(printf '%q ' "$@")-> exit $rc, wanted '$needle': $(head -c 300 <<<"$out" | tr '\n' '|')")
  fi
}

# ---- values that are wrong for every option of a kind ---------------------------------------
# size1: a count >= 1; size0: a count >= 0 (both also take 2^K, 2^K+C, 2^K-C)
bad_counts=('' abc -1 -0 1.5 12abc 0x10 1e3 +5 ' 7' '7 ' 2^ 2^-1 2^64 2^63+2^1 2^70 2^10x
            18446744073709551616 99999999999999999999999 '5;' '$(id)' -h)
bad_reals=('' abc nan inf -inf 1e999 1,5 0x1p3zz '2.5 ' --)
bad_choices=('' bogus ALL 'all ' 1)

# option table: program | option | kind (size1, size0, int:MIN:MAX, real:MIN:MAX, choice, text)
table() {
  cat <<'EOF'
01_device_query/solution/device_query --device int:0:any
02_scalar_multiply/solution/scalar_multiply --n size1
02_scalar_multiply/solution/scalar_multiply --a real:-1e30:1e30
02_scalar_multiply/solution/scalar_multiply --block int:1:1024
02_scalar_multiply/solution/scalar_multiply --seed size0
02_scalar_multiply/solution/scalar_multiply --kernel choice
03_game_of_life/solution/game_of_life --generations size0
03_game_of_life/solution/game_of_life --density real:0:1
03_game_of_life/solution/game_of_life --seed size0
03_game_of_life/solution/game_of_life --kernel choice
03_game_of_life/solution/game_of_life --fps real:0.1:1000
03_game_of_life/solution/game_of_life --every size1
04_naive_reduce/solution/naive_reduce --n size1
04_naive_reduce/solution/naive_reduce --block int:1:1024
04_naive_reduce/solution/naive_reduce --rows size1
04_naive_reduce/solution/naive_reduce --cols size1
04_naive_reduce/solution/naive_reduce --seed size0
04_naive_reduce/solution/naive_reduce --kernel choice
04_naive_reduce/solution/naive_reduce --values choice
05_tree_reduce/solution/tree_reduce --n size0
05_tree_reduce/solution/tree_reduce --block int:32:1024
05_tree_reduce/solution/tree_reduce --seed size0
05_tree_reduce/solution/tree_reduce --kernel choice
06_atomics_cas/solution/atomics_cas --n size1
06_atomics_cas/solution/atomics_cas --addresses size1
06_atomics_cas/solution/atomics_cas --cas-n size1
06_atomics_cas/solution/atomics_cas --seed size0
06_atomics_cas/solution/atomics_cas --kernel choice
07_prefix_scan/solution/prefix_scan --n size1
07_prefix_scan/solution/prefix_scan --seed size0
07_prefix_scan/solution/prefix_scan --kernel choice
08_tiled_matmul/solution/tiled_matmul --m size1
08_tiled_matmul/solution/tiled_matmul --n size1
08_tiled_matmul/solution/tiled_matmul --k size1
08_tiled_matmul/solution/tiled_matmul --seed size0
08_tiled_matmul/solution/tiled_matmul --kernel choice
09_parallel_sort/solution/parallel_sort --n size0
09_parallel_sort/solution/parallel_sort --seed size0
09_parallel_sort/solution/parallel_sort --kernel choice
09_parallel_sort/solution/parallel_sort --distribution choice
09_parallel_sort/solution/parallel_sort --keys choice
11_multi_gpu/solution/multi_gpu --gpus int:1:64
11_multi_gpu/solution/multi_gpu --ranks int:1:64
11_multi_gpu/solution/multi_gpu --n size1
11_multi_gpu/solution/multi_gpu --bucket size1
11_multi_gpu/solution/multi_gpu --work int:0:10000000
11_multi_gpu/solution/multi_gpu --seed size0
11_multi_gpu/solution/multi_gpu --kernel choice
EOF
}

programs=()
while read -r program option kind; do
  program=build/$program
  if [ ! -x "$program" ]; then
    failed=$((failed + 1))
    failures+=("$program is not built (make all first)")
    continue
  fi
  [[ " ${programs[*]} " == *" $program "* ]] || programs+=("$program")
  case $kind in
    size1|size0)
      for v in "${bad_counts[@]}"; do expect "$option" "$program" "$option" "$v"; done
      [ "$kind" = size1 ] && expect "$option" "$program" "$option" 0
      ;;
    int:*)
      IFS=: read -r _ lo hi <<<"$kind"
      outside=("$((lo - 1))")
      [ "$hi" != any ] && outside+=("$((hi + 1))")  # any: the upper limit is the GPU's to tell
      for v in '' abc 1.5 12abc 0x10 2^64 99999999999 -99999999999 "${outside[@]}" -1e30 '$(id)'; do
        expect "$option" "$program" "$option" "$v"
      done
      ;;
    real:*)
      IFS=: read -r _ lo hi <<<"$kind"
      for v in "${bad_reals[@]}" "-1$hi" "1$hi"; do expect "$option" "$program" "$option" "$v"; done
      ;;
    choice)
      for v in "${bad_choices[@]}"; do expect "$option" "$program" "$option" "$v"; done
      ;;
  esac
  expect "$option" "$program" "$option"                    # the value is missing
  expect "$option" "$program" "$option" 1 "$option" 1      # given twice (a choice's value is wrong too)
done < <(table)

# ---- what every program must refuse -----------------------------------------------------------
for program in "${programs[@]}"; do
  expect "--bogus" "$program" --bogus
  expect "--bogus" "$program" --bogus=1
  expect "'extra'" "$program" extra
  expect "'-x'" "$program" -x
  expect "--bench" "$program" --bench=yes
  expect "--kernel" "$program" --kernel
  expect "--bench" "$program" --bench --bench
  expect "--kernel" "$program" --bench --kernel all
  expect "'--'" "$program" --
done

# ---- sizes that can never fit: refused before anything is allocated ---------------------------
expect "--n" build/02_scalar_multiply/solution/scalar_multiply --n 2^40
expect "--n" build/04_naive_reduce/solution/naive_reduce --n 2^40
expect "--n" build/05_tree_reduce/solution/tree_reduce --n 2^40
expect "--n" build/05_tree_reduce/solution/tree_reduce --n 99999999999999
expect "--n" build/06_atomics_cas/solution/atomics_cas --n 2^40
expect "--n" build/07_prefix_scan/solution/prefix_scan --n 2^40
expect "--m" build/08_tiled_matmul/solution/tiled_matmul --m 2^20 --n 2^20
expect "--n" build/09_parallel_sort/solution/parallel_sort --n 2^40
expect "--n" build/09_parallel_sort/solution/parallel_sort --n 4294967295
expect "--pairs" build/09_parallel_sort/solution/parallel_sort --kernel radix_sort --pairs
expect "--keys" build/09_parallel_sort/solution/parallel_sort --kernel split --keys int
expect "--rows" build/04_naive_reduce/solution/naive_reduce --rows 2^31 --cols 2^10
expect "--cols" build/04_naive_reduce/solution/naive_reduce --cols 2^40
expect "--size" build/03_game_of_life/solution/game_of_life --size 1000000x1000000
expect "--size" build/03_game_of_life/solution/game_of_life --pattern glider --size 524288x524288
expect "--size" build/03_game_of_life/solution/game_of_life --pattern glider --size 100000x100000
expect "--n" build/04_naive_reduce/solution/naive_reduce --demo barrier_in_if --n 18446744073709551615
expect "--block" build/05_tree_reduce/solution/tree_reduce --block 96
expect "--block" build/05_tree_reduce/solution/tree_reduce --block 32 --volatile-demo
expect "--n" build/11_multi_gpu/solution/multi_gpu --n 2^33
expect "--ranks" build/11_multi_gpu/solution/multi_gpu --gpus 2 --ranks 1

# ---- options --bench would ignore ------------------------------------------------------------------
expect "--n" build/02_scalar_multiply/solution/scalar_multiply --bench --n 100
expect "--n" build/05_tree_reduce/solution/tree_reduce --bench --n 100
expect "--volatile-demo" build/05_tree_reduce/solution/tree_reduce --bench --volatile-demo
expect "--n" build/04_naive_reduce/solution/naive_reduce --bench --n 100
expect "--demo" build/04_naive_reduce/solution/naive_reduce --bench --demo barrier_in_if
expect "--n" build/06_atomics_cas/solution/atomics_cas --bench --n 100
expect "--n" build/07_prefix_scan/solution/prefix_scan --bench --n 100
expect "--racy-demo" build/07_prefix_scan/solution/prefix_scan --bench --racy-demo
expect "--m" build/08_tiled_matmul/solution/tiled_matmul --bench --m 100
expect "--n" build/09_parallel_sort/solution/parallel_sort --bench --n 100
expect "--pairs" build/09_parallel_sort/solution/parallel_sort --bench --pairs
expect "--keys" build/09_parallel_sort/solution/parallel_sort --bench --keys int
expect "--distribution" build/09_parallel_sort/solution/parallel_sort --bench --distribution few
expect "--size" build/03_game_of_life/solution/game_of_life --bench --size 64x64
expect "--gif" build/03_game_of_life/solution/game_of_life --bench --gif "$tmp/x.gif"
expect "--watch" build/03_game_of_life/solution/game_of_life --bench --watch
expect "--n" build/11_multi_gpu/solution/multi_gpu --bench --n 100
expect "--bucket" build/11_multi_gpu/solution/multi_gpu --bench --bucket 100
expect "--work" build/11_multi_gpu/solution/multi_gpu --bench --work 100

# ---- 03: sizes, positions, patterns and output paths -----------------------------------------
life=build/03_game_of_life/solution/game_of_life
for v in '' x 10 10x x10 10x10x10 -5x5 5x-5 0x5 5x0 1.5x2 99999999999999x1 1x99999999999999 axb 5X5 ' 5x5'; do
  expect "--size" "$life" --size "$v"
done
for v in '' , 1 1,2,3 -1,0 0,-1 a,b 1.5,2 99999999,0 0,99999999 '1, 2'; do
  expect "--at" "$life" --pattern glider --size 64x64 --at "$v"
done
expect "--at" "$life" --at 1,1                         # a position with no pattern
expect "--pattern" "$life" --pattern no_such_pattern
expect "--pattern" "$life" --pattern ''
expect "--pattern" "$life" --pattern "$tmp/missing.rle"
mkdir -p "$tmp/folder.rle"
expect "--pattern" "$life" --pattern "$tmp/folder.rle"
printf 'x = 100000, y = 100000\n!\n' >"$tmp/huge.rle"
expect "pattern" "$life" --pattern "$tmp/huge.rle" --size 64x64
printf 'x = 99999999999999999999, y = 3\nbo$2bo$3o!\n' >"$tmp/overflow.rle"
expect "pattern" "$life" --pattern "$tmp/overflow.rle"
printf '\xef\xbb\xbfx = 3, y = 3\nbo$2bo$3o!\n' >"$tmp/bom.rle"
out=$("$life" --pattern "$tmp/bom.rle" --size 64x64 --generations 1 2>&1)
if grep -q $'\xef\xbb\xbf' <<<"$out"; then
  failed=$((failed + 1)); failures+=("03 echoes a raw byte-order mark: $out")
else
  passed=$((passed + 1))
fi
printf 'x = 3, y = \x01\x02\n!\n' >"$tmp/control.rle"
expect "pattern" "$life" --pattern "$tmp/control.rle"
printf 'x = 3, y = 3\nbo$2bo$3o\n' >"$tmp/unterminated.rle"
expect "pattern" "$life" --pattern "$tmp/unterminated.rle"
printf 'x = 3, y = 3\nbo$2bo$3q!\n' >"$tmp/badchar.rle"
expect "pattern" "$life" --pattern "$tmp/badchar.rle"
printf 'x = 2, y = 1\n5o!\n' >"$tmp/overlong.rle"
expect "pattern" "$life" --pattern "$tmp/overlong.rle"
printf '!Name: bad\n.O.\n..X\n' >"$tmp/bad.cells"
expect "pattern" "$life" --pattern "$tmp/bad.cells"
: >"$tmp/empty.rle"
expect "pattern" "$life" --pattern "$tmp/empty.rle"
for path in /nonexistent/dir/x.gif /proc/x.gif "$tmp" "$tmp/folder.rle" ''; do
  expect "--gif" "$life" --gif "$path" --generations 2
done
for path in /nonexistent/dir /proc/frames "$tmp/huge.rle" ''; do
  expect "--frames" "$life" --frames "$path" --generations 2
done
[ ! -e "$tmp/x.gif" ] || { failed=$((failed + 1)); failures+=("a refused --gif left a file behind"); }

# ---- make settings --------------------------------------------------------------------------------
expect_make "USE" run-02 USE=bogus
expect_make "USE" run-02 USE=
expect_make "REQUIRE_GPU" test-02 REQUIRE_GPU=yes
expect_make "REQUIRE_GPUS" test-02 REQUIRE_GPUS=many
expect_make "REQUIRE_GPUS" test-02 REQUIRE_GPUS=-1
expect_make "TEST_TIMEOUT" test-02 TEST_TIMEOUT=0
expect_make "TEST_TIMEOUT" test-02 TEST_TIMEOUT=abc
expect_make "TEST_TIMEOUT" test-02 TEST_TIMEOUT=-5
expect_make "JOBS" check JOBS=abc
expect_make "JOBS" check JOBS=0
expect_make "ARCH" build-02 ARCH=sm_50
expect_make "ARCH" build-02 ARCH=bogus
expect_make "no exercise '99'" run-99
expect_make "no exercise '7'" test-7
expect_make_run "ARGS has an unmatched quote" run-02 USE=solution "ARGS=--n \"5"
expect_make_run "not a test option" test-02 USE=solution ARGS=--bogus
expect_make_run "no test case matched" test-02 USE=solution ARGS=-tc=nomatch
expect_make_run "unexpected argument" run-02 USE=solution "ARGS=--n 5; touch $tmp/pwned"
[ ! -e "$tmp/pwned" ] || { failed=$((failed + 1)); failures+=("ARGS reached a shell: $tmp/pwned was created"); }

# ---- make profile-NN where it cannot run (stand-ins for ncu play each failure) -------------------
fake_ncu() {  # name, what it prints and does after `ncu --version`
  printf '#!/usr/bin/env bash\n[ "${1:-}" = --version ] && { echo "Version 2019.1.0 (stand-in)"; exit 0; }\n%s\n' "$2" >"$tmp/$1"
  chmod +x "$tmp/$1"
}
fake_ncu ncu_perm 'echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."; exit 1'
fake_ncu ncu_old 'echo "==ERROR== Profiling is not supported on device 0. To find out supported GPUs refer --list-chips option."; exit 1'
fake_ncu ncu_run 'while [ $# -gt 0 ] && [ "$1" != bash ]; do shift; done; "$@"; rc=$?; echo "==WARNING== No kernels were profiled."; exit $rc'
# A stand-in for a program that ran its steps on a GPU under COURSE_PROFILE=1 (measure.h).
printf '#!/usr/bin/env bash\necho "| 2 | many_blocks | ok |"\necho "nvtx range: step 2 many_blocks"\n' >"$tmp/ran_steps"
chmod +x "$tmp/ran_steps"
profile() {  # needle, ncu, program, then VAR=value settings
  local needle=$1 ncu=$2 program=$3
  shift 3
  expect "$needle" env "NCU=$ncu" "$@" bash common/profile.sh 02_scalar_multiply "$program" build/common/profile_table
}
real=build/02_scalar_multiply/solution/scalar_multiply
profile "is not a program" "$tmp/no_such_ncu" "$tmp/ran_steps"
profile "NVreg_RestrictProfilingToAdminUsers=0" "$tmp/ncu_perm" "$tmp/ran_steps"
profile "too old" "$tmp/ncu_old" "$tmp/ran_steps"
profile "is it ncu?" /bin/echo "$tmp/ran_steps"
profile "--n" "$tmp/ncu_run" "$real" "ARGS=--n abc"
profile "PROFILE_COLUMNS" "$tmp/ncu_run" "$real" "PROFILE_COLUMNS=x = a__b.sum +"
profile "PROFILE_LAUNCHES" "$tmp/ncu_run" "$real" PROFILE_LAUNCHES=lots
nvidia-smi -L >/dev/null 2>&1 || profile "no usable GPU" "$tmp/ncu_run" "$real"

for f in "${failures[@]+"${failures[@]}"}"; do echo "bad input FAILED: $f"; done
echo "bad input: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
