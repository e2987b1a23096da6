#!/usr/bin/env bash
# printable.sh: a value made safe to echo in one line, the way the programs echo theirs
# (Options::printable in common/options.h): bytes that are not printable ASCII (control bytes,
# line breaks, non-ASCII) written as \xNN, and at most MAX characters, then "...".
#   source common/printable.sh; printable "$value" [MAX]     (prints it, no line break)
#   bash common/printable.sh VALUE [MAX]                     (the same, for make's $(shell ...))
# MAX defaults to 60; file paths use 400, as the programs do.
printable() {
  local LC_ALL=C
  local s=$1 max=${2:-60} out= c i n byte
  n=${#s}
  for ((i = 0; i < n; i++)); do
    if [ ${#out} -ge "$max" ]; then
      out+=...
      break
    fi
    c=${s:i:1}
    case $c in
      [\ -~]) out+=$c ;;
      *) printf -v byte '%d' "'$c"; printf -v c '\\x%02X' $((byte & 255)); out+=$c ;;
    esac
  done
  printf '%s' "$out"
}
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  printable "${1-}" "${2:-60}"
fi
