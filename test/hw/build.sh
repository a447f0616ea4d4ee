#!/usr/bin/env bash
# Builds everything the GPU suite needs into one folder, on a machine with
# the toolchain (scripts/setup.sh): the tools, libcclrt, the two device smoke
# tests and every stdlib algorithm that runs on GPUs, compiled for sm_90.
# Copy the folder to the GPU machine and run test/hw/run.sh there; that
# machine needs only the CUDA driver (and NCCL for the comparisons).
#
#   test/hw/build.sh [OUT [LIB...]]   (default OUT: .carry/hw)
#
# With LIB names, only those libraries of algos.txt are built (and listed
# in OUT/algos.txt): the device tool carries at most 64 MiB, and all the
# libraries together are more.
#
# Environment: BAZEL (default "bazel"; scripts/build.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/.carry/hw}
shift $(($# > 0 ? 1 : 0))
WANT=" $* "
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
cd "$ROOT"
read -ra bazel <<<"${BAZEL:-bazel}"
scripts/build.sh >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/device" "$OUT/runtime"
cp out/bin/ccl-perf "$OUT/"
cp out/lib/libcclrt.so "$OUT/"
export OUTDIR=$OUT
export LD_LIBRARY_PATH="$ROOT/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The libraries of test/hw/algos.txt (or the LIBs named), one compilation
# per core.
awk -v want="$WANT" '/^#/ || want == "  " || index(want, " " $1 " ")' \
    test/hw/algos.txt > "$OUT/algos.txt"
for lib in $WANT; do
  grep -q "^$lib " "$OUT/algos.txt" ||
    { echo "hw/build: no library '$lib' in test/hw/algos.txt" >&2; exit 2; }
done
grep -v '^#' "$OUT/algos.txt" | while read -r lib algo src flags; do
  echo "$lib $src $flags"
done | xargs -P "$(nproc)" -L 1 bash -c '
  lib=$0 src=$1; shift
  echo "hw/build: $lib ($src $*)"
  out/bin/cclc "$src" --target=sm_90 --dtype=float32,bfloat16 "$@" \
      -o "$OUTDIR/lib/$lib.so"'

# The smoke tests (test/device/gpu, test/runtime/gpu): binaries and PTX.
"${bazel[@]}" build //test/device/gpu:gpu_test_bin //test/device/gpu:gpu_test.ptx \
    //test/runtime/gpu:cuda_runtime_test_bin //test/runtime/gpu:ap_ll.ptx
cp bazel-bin/test/device/gpu/gpu_test_bin "$OUT/device/gpu_test"
cp bazel-bin/test/device/gpu/gpu_test.ptx "$OUT/device/"
cp bazel-bin/test/runtime/gpu/cuda_runtime_test_bin "$OUT/runtime/cuda_runtime_test"
cp bazel-bin/test/runtime/gpu/ap_ll.ptx "$OUT/runtime/"
chmod -R u+w "$OUT/device" "$OUT/runtime"
cp test/hw/run.sh "$OUT/"
echo "hw/build: done; run '$OUT/run.sh' on the GPU machine"
