#!/usr/bin/env bash
# bad_input.sh (run by `make check`, GPU or not): what a new or careless user might type, and
# what the course promises for it: exit code 2 and ONE printable line (control bytes escaped, at
# most 1000 characters) that names the option (or setting) and the problem, before any GPU work.
#
#   bash common/bad_input.sh            every case; per folder "N cases, N passed", then the total
#   VERBOSE=1 bash common/bad_input.sh  also lists every case that passes
# With COURSE_RECORD=FILE (make check), it also leaves its suite record there (common/course.cpp).
#
# The cases are built, kind by kind, for every exercise folder found (NN_name/), from what its
# program says it reads (PROGRAM --list-options: each option's kind, range or choices, and the
# options that cannot affect a run), from the test program every folder has, and from make's
# settings; a folder may add kinds that need its own knowledge in NN_name/bad_input_cases.sh.
# A folder whose program cannot list its options fails. Programs are the solutions' (make all).
#
# Limits, and what they are about: the program's own CPU time (ulimit -t, 10 s: a refusal is
# quick) and its memory (ulimit -v, 2 GB: an allocation made before the check fails the case).
# Neither depends on how busy the machine is; a wall-clock guard of 120 s catches only a hang.
set -u
cd "$(dirname "$0")/.."
# No case may reach GPU work, on any machine: CUDA is shown no device at all, so a value that
# slips through the checks meets "no usable GPU" (still one line) instead of a run.
export REQUIRE_GPU=0 LC_ALL=C CUDA_VISIBLE_DEVICES=
# Nor may the settings of the make that ran the suite (make check REQUIRE_GPU=1 REQUIRE_GPUS=2
# hands them on in MAKEFLAGS) turn that into a failure; ARCH, NVCC and the rest pass on, so the
# suite's own make calls find everything built.
unset REQUIRE_GPUS
MAKEFLAGS=$(sed -E 's/(^| )REQUIRE_GPUS?=[^ ]*//g' <<<"${MAKEFLAGS:-}")
export MAKEFLAGS
# The file of this suite's record (make check sets it), kept from the programs the cases run.
suite_record=${COURSE_RECORD:-}
unset COURSE_RECORD
tmp=$(mktemp -d)
chmod 755 "$tmp"  # the cases run as another user reach into it
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cpu_s=10 memory_kb=2000000 guard_s=120

declare -A ran=() ok=() seen=()
groups=()
group=""
passed=0 failed=0 skipped=0
failures=() skip_reasons=()
in_group() {  # name: the cases that follow are counted under it
  group=$1
  [ -n "${seen[$group]:-}" ] || groups+=("$group")
  seen[$group]=1
  ran[$group]=${ran[$group]:-0} ok[$group]=${ok[$group]:-0}
}
pass() {
  passed=$((passed + 1)) ran[$group]=$((ran[$group] + 1)) ok[$group]=$((ok[$group] + 1))
  [ -n "${VERBOSE:-}" ] && echo "ok   [$group] $1"
  return 0
}
fail() {
  failed=$((failed + 1)) ran[$group]=$((ran[$group] + 1))
  failures+=("[$group] $1")
}
skip() {  # why: a case that cannot be tried here (said once per reason, at the end)
  skipped=$((skipped + 1))
  local r
  for r in "${skip_reasons[@]+"${skip_reasons[@]}"}"; do [ "$r" = "$1" ] && return 0; done
  skip_reasons+=("$1")
}

# Does OUT satisfy NEEDLE? Alternatives " || ", each of parts " && "; a part "!text" must not appear.
matches() {  # needle, out
  local alt part rest
  rest=$1
  while :; do
    alt=${rest%% || *}
    local all=1 parts=$alt
    while :; do
      part=${parts%% && *}
      if [ "${part:0:1}" = '!' ]; then
        grep -qF -- "${part:1}" <<<"$2" && all=0
      else
        grep -qF -- "$part" <<<"$2" || all=0
      fi
      [ "$parts" = "$part" ] && break
      parts=${parts#* && }
    done
    [ $all = 1 ] && return 0
    [ "$rest" = "$alt" ] && return 1
    rest=${rest#* || }
  done
}
# The promise for one output: exit 2, one line, printable, short, and the needle.
judge() {  # what, needle, rc, out
  local what=$1 needle=$2 rc=$3 out=$4 lines why=""
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "$rc" -ne 2 ]; then
    why="exit $rc"
    [ "$rc" -eq 152 ] || [ "$rc" -eq 137 ] && why+=" (over ${cpu_s} s of CPU time, or killed)"
    [ "$rc" -eq 124 ] && why+=" (still running after ${guard_s} s: a hang)"
  elif [ "$lines" -ne 1 ]; then
    why="$lines lines"
  elif LC_ALL=C grep -q '[^ -~]' <<<"$out"; then
    why="bytes that are not printable"
  elif [ "${#out}" -gt 1000 ]; then
    why="a line of ${#out} characters"
  elif ! matches "$needle" "$out"; then
    why="wanted '$needle'"
  fi
  if [ -z "$why" ]; then
    pass "$what -> $out"
  else
    fail "$what -> $why: $(head -c 300 <<<"$out" | LC_ALL=C tr -c '\n -~' '?' | tr '\n' '|')"
  fi
}
shown() { local s; s=$(printf '%q ' "$@"); printf '%s' "${s:0:200}"; }
# One case: PROGRAM ARGS... must keep the promise with NEEDLE in its line.
expect() { expect_run "" "$@"; }
# The same, as an ordinary user (as root, every folder can be entered and every file read).
expect_as_user() { expect_run as_user "$@"; }
as_user() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; else "$@"; fi
}
can_be_user() { [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null 2>&1; }
# Can the other user start PROGRAM at all? Its libraries may lie where that user cannot read (a
# course under a private home, with giflib in .deps/): then every case run as that user would
# test the loader, not the input. Prints why not (once checked, remembered), or nothing.
declare -A user_start=()
user_cannot_start() {  # program
  if [ -z "${user_start[$1]+set}" ]; then
    local out rc
    out=$( (ulimit -t $cpu_s -v $memory_kb; as_user timeout -k 2 $guard_s "$1" --help) 2>&1 </dev/null)
    rc=$?
    user_start[$1]=
    [ $rc -eq 0 ] || user_start[$1]="$1 cannot start as another user (uid 65534): exit $rc, $(head -n 1 <<<"$out" | LC_ALL=C tr -c ' -~' '?' | head -c 200)"
  fi
  printf '%s' "${user_start[$1]}"
}
expect_run() {  # how ("" or as_user), needle, program, args...
  local how=$1 needle=$2 program=$3 out rc why
  shift 3
  if [ "$how" = as_user ]; then
    why=$(user_cannot_start "$program")
    if [ -n "$why" ]; then skip "cases run as another user: $why"; return 0; fi
  fi
  out=$( (ulimit -t $cpu_s -v $memory_kb; ${how:-exec} timeout -k 2 $guard_s "$program" "$@") 2>&1 </dev/null)
  rc=$?
  judge "${how:+(as a user) }$(basename "$program") $(shown "$@")" "$needle" "$rc" "$out"
}
# A make setting: make's own one line, exit 2, before anything is built (expect_make_run: make
# runs the program, which prints its one line among make's).
expect_make() { make_case 1 "$@"; }
expect_make_run() { make_case 0 "$@"; }
make_case() {  # one_line, needle, make arguments...
  local one_line=$1 needle=$2 out rc lines
  shift 2
  out=$( (ulimit -t $cpu_s; exec timeout -k 2 $guard_s make --no-print-directory "$@") 2>&1 </dev/null)
  rc=$?
  if [ "$one_line" = 1 ]; then
    judge "make $(shown "$@")" "$needle" "$rc" "$out"
  elif [ "$rc" -eq 2 ] && matches "$needle" "$out"; then
    pass "make $(shown "$@") -> $(tail -n 1 <<<"$out")"
  else
    fail "make $(shown "$@") -> exit $rc, wanted '$needle': $(head -c 300 <<<"$out" | tr '\n' '|')"
  fi
}
# A condition that must hold after a case (a file not written, a stamp not touched).
check_that() {  # description, command...
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# ---- Values that are wrong for every option of a kind ------------------------------------------
long_digits=$(printf '9%.0s' {1..131000})  # a 131,000-digit number: echoed capped, not whole
bad_counts=('' abc -1 -0 1.5 12abc 0x10 1e3 +5 ' 7' '7 ' 2^ 2^-1 2^64 2^63+2^1 2^70 2^10x
            18446744073709551616 99999999999999999999999 '5;' '$(id)' -h
            $'2^63\n1' $'2^99\e[2J' $'7\r' $'2^70\x01' "$long_digits")
bad_integers=('' abc 1.5 12abc 0x10 2^64 99999999999 -99999999999 -1e30 '$(id)' $'3\n4' $'2^99\e[2J'
              "$long_digits" "-$long_digits")
bad_reals=('' abc nan inf -inf 1e999 1,5 0x1p3zz '2.5 ' ' 1' $'\t1' -- $'1\e[2J' $'1e5\n2' "$long_digits.5")
bad_choices=('' bogus ALL 'all ' 1 $'all\n' $'\e[31mall')

# A value each kind accepts (for the cases about rules, which need a valid value).
# Never the option's default: an option given with its default means the same as leaving it out.
valid_value() {  # kind, values, default
  local lo=${2%%..*} choice
  case $1 in
    size | seed | integer) if [ "$lo" = "$3" ]; then echo $((lo + 1)); else echo "$lo"; fi ;;
    real) if [ "$lo" = "$3" ]; then echo "${2##*..}"; else echo "$lo"; fi ;;
    choice)
      for choice in ${2//,/ }; do
        [ "$choice" != "$3" ] && { echo "$choice"; return; }
      done ;;
    text) echo "${3:-x}" ;;
    input-file) echo "$tmp/none${2%%,*}" ;;
    output-file) echo "$tmp/ok${2%%,*}" ;;
    output-folder) echo "$tmp/okframes" ;;
  esac
}

# ---- The folders' programs, case by case from their lists ---------------------------------------
exercises=()
for d in [0-9][0-9]_*/; do
  d=${d%/}
  [ -f "$d/main.cpp" ] && exercises+=("$d")
done
first_number=${exercises[0]%%_*}
readme_before=$(stat -c %Y:%s README.md)

mkdir -p "$tmp/folder.x" "$tmp/closed" "$tmp/notdir"
: >"$tmp/existing.notakind"
echo "keep" >"$tmp/file"
echo "keep" >"$tmp/hard_source.txt"
# A record of the student's progress, to which links are made (removed again at the end).
made_progress=
[ -d .progress ] || { mkdir .progress && made_progress=1; }
record=.progress/bad_input_probe.steps
echo '{"record":"tests","steps":[{"number":1,"name":"probe","state":"ok"}],"steps_passed":1,"cases":{"passed":1,"failed":0,"skipped":0}}' >"$record"
record_before=$(stat -c %Y:%s "$record")
trap 'rm -f "$record"; [ -n "$made_progress" ] && rmdir .progress 2>/dev/null; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 000 "$tmp/closed"
ln -s loop_b "$tmp/loop_a" && ln -s loop_a "$tmp/loop_b"

for ex in "${exercises[@]}"; do
  in_group "$ex"
  program=build/$ex/solution/${ex#*_}
  tests=build/$ex/solution/tests
  if [ ! -x "$program" ]; then
    fail "$program is not built (make all first): its options cannot be listed"
    continue
  fi
  list=$( (ulimit -t $cpu_s -v $memory_kb; timeout -k 2 $guard_s "$program" --list-options) 2>&1)
  if [ $? -ne 0 ] || ! grep -qE '^--[a-z]' <<<"$list"; then
    fail "$program --list-options does not list its options (read every option with common/options.h before finish()): $(head -c 200 <<<"$list" | tr '\n' '|')"
    continue
  fi
  declare -A kind_of=() values_of=() default_of=()
  names=()
  while read -r name kind values rest; do
    [[ "$name" == --* ]] || continue
    names+=("$name")
    kind_of[$name]=$kind values_of[$name]=$values default_of[$name]=""
    for field in $rest; do [[ "$field" == default=* ]] && default_of[$name]=${field#default=}; done
  done <<<"$list"

  for name in "${names[@]}"; do
    kind=${kind_of[$name]} values=${values_of[$name]}
    lo=${values%%..*} hi=${values##*..}
    case $kind in
      size | seed)
        for v in "${bad_counts[@]}"; do expect "$name" "$program" "$name" "$v"; done
        [ "$lo" != 0 ] && expect "$name: must be at least $lo" "$program" "$name" "$((lo - 1))"
        if [ "$hi" != 18446744073709551615 ]; then
          expect "$name: must be at most $hi" "$program" "$name" "$((hi + 1))"
          expect "$name" "$program" "$name" 2^62
        fi
        # The largest count it takes: refused, or stopped at the GPU check, before anything is
        # allocated (the memory cap turns an allocation made first into a crash).
        if [ "$kind" = size ]; then
          big=$hi
          [ "$hi" = 18446744073709551615 ] && big=2^62
          expect "$name || no usable GPU" "$program" "$name" "$big"
        fi
        ;;
      integer)
        for v in "${bad_integers[@]}" "$((lo - 1))" "$((hi + 1))"; do expect "$name" "$program" "$name" "$v"; done
        ;;
      real)
        for v in "${bad_reals[@]}" "-1$hi" "1$hi"; do expect "$name" "$program" "$name" "$v"; done
        expect "$name: '1e-400' is too close to 0 && !not a number" "$program" "$name" 1e-400
        ;;
      choice)
        for v in "${bad_choices[@]}"; do expect "$name" "$program" "$name" "$v"; done
        ;;
      flag)
        expect "$name: takes no value" "$program" "$name=yes"
        ;;
      text)
        expect "$name: needs a value" "$program" "$name" ''
        ;;
      input-file)
        ext=${values%%,*}
        mkdir -p "$tmp/in"
        chmod 755 "$tmp/in"
        mkdir -p "$tmp/in/folder$ext"
        [ -p "$tmp/in/pipe$ext" ] || mkfifo "$tmp/in/pipe$ext"
        ln -sf /dev/zero "$tmp/in/device$ext"
        ln -sf loop2$ext "$tmp/in/loop1$ext" && ln -sf loop1$ext "$tmp/in/loop2$ext"
        ln -sf gone$ext "$tmp/in/dangling$ext"
        : >"$tmp/in/empty$ext"
        head -c $((64 << 20)) /dev/zero >"$tmp/in/junk$ext"
        printf '\xef\xbb\xbf\x1b[2J\r\n\x01\x02\n' >"$tmp/in/control$ext"
        printf 'x' >"$tmp/in/other.txt"
        expect "$name: && no such file" "$program" "$name" "$tmp/in/missing$ext"
        expect "$name: && folder" "$program" "$name" "$tmp/in/folder$ext"
        expect "$name: && not a regular file" "$program" "$name" "$tmp/in/pipe$ext"
        expect "$name: && not a regular file" "$program" "$name" "$tmp/in/device$ext"
        expect "$name: && loop && !no such file" "$program" "$name" "$tmp/in/loop1$ext"
        expect "$name: && does not exist" "$program" "$name" "$tmp/in/dangling$ext"
        expect "$name: && a part of the path is a file && !no such file" "$program" "$name" "$tmp/file/x$ext"
        expect "$name:" "$program" "$name" "$tmp/in/empty$ext"
        expect "$name:" "$program" "$name" "$tmp/in/junk$ext"
        expect "$name:" "$program" "$name" "$tmp/in/control$ext"
        expect "$name:" "$program" "$name" "$tmp/in/other.txt"
        if can_be_user; then
          cp "$tmp/in/control$ext" "$tmp/closed/in$ext" 2>/dev/null || { chmod 700 "$tmp/closed"; cp "$tmp/in/control$ext" "$tmp/closed/in$ext"; chmod 000 "$tmp/closed"; }
          expect_as_user "$name: && does not let you in && !no such file" "$program" "$name" "$tmp/closed/in$ext"
          cp "$tmp/in/control$ext" "$tmp/in/secret$ext" && chmod 000 "$tmp/in/secret$ext"
          expect_as_user "$name: && cannot be read" "$program" "$name" "$tmp/in/secret$ext"
        fi
        ;;
      output-file | output-folder)
        ext=${values%%,*}
        probe=bad_input_probe
        [ "$kind" = output-file ] && probe+=$ext
        for folder in "$ex" common .ci; do
          [ -d "$folder" ] || continue
          expect "$name: && a folder of the course's sources" "$program" "$name" "$folder/$probe"
          check_that "$ex: $name wrote nothing into $folder/" test ! -e "$folder/$probe"
          rm -rf "${folder:?}/$probe"
        done
        link_target=$(ls "$ex"/*.cpp | head -n 1)
        before=$(stat -c %Y:%s "$link_target")
        ln -sf "$PWD/$link_target" "$tmp/link$ext"
        expect "$name: && a folder of the course's sources" "$program" "$name" "$tmp/link$ext"
        check_that "$ex: $name left $link_target as it was" test "$(stat -c %Y:%s "$link_target")" = "$before"
        if [ "$kind" = output-file ]; then
          # The file written is checked, not the name typed: a link of the right name to a file
          # of the course outside build/ (its top files, a progress record), a link to a file of
          # another kind, a file of two names (a hard link).
          for target in README.md Makefile "$record"; do
            [ -e "$target" ] || continue
            before=$(stat -c %Y:%s "$target")
            ln -sfn "$PWD/$target" "$tmp/course_link$ext"
            expect "$name: && is a symbolic link to '$target' in the course" "$program" "$name" "$tmp/course_link$ext"
            check_that "$ex: $name left $target as it was" test "$(stat -c %Y:%s "$target")" = "$before"
          done
          ln -sfn "$tmp/file" "$tmp/other_kind$ext"
          expect "$name: && is a symbolic link to && not a $ext file" "$program" "$name" "$tmp/other_kind$ext"
          check_that "$ex: $name left a file of another kind as it was" test "$(cat "$tmp/file")" = keep
          ln -f "$tmp/hard_source.txt" "$tmp/hard$ext"
          expect "$name: && has 2 names (hard links)" "$program" "$name" "$tmp/hard$ext"
          rm -f "$tmp/hard$ext"
          expect "$name: && must be a file name ending in $ext" "$program" "$name" "$tmp/existing.notakind"
          check_that "$ex: $name left another kind of file as it was" test ! -s "$tmp/existing.notakind"
          expect "$name: && is a folder" "$program" "$name" "$tmp/folder.x"
          expect "$name: && does not exist" "$program" "$name" "$tmp/missing/x$ext"
          expect "$name: && cannot be created" "$program" "$name" "/proc/x$ext"
          expect "$name: && a part of the path is a file" "$program" "$name" "$tmp/file/x$ext"
          can_be_user && expect_as_user "$name: && cannot be" "$program" "$name" "$tmp/closed/x$ext"
        else
          expect "$name: && is a file, not a folder" "$program" "$name" "$tmp/existing.notakind"
          expect "$name: && does not exist" "$program" "$name" "$tmp/missing/frames"
          expect "$name: && cannot make the folder" "$program" "$name" "/proc/frames"
          can_be_user && expect_as_user "$name: && cannot" "$program" "$name" "$tmp/closed/frames"
        fi
        expect "$name: needs a value" "$program" "$name" ''
        ;;
    esac
    # Every option: its value left out (a flag: given with a value above), and given twice.
    [ "$kind" != flag ] && expect "$name" "$program" "$name"
    expect "$name" "$program" "$name" 1 "$name" 1
  done

  # The rules: an option that cannot affect the run is refused with the reason. An option given
  # with its default value means the same as leaving it out (--demo none --kernel stats runs the
  # steps): the same rules with one side at its default are not refused.
  args_for() {  # name: the option with a valid value
    local v
    v=$(valid_value "${kind_of[$1]:-flag}" "${values_of[$1]:-}" "${default_of[$1]:-}")
    if [ -z "$v" ]; then printf '%s\n' "$1"; else printf '%s\n' "$1" "$v"; fi
  }
  at_default() {  # name: the option with its default, or nothing (a flag, no default, or a
    local d=${default_of[$1]:-} v=${values_of[$1]:-}  # default no one can type, such as 0 for "from n")
    [ "${kind_of[$1]:-flag}" != flag ] && [ -n "$d" ] && [[ $d != *\\x* ]] || return 0
    case ${kind_of[$1]} in
      size | seed | integer | real) awk -v d="$d" -v lo="${v%%..*}" -v hi="${v##*..}" 'BEGIN { exit !(d + 0 >= lo + 0 && d + 0 <= hi + 0) }' || return 0 ;;
      choice) [[ ",$v," == *",$d,"* ]] || return 0 ;;
    esac
    printf '%s\n' "$1" "$d"
  }
  not_refused="!does nothing && !is not used by --bench && !--bench measures every step"
  # A text option's one known valid value is its default (a size such as 160x120): its rule cases with
  # another value are the folder's own (NN_name/bad_input_cases.sh).
  other_value_known() { [ "${kind_of[$1]:-flag}" != text ] || [ -z "${default_of[$1]:-}" ]; }
  while read -r name kind values rest; do
    [[ "$name" == --* ]] || continue
    other_value_known "$name" || continue
    mapfile -t mine < <(args_for "$name")
    mapfile -t mine_default < <(at_default "$name")
    for field in $rest; do
      key=${field%%=*} list=${field#*=}
      IFS=, read -r -a others <<<"$list"
      case $key in
        not-with)
          for other in "${others[@]}"; do
            other_value_known "$other" || continue
            mapfile -t theirs < <(args_for "$other")
            mapfile -t theirs_default < <(at_default "$other")
            if [ "$other" = --bench ]; then needle="$name: && --bench"; else needle="$name: does nothing with $other"; fi
            expect "$needle" "$program" "${mine[@]}" "${theirs[@]}"
            [ ${#mine_default[@]} -gt 0 ] && expect "$not_refused" "$program" "${mine_default[@]}" "${theirs[@]}"
            [ ${#theirs_default[@]} -gt 0 ] && expect "$not_refused" "$program" "${mine[@]}" "${theirs_default[@]}"
          done
          ;;
        only-with)
          expect "$name: does nothing without" "$program" "${mine[@]}"
          [ ${#mine_default[@]} -gt 0 ] && expect "$not_refused" "$program" "${mine_default[@]}"
          ;;
        only-kernels)
          kernel=""
          IFS=, read -r -a choices <<<"${values_of[--kernel]:-}"
          for k in "${choices[@]}"; do
            [[ ",$list,all," == *",$k,"* ]] || { kernel=$k; break; }
          done
          [ -n "$kernel" ] && expect "$name: does nothing with --kernel $kernel" "$program" --kernel "$kernel" "${mine[@]}"
          [ -n "$kernel" ] && [ ${#mine_default[@]} -gt 0 ] &&
            expect "$not_refused" "$program" --kernel "$kernel" "${mine_default[@]}"
          ;;
      esac
    done
  done <<<"$list"

  # Every count at its largest, together: one line naming one of them (or the GPU check),
  # nothing allocated.
  all=()
  for name in "${names[@]}"; do
    hi=${values_of[$name]##*..}
    [ "${kind_of[$name]}" = size ] && all+=("$name" "$([ "$hi" = 18446744073709551615 ] && echo 2^62 || echo "$hi")")
  done
  if [ ${#all[@]} -gt 2 ]; then
    needle="no usable GPU"
    for ((i = 0; i < ${#all[@]}; i += 2)); do needle+="${needle:+ || }${all[i]}"; done
    expect "$needle" "$program" "${all[@]}"
  fi

  # Two outputs of one run that are one file: --plot through a link to --csv's file.
  if [ -n "${kind_of[--csv]:-}" ] && [ -n "${kind_of[--plot]:-}" ]; then
    : >"$tmp/same.csv"
    ln -sfn "$tmp/same.csv" "$tmp/same.svg"
    expect "--plot: && is a symbolic link to && same.csv" "$program" --csv "$tmp/same.csv" --plot "$tmp/same.svg"
  fi

  # What every program refuses, whatever its options.
  expect "unknown option '--bogus'" "$program" --bogus
  expect "unknown option '--bogus'" "$program" --bogus=1
  expect "unknown option '--b\\x1B[2Jogus'" "$program" $'--b\e[2Jogus'
  expect "unexpected argument 'extra'" "$program" extra
  expect "unexpected argument '-x'" "$program" -x
  expect "unexpected argument '\\x0D'" "$program" $'\r'
  expect "'--'" "$program" --

  # Its test program (doctest): words it does not know, and a report file (--out) that would
  # land in the course's sources or over another kind of file.
  if [ ! -x "$tests" ]; then
    fail "$tests is not built (make all first)"
  else
    expect "is not a test option" "$tests" --bogus
    expect "'--b\\x1B[2Jogus' is not a test option" "$tests" $'--b\e[2Jogus'
    expect "--out: && a folder of the course's sources" "$tests" "--out=$ex/bad_input_probe.txt"
    check_that "$ex: the tests' --out wrote nothing into $ex/" test ! -e "$ex/bad_input_probe.txt"
    expect "--out: && must be a file name ending in" "$tests" "-o=$tmp/existing.notakind"
    expect "--out: needs a file name" "$tests" "--out="
    for target in README.md "$record"; do
      ln -sfn "$PWD/$target" "$tmp/report_link.log"
      expect "--out: && is a symbolic link to '$target' in the course" "$tests" "--out=$tmp/report_link.log"
    done
    check_that "$ex: the tests' --out left the progress record as it was" test "$(stat -c %Y:%s "$record")" = "$record_before"
    ln -f "$tmp/hard_source.txt" "$tmp/hard_report.txt"
    expect "--out: && has 2 names (hard links)" "$tests" "--out=$tmp/hard_report.txt"
    rm -f "$tmp/hard_report.txt"
    # The record of progress (COURSE_STEPS_LOG, set by make test-NN) under the same rule: a
    # source file, a link into the course, a FIFO are not written (nor waited on); the tests run.
    mkdir -p "$tmp/records"
    [ -p "$tmp/records/fifo.steps" ] || mkfifo "$tmp/records/fifo.steps"
    ln -sfn "$PWD/README.md" "$tmp/records/link.steps"
    starter_before=$(stat -c %Y:%s "$ex/starter.cu")
    for log in "$ex/starter.cu" "$tmp/records/fifo.steps" "$tmp/records/link.steps"; do
      out=$( (ulimit -t $cpu_s -v $memory_kb; COURSE_STEPS_LOG=$log timeout -k 2 20 "$tests" -tc='*no case has this name*') 2>&1 </dev/null)
      rc=$?
      if [ "$rc" = 2 ] && grep -q "^note: this run is not recorded (make hint-NN will not know it): COURSE_STEPS_LOG: " <<<"$out"; then
        pass "$ex: COURSE_STEPS_LOG=$log is not written, and the tests run"
      else
        fail "$ex: COURSE_STEPS_LOG=$log -> exit $rc: $(head -c 300 <<<"$out" | tr '\n' '|')"
      fi
    done
    check_that "$ex: COURSE_STEPS_LOG left the starter as it was" test "$(stat -c %Y:%s "$ex/starter.cu")" = "$starter_before"
    check_that "$ex: COURSE_STEPS_LOG left README.md as it was" test "$(stat -c %Y:%s README.md)" = "$readme_before"
  fi

  # Kinds only this folder knows about.
  if [ -f "$ex/bad_input_cases.sh" ]; then
    # shellcheck disable=SC1090
    source "$ex/bad_input_cases.sh"
  fi
  unset kind_of values_of default_of
done

# ---- make settings (any exercise will do: the first one found) ----------------------------------
in_group "make settings"
n=$first_number
folder=${exercises[0]}
# The cases that run a program use the compiler and architecture the build was made with (read
# from build/flags), so that none of them rebuilds anything.
if [ -f build/flags ]; then
  read -r built_nvcc _ <build/flags
  built_arch=$(grep -oE -- '-arch=[^ ]+' build/flags | head -n 1)
  built_arch=${built_arch#-arch=}
  grep -q -- '-gencode' build/flags && built_arch=fat
  export ARCH=${built_arch:-auto} NVCC=$built_nvcc
fi
expect_make "USE must be" run-$n USE=bogus
expect_make "USE must be" run-$n USE=
expect_make "USE must be && (got 'solution ')" run-$n 'USE=solution '
expect_make "REQUIRE_GPU" test-$n REQUIRE_GPU=yes
expect_make "REQUIRE_GPU" test-$n 'REQUIRE_GPU=0 1'
for v in many -1 100 '2 ' ''; do expect_make "REQUIRE_GPUS" test-$n "REQUIRE_GPUS=$v"; done
for v in 0 00 000 abc -5 1000000 '1 2' 1.5 $'3\n'; do expect_make "TEST_TIMEOUT" test-$n "TEST_TIMEOUT=$v"; done
for v in 0 00 abc '2 2'; do expect_make "JOBS" check "JOBS=$v"; done
expect_make "V must be 0 or 1" build-$n V=2
for v in sm_50 sm_79 sm_99 sm_75a bogus 'native fat' "sm_90'"; do expect_make "ARCH" build-$n "ARCH=$v"; done
nvidia-smi -L >/dev/null 2>&1 || expect_make "ARCH=native && nvidia-smi finds none" build-$n ARCH=native
for v in /nonexistent/nvcc /bin/false gcc '' 'nvcc --x'; do expect_make "NVCC" build-$n "NVCC=$v"; done
expect_make "NCU must be" help 'NCU=a b'
expect_make "no exercise '99'" run-99
expect_make "no exercise '7'" test-7
expect_make "no exercise '\\x1B[2J9'" $'run-\e[2J9'
expect_make "run make in the course's folder" -C "$tmp" -f "$PWD/Makefile" run-$n
# A quote in a setting is a character: nothing runs, even for make help.
for setting in TEST_TIMEOUT JOBS ARCH NVCC USE REQUIRE_GPU REQUIRE_GPUS; do
  expect_make "$setting" help "$setting=1' ]] ; touch $tmp/pwned_$setting ; [[ '1"
  check_that "make: a quote in $setting ran nothing" test ! -e "$tmp/pwned_$setting"
done
expect_make "TEST_TIMEOUT" -n test-$n "TEST_TIMEOUT=1' ]] ; touch $tmp/pwned_n ; [[ '1"
check_that "make -n: a quote in TEST_TIMEOUT ran nothing" test ! -e "$tmp/pwned_n"
# ARGS is taken as typed: make expands nothing in it, and no shell runs it.
expect_make_run "has an unmatched double quote" run-$n USE=solution "ARGS=--n \"5"
# A quoted line break is part of a word; one left open is named on one line, escaped.
expect_make_run "unknown option '--bogus'" run-$n USE=solution $'ARGS=--bogus "a\nb"'
expect_make_run "has an unmatched double quote && --n \"5\\x0A6" run-$n USE=solution $'ARGS=--n "5\n6'
expect_make_run "unexpected argument '\$(shell'" run-$n USE=solution "ARGS=\$(shell touch $tmp/pwned_args)"
expect_make_run "unexpected argument '\`touch'" run-$n USE=solution "ARGS=\`touch $tmp/pwned_tick\`"
expect_make_run "unexpected argument '\$HOME/x'" run-$n USE=solution 'ARGS=$HOME/x'
expect_make_run "unexpected argument '\$\$'" run-$n USE=solution 'ARGS=$$'
expect_make_run "unexpected argument 'touch'" run-$n USE=solution "ARGS=--bogus 5; touch $tmp/pwned_semi"
for f in pwned_args pwned_tick pwned_semi; do check_that "make: ARGS ran nothing ($f)" test ! -e "$tmp/$f"; done
expect_make_run "not a test option" test-$n USE=solution ARGS=--bogus
expect_make_run "no test case matched" test-$n USE=solution ARGS=-tc=nomatch
# The test-name filter takes time linear in a name, whatever its stars (10 s of CPU at most here).
expect_make_run "no test case matched" test-$n USE=solution 'ARGS=-tc=*?*?*?*?*?*?*?*?*#'
expect_make_run "no test case matched" test-$n USE=solution 'ARGS=-tc=*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*# -tce=*?*?*?*?*?*?*?*?*?*?*#'

# Every setting is taken as typed: $(shell ...) in one runs nothing, given on the command line or
# in the environment, for make help and for a goal that runs its scripts.
for setting in USE ARGS ARCH REQUIRE_GPU REQUIRE_GPUS TEST_TIMEOUT NCU NVCC JOBS V STEP LEVEL COURSE_PROGRESS_DIR \
               STRICT_STARTERS CI; do
  ( ulimit -t $cpu_s; make --no-print-directory help "$setting=\$(shell touch $tmp/literal_line_$setting)" ) >/dev/null 2>&1 </dev/null
  ( ulimit -t $cpu_s; env "$setting=\$(shell touch $tmp/literal_env_$setting)" make --no-print-directory help ) >/dev/null 2>&1 </dev/null
  check_that "make: \$(shell ...) in $setting ran nothing (command line, environment)" \
    test ! -e "$tmp/literal_line_$setting" -a ! -e "$tmp/literal_env_$setting"
done
( ulimit -t $cpu_s; make --no-print-directory hint-$n "STEP=\$(shell touch $tmp/literal_step)" ) >/dev/null 2>&1 </dev/null
( ulimit -t $cpu_s; make --no-print-directory hint-$n "COURSE_PROGRESS_DIR=$tmp/\$(shell touch $tmp/literal_progress)" ) >/dev/null 2>&1 </dev/null
check_that "make hint-$n: \$(shell ...) in STEP and COURSE_PROGRESS_DIR ran nothing; the folder is the one typed" \
  test ! -e "$tmp/literal_step" -a ! -e "$tmp/literal_progress" -a -f "$tmp/\$(shell touch $tmp/literal_progress)/$folder.hints"
# Anything else on the command line is no setting: refused, and never expanded.
expect_make "'FOO' is not a setting of this course" help FOO=1
expect_make "'ARG' is not a setting of this course" run-$n ARG=--n
expect_make "'shell_quote' is not a setting of this course" help "shell_quote=\$(shell touch $tmp/pwned_function)"
expect_make "'CUDA_HOME' is not a setting of this course" help "CUDA_HOME=\$(shell touch $tmp/pwned_cuda_home)"
( ulimit -t $cpu_s; env "CUDA_HOME=\$(shell touch $tmp/pwned_cuda_home_env)" make --no-print-directory help ) >/dev/null 2>&1 </dev/null
for f in pwned_function pwned_cuda_home pwned_cuda_home_env; do check_that "make: a variable that is no setting ran nothing ($f)" test ! -e "$tmp/$f"; done
# COURSE_STEPS_LOG is internal: refused on the command line, ignored in the environment.
starter_before=$(stat -c %Y:%s "$folder/starter.cu")
expect_make "'COURSE_STEPS_LOG' is not a setting of this course" test-$n "COURSE_STEPS_LOG=$folder/starter.cu"
( ulimit -t $cpu_s; COURSE_STEPS_LOG=$folder/starter.cu make --no-print-directory test-$n USE=solution ARGS=-tse=gpu ) >/dev/null 2>&1 </dev/null
check_that "make test-$n with COURSE_STEPS_LOG=$folder/starter.cu left the starter as it was" \
  test "$(stat -c %Y:%s "$folder/starter.cu")" = "$starter_before"
# Every echoed value is escaped and bounded: control bytes, line breaks, 131,000 characters.
expect_make "USE must be && (got '\\x1B[2Jsolution')" help $'USE=\e[2Jsolution'
expect_make "USE must be && (got '9999" help "USE=$long_digits"
expect_make "NVCC && \\x1B[2J" build-$n $'NVCC=/bin/\e[2Jfalse'
expect_make "STEP must be one line && (got '1\\x0A2')" hint-$n $'STEP=1\n2'
expect_make "STEP must be a step of && (got '\\x1B[2J')" hint-$n $'STEP=\e[2J'
expect_make "STEP must be a step of && (got '9999" hint-$n "STEP=$long_digits"
expect_make "LEVEL must be a hint level of && (got '\\x1B[2J')" hint-$n STEP=1 $'LEVEL=\e[2J'
expect_make "COURSE_PROGRESS_DIR must be one line" help $'COURSE_PROGRESS_DIR=a\nb'
for v in $'\e[2J' "$long_digits"; do
  expect "REQUIRE_GPU must be 0 or 1" env "REQUIRE_GPU=$v" "build/$folder/solution/tests"
  expect "REQUIRE_GPUS must be a number of GPUs" env "REQUIRE_GPUS=$v" "build/$folder/solution/tests"
done
out=$( (ulimit -t $cpu_s; make --no-print-directory doctor NVCC=/bin/false) 2>&1 </dev/null)
if grep -q "WARNING: NVCC '/bin/false' (/bin/false) is not nvcc" <<<"$out"; then pass "make doctor NVCC=/bin/false says it is not nvcc"
else fail "make doctor NVCC=/bin/false does not say it is not nvcc: $(head -c 300 <<<"$out" | tr '\n' '|')"; fi

# COURSE_PROGRESS_DIR reaches the scripts as a value, never a rule: ':', ';', '#', a space, a
# quote, '$(...)' in it; make test-NN records there, make hint-NN reads the record there.
for odd in 'a:b' 'a;b' 'a#b' 'a b' "a'b" 'a$(x)b'; do
  dir="$tmp/progress $odd"
  ( ulimit -t $cpu_s; make --no-print-directory test-$n USE=starter ARGS=-tse=gpu "COURSE_PROGRESS_DIR=$dir" ) >/dev/null 2>&1 </dev/null
  out=$( (ulimit -t $cpu_s; make --no-print-directory hint-$n "COURSE_PROGRESS_DIR=$dir") 2>&1 </dev/null)
  if grep -q "^{\"record\":\"tests\"," "$dir/$folder.steps" 2>/dev/null && [ -s "$dir/$folder.hints" ] &&
     ! grep -q 'no make test-' <<<"$out"; then
    pass "COURSE_PROGRESS_DIR='$odd': make test-$n recorded there, make hint-$n read it there"
  else
    fail "COURSE_PROGRESS_DIR='$odd': the record or the hint missed '$dir': $(head -c 300 <<<"$out" | tr '\n' '|')"
  fi
done
check_that "COURSE_PROGRESS_DIR: no stray folder in the course" test ! -e progress -a ! -e "progress a b"
starter_before=$(stat -c %Y:%s "$folder/starter.cu")
expect_make_run "--out: && a folder of the course's sources" test-$n USE=solution "ARGS=--out=$folder/starter.cu"
check_that "make test-$n ARGS=--out=$folder/starter.cu left the starter as it was" test "$(stat -c %Y:%s "$folder/starter.cu")" = "$starter_before"
# Looking at a setting changes nothing: build/flags (whose change rebuilds everything) stays.
if [ -f build/flags ]; then
  stamp=$(stat -c %Y.%s build/flags)
  make --no-print-directory help ARCH=sm_80 >/dev/null 2>&1
  make --no-print-directory -n build-$n ARCH=sm_80 >/dev/null 2>&1
  make --no-print-directory doctor NVCC=/bin/false >/dev/null 2>&1
  check_that "make help/-n/doctor with other settings left build/flags as it was" test "$(stat -c %Y.%s build/flags)" = "$stamp"
fi
# A checkout that cannot be written: one line saying where make needs to write.
if can_be_user; then
  copy=$tmp/readonly
  mkdir -p "$copy"
  cp -r Makefile common "$folder" "$copy/" 2>/dev/null
  chmod -R a+rX,a-w "$copy"
  expect_as_user_make() {  # needle, make arguments...
    local needle=$1 out rc
    shift
    out=$( (ulimit -t $cpu_s; as_user timeout -k 2 $guard_s make --no-print-directory -C "$copy" "$@") 2>&1 </dev/null)
    rc=$?
    judge "(as a user, read-only) make $(shown "$@")" "$needle" "$rc" "$out"
  }
  expect_as_user_make "cannot write there" run-$n ARCH=sm_90
  chmod u+w "$copy" && mkdir -p "$copy/build" && printf 'old flags' >"$copy/build/flags" && chmod -R a-w "$copy"
  expect_as_user_make "cannot be rewritten" run-$n ARCH=sm_90
fi

# ---- The course's own tools in odd states (a scratch copy of the course where they change it) ----
in_group "course tools"
scratch=$tmp/scratch
mkdir -p "$scratch"
cp -r Makefile common "$folder" "$scratch/"
# (As the make a user types: a make started by make check would name stray sources no more.)
scratch_make() { (ulimit -t $cpu_s; exec env -u MAKELEVEL timeout -k 2 $guard_s make --no-print-directory -C "$scratch" "$@") 2>&1 </dev/null; }
# An exercise's sources are the ones its exercise.mk lists (SUPPORT): a merge tool's backup and an
# editor's copy in the folder are named in one line and left out of the build.
printf 'int main() { return 0; }\n' >"$scratch/$folder/starter_BACKUP_1234.cu"
cp "$scratch/$folder/starter.cu" "$scratch/$folder/starter copy.cu"
out=$(scratch_make -n build-$n)
rc=$?
if [ "$rc" = 0 ] && [ "$(head -n 1 <<<"$out")" = "note: $folder/ holds starter copy.cu, starter_BACKUP_1234.cu, not part of the exercise (its exercise.mk lists its sources in SUPPORT): ignored" ] &&
   ! grep -q 'BACKUP\|starter copy' <<<"$(tail -n +2 <<<"$out")"; then
  pass "make build-$n with stray sources in $folder/: named once, not built"
else
  fail "make build-$n with stray sources in $folder/ -> exit $rc: $(head -c 300 <<<"$out" | tr '\n' '|')"
fi
rm -f "$scratch/$folder/starter_BACKUP_1234.cu" "$scratch/$folder/starter copy.cu"
cp "$scratch/$folder/exercise.mk" "$tmp/exercise.mk.saved"
for bad in missing.cu notes.txt main.cpp; do
  printf 'SUPPORT += %s\n' "$bad" >>"$scratch/$folder/exercise.mk"
  out=$(scratch_make -n build-$n)
  judge "make build-$n with SUPPORT naming $bad" "$folder/exercise.mk: SUPPORT names $bad, which" $? "$out"
  cp "$tmp/exercise.mk.saved" "$scratch/$folder/exercise.mk"
done
# make check's own bookkeeping: a suite of the course that ends without its record counts as one
# failure, and make check still ends with its check: line.
printf 'echo "partial output"\nexit 3\n' >"$tmp/no_summary.sh"
out=$(cd "$scratch" && "$OLDPWD/build/common/course" check "$tmp/no_summary.sh" 2>&1)
rc=$?
if [ "$rc" = 1 ] && [ "$(tail -n 1 <<<"$out")" = "check: 0 passed, 1 failed, 0 skipped" ] && grep -q '^partial output$' <<<"$out"; then
  pass "make check: a suite that leaves no record is one failure, its last lines shown, and check: ends the output"
else
  fail "make check with a suite that leaves no record -> exit $rc: $(tail -c 300 <<<"$out" | tr '\n' '|')"
fi
# A copy of the course without an exercise another one USES (10 compiles 08's kernel): one line.
printf 'USES += 99_not_here/solution.cu\n' >>"$scratch/$folder/exercise.mk"
out=$(scratch_make -n build-$n)
judge "make build-$n with USES naming a source this copy does not have" \
  "$folder/exercise.mk: USES names 99_not_here/solution.cu, which this copy of the course does not have" $? "$out"
cp "$tmp/exercise.mk.saved" "$scratch/$folder/exercise.mk"
# make status where build/ exists but cannot be written (the course tool built in it already):
# every row points at a log that exists.
if can_be_user; then
  mkdir -p "$scratch/build/common"
  cp build/common/course "$scratch/build/common/course" && touch "$scratch/build/common/course"
  chmod -R a+rX,a-w "$scratch"
  out=$( (ulimit -t $cpu_s; cd /; as_user timeout -k 2 $guard_s make --no-print-directory -C "$scratch" status) 2>&1 </dev/null)
  chmod -R u+w "$scratch"
  log=$(grep -oE 'see [^ ]+status-[^ ]+\.log' <<<"$out" | head -n 1)
  log=${log#see }
  if [ -n "$log" ] && [ -s "$log" ] && grep -q '^(build/ cannot be written here: the build logs go to' <<<"$out"; then
    pass "make status with build/ not writable: its rows point at logs that exist"
  else
    fail "make status with build/ not writable: $(head -c 400 <<<"$out" | tr '\n' '|')"
  fi
  [ -n "$log" ] && rm -rf "$(dirname "$log")"
fi
# NCCL's set-up where nothing can install it (stand-ins for nvcc, apt-get, sudo and python3): one
# line naming what failed and each log; and a pip-installed NCCL is found.
mkdir -p "$tmp/setup/bin" "$tmp/setup/course" "$tmp/setup/site/nvidia/nccl/include" "$tmp/setup/site/nvidia/nccl/lib"
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.48"\n' >"$tmp/setup/bin/nvcc"
printf '#!/bin/sh\necho "E: Unable to locate package libnccl-dev"\nexit 100\n' >"$tmp/setup/bin/apt-get"
printf '#!/bin/sh\nexit 1\n' >"$tmp/setup/bin/sudo"
printf '#!/bin/sh\necho "ERROR: no network" >&2\nexit 1\n' >"$tmp/setup/bin/python3"
chmod +x "$tmp/setup/bin/"*
setup() { (cd "$tmp/setup/course" && PATH=$tmp/setup/bin:$PATH NVCC=nvcc timeout -k 2 $guard_s bash "$OLDPWD/common/setup_deps.sh" nccl) 2>&1 </dev/null; }
if (cd "$tmp/setup/course" && PATH=$tmp/setup/bin:$PATH bash -c 'for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do [ -e $d/libnccl.so ] && exit 0; done; exit 1'); then
  skip "NCCL's set-up failure: this machine has libnccl.so in a system folder, where the set-up finds it"
else
  out=$(setup)
  rc=$?
  last=$(tail -n 1 <<<"$out")
  if [ "$rc" = 1 ] && [ "$(grep -c '' <<<"$out")" -le 3 ] && [[ $last == "setup: libnccl-dev is missing: "* ]] &&
     [[ $last == *"the download of nvidia-nccl-cu13 from PyPI failed (log: build/setup_nccl.log)"* ]] &&
     [[ $last == *"python3 -m pip install nvidia-nccl-cu13"* ]] && [[ $last != *doctest* ]] &&
     [ -f "$tmp/setup/course/build/setup_nccl.log" ]; then
    pass "NCCL's set-up failure: one line naming what failed and its logs, advice for what is missing"
  else
    fail "NCCL's set-up failure -> exit $rc: $(head -c 600 <<<"$out" | tr '\n' '|')"
  fi
  touch "$tmp/setup/site/nvidia/nccl/include/nccl.h" "$tmp/setup/site/nvidia/nccl/lib/libnccl.so.2"
  printf '#!/bin/sh\necho %s\n' "$tmp/setup/site/nvidia/nccl" >"$tmp/setup/bin/python3"
  out=$(setup)
  rc=$?
  if [ "$rc" = 0 ] && [ -e "$tmp/setup/course/.deps/usr/lib/x86_64-linux-gnu/libnccl.so" ] && grep -q 'where pip installed it' <<<"$out"; then
    pass "NCCL's set-up: a pip-installed NCCL is found and linked into .deps/"
  else
    fail "NCCL's set-up with a pip-installed NCCL -> exit $rc: $(head -c 300 <<<"$out" | tr '\n' '|')"
  fi
fi
# The cases run as another user skip, with the reason, a program that user cannot start.
if can_be_user && [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/private" && cp "build/$folder/solution/${folder#*_}" "$tmp/private/" && chmod 700 "$tmp/private"
  why=$(user_cannot_start "$tmp/private/${folder#*_}")
  if [ -n "$why" ]; then pass "a program another user cannot start is told apart ($why)"
  else fail "a program in a folder another user cannot enter was taken for one that user can start"; fi
fi

# ---- make profile-NN where it cannot run (stand-ins for ncu play each failure) -------------------
in_group "make profile"
fake_ncu() {  # name, what it does after `ncu --version`
  printf '#!/usr/bin/env bash\n[ "${1:-}" = --version ] && { printf "NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2019.1.0 (stand-in)\\n"; exit 0; }\n%s\n' "$2" >"$tmp/$1"
  chmod +x "$tmp/$1"
}
fake_ncu ncu_perm 'echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."; exit 1'
fake_ncu ncu_old 'echo "==ERROR== Profiling is not supported on device 0. To find out supported GPUs refer --list-chips option."; exit 1'
fake_ncu ncu_run 'while [ $# -gt 0 ] && [ "$1" != bash ]; do shift; done; "$@"; rc=$?; echo "==WARNING== No kernels were profiled."; exit $rc'
# A stand-in for a program that ran its steps on a GPU under COURSE_PROFILE=1 (measure.h's record).
printf '#!/usr/bin/env bash\necho "| 1 | some_step | ok |"\n[ -n "${COURSE_RECORD:-}" ] && echo %s >"$COURSE_RECORD"\n' \
  "'{\"record\":\"program\",\"rows\":[],\"ranges\":[{\"label\":\"step 1 some_step\",\"step\":true}],\"failures\":0}'" >"$tmp/ran_steps"
chmod +x "$tmp/ran_steps"
real=build/$folder/solution/${folder#*_}
profile() {  # needle, ncu, program, then VAR=value settings
  local needle=$1 ncu=$2 program=$3
  shift 3
  expect "$needle" env "NCU=$ncu" "$@" bash common/profile.sh "$folder" "$program" build/common/profile_table build/common/course
}
profile "is not a program" "$tmp/no_such_ncu" "$tmp/ran_steps"
profile "is not Nsight Compute" /bin/echo "$tmp/ran_steps"
profile "NVreg_RestrictProfilingToAdminUsers=0" "$tmp/ncu_perm" "$tmp/ran_steps"
profile "too old" "$tmp/ncu_old" "$tmp/ran_steps"
profile "unknown option '--bogus'" "$tmp/ncu_run" "$real" "ARGS=--bogus"
profile "PROFILE_COLUMNS" "$tmp/ncu_run" "$real" "PROFILE_COLUMNS=x = a__b.sum +"
profile "PROFILE_LAUNCHES" "$tmp/ncu_run" "$real" PROFILE_LAUNCHES=lots
profile "no usable GPU" "$tmp/ncu_run" "$real"

# ---- The result -----------------------------------------------------------------------------
check_that "the progress record is as it was after every case" test "$(stat -c %Y:%s "$record")" = "$record_before"
for f in "${failures[@]+"${failures[@]}"}"; do echo "bad input FAILED: $f"; done
for r in "${skip_reasons[@]+"${skip_reasons[@]}"}"; do echo "bad input skipped: $r"; done
for g in "${groups[@]}"; do
  printf 'bad input: %-22s %4d cases, %4d passed\n' "$g" "${ran[$g]}" "${ok[$g]}"
done
echo "bad input: $passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
# The suite's record for make check (common/course.cpp), when it asks for one.
json_string() {  # text -> "text" (quotes and backslashes escaped, control bytes as ?)
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$(printf '%s' "$s" | LC_ALL=C tr '\000-\037\177' '?')"
}
json_list() {  # texts... -> ["...",...]
  local s out= sep=
  for s in "$@"; do out+=$sep$(json_string "$s") sep=,; done
  printf '[%s]' "$out"
}
if [ -n "$suite_record" ]; then
  group_list=
  for g in "${groups[@]}"; do
    group_list+="${group_list:+,}{\"name\":$(json_string "$g"),\"cases\":${ran[$g]},\"passed\":${ok[$g]}}"
  done
  printf '{"record":"suite","name":"bad input","cases":{"passed":%d,"failed":%d,"skipped":%d},"groups":[%s],"skips":%s,"failures":%s}\n' \
    "$passed" "$failed" "$skipped" "$group_list" "$(json_list "${skip_reasons[@]+"${skip_reasons[@]}"}")" \
    "$(json_list "${failures[@]+"${failures[@]}"}")" >"$suite_record"
fi
[ "$failed" -eq 0 ]
