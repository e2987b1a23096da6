#!/usr/bin/env bash
# hints_test.sh (run by `make check`, GPU or not): the tests of make hint-NN and of make status's
# hints column (common/hints.sh), through the real Makefile.
#   - In a scratch course of two made-up exercises (this common/ linked in), with recorded
#     "steps:" lines written by hand: the next level, every level seen, STEP=, LEVEL=, the first
#     step not passed, merged progress, hints used, records in odd states (cut short, junk, huge,
#     a FIFO, a link), and bad input (no such exercise, step or level, each kind of malformed
#     hints.md): one line, exit 2, like every other target.
#   - make check's lint: sections against the declared steps, and each rule of the levels
#     (level 1 a question, no code statement in level 2, a /* ... */ hole in level 3's code).
#   - In this course: make test-NN with your starter records its steps line (first exercise,
#     host cases only), as a line of its own after a record cut short; with USE=solution it does not.
#
#   bash common/hints_test.sh            ends with "hints tool: N passed, N failed"
#   VERBOSE=1 bash common/hints_test.sh  also lists every case that passes
set -u
cd "$(dirname "$0")/.."
root=$PWD
passed=0 failed=0
failures=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An enclosing `make check` passes its settings on (ARCH must stay, or this course's build would
# start over); STEP, LEVEL and USE are set on every command line here instead.
unset STEP LEVEL COURSE_PROGRESS_DIR COURSE_STEPS_LOG
export REQUIRE_GPU=0

course=$tmp/course
mkdir -p "$course"
ln -s "$root/common" "$course/common"
scratch_make() { make --no-print-directory -C "$course" -f "$root/Makefile" STEP= LEVEL= USE=starter "$@" 2>&1; }

pass() { passed=$((passed + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $1"; return 0; }
fail() { failed=$((failed + 1)); failures+=("$1"); }

# expect NAME WANT_LINE1 [MORE_NEEDLES...] -- MAKE_ARGS...: exit 0, first line as given, and
# every needle somewhere in the output.
expect() {
  local name=$1 first=$2 needles=() out rc n
  shift 2
  while [ "$1" != -- ]; do needles+=("$1"); shift; done
  shift
  out=$(scratch_make "$@")
  rc=$?
  if [ "$rc" -ne 0 ] || [ "$(head -n 1 <<<"$out")" != "$first" ]; then
    fail "$name: make $*-> exit $rc, wanted first line '$first': $(head -c 400 <<<"$out" | tr '\n' '|')"
    return
  fi
  for n in "${needles[@]+"${needles[@]}"}"; do
    grep -qF -- "$n" <<<"$out" || { fail "$name: make $*: no '$n' in: $(head -c 400 <<<"$out" | tr '\n' '|')"; return; }
  done
  pass "$name"
}
# refuse NAME NEEDLE MAKE_ARGS...: exit 2 and one line that holds NEEDLE.
refuse() {
  local name=$1 needle=$2 out rc lines
  shift 2
  out=$(timeout -k 1 20 make --no-print-directory -C "$course" -f "$root/Makefile" STEP= LEVEL= USE=starter "$@" 2>&1)
  rc=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then
    pass "$name"
  else
    fail "$name: make $*-> exit $rc, $lines line(s), wanted '$needle': $(head -c 300 <<<"$out" | tr '\n' '|')"
  fi
}
same() {  # NAME GOT WANT
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi
}

# ---- a scratch course: 71_alpha (3 steps), 72_beta (its hints.md changes per case) ----------------
mkdir -p "$course/71_alpha" "$course/72_beta"
cat >"$course/71_alpha/hints.md" <<'EOF'
# Hints: 71_alpha
(served one level at a time by make hint-71)

## step 1 one_block
### level 1
Which thread writes which element?

### level 2
One thread per element: the thread's index is the element's.
### level 3
```
out[i] = f(x[i]);   # a fenced line that looks like a heading
```

## step 2 many_blocks
### level 1
How many blocks cover n?
### level 2
Round n / block up.

## step 3 grid_stride
### level 1
What if the grid is smaller than n?
### level 2
Loop with a stride of the whole grid.
EOF
alpha_steps=$course/.progress/71_alpha.steps
alpha_hints=$course/.progress/71_alpha.hints

# Next level, in order, with no test recorded yet: step 1.
expect "first call: step 1, level 1" "== 71_alpha · step 1 one_block · hint 1 of 3 ==" \
  "Which thread writes which element?" "no make test-71" "make hint-71 shows hint 2 of 3" -- hint-71
expect "second call: level 2" "== 71_alpha · step 1 one_block · hint 2 of 3 ==" \
  "One thread per element" -- hint-71
expect "third call: level 3, near-code kept verbatim" "== 71_alpha · step 1 one_block · hint 3 of 3 ==" \
  'out[i] = f(x[i]);   # a fenced line that looks like a heading' "That was the last hint of step 1 one_block" -- hint-71
expect "fourth call: all seen" "You have seen all 3 hints of step 1 one_block (71_alpha)." -- hint-71
same "hints recorded, one line per hint shown" "$(cat "$alpha_hints" 2>/dev/null | tr '\t\n' ':|')" \
  "step 1 one_block:1|step 1 one_block:2|step 1 one_block:3|"

# Progress: the first step not passed, from the recorded steps lines (later ok/FAILED win,
# "not run" changes nothing).
mkdir -p "$course/.progress"
echo 'steps: 1 of 3 passed (step 1 one_block: ok; step 2 many_blocks: FAILED; step 3 grid_stride: FAILED)' >"$alpha_steps"
expect "progress: the first step that fails" "== 71_alpha · step 2 many_blocks · hint 1 of 2 ==" \
  "How many blocks cover n?" "the first step that has not passed make test-71 yet" -- hint-71
echo 'steps: 0 of 3 passed (step 1 one_block: not run; step 2 many_blocks: ok; step 3 grid_stride: not run)' >>"$alpha_steps"
expect "progress: merged over runs" "== 71_alpha · step 3 grid_stride · hint 1 of 2 ==" -- hint-71
echo 'steps: 3 of 3 passed (step 1 one_block: ok; step 2 many_blocks: ok; step 3 grid_stride: ok)' >>"$alpha_steps"
expect "progress: every step passes" "Every step of 71_alpha passed your last make test-71: no hint needed." -- hint-71
refuse "progress: LEVEL with every step passed asks for STEP" "say which step's hint with STEP=K" hint-71 LEVEL=1
echo 'steps: 2 of 3 passed (step 1 one_block: FAILED; step 2 many_blocks: not run; step 3 grid_stride: not run)' >>"$alpha_steps"
expect "progress: a step that fails again" "You have seen all 3 hints of step 1 one_block (71_alpha)." -- hint-71

# STEP= and LEVEL=
expect "STEP=2: that step's next level" "== 71_alpha · step 2 many_blocks · hint 2 of 2 ==" \
  "Round n / block up." "That was the last hint of step 2 many_blocks" -- hint-71 STEP=2
expect "STEP=02 is step 2" "== 71_alpha · step 2 many_blocks · hint 1 of 2 ==" -- hint-71 STEP=02 LEVEL=1
expect "STEP by name" "== 71_alpha · step 3 grid_stride · hint 2 of 2 ==" -- hint-71 STEP=grid_stride
expect "LEVEL=2 shows level 2 again" "== 71_alpha · step 1 one_block · hint 2 of 3 ==" -- hint-71 LEVEL=2
expect "STEP=3 LEVEL=1" "== 71_alpha · step 3 grid_stride · hint 1 of 2 ==" "What if the grid is smaller than n?" -- hint-71 STEP=3 LEVEL=1
rm -f "$alpha_hints"
expect "LEVEL=3 counts as seen, and the next call shows level 1" "== 71_alpha · step 1 one_block · hint 3 of 3 ==" \
  "make hint-71 shows hint 1 of 3" -- hint-71 LEVEL=3
expect "... level 1" "== 71_alpha · step 1 one_block · hint 1 of 3 ==" -- hint-71

# make status: hints used, per step (the made-up exercises do not build: their row says so)
printf 'step 3 grid_stride\t1\nstep 3 grid_stride\t2\nstep 1 one_block\t2\nstep 1 one_block\t1\nstep 3 grid_stride\t1\n' >"$alpha_hints"
same "hints used" "$(cd "$course" && bash common/hints.sh used 71_alpha)" "4 (step 1: 2, step 3: 2)"
same "hints used: none" "$(cd "$course" && bash common/hints.sh used 72_beta)" "none"
expect "make status shows hints used" "| exercise             | builds   | steps passed   | test cases                       | hints used" \
  "| 71_alpha             | NO       | -              | see build/status-71_alpha.log    | 4 (step 1: 2, step 3: 2)" -- status

# ... only of the steps hints.md has: junk records (control bytes, no such step, level 0) are not counted
cp "$alpha_hints" "$tmp/alpha_hints.saved"
printf '\e[2Jjunk\t1\nstep 9 nowhere\t1\nstep 1 one_block\t0\nstep 1 one_block\t\e[2J\n' >>"$alpha_hints"
same "hints used: junk records are not counted" "$(cd "$course" && bash common/hints.sh used 71_alpha)" "4 (step 1: 2, step 3: 2)"

# The progress records, in odd states: read in one bounded pass; a line that does not parse is
# ignored; what is not a regular file is neither read nor written (nor waited on).
rm -f "$alpha_hints"
printf 'steps: 1 of 3 passed (step 1 one_block: ok; st\nsteps: 2 of 3 passed (step 1 one_block: ok; step 2 many_blocks: ok; step 3 grid_stride: FAILED)\n' >"$alpha_steps"
expect "a record cut short is ignored, the next one counts" "== 71_alpha · step 3 grid_stride · hint 1 of 2 ==" -- hint-71
printf 'steps: 1 of 3 passed (step 1 one_block: ok; ststeps: 0 of 3 passed (step 1 one_block: FAILED; step 2 many_blocks: FAILED; step 3 grid_stride: FAILED)\n' >>"$alpha_steps"
expect "a line that does not parse whole is ignored" "== 71_alpha · step 3 grid_stride · hint 2 of 2 ==" -- hint-71
for bad in 'steps: 1 of 3 passed (step 1 one_block: ok)' 'steps: 1 of 1 passed (step 1 one_block: maybe)' \
           $'steps: 1 of 1 passed (step 1 one_block: ok)\e[2J' 'steps: 3 of 3 passed (step 1 one_block: ok; step 2 many_blocks: ok; step 3 grid_stride: ok'; do
  printf '%s\n' "$bad" >>"$alpha_steps"
done
expect "records of the wrong count, state or end are ignored" "You have seen all 2 hints of step 3 grid_stride (71_alpha)." -- hint-71
rm -f "$alpha_hints"
{ for ((i = 0; i < 100000; i++)); do echo 'steps: 1 of 3 passed (step 1 one_block: ok; step 2 many_blocks: FAILED; step 3 grid_stride: not run)'; done; } >"$alpha_steps"
head -c $((64 << 20)) /dev/zero | tr '\0' 'j' >>"$alpha_steps"
printf '\n' >>"$alpha_steps"
start=$(date +%s%N)
out=$( (ulimit -v 200000; scratch_make hint-71) )
ms=$((($(date +%s%N) - start) / 1000000))
if [ "$(head -n 1 <<<"$out")" = "== 71_alpha · step 1 one_block · hint 1 of 3 ==" ] && [ "$ms" -lt 2000 ] &&
   grep -qF "holds no readable record of make test-71 in its last 8 MB" <<<"$out"; then
  pass "100,000 records, then a 64 MB line: read in $ms ms, under 200 MB, and said so"
else
  fail "100,000 records and a 64 MB line: $ms ms: $(head -c 300 <<<"$out" | tr '\n' '|')"
fi
printf 'steps: 1 of 3 passed (step 1 one_block: ok; step 2 many_blocks: FAILED; step 3 grid_stride: not run)\n' >>"$alpha_steps"
expect "... and a record after it counts" "== 71_alpha · step 2 many_blocks · hint 1 of 2 ==" -- hint-71
rm -f "$alpha_steps" "$alpha_hints"
mkfifo "$alpha_steps" "$alpha_hints"
out=$(timeout -k 1 20 make --no-print-directory -C "$course" -f "$root/Makefile" STEP= LEVEL= USE=starter hint-71 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(head -n 1 <<<"$out")" = "== 71_alpha · step 1 one_block · hint 1 of 3 ==" ] &&
   grep -qF "(could not record this hint in '.progress/71_alpha.hints' (it is not a regular file): make hint-71 will show it again)" <<<"$out"; then
  pass "FIFOs at the records: not read, not written, not waited on"
else
  fail "FIFOs at the records -> exit $rc: $(head -c 300 <<<"$out" | tr '\n' '|')"
fi
rm -f "$alpha_steps" "$alpha_hints"
echo "keep" >"$tmp/elsewhere.txt"
ln -s "$tmp/elsewhere.txt" "$alpha_hints"
expect "a link at the hints record is not written through" "== 71_alpha · step 1 one_block · hint 1 of 3 ==" \
  "(it is a symbolic link)" -- hint-71
same "... and its file is as it was" "$(cat "$tmp/elsewhere.txt")" "keep"
rm -f "$alpha_hints"
printf 'step 1 one_block\t1' >"$alpha_hints"  # a record cut short of its line break
expect "after a hints record cut short, the next is a line of its own" "== 71_alpha · step 1 one_block · hint 2 of 3 ==" -- hint-71
same "... written as one" "$(tr '\t\n' ':|' <"$alpha_hints")" "step 1 one_block:1|step 1 one_block:2|"
rm -f "$alpha_steps"
cp "$tmp/alpha_hints.saved" "$alpha_hints"

# Bad input: one line, exit 2, nothing shown
refuse "no such exercise" "there is no exercise '7' (exercises: 71 72)" hint-7
refuse "no such exercise (letters)" "there is no exercise 'x1'" hint-x1
refuse "no exercise named" "say which exercise's hint: make hint-NN" hint
for v in 0 4 9 abc -1 '1 2' "';id;'"; do refuse "STEP='$v'" "STEP must be a step of 71_alpha: a number from 1 to 3 or a name (got '$v')" hint-71 "STEP=$v"; done
for v in 0 4 abc -1 1.5 2x 9999999; do refuse "LEVEL='$v'" "LEVEL must be a hint level of step 1 one_block of 71_alpha: 1 to 3 (got '$v')" hint-71 STEP=1 "LEVEL=$v"; done
refuse "LEVEL past a two-level step" "1 to 2 (got '3')" hint-71 STEP=2 LEVEL=3
refuse "no hints.md" "72_beta has no hints.md" hint-72
same "a refused call records nothing" "$(wc -l <"$alpha_hints")" "5"

# Malformed hints.md: one line naming the file, the line and the problem
malformed() {  # NEEDLE CONTENT (printf format)
  printf "$2" >"$course/72_beta/hints.md"
  refuse "malformed: $1" "$1" hint-72
}
ok='### level 1\nq?\n### level 2\nidea\n'
malformed '72_beta/hints.md:1: the file is empty' ''
malformed '72_beta/hints.md:1: the first line must be a title "# Hints: 72_beta"' "# Notes\n## step 1 a\n$ok"
malformed '72_beta/hints.md:2: no "## step N name" section' '# Hints: 72_beta\nintro only\n'
malformed '72_beta/hints.md:2: "## step 2 a": expected step 1 here' "# Hints: 72_beta\n## step 2 a\n$ok"
malformed '72_beta/hints.md:7: "## step 3 b": expected step 2 here' "# Hints: 72_beta\n## step 1 a\n$ok## step 3 b\n$ok"
malformed '72_beta/hints.md:2: step 1 a has 1 hint level: every step needs at least two' '# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n'
malformed '72_beta/hints.md:2: step 1 a has 0 hint levels' '# Hints: 72_beta\n## step 1 a\n## step 2 b\n'
malformed '72_beta/hints.md:5: "### level 3" in step 1 a: expected ### level 2 here' '# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### level 3\nx\n'
malformed '72_beta/hints.md:3: ### level 1 of step 1 a is empty' '# Hints: 72_beta\n## step 1 a\n### level 1\n\n### level 2\nx\n'
malformed '72_beta/hints.md:3: text before "### level 1" of step 1 a' "# Hints: 72_beta\n## step 1 a\nstray\n$ok"
malformed '72_beta/hints.md:2: "## Step 1 a": the only headings are' "# Hints: 72_beta\n## Step 1 a\n$ok"
malformed '72_beta/hints.md:5: "### Level 2": the only headings are' '# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### Level 2\nx\n'
malformed '72_beta/hints.md:2: "### level 1" before any "## step N name" section' '# Hints: 72_beta\n### level 1\nq?\n'
malformed '72_beta/hints.md:4: level 1 of step 1 a holds code (a `...` span)' '# Hints: 72_beta\n## step 1 a\n### level 1\nIs `i < n` enough?\n### level 2\nx\n'
malformed '72_beta/hints.md:4: level 1 of step 1 a holds a code block' '# Hints: 72_beta\n## step 1 a\n### level 1\n```\nx\n```\n### level 2\nx\n'
malformed '72_beta/hints.md:6: a code block opened here is never closed' '# Hints: 72_beta\n## step 1 a\n### level 1\nq?\n### level 2\n```\nx\n'
malformed '72_beta/hints.md:2: a step name cannot hold' "# Hints: 72_beta\n## step 1 a: b\n$ok"
# ... and a well-formed one with Windows line ends, a "####" line and a "#" inside code
printf '# Hints: 72_beta\r\n## step 1 a\r\n### level 1\r\nq?\r\n### level 2\r\n```\r\n# not a heading\r\n```\r\n#### a sub-heading\r\n' >"$course/72_beta/hints.md"
expect "CRLF, #### and # in code are fine" "== 72_beta · step 1 a · hint 2 of 2 ==" "# not a heading" "#### a sub-heading" -- hint-72 LEVEL=2

# lint (make check): sections against the steps the tests declare, and the rules of each level
ok3='### level 1\nq?\n### level 2\nthe idea, with `i < n`, `a == b`, `i <= n`, `a >= b`, `x != y` and half = n / 2 in prose\n### level 3\n```\nfor (...) /* the key line */;\n```\n'
printf "# Hints: 72_beta\n## step 1 a\n$ok3## step 2 b\n$ok3" >"$course/72_beta/hints.md"
lint() { (cd "$course" && bash common/hints.sh lint 72_beta "$1"); }
out=$(lint 'steps: 0 of 2 passed (step 1 a: FAILED; step 2 b: not run)') && same "lint: matching steps" "$out" "" || fail "lint refused matching steps: $out"
for line in 'steps: 0 of 3 passed (step 1 a: FAILED; step 2 b: not run; step 3 c: not run)' \
            'steps: 0 of 1 passed (step 1 a: FAILED)' 'steps: 0 of 2 passed (step 1 a: ok; step 2 bb: ok)'; do
  if out=$(lint "$line"); then fail "lint passed '$line'"
  elif grep -qF '72_beta/hints.md: its sections (step 1 a, step 2 b) are not the steps its tests declare' <<<"$out"; then pass "lint: $line"
  else fail "lint of '$line' said: $out"; fi
done
one_step='steps: 0 of 1 passed (step 1 a: FAILED)'
# lint_refuses NAME CONTENT (printf format) NEEDLE...: the lint fails, and says every needle.
lint_refuses() {
  local name=$1 content=$2 out n
  shift 2
  printf "$content" >"$course/72_beta/hints.md"
  if out=$(lint "$one_step"); then fail "lint passed: $name"; return; fi
  for n in "$@"; do grep -qF -- "$n" <<<"$out" || { fail "lint, $name: no '$n' in: $out"; return; }; done
  pass "lint refuses: $name"
}
lint_accepts() {  # NAME CONTENT
  printf "$2" >"$course/72_beta/hints.md"
  local out
  if out=$(lint "$one_step"); then same "lint accepts: $1" "$out" ""; else fail "lint refused $1: $out"; fi
}
head='# Hints: 72_beta\n## step 1 a\n'
l1='### level 1\nq?\n'
l3='### level 3\n`f(/* the key */)`\n'
lint_refuses "no level 3" "$head$l1### level 2\nidea\n" '72_beta/hints.md:2: step 1 a has no ### level 3'
lint_refuses "level 1 without a question" "$head### level 1\nLook at it.\n### level 2\nidea\n$l3" \
  '72_beta/hints.md:3: level 1 of step 1 a asks no question'
lint_refuses "level 2 with a code block" "$head$l1### level 2\n\`\`\`\nx\n\`\`\`\n$l3" \
  '72_beta/hints.md:6: level 2 of step 1 a holds a code block'
for span in 'f(x);' 'i = 0' 's += x' 'v >>= 1' '{1, x, 0}' 'if (a) {'; do
  lint_refuses "level 2 with \`$span\`" "$head$l1### level 2\nthe idea: \`$span\`\n$l3" \
    "72_beta/hints.md:6: level 2 of step 1 a holds a code statement (\`$span\`)"
done
lint_refuses "a statement in a span over two lines" "$head$l1### level 2\nthe idea: \`s\n+= x\` and more\n$l3" \
  '72_beta/hints.md:6: level 2 of step 1 a holds a code statement (`s += x`)'
lint_refuses "a statement in a double-backtick span" "$head$l1### level 2\nthe idea: \`\`a \`b\` = c\`\`\n$l3" \
  'level 2 of step 1 a holds a code statement (`a `b` = c`)'
lint_refuses "level 3 without a hole" "$head$l1### level 2\nidea\n### level 3\n\`\`\`\nfor (;;) f();\n\`\`\`\n" \
  '72_beta/hints.md:7: level 3 of step 1 a leaves no hole'
lint_refuses "level 3 with a hole in prose only" "$head$l1### level 2\nidea\n### level 3\nwrite /* this */ here, \`f(x)\`\n" \
  'level 3 of step 1 a leaves no hole'
lint_refuses "a hole in level 4 does not count" "$head$l1### level 2\nidea\n### level 3\nnear\n### level 4\n\`f(/* x */)\`\n" \
  'level 3 of step 1 a leaves no hole'
lint_refuses "every problem, one line each" "$head### level 1\nLook.\n### level 2\n\`x = 1\`\n## step 2 b\n$l1### level 2\nidea\n" \
  'level 1 of step 1 a asks no question' 'level 2 of step 1 a holds a code statement (`x = 1`)' \
  'step 1 a has no ### level 3' 'step 2 b has no ### level 3'
lint_accepts "a hole over several lines of a code block" "$head$l1### level 2\nidea\n### level 3\n\`\`\`\nfor (;;) {\n    /* the key\n       line */\n}\n\`\`\`\n"
lint_accepts "a hole in a span, a later level with anything" "$head$l1### level 2\nan idea; in words = fine\n$l3### level 4\n\`\`\`\nx = 1;\n\`\`\`\n"
lint_accepts "a backtick alone is no span" "$head$l1### level 2\nthe \` key and the idea\n$l3"
if out=$(lint 'no steps line'); then fail "lint passed with no steps line"; else pass "lint: no steps line"; fi

# ---- this course: make test-NN records the steps line of your starter's tests ---------------------
first=$(cd "$root" && ls -d [0-9][0-9]_*/ 2>/dev/null | head -n 1)
first=${first%/}
if [ -n "$first" ]; then
  n=${first%%_*}
  out=$(make --no-print-directory -C "$root" "test-$n" USE=starter REQUIRE_GPU=0 "ARGS=-tse=gpu" COURSE_PROGRESS_DIR="$tmp/progress" 2>&1)
  if grep -qE '^steps: [0-9]+ of [0-9]+ passed \(step 1 ' "$tmp/progress/$first.steps" 2>/dev/null &&
     [ "$(grep -E '^steps: ' <<<"$out" | tail -n 1)" = "$(tail -n 1 "$tmp/progress/$first.steps")" ]; then
    pass "make test-$n records its steps line"
  else
    fail "make test-$n USE=starter did not record its steps line in $tmp/progress/$first.steps: $(tail -n 5 <<<"$out" | tr '\n' '|')"
  fi
  make --no-print-directory -C "$root" "test-$n" USE=solution REQUIRE_GPU=0 "ARGS=-tse=gpu" COURSE_PROGRESS_DIR="$tmp/progress2" >/dev/null 2>&1
  if [ -e "$tmp/progress2" ]; then fail "make test-$n USE=solution recorded progress"; else pass "USE=solution records nothing"; fi
  # After a record cut short (a full disk, a crash), the next run's record is a whole line of its own.
  printf 'steps: 1 of 9 passed (step 1 x: ok; st' >"$tmp/progress/$first.steps"
  out=$(make --no-print-directory -C "$root" "test-$n" USE=starter REQUIRE_GPU=0 "ARGS=-tse=gpu" COURSE_PROGRESS_DIR="$tmp/progress" 2>&1)
  if [ "$(head -n 1 "$tmp/progress/$first.steps")" = "steps: 1 of 9 passed (step 1 x: ok; st" ] &&
     [ "$(grep -E '^steps: ' <<<"$out" | tail -n 1)" = "$(sed -n 2p "$tmp/progress/$first.steps")" ]; then
    pass "make test-$n after a record cut short: its record is a line of its own"
  else
    fail "make test-$n after a record cut short: $(head -c 300 "$tmp/progress/$first.steps" | tr '\n' '|')"
  fi
fi

for f in "${failures[@]+"${failures[@]}"}"; do echo "hints tool FAILED: $f"; done
echo "hints tool: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
