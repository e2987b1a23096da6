#!/usr/bin/env bash
# setup_deps.sh: finds what the build needs besides the CUDA Toolkit, and installs what is
# missing from the distribution's packages: doctest (every exercise's tests) and giflib
# (03_game_of_life's animated GIFs). Run by make before the first compile that needs one:
#   bash common/setup_deps.sh doctest | giflib | all
# Under make -j two of these may start at once; a lock makes the second wait for the first
# (two apt-get runs at once fail on dpkg's lock).
set -u
want=${1:-all}
mkdir -p build
exec 9>build/.setup_deps.lock
command -v flock >/dev/null 2>&1 && flock 9

have_header() {
  for d in .deps/usr/include /usr/include /usr/local/include; do
    [ -f "$d/$1" ] && return 0
  done
  return 1
}
have_library() {  # the linker needs the .so (from the -dev package), not only the header
  for d in .deps/usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}
missing() {
  need=()
  if [ "$want" != giflib ]; then have_header doctest/doctest.h || need+=(doctest-dev); fi
  if [ "$want" != doctest ]; then { have_header gif_lib.h && have_library libgif.so; } || need+=(libgif-dev); fi
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
    log=build/setup_deps.log
    { $sudo apt-get install -y -q "${need[@]}" ||
      { $sudo apt-get update -q && $sudo apt-get install -y -q "${need[@]}"; }; } >"$log" 2>&1
    missing
    [ ${#need[@]} -eq 0 ] && { echo "setup: done"; exit 0; }
    echo "setup: apt-get could not install ${need[*]}; its last lines (all of it in $log):" >&2
    tail -n 5 "$log" | sed 's/^/  /' >&2
  fi
fi
echo "setup: please install ${need[*]} (Debian/Ubuntu: sudo apt-get install ${need[*]}; Fedora: sudo dnf install doctest-devel giflib-devel), then run make again" >&2
exit 1
