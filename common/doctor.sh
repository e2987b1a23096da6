#!/usr/bin/env bash
# doctor.sh (make doctor): what this machine has, and a plain-words warning for each mismatch.
set -u
# A value made safe to show on one line, as the programs show theirs (Options::printable in
# common/options.h): bytes outside printable ASCII as \xNN, at most MAX characters, then "...".
printable() {
  local LC_ALL=C
  local s=$1 max=${2:-60} out= c b i
  for ((i = 0; i < ${#s}; i++)); do
    [ ${#out} -ge "$max" ] && { out+=...; break; }
    c=${s:i:1}
    case $c in
      [\ -~]) out+=$c ;;
      *) printf -v b '%d' "'$c"; printf -v c '\\x%02X' $((b & 255)); out+=$c ;;
    esac
  done
  printf '%s' "$out"
}
warn() { echo "  WARNING: $*"; warnings=$((warnings + 1)); }
warnings=0
nvcc=${NVCC:-nvcc}

echo "CUDA compiler:"
nvcc_ver=""
if ! command -v "$nvcc" >/dev/null 2>&1; then
  warn "NVCC '$(printable "$nvcc" 200)' not found: install the CUDA Toolkit and put its bin/ on PATH (or run make NVCC=/path/to/nvcc)"
elif ! version=$("$nvcc" --version 2>/dev/null) || [[ $version != *"Cuda compilation tools"* ]]; then
  warn "NVCC '$(printable "$nvcc" 200)' ($(printable "$(command -v "$nvcc")" 400)) is not nvcc, the CUDA compiler: its --version does not say \"Cuda compilation tools\""
  nvcc=""
else
  nvcc_ver=$(sed -nE 's/.*release ([0-9]+\.[0-9]+).*/\1/p' <<<"$version")
  echo "  nvcc $nvcc_ver at $(printable "$(command -v "$nvcc")" 400)"
  case "$nvcc_ver" in
    12.*|13.*) ;;
    *) warn "this course is written for CUDA 12.x and 13.x; nvcc $nvcc_ver may not build it" ;;
  esac
fi
echo "  host compiler: $(g++ --version 2>/dev/null | head -n 1 || echo 'g++ not found')"

echo "Driver and GPUs:"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
  drv_cuda=$(nvidia-smi 2>/dev/null | sed -nE 's/.*CUDA Version: *([0-9]+\.[0-9]+).*/\1/p' | head -n 1)
  echo "  driver $drv (runs CUDA up to ${drv_cuda:-?})"
  nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader | sed 's/^/  GPU /'
  # Versions compare as major * 1000 + minor: 12.4 < 12.10 < 13.0.
  as_number() { local v=$1; echo $(( ${v%%.*} * 1000 + ${v#*.} )); }
  if [[ "$nvcc_ver" =~ ^[0-9]+\.[0-9]+$ ]] && [[ "$drv_cuda" =~ ^[0-9]+\.[0-9]+$ ]]; then
    if [ "$(as_number "$nvcc_ver")" -gt "$(as_number "$drv_cuda")" ]; then
      warn "nvcc $nvcc_ver is newer than the driver supports (CUDA $drv_cuda): programs will fail with cudaErrorInsufficientDriver; update the driver or use an older toolkit"
    fi
  fi
  while read -r cc; do
    if ! [[ "$cc" =~ ^[0-9]+\.[0-9]+$ ]]; then
      warn "nvidia-smi reports no compute capability ('$cc'): an old nvidia-smi, or a GPU it cannot query"
      continue
    fi
    major=${cc%%.*}
    if [ "$major" -lt 7 ] || [ "$cc" = "7.0" ] || [ "$cc" = "7.2" ]; then
      warn "a GPU of compute capability $cc: CUDA 13 builds nothing older than 7.5 (Turing)"
    fi
  done < <(nvidia-smi --query-gpu=compute_cap --format=csv,noheader)
else
  echo "  none visible (nvidia-smi finds no GPU): everything builds, GPU tests are skipped"
fi

echo "Build:"
echo "  ARCH=$(printable "${ARCH:-?}" 200): $(printable "${ARCH_FLAGS:-?}" 400)"
if [ "${ARCH:-}" = native ] && ! nvidia-smi -L >/dev/null 2>&1; then
  warn "ARCH=native needs a visible GPU at compile time; use ARCH=fat or a target such as ARCH=sm_89"
fi

echo "Libraries:"
found() { for d in "${DEPS:-.deps/usr}/include" /usr/include /usr/local/include; do [ -f "$d/$1" ] && { echo "$d/$1"; return 0; }; done; return 1; }
if p=$(found doctest/doctest.h); then echo "  doctest: $p"; else warn "doctest not found: make check installs doctest-dev, or install it yourself"; fi
if p=$(found gif_lib.h); then echo "  giflib: $p"; else warn "giflib not found (a program's --gif): make check installs libgif-dev, or install it yourself"; fi
# NCCL (collectives across GPUs): the header and library the build takes (searched in its order:
# .deps, the toolkit, the system), and the header's version.
toolkit=$([ -n "$nvcc_ver" ] && dirname "$(dirname "$(readlink -f "$(command -v "$nvcc")")")")
nccl_h=""
for d in "${DEPS:-.deps/usr}/include" ${toolkit:+"$toolkit/include"} /usr/local/include /usr/include; do
  [ -f "$d/nccl.h" ] && { nccl_h="$d/nccl.h"; break; }
done
nccl_so=""
for d in "${DEPS:-.deps/usr}/lib/x86_64-linux-gnu" ${toolkit:+"$toolkit/targets/x86_64-linux/lib" "$toolkit/lib64"} \
         /usr/local/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
  [ -e "$d/libnccl.so" ] && { nccl_so="$d/libnccl.so"; break; }
done
if [ -n "$nccl_h" ] && [ -n "$nccl_so" ]; then
  nccl_ver=$(sed -nE 's/^#define NCCL_(MAJOR|MINOR|PATCH) +([0-9]+).*/\2/p' "$nccl_h" | paste -sd. -)
  echo "  NCCL ${nccl_ver:-?}: $nccl_h, $nccl_so"
else
  warn "NCCL not found (nccl.h and libnccl.so): the first build that needs it installs it (libnccl-dev, or PyPI's nvidia-nccl-cu13 into .deps/)"
fi
if [ -n "${NCCL_NVLS_ENABLE+set}" ]; then
  echo "  NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE (NVLink multicast: kept as the environment sets it)"
fi
if command -v compute-sanitizer >/dev/null 2>&1; then
  echo "  compute-sanitizer: $(command -v compute-sanitizer)"
else
  warn "compute-sanitizer not on PATH: make sanitize needs it (it is in the CUDA Toolkit's bin/)"
fi
echo "doctor: $warnings warning(s)"
