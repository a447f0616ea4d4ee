#!/usr/bin/env bash
# Installs what cclc needs to build and test, from Debian's packages:
# LLVM/MLIR/clang/lld 22, clang 22's sanitizer and libFuzzer runtimes (for
# scripts/fuzz.sh), Bazel 4 (bazel-bootstrap), ANTLR 4, CLI11, fmt,
# rdma-core headers, python3-venv and NumPy (the Python package's test:
# a fresh virtual environment, NumPy arrays). Installs only what is
# missing; safe to run again.
# CUDA is optional: without it the host target is used, and ptxas (cubin
# output) is skipped.
set -euo pipefail

PKGS=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
      libclang-rt-22-dev bazel-bootstrap antlr4 libantlr4-runtime-dev
      libcli11-dev libfmt-dev libibverbs-dev python3-venv python3-numpy)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# Where the packages install LLVM 22 (WORKSPACE names it for the build).
llvm=/usr/lib/llvm-22
for tool in mlir-tblgen ld.lld lit FileCheck not llc llvm-link opt; do
  [[ -x $llvm/bin/$tool ]] || { echo "setup: $llvm/bin/$tool is missing after install" >&2; exit 1; }
done
fuzzer_rt=$llvm/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a
[[ -f $fuzzer_rt ]] || { echo "setup: $fuzzer_rt is missing after install" >&2; exit 1; }
command -v bazel >/dev/null || { echo "setup: bazel is missing after install" >&2; exit 1; }
if command -v ptxas >/dev/null || [[ -x /usr/local/cuda/bin/ptxas ]]; then
  echo "setup: ptxas found: NVPTX libraries will carry cubins"
else
  echo "setup: no ptxas: NVPTX libraries will carry PTX only (the driver JITs it)"
fi
