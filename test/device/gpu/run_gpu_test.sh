#!/bin/bash
# GPU smoke test of the device library (NVIDIA; needs a GPU and libcuda).
#   build (here, needs clang 22 + gcc/g++):  run_gpu_test.sh build OUTDIR
#   run   (on the GPU machine):          OUTDIR/gpu_test OUTDIR/gpu_test.ptx
set -eu
LLVM=${LLVM_BIN:-/usr/lib/llvm-22/bin}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${2:-/tmp/ccl_gpu_test}
mkdir -p "$OUT"
NVFLAGS="-target nvptx64-nvidia-cuda -march=sm_90 -Xclang -target-feature -Xclang +ptx80 -Xclang -target-feature -Xclang -ptx88 -ffreestanding -nostdlibinc -O3 -I$ROOT/runtime/include -I$ROOT/runtime/device"
"$LLVM/clang" $NVFLAGS -emit-llvm -c "$ROOT/runtime/device/ccl_device.c" -o "$OUT/lib.bc"
"$LLVM/clang" $NVFLAGS -emit-llvm -c "$HERE/kernels.c" -o "$OUT/kernels.bc"
"$LLVM/llvm-link" "$OUT/kernels.bc" "$OUT/lib.bc" -o "$OUT/linked.bc"
"$LLVM/opt" -passes='internalize,default<O3>' \
  -internalize-public-api-list=k_ll,k_timeout,k_local "$OUT/linked.bc" -o "$OUT/opt.bc"
"$LLVM/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$OUT/opt.bc" -o "$OUT/gpu_test.ptx"
if grep -qw call "$OUT/gpu_test.ptx"; then echo "PTX has calls"; exit 1; fi
grep -c '\.entry' "$OUT/gpu_test.ptx"
gcc -std=c11 -O2 -I"$ROOT/runtime/include" -I"$ROOT/runtime/device" \
  -c "$ROOT/runtime/device/ccl_device.c" -o "$OUT/ccl_device_host.o"
g++ -std=c++17 -O2 -I"$ROOT" -I"$ROOT/runtime/include" -I"$ROOT/runtime/device" \
  "$HERE/gpu_test.cc" "$ROOT/runtime/src/cuda_driver.cc" "$OUT/ccl_device_host.o" \
  -o "$OUT/gpu_test" -ldl -lm
rm -f "$OUT/ccl_device_host.o"
echo "built $OUT/gpu_test $OUT/gpu_test.ptx"
