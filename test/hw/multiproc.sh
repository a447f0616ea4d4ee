#!/usr/bin/env bash
# One process per rank on NVIDIA GPUs (docs/runtime.md, "CUDA target").
#
#   test/hw/multiproc.sh build [OUT]   here (the toolchain, no GPU needed):
#                                      ccl-run, libcclrt, sm_90 libraries of
#                                      allpairs_ll and ring, and mp_cuda
#                                      (test/hw/mp_cuda.cc) in OUT (default
#                                      .carry/mp)
#   OUT/multiproc.sh run [RESULTS]     on the GPU machine: ccl-run -n 2 and
#                                      -n 4 of both algorithms, every rank a
#                                      process, ranks beyond the GPU count
#                                      sharing GPUs (on one GPU: all on it,
#                                      time-sliced between the processes,
#                                      no MPS), 64 calls back to back each,
#                                      checked; then reg_cuda
#                                      (test/hw/reg_cuda.cc: registration
#                                      of cuMemAlloc and VMM buffers) at 2
#                                      and 4 processes; the output in RESULTS
set -euo pipefail
mode=${1:-}
case "$mode" in
build)
  ROOT=$(cd "$(dirname "$0")/../.." && pwd)
  OUT=${2:-$ROOT/.carry/mp}
  case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
  rm -rf "$OUT"
  mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/include"
  cp "$ROOT/out/bin/ccl-run" "$OUT/bin/"
  cp "$ROOT/out/lib/libcclrt.so" "$OUT/lib/"
  cp -r "$ROOT/out/include/ccl" "$OUT/include/"
  cp "$0" "$OUT/multiproc.sh"
  for a in allpairs_ll ring; do
    "$ROOT/out/bin/cclc" "$ROOT/stdlib/allreduce/$a.ccl" --target=sm_90 \
      --nranks=2..4 --dtype=float32 -o "$OUT/lib/lib$a.so"
  done
  cuda=${CUDA_HOME:-/usr/local/cuda}
  for prog in mp_cuda reg_cuda; do
    c++ -std=c++17 -O1 -g -rdynamic -I"$OUT/include" -I"$cuda/include" \
      "$ROOT/test/hw/$prog.cc" -o "$OUT/bin/$prog" -L"$OUT/lib" -lcclrt \
      -L"$cuda/lib64/stubs" -lcuda -ldl -Wl,-rpath,'$ORIGIN/../lib'
  done
  echo "multiproc: built $OUT"
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results-mp}
  mkdir -p "$RESULTS"
  export NCCL_NVLS_ENABLE=0 CCL_TIMEOUT_MS=${CCL_TIMEOUT_MS:-120000}
  nvidia-smi -L > "$RESULTS/gpus.txt" 2>&1 || true
  status=0
  for a in allpairs_ll ring; do
    for n in 2 4; do
      log=$RESULTS/$a-n$n.txt
      echo "== ccl-run -n $n mp_cuda $a (64 calls, 1001 floats)" | tee "$log"
      start=$(date +%s.%N)
      if timeout 300 "$HERE/bin/ccl-run" -n "$n" "$HERE/bin/mp_cuda" \
          "$HERE/lib/lib$a.so" "$a" 64 1001 >>"$log" 2>&1; then
        rc=0
      else
        rc=$?
        status=1
      fi
      echo "exit $rc after $(python3 -c "import sys; print(round($(date +%s.%N) - $start, 2))") s" >> "$log"
      cat "$log"
    done
  done
  for n in 2 4; do
    log=$RESULTS/register-n$n.txt
    echo "== ccl-run -n $n reg_cuda" | tee "$log"
    timeout 120 "$HERE/bin/ccl-run" -n "$n" "$HERE/bin/reg_cuda" >>"$log" 2>&1 ||
      { echo "exit $?" >> "$log"; status=1; }
    cat "$log"
  done
  exit $status
  ;;
*)
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
