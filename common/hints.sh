#!/usr/bin/env bash
# hints.sh: every exercise's hints (NN_x/hints.md), served one level at a time.
#
#   make hint-NN [STEP=K] [LEVEL=L]   show NN EXERCISES...    the next hint you have not seen
#                                     check NN EXERCISES...   the same arguments, checked only:
#                                                             one line naming the problem, or none
#   make status (hints column)        used NN_x               "4 (step 1: 2, step 3: 2)" or "none"
#   make check                        lint NN_x [STEPS_LINE]  hints.md against the declared steps
#
# Without STEP, `make hint-NN` picks the first step that has not passed `make test-NN` yet (with
# your starter.cu); each call shows the lowest level of that step you have not seen; LEVEL=L shows
# level L. Bad input (no such exercise, step or level, a malformed hints.md) gets one line, exit 2.
#
# hints.md, one section per step the tests declare, in order (nothing else is a heading):
#   # Hints: NN_x
#   (a line or two saying what the file is)
#   ## step 1 name     exactly the step's label in the test program's "steps:" line
#   ### level 1        a question that points at the idea: no code at all
#   ...                (no `code` span, no fenced block)
#   ### level 2        the idea in words; ### level 3 near-code; at least two levels per step
#                      (make hint-NN serves any such file; make check's lint asks for more, below)
#
# make check lints every hints.md (lint below): its sections are the steps its tests declare, and
# in every step
#   level 1  asks a question (holds a "?") and holds no code;
#   level 2  holds no code statement: no fenced block, and no `code` span with a ";", a "{" or an
#            assignment (an "=" that is not part of ==, <=, >= or !=): `i < n` may stand there,
#            `i += stride` may not;
#   level 3  exists, and leaves the step's key line or expression to the student as a hole: a C
#            comment /* ... */ inside code (a fenced block or a `code` span) where that line goes,
#            saying what belongs there without writing it, e.g. `if (/* tid is a multiple of 2s */)`.
# Later levels are free. What a lint cannot see stays the author's: that level 1 gives no answer,
# that level 2 holds no arithmetic that is a prediction's answer, that no level 3 states one.
#
# What you have done lives in .progress/ at the top (make clean keeps it, git ignores it; delete
# it to start over; COURSE_PROGRESS_DIR names another folder):
#   NN_x.steps   the "steps:" line of every `make test-NN` with your starter (test_main.cpp
#                appends it): a step's latest "ok" or "FAILED" counts, "not run" changes nothing
#   NN_x.hints   one line per hint shown: "step K name<TAB>level"
set -u
source "$(dirname "$0")/printable.sh"
# make hint-NN hands STEP, LEVEL and COURSE_PROGRESS_DIR over in a file, one a line (HINT_SETTINGS).
if [ -n "${HINT_SETTINGS:-}" ]; then
  { IFS= read -r STEP; IFS= read -r LEVEL; IFS= read -r COURSE_PROGRESS_DIR; } <"$HINT_SETTINGS"
fi
progress=${COURSE_PROGRESS_DIR:-.progress}

fail() {  # one line, exit 2
  echo "$1" >&2
  exit 2
}

# ---- hints.md -----------------------------------------------------------------------------------
# parse FOLDER: fills labels[i] (i from 1), nlevels[i], range["i:k"] ("first last" line of level
# k's text); on a problem sets problem to one line and returns 1.
parse() {
  local folder=$1 file=$1/hints.md kind a b c d
  labels=() nlevels=() problem=
  declare -gA range=()
  if [ ! -f "$file" ]; then
    problem="$folder has no hints.md (make hint-NN serves it; its format is described in common/hints.sh)"
    return 1
  fi
  while IFS=$'\t' read -r kind a b c d; do
    case $kind in
      error) problem="$file:$a: $b"; return 1 ;;
      step) labels[$a]=$b ;;
      level) nlevels[$a]=$b; range["$a:$b"]="$c $d" ;;
    esac
  done < <(awk -v folder="$folder" '
    function fail(line, msg) { if (!bad) printf "error\t%d\t%s\n", line, msg; bad = 1 }
    function end_level(last) {
      if (level == 0) return
      if (!text) fail(level_line, "### level " level " of " label " is empty")
      printf "level\t%d\t%d\t%d\t%d\n", step, level, level_line + 1, last
    }
    function end_step(last) {
      end_level(last)
      if (step > 0 && level < 2)
        fail(step_line, label " has " level " hint level" (level == 1 ? "" : "s") ": every step needs at least two (### level 1, ### level 2)")
    }
    bad { next }
    { sub(/\r$/, "") }
    NR == 1 {
      # The title names the exercise, but a copied folder keeps its hints: any "# Hints: ..." title
      if ($0 !~ /^# Hints: [^ ]/) fail(1, "the first line must be a title \"# Hints: " folder "\"")
      next
    }
    /^[ \t]*(```|~~~)/ {
      fence = !fence; fence_line = NR
      if (level == 1) fail(NR, "level 1 of " label " holds a code block: level 1 asks a question or points at something, with no code")
    }
    !fence && /^(#|##|###)([ \t]|$)/ {
      if ($0 ~ /^## step [0-9]+ [^ \t]/) {
        end_step(NR - 1)
        n = $3 + 0
        if (n != step + 1) { fail(NR, "\"" $0 "\": expected step " step + 1 " here (steps are numbered 1, 2, ... in order)"); next }
        step = n; level = 0; step_line = NR
        label = substr($0, 4); sub(/[ \t]+$/, "", label)
        if (label ~ /; |: /) { fail(NR, "a step name cannot hold \"; \" or \": \""); next }
        printf "step\t%d\t%s\n", step, label
        next
      }
      if ($0 ~ /^### level [0-9]+[ \t]*$/) {
        if (step == 0) { fail(NR, "\"" $0 "\" before any \"## step N name\" section"); next }
        end_level(NR - 1)
        n = $3 + 0
        if (n != level + 1) { fail(NR, "\"" $0 "\" in " label ": expected ### level " level + 1 " here"); next }
        level = n; level_line = NR; text = 0
        next
      }
      fail(NR, "\"" $0 "\": the only headings are \"## step N name\" and \"### level N\"")
      next
    }
    step > 0 && level == 0 && /[^ \t]/ { fail(NR, "text before \"### level 1\" of " label); next }
    level > 0 && /[^ \t]/ { text = 1 }
    level == 1 && /`/ { fail(NR, "level 1 of " label " holds code (a `...` span): level 1 asks a question or points at something, with no code") }
    END {
      if (bad) exit
      if (NR == 0) { fail(1, "the file is empty"); exit }
      end_step(NR)
      if (fence) fail(fence_line, "a code block opened here is never closed")
      if (step == 0) fail(NR, "no \"## step N name\" section")
    }' "$file")
  [ ${#labels[@]} -gt 0 ] || { problem="$file: could not be read"; return 1; }
}

# print_level I K: level K of step I, without the blank lines around it.
print_level() {
  local first last
  read -r first last <<<"${range["$1:$2"]}"
  sed -n "${first},${last}p" "$folder/hints.md" | sed -e 's/\r$//' | awk '
    /[^ \t]/ { for (; blank > 0; blank--) print ""; print; started = 1; next }
    started { blank++ }'
}

# ---- progress -------------------------------------------------------------------------------------
# A record file is read in one streaming pass over its last 8 MB only (about 40,000 runs), each
# line cut at 4096 bytes (a record is about 200): a file of any size, 100,000 records or a junk
# line of 200 MB, takes a few milliseconds and a few MB. A line that does not parse whole (a
# record cut short, junk) is ignored. What is not a regular file (a FIFO, a device) is not read.
records_window=8388608
records() {  # file: its lines, bounded as above
  [ -f "$1" ] && [ -r "$1" ] || return 0
  tail -c $records_window -- "$1" 2>/dev/null | LC_ALL=C cut -b 1-4096
}

# load_states FOLDER: state[label] = ok | FAILED from the recorded "steps:" lines, the latest counting.
load_states() {
  declare -gA state=()
  recorded=
  local label s
  while IFS=$'\t' read -r label s; do
    if [ "$label" = recorded ]; then recorded=1; else state[$label]=$s; fi
  done < <(records "$progress/$1.steps" | LC_ALL=C awk '
    # steps: N of M passed (step 1 a: ok; step 2 b: FAILED; step 3 c: not run)
    /^steps: [0-9]+ of [0-9]+ passed \(.*\)$/ {
      line = $0; sub(/^steps: [0-9]+ of /, "", line); total = line + 0
      sub(/^[0-9]+ passed \(/, "", line); sub(/\)$/, "", line)
      count = split(line, items, "; ")
      if (count != total) next
      for (i = 1; i <= count; i++)
        if (items[i] !~ /^step [0-9]+ [^;:\t]+: (ok|FAILED|not run|not run \(needs a GPU\))$/) next
      seen = 1
      for (i = 1; i <= count; i++) {
        label = items[i]; sub(/: [^:]*$/, "", label)
        s = substr(items[i], length(label) + 3)
        if (s == "ok" || s == "FAILED") state[label] = s
      }
    }
    END { if (seen) print "recorded"; for (l in state) printf "%s\t%s\n", l, state[l] }')
}

# load_seen FOLDER: seen["label:level"] = 1 for every hint shown ("step K name<TAB>level" lines).
load_seen() {
  declare -gA seen=()
  local key
  while IFS= read -r key; do
    seen[$key]=1
  done < <(records "$progress/$1.hints" | LC_ALL=C awk -F '\t' '
    NF == 2 && $1 ~ /^step [0-9]+ [^;:]+$/ && $2 ~ /^[1-9][0-9]*$/ && !(($1 ":" $2) in done) { done[$1 ":" $2] = 1; print $1 ":" ($2 + 0) }')
}

# why_not_record FILE: "" when a record may be appended to FILE, else why not (the rule of
# common/output_file.h, for the one file this script writes): a regular file of one name, not a
# link, or a new file in a folder that exists.
why_not_record() {
  local file=$1
  if [ -L "$file" ]; then echo "it is a symbolic link"
  elif [ -e "$file" ] && [ ! -f "$file" ]; then echo "it is not a regular file"
  elif [ -e "$file" ] && [ "$(stat -c %h -- "$file" 2>/dev/null)" != 1 ]; then echo "it has more than one name (a hard link)"
  fi
}

# append_record FILE LINE: LINE as one whole line in one write (after a line break if a record
# before it was cut short).
append_record() {
  local text=$2$'\n'
  [ -s "$1" ] && [ -n "$(tail -c 1 -- "$1")" ] && text=$'\n'$text
  printf '%s' "$text" >>"$1"
}

# ---- make hint-NN ---------------------------------------------------------------------------------
# resolve NUMBER EXERCISES...: sets folder, number, step, level (and why); returns 1 with problem set.
resolve() {
  local want=$1 e i
  shift
  folder= problem=
  for e in "$@"; do
    [ "${e%%_*}" = "$want" ] && folder=$e
  done
  if [ -z "$folder" ]; then
    local numbers=()
    for e in "$@"; do numbers+=("${e%%_*}"); done
    problem="there is no exercise '$(printable "$want")' (exercises: ${numbers[*]})"
    return 1
  fi
  number=$want
  parse "$folder" || return 1
  local n=${#labels[@]} want_step=${STEP:-} want_level=${LEVEL:-}
  step= why=
  if [ -n "$want_step" ]; then
    local as_number=$want_step
    [[ $want_step =~ ^0[0-9]{1,5}$ ]] && as_number=$((10#$want_step))  # STEP=03 is step 3
    for ((i = 1; i <= n; i++)); do
      if [ "$as_number" = "$i" ] || [ "$want_step" = "${labels[i]#step $i }" ]; then step=$i; fi
    done
    if [ -z "$step" ]; then
      problem="STEP must be a step of $folder: a number from 1 to $n or a name (got '$(printable "$want_step")')"
      return 1
    fi
  else
    load_states "$folder"
    for ((i = 1; i <= n; i++)); do
      [ "${state[${labels[i]}]:-}" = ok ] || { step=$i; break; }
    done
    if [ -z "$recorded" ] && [ -s "$progress/$folder.steps" ]; then
      why="step 1: '$(printable "$progress/$folder.steps" 400)' holds no readable record of make test-$number in its last 8 MB (delete it to start over)"
    elif [ -z "$recorded" ]; then
      why="step 1: no make test-$number of your starter is recorded yet; after one, hints follow your progress"
    elif [ -z "$step" ]; then
      why=all
    else
      why="the first step that has not passed make test-$number yet"
    fi
  fi
  level=
  if [ -n "$want_level" ]; then
    local top=${nlevels[${step:-1}]}
    if [ "$why" = all ]; then
      problem="every step of $folder passes make test-$number: say which step's hint with STEP=K (1 to $n)"
      return 1
    fi
    if ! [[ $want_level =~ ^[0-9]{1,6}$ ]] || [ "$want_level" -lt 1 ] || [ "$want_level" -gt "$top" ]; then
      problem="LEVEL must be a hint level of ${labels[step]} of $folder: 1 to $top (got '$(printable "$want_level")')"
      return 1
    fi
    level=$((10#$want_level))
  fi
  return 0
}

show() {
  resolve "$@" || fail "$problem"
  if [ "$why" = all ]; then
    echo "Every step of $folder passed your last make test-$number: no hint needed."
    echo "make hint-$number STEP=K shows step K's hints all the same (K from 1 to ${#labels[@]})."
    return 0
  fi
  local label=${labels[step]} top=${nlevels[step]} k
  load_seen "$folder"
  if [ -z "$level" ]; then
    for ((k = 1; k <= top; k++)); do
      [ -n "${seen["$label:$k"]:-}" ] || { level=$k; break; }
    done
    if [ -z "$level" ]; then
      echo "You have seen all $top hints of $label ($folder)."
      echo "make hint-$number STEP=$step LEVEL=$top shows the last one again; the step's \"Your task\" in $folder/README.md states what it must do."
      return 0
    fi
  fi
  local record=$progress/$folder.hints not_recorded=
  not_recorded=$(why_not_record "$record")
  if [ -z "$not_recorded" ]; then
    { mkdir -p -- "$progress" && append_record "$record" "$label"$'\t'"$level"; } 2>/dev/null || not_recorded="it cannot be written"
  fi
  seen["$label:$level"]=1
  echo "== $folder · $label · hint $level of $top =="
  [ -n "$why" ] && echo "($why)"
  echo
  print_level "$step" "$level"
  echo
  [ -z "$not_recorded" ] || echo "(could not record this hint in '$(printable "$record" 400)' ($not_recorded): make hint-$number will show it again)"
  local next= again=make\ hint-$number
  [ -n "${STEP:-}" ] && again+=" STEP=$step"
  for ((k = 1; k <= top; k++)); do
    [ -n "${seen["$label:$k"]:-}" ] || { next=$k; break; }
  done
  if [ -n "$next" ]; then
    echo "Still stuck? $again shows hint $next of $top."
  else
    echo "That was the last hint of $label. make hint-$number STEP=$step LEVEL=L shows level L again."
  fi
}

# ---- make status: hints used ----------------------------------------------------------------------
# Counts the recorded hints of the steps hints.md has (a record of anything else is not counted),
# so the column is as short as the list of steps, whatever the records hold.
used() {
  load_seen "$1"
  folder=$1
  parse "$1" 2>/dev/null || labels=()
  local key i n total=0 out=
  declare -A per=()
  for key in "${!seen[@]}"; do per[${key%:*}]=$((${per[${key%:*}]:-0} + 1)); done
  for ((i = 1; i <= ${#labels[@]}; i++)); do
    n=${per[${labels[i]}]:-0}
    [ "$n" -gt 0 ] || continue
    total=$((total + n))
    out+="${out:+, }step $i: $n"
  done
  if [ "$total" -eq 0 ]; then echo none; else echo "$total ($out)"; fi
}

# ---- make check: hints.md matches the steps the tests declare, and each level keeps its rules ------
# lint_levels FILE: one line "FILE:LINE: problem" per break of the level rules in the header (none
# when the file keeps them). FILE has passed parse: headings and fences are well formed.
lint_levels() {
  awk -v file="$1" '
    function problem(line, msg) { printf "%s:%d: %s\n", file, line, msg }
    # End of a level: level 1 must have asked, level 3 must have left a hole.
    function end_level() {
      if (level == 1 && !asked) problem(level_line, "level 1 of " label " asks no question (no \"?\"): level 1 is a question that points at the idea")
      if (level == 3 && !hole) problem(level_line, "level 3 of " label " leaves no hole: put a /* ... */ comment inside its code where the step'"'"'s key line or expression goes")
      span_open = 0
    }
    function end_step() {
      end_level()
      if (step && top < 3) problem(step_line, label " has no ### level 3: every step needs near-code that leaves its key line as a /* ... */ hole")
    }
    # A code statement in level 2: a ";", a "{" or an assignment (not ==, <=, >=, !=).
    function statement(code,   c) {
      c = code
      if (c ~ /<<=|>>=/) return 1
      gsub(/==|<=|>=|!=/, "", c)
      return c ~ /[;{=]/
    }
    function code_seen(code, line) {
      if (level == 2 && statement(code)) problem(line, "level 2 of " label " holds a code statement (`" code "`): level 2 says the idea in words")
      if (level == 3 && code ~ /\/\*.*\*\//) hole = 1
    }
    # The `code` spans of a line; a span may go on over the next lines of the paragraph.
    function spans(text, line,   run) {
      while (text != "") {
        if (span_open) {
          if (match(text, "(^|[^`])" span_ticks "([^`]|$)")) {
            run = substr(text, 1, RSTART - 1 + (substr(text, RSTART, 1) != "`"))
            code_seen(span_code run, span_line)
            text = substr(text, RSTART + (substr(text, RSTART, 1) != "`") + length(span_ticks))
            span_open = 0
          } else { span_code = span_code text " "; return }
        } else {
          if (!match(text, /`+/)) return
          span_ticks = substr(text, RSTART, RLENGTH); span_open = 1; span_code = ""; span_line = line
          text = substr(text, RSTART + RLENGTH)
        }
      }
    }
    { sub(/\r$/, "") }
    /^[ \t]*(```|~~~)/ {
      if (!fence) {
        fence = 1; fence_line = NR; fence_code = ""
        if (level == 2) problem(NR, "level 2 of " label " holds a code block: level 2 says the idea in words")
      } else {
        fence = 0
        if (level == 3 && fence_code ~ /\/\*.*\*\//) hole = 1
      }
      next
    }
    fence { fence_code = fence_code $0 "\n"; next }
    /^## step [0-9]+ / { end_step(); step++; label = substr($0, 4); sub(/[ \t]+$/, "", label); step_line = NR; level = 0; top = 0; next }
    /^### level [0-9]+[ \t]*$/ { end_level(); level = $3 + 0; top = level; level_line = NR; asked = 0; hole = 0; next }
    level == 0 { next }
    /^[ \t]*$/ { span_open = 0; next }  # a blank line ends a paragraph, and any span left open
    level == 1 && /\?/ { asked = 1 }
    { spans($0, NR) }
    END { end_step() }' "$1"
}

lint() {
  local folder=$1 steps_line=${2:-} declared=() item i levels
  parse "$folder" || { echo "$problem"; return 1; }
  levels=$(lint_levels "$folder/hints.md")
  if [ -z "$steps_line" ]; then  # ask the solution's tests: a filter that matches no case lists the steps
    [ -x "build/$folder/solution/tests" ] || { echo "$folder: build/$folder/solution/tests is not built (make build-${folder%%_*})"; return 1; }
    steps_line=$(REQUIRE_GPU=0 timeout -k 5 60 "build/$folder/solution/tests" '-tc=*no test case has this name*' 2>&1 | grep -E '^steps: ' | tail -n 1)
  fi
  if [[ $steps_line != "steps: "*"("*")" ]]; then
    echo "$folder: its tests printed no \"steps:\" line, so its hints.md cannot be checked against its steps"
    return 1
  fi
  steps_line=${steps_line#*(}
  steps_line=${steps_line%)}
  while [ -n "$steps_line" ]; do
    item=${steps_line%%; *}
    [ "$item" = "$steps_line" ] && steps_line= || steps_line=${steps_line#*; }
    declared+=("${item%: *}")
  done
  local have
  have=$(for ((i = 1; i <= ${#labels[@]}; i++)); do printf '%s, ' "${labels[i]}"; done)
  local want
  want=$(printf '%s, ' "${declared[@]}")
  if [ "$have" != "$want" ]; then
    echo "$folder/hints.md: its sections (${have%, }) are not the steps its tests declare (${want%, })"
    [ -n "$levels" ] && echo "$levels"
    return 1
  fi
  [ -z "$levels" ] || { echo "$levels"; return 1; }
}

case ${1:-} in
  show) shift; [ $# -ge 2 ] || fail "usage: hints.sh show NUMBER EXERCISES..."; show "$@" ;;
  check) shift; [ $# -ge 2 ] || fail "usage: hints.sh check NUMBER EXERCISES..."; resolve "$@" || echo "$problem" ;;
  used) [ $# -eq 2 ] || fail "usage: hints.sh used NN_x"; used "$2" ;;
  lint) [ $# -ge 2 ] && [ $# -le 3 ] || fail "usage: hints.sh lint NN_x [STEPS_LINE]"; lint "$2" "${3:-}" ;;
  *) fail "usage: hints.sh show|check NUMBER EXERCISES... | used NN_x | lint NN_x [STEPS_LINE]" ;;
esac
