#!/usr/bin/env bash
# Builds everything the GPU suite needs into one folder, on a machine with
# the toolchain (scripts/setup.sh): the tools, libcclrt, the two device smoke
# tests and every stdlib algorithm that runs on GPUs, compiled for sm_90.
# Copy the folder to the GPU machine and run test/hw/run.sh there; that
# machine needs only the CUDA driver (and NCCL for the comparisons).
#
#   test/hw/build.sh [OUT]        (default OUT: .carry/hw)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/.carry/hw}
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
cd "$ROOT"
scripts/build.sh >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/device" "$OUT/runtime"
cp out/bin/ccl-perf "$OUT/"
cp out/lib/libcclrt.so "$OUT/"
export OUTDIR=$OUT
export LD_LIBRARY_PATH="$ROOT/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The libraries of test/hw/algos.txt, one compilation per core.
cp test/hw/algos.txt "$OUT/"
grep -v '^#' test/hw/algos.txt | while read -r lib algo src flags; do
  echo "$lib $src $flags"
done | xargs -P "$(nproc)" -L 1 bash -c '
  lib=$0 src=$1; shift
  echo "hw/build: $lib ($src $*)"
  out/bin/cclc "$src" --target=sm_90 --dtype=float32,bfloat16 "$@" \
      -o "$OUTDIR/lib/$lib.so"'

test/device/gpu/run_gpu_test.sh build "$OUT/device" >/dev/null
test/runtime/gpu/run_cuda_test.sh build "$OUT/runtime" >/dev/null
cp test/hw/run.sh "$OUT/"
echo "hw/build: done; run '$OUT/run.sh' on the GPU machine"
