# make_starter.awk: turns an exercise's solution.cu into its starter.cu.
#
#   awk -f common/make_starter.awk NN_name/solution.cu > starter.cu
#
# In solution.cu:
#   // BEGIN SOLUTION        these lines, and everything between them, are left out of the
#   ...                      starter; the TODO comment that explains the step stands just
#   // END SOLUTION          before, in both files.
#   // STARTER: code         in the starter this line becomes "code" (a placeholder that keeps
#                            the starter compiling, e.g. "return 0;"), indentation kept.
# The build compares each committed starter.cu with this script's output (make check; under
# CI a difference is an error), so starters never drift from their solutions.
{
    line = $0
    if (line ~ /^[ \t]*\/\/ BEGIN SOLUTION[ \t]*$/) {
        if (inside) { printf "%s:%d: BEGIN SOLUTION inside another\n", FILENAME, NR > "/dev/stderr"; bad = 1; exit 1 }
        inside = 1; opened = NR; next
    }
    if (line ~ /^[ \t]*\/\/ END SOLUTION[ \t]*$/) {
        if (!inside) { printf "%s:%d: END SOLUTION without BEGIN\n", FILENAME, NR > "/dev/stderr"; bad = 1; exit 1 }
        inside = 0; next
    }
    if (inside) next
    if (match(line, /^[ \t]*\/\/ STARTER:( |$)/)) {
        indent = line
        sub(/\/\/ STARTER:.*$/, "", indent)
        rest = substr(line, RLENGTH + 1)
        print (rest == "" ? "" : indent rest)
        next
    }
    print line
}
END {
    if (!bad && inside) { printf "%s:%d: BEGIN SOLUTION is never closed\n", FILENAME, opened > "/dev/stderr"; exit 1 }
}
