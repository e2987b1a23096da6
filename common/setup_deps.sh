#!/usr/bin/env bash
# setup_deps.sh: finds what the build needs besides the CUDA Toolkit, and installs what is
# missing from the distribution's packages: doctest (every exercise's tests), giflib (animated
# GIFs) and NCCL (the collectives of the multi-GPU exercise; `LIBS := -lnccl` in an exercise.mk
# asks for it). Run by make before the first compile that needs one:
#   bash common/setup_deps.sh doctest | giflib | nccl | all
# NCCL comes with some CUDA Toolkits and with NVIDIA's libnccl-dev package; where apt-get cannot
# install it, it is unpacked from PyPI's wheel (nvidia-nccl-cuNN, NN = nvcc's major version)
# into .deps/, which the Makefile searches first.
# Under make -j two of these may start at once; a lock makes the second wait for the first
# (two apt-get runs at once fail on dpkg's lock).
set -u
want=${1:-all}
mkdir -p build
exec 9>build/.setup_deps.lock
command -v flock >/dev/null 2>&1 && flock 9

# The CUDA Toolkit nvcc belongs to (its include/ and lib64/ hold NCCL in some releases).
nvcc_path=$(command -v "${NVCC:-nvcc}" 2>/dev/null)
toolkit=$([ -n "$nvcc_path" ] && dirname "$(dirname "$(readlink -f "$nvcc_path")")")
have_header() {
  for d in .deps/usr/include /usr/include /usr/local/include ${toolkit:+"$toolkit/include"}; do
    [ -f "$d/$1" ] && return 0
  done
  return 1
}
have_library() {  # the linker needs the .so (from the -dev package), not only the header
  for d in .deps/usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib \
           ${toolkit:+"$toolkit/lib64" "$toolkit/targets/x86_64-linux/lib"}; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}
missing() {
  need=()
  case "$want" in doctest|all) have_header doctest/doctest.h || need+=(doctest-dev) ;; esac
  case "$want" in giflib|all) { have_header gif_lib.h && have_library libgif.so; } || need+=(libgif-dev) ;; esac
  case "$want" in nccl|all) { have_header nccl.h && have_library libnccl.so; } || need+=(libnccl-dev) ;; esac
}

# NCCL from PyPI: the wheel is a zip holding nccl.h and libnccl.so.2; link them into .deps/usr.
nccl_from_pypi() {
  local major pkg dir header lib
  major=$("${nvcc_path:-nvcc}" --version 2>/dev/null | sed -nE 's/.*release ([0-9]+)\..*/\1/p')
  pkg=nvidia-nccl-cu${major:-13}
  command -v python3 >/dev/null 2>&1 || return 1
  echo "setup: downloading NCCL from PyPI ($pkg, a few hundred MB) into .deps/"
  dir=build/nccl-wheel
  rm -rf "$dir" .deps/nccl && mkdir -p "$dir" .deps/nccl .deps/usr/include .deps/usr/lib/x86_64-linux-gnu
  python3 -m pip download -q --no-deps --only-binary=:all: --dest "$dir" "$pkg" >build/setup_nccl.log 2>&1 || return 1
  python3 -m zipfile -e "$dir"/*.whl .deps/nccl >>build/setup_nccl.log 2>&1 || return 1
  header=$(find .deps/nccl -name nccl.h | head -n 1)
  lib=$(find .deps/nccl -name 'libnccl.so*' | sort | head -n 1)
  [ -n "$header" ] && [ -n "$lib" ] || return 1
  ln -sf "$(realpath --relative-to=.deps/usr/include "$header")" .deps/usr/include/nccl.h
  for name in libnccl.so libnccl.so.2; do
    ln -sf "$(realpath --relative-to=.deps/usr/lib/x86_64-linux-gnu "$lib")" ".deps/usr/lib/x86_64-linux-gnu/$name"
  done
  rm -rf "$dir"
}
missing
[ ${#need[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo="sudo"
  fi
  if [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; then
    echo "setup: installing ${need[*]} with ${sudo:+sudo }apt-get (the tests use doctest; GIFs are written with giflib; NCCL does collectives across GPUs)"
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
if [[ " ${need[*]} " == *" libnccl-dev "* ]] && nccl_from_pypi; then
  missing
  [ ${#need[@]} -eq 0 ] && { echo "setup: done (NCCL in .deps/nccl)"; exit 0; }
fi
echo "setup: please install ${need[*]} (Debian/Ubuntu: sudo apt-get install ${need[*]}, libnccl-dev from NVIDIA's CUDA repository; Fedora: sudo dnf install doctest-devel giflib-devel; NCCL also: pip install nvidia-nccl-cu13), then run make again" >&2
exit 1
