#!/usr/bin/env bash
# setup_deps.sh: finds what the build needs besides the CUDA Toolkit, and installs what is
# missing from the distribution's packages: doctest (every exercise's tests) and giflib
# (03_game_of_life's animated GIFs). Run by make before the first compile that needs one:
#   bash common/setup_deps.sh doctest | giflib | all
set -u
want=${1:-all}
need=()
have_header() {
  for d in .deps/usr/include /usr/include /usr/local/include; do
    [ -f "$d/$1" ] && return 0
  done
  return 1
}
missing() {
  need=()
  if [ "$want" != giflib ]; then have_header doctest/doctest.h || need+=(doctest-dev); fi
  if [ "$want" != doctest ]; then have_header gif_lib.h || need+=(libgif-dev); fi
}
missing
[ ${#need[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo="sudo"
  fi
  if [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; then
    echo "setup: installing ${need[*]} with ${sudo:+sudo }apt-get (the tests use doctest; 03 writes GIFs with giflib)"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
      { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q "${need[@]}" >/dev/null 2>&1; }
    missing
    [ ${#need[@]} -eq 0 ] && { echo "setup: done"; exit 0; }
  fi
fi
echo "setup: please install ${need[*]} (Debian/Ubuntu: sudo apt-get install ${need[*]}; Fedora: sudo dnf install doctest-devel giflib-devel), then run make again" >&2
exit 1
