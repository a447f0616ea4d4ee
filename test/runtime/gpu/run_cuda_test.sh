#!/bin/bash
# GPU test of libcclrt's CUDA path (NVIDIA; needs GPUs and libcuda).
#   build (here: clang 22 for the PTX, g++ for the rest):
#       test/runtime/gpu/run_cuda_test.sh build [OUTDIR]
#   run (on the GPU machine, from the repository root):
#       OUTDIR/cuda_runtime_test OUTDIR/ap_ll.ptx
# OUTDIR defaults to test/runtime/gpu/out (git-ignored).
set -eu
LLVM=${LLVM_BIN:-/usr/lib/llvm-22/bin}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${2:-$HERE/out}
mkdir -p "$OUT"
NVFLAGS="-target nvptx64-nvidia-cuda -march=sm_90 -Xclang -target-feature -Xclang +ptx80 -Xclang -target-feature -Xclang -ptx88 -ffreestanding -nostdlibinc -O3 -I$ROOT/runtime/include -I$ROOT/runtime/device"
"$LLVM/clang" $NVFLAGS -emit-llvm -c "$ROOT/runtime/device/ccl_device.c" -o "$OUT/lib.bc"
"$LLVM/clang" $NVFLAGS -emit-llvm -c "$HERE/kernels.c" -o "$OUT/kernels.bc"
"$LLVM/llvm-link" "$OUT/kernels.bc" "$OUT/lib.bc" -o "$OUT/linked.bc"
"$LLVM/opt" -passes='internalize,default<O3>' \
  -internalize-public-api-list=ap_ll_f32_sum,credit_f32_sum,double_block_f32_sum "$OUT/linked.bc" -o "$OUT/opt.bc"
"$LLVM/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$OUT/opt.bc" -o "$OUT/ap_ll.ptx"
rm -f "$OUT"/*.bc
g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -I"$ROOT/runtime/include" \
  "$ROOT"/runtime/src/*.cc -o "$OUT/libcclrt.so" -Wl,-soname,libcclrt.so \
  -Wl,--version-script="$ROOT/runtime/src/libcclrt.map" -ldl -lpthread
g++ -std=c++17 -O2 -I"$ROOT" -I"$ROOT/runtime/include" "$HERE/cuda_runtime_test.cc" \
  "$ROOT/runtime/src/cuda_driver.cc" \
  -o "$OUT/cuda_runtime_test" -L"$OUT" -lcclrt -Wl,-rpath,'$ORIGIN' -ldl -lpthread
echo "built $OUT/cuda_runtime_test $OUT/ap_ll.ptx $OUT/libcclrt.so"
