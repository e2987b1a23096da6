#!/usr/bin/env bash
# setup_deps.sh: finds what the build needs besides the CUDA Toolkit, and installs what is
# missing from the distribution's packages: doctest (every exercise's tests), giflib (animated
# GIFs) and NCCL (the collectives of the multi-GPU exercise; `LIBS := -lnccl` in an exercise.mk
# asks for it). Run by make before the first compile that needs one:
#   bash common/setup_deps.sh doctest | giflib | nccl | all
# NCCL comes with some CUDA Toolkits and with NVIDIA's libnccl-dev package; one that pip installed
# (python3 -m pip install nvidia-nccl-cuNN, NN = nvcc's major version) is linked into .deps/,
# which the Makefile searches first; otherwise, where apt-get cannot install it, PyPI's wheel is
# downloaded and unpacked there. Progress is one line per attempt, naming its log (build/setup_*.log);
# a failure is one line: what is missing, what was tried and its log, and what to do.
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

# NCCL as pip installs it (python3 -m pip install nvidia-nccl-cuNN: nvidia/nccl/{include,lib} in
# site-packages), or as the wheel unpacks: its nccl.h and libnccl.so.2 linked into .deps/usr,
# which the build searches first.
link_nccl() {  # folder holding include/nccl.h and lib/libnccl.so*
  local header lib
  header=$(find "$1" -name nccl.h 2>/dev/null | head -n 1)
  lib=$(find "$1" -name 'libnccl.so*' 2>/dev/null | sort | head -n 1)
  [ -n "$header" ] && [ -n "$lib" ] || return 1
  mkdir -p .deps/usr/include .deps/usr/lib/x86_64-linux-gnu || return 1
  # Relative inside .deps (the course may move), absolute elsewhere (pip's site-packages).
  local inc=.deps/usr/include libs=.deps/usr/lib/x86_64-linux-gnu
  case $(realpath "$header") in "$(realpath .deps)"/*) header=$(realpath --relative-to=$inc "$header") lib=$(realpath --relative-to=$libs "$lib") ;;
    *) header=$(realpath "$header") lib=$(realpath "$lib") ;; esac
  ln -sf "$header" $inc/nccl.h && ln -sf "$lib" $libs/libnccl.so && ln -sf "$lib" $libs/libnccl.so.2
}
nccl_package() {  # nvidia-nccl-cuNN for nvcc's major version
  local major
  major=$("${nvcc_path:-nvcc}" --version 2>/dev/null | sed -nE 's/.*release ([0-9]+)\..*/\1/p')
  echo "nvidia-nccl-cu${major:-13}"
}
nccl_from_pip() {  # already installed by pip for this python3
  local dir
  command -v python3 >/dev/null 2>&1 || return 1
  dir=$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.nccl"); print(list(s.submodule_search_locations)[0])' 2>/dev/null) || return 1
  [ -n "$dir" ] && link_nccl "$dir"
}
nccl_from_pypi() {  # downloaded: the wheel is a zip
  local pkg=$1 dir=build/nccl-wheel
  command -v python3 >/dev/null 2>&1 || { echo "python3 not found" >"$nccl_log"; return 1; }
  echo "setup: downloading NCCL from PyPI ($pkg, a few hundred MB) into .deps/ (log: $nccl_log)"
  rm -rf "$dir" .deps/nccl && mkdir -p "$dir" .deps/nccl
  python3 -m pip download -q --no-deps --only-binary=:all: --dest "$dir" "$pkg" >"$nccl_log" 2>&1 &&
    python3 -m zipfile -e "$dir"/*.whl .deps/nccl >>"$nccl_log" 2>&1 &&
    link_nccl .deps/nccl
  local ok=$?
  rm -rf "$dir"
  return $ok
}

missing
[ ${#need[@]} -eq 0 ] && exit 0
apt_log=build/setup_deps.log nccl_log=build/setup_nccl.log
tried=()  # what was tried and failed, each with its log

if [[ " ${need[*]} " == *" libnccl-dev "* ]] && nccl_from_pip; then
  missing
  [ ${#need[@]} -eq 0 ] && { echo "setup: NCCL found where pip installed it, linked into .deps/"; exit 0; }
fi
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo="sudo"
  fi
  if [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; then
    echo "setup: installing ${need[*]} with ${sudo:+sudo }apt-get (log: $apt_log)"
    export DEBIAN_FRONTEND=noninteractive
    { $sudo apt-get install -y -q "${need[@]}" ||
      { $sudo apt-get update -q && $sudo apt-get install -y -q "${need[@]}"; }; } >"$apt_log" 2>&1
    missing
    [ ${#need[@]} -eq 0 ] && { echo "setup: done"; exit 0; }
    tried+=("apt-get could not install $([ ${#need[@]} -eq 1 ] && echo it || echo them) (log: $apt_log)")
  else
    tried+=("apt-get needs root or sudo, and there is neither")
  fi
fi
if [[ " ${need[*]} " == *" libnccl-dev "* ]]; then
  pkg=$(nccl_package)
  if nccl_from_pypi "$pkg"; then
    missing
    [ ${#need[@]} -eq 0 ] && { echo "setup: done (NCCL in .deps/nccl)"; exit 0; }
  fi
  tried+=("the download of $pkg from PyPI failed (log: $nccl_log)")
fi
# One line: what is missing, what was tried (with its log), and what to do for what is missing.
join() { local sep=$1 out=$2; shift 2; for x in "$@"; do out+=$sep$x; done; printf '%s' "$out"; }
fedora=()
for p in "${need[@]}"; do
  case $p in
    doctest-dev) fedora+=(doctest-devel) ;;
    libgif-dev) fedora+=(giflib-devel) ;;
    libnccl-dev) fedora+=(libnccl-devel) ;;
  esac
done
advice=("Debian/Ubuntu: sudo apt-get install ${need[*]}" "Fedora/RHEL: sudo dnf install ${fedora[*]}")
[[ " ${need[*]} " == *" libnccl-dev "* ]] &&
  advice+=("NCCL's packages are in NVIDIA's CUDA repository; or python3 -m pip install $(nccl_package), which the next make finds")
msg="setup: ${need[*]} $([ ${#need[@]} -eq 1 ] && echo is || echo are) missing"
[ ${#tried[@]} -gt 0 ] && msg+=": $(join ', and ' "${tried[@]}")"
msg+=". Install $([ ${#need[@]} -eq 1 ] && echo it || echo them) ($(join '; ' "${advice[@]}")), then run make again"
echo "$msg" >&2
exit 1
