#!/usr/bin/env bash
# The ring over GPU counts and instance counts: how the 4-GPU floor (ring_wide
# never under ~250 us) was traced to the waits' abort-flag reads (docs/perf.md,
# "4 x H200, 2026-11-27c"); rerun it when a collective slows down with more
# ranks or more thread blocks. One call of the device tool:
#
#   test/hw/scaling.sh build [OUT]        here (OUT: .carry/scaling)
#   OUT/scaling.sh run [RESULTS] [PARTS]  on a machine with 2 or more GPUs
#                                         (up to 4 of them are used)
#
# build compiles stdlib/allreduce/ring.ccl for 2, 3 and 4 ranks with 1, 4,
# 16 and 32 instances (sm_90, float32, sum, up to 64 MiB).
# run:
#   ringsig   the signal hop latency with the device library's primitives
#             (test/hw/ringsig.cu) for 1-128 blocks on 2..N GPUs
#   matrix    ring AllReduce, CUDA graphs, 1 KiB - 16 MiB, for every GPU
#             count 2..N and instance count (no NCCL: the bundle runs have it)
#   onegpu    the same at 4 ranks on GPU 0 (--devices 0,0,0,0)
#   probe     ring with 32 instances on N GPUs, 1 KiB, with a timeout of
#             T ms (CCL_TIMEOUT_MS=T for T in PROBE_MS, default 0.1 0.3 1):
#             the timeout error names the wait that takes long
# NCCL_NVLS_ENABLE=0; nothing here creates multicast objects.
set -uo pipefail
case "${1:-}" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare scaling "${2:-}"
  for i in 1 4 16 32; do
    out/bin/cclc stdlib/allreduce/ring.ccl --target=sm_90 --nranks=2..4 \
        --dtype=float32 --op=sum --max-bytes=64M --instances=$i \
        -o "$OUT/libring_i$i.so"
    out/bin/cclc stdlib/allreduce/ring.ccl --nranks=4 --dtype=float32 \
        --op=sum --instances=$i --emit=sched -o "$OUT/ring_i$i.n4.sched"
  done
  hw_install out/bin/ccl-perf out/lib/libcclrt.so test/hw/ringsig.cu \
      test/hw/cuda_check.h test/hw/scaling.sh
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  PARTS=${3:-ringsig,matrix,onegpu,probe}
  NGPUS=${NGPUS:-$(nvidia-smi -L | grep -c '^GPU')}
  ((NGPUS > 4)) && NGPUS=4 # the libraries are built for 2..4 ranks
  export NCCL_NVLS_ENABLE=0 CUDA_MODULE_LOADING=EAGER
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$RESULTS"
  part() { [[ ",$PARTS," == *",$1,"* ]]; }
  if part ringsig; then
    nvcc -O3 -arch=sm_90 -o /tmp/ringsig "$HERE/ringsig.cu" &&
      /tmp/ringsig 2000 >"$RESULTS/ringsig.txt" 2>&1
    echo "ringsig: exit $?"
  fi
  if part matrix; then
    for g in $(seq 2 "$NGPUS"); do
      for i in 1 4 16 32; do
        "$HERE/ccl-perf" --lib "$HERE/libring_i$i.so" --algo ring --target cuda \
            -g "$g" -b 1K -e 16M -f 16 -n 20 -w 5 -G 10 -k 4 \
            >"$RESULTS/ring_i$i.g$g.txt" 2>&1
        echo "matrix g=$g i=$i: exit $?"
      done
    done
  fi
  if part onegpu; then
    for i in 1 4 16 32; do
      "$HERE/ccl-perf" --lib "$HERE/libring_i$i.so" --algo ring --target cuda \
          --devices 0,0,0,0 -b 1K -e 16M -f 16 -n 20 -w 5 -G 10 -k 4 \
          >"$RESULTS/ring_i$i.onegpu4.txt" 2>&1
      echo "onegpu i=$i: exit $?"
    done
  fi
  if part probe; then
    for t in ${PROBE_MS:-0.1 0.3 1}; do
      CCL_TIMEOUT_MS=$t "$HERE/ccl-perf" --lib "$HERE/libring_i32.so" --algo ring \
          --target cuda -g "$NGPUS" -b 1K -e 1K -n 20 -w 5 -k 1 \
          >"$RESULTS/probe_$t.txt" 2>&1
      echo "probe $t ms: exit $?"
    done
  fi
  ;;
*)
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
