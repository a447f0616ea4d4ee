#!/usr/bin/env bash
# The one-GPU back-to-back suite: several ranks share one GPU (the runtime's
# test mode, ccl-perf --devices 0,0[,0,0]), so every GPU code path of calls
# issued back to back runs on a machine with a single GPU.
#
#   test/hw/b2b.sh build [OUT]    here (needs the toolchain; OUT: .carry/b2b)
#   OUT/b2b.sh run [RESULTS [LIB...]]   on the GPU machine (needs the CUDA
#                                 driver); LIBs: only those of OUT/libs.txt
#
# build compiles, for sm_90 and float32 at 2 and 4 ranks, every stdlib
# algorithm (those over port channels too: ring_rs_overlap, ring_ce,
# ag_allpairs_ce, whose puts the host proxy runs on copy engines; ring also
# with 4 instances x 2 tiles and 8 x 4), the programs of test/e2e/programs (every collective in ring,
# all-pairs and chain shapes; ranges of chunks into slots) and the negative
# controls of test/e2e/negative (--no-verify; ag_ring with
# --cross-call-sync=none), plus ccl-perf and libcclrt.
#
# run checks every program at 2 and 4 ranks on GPU 0 with K = 1, 2, 8 and 64
# calls per rank back to back (separate and reused buffers), 4 B to 256 KiB,
# each eagerly and as a CUDA-graph replay (-G 2), and with K = 8 and rank 1
# delayed 1 ms per call: every one must have 0 wrong. Each negative control
# must fail (wrong results or a timeout report) with its delay. The output
# of every run goes to RESULTS (default ./results), a line per run to
# RESULTS/summary.txt; the exit status is 1 if anything did not go as
# expected. NCCL_NVLS_ENABLE is forced to 0; nothing here uses multicast.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare b2b "${2:-}"
  mkdir -p "$OUT/lib"
  cp out/bin/ccl-perf out/lib/libcclrt.so "$OUT/"
  cp test/hw/b2b.sh test/hw/port.sh out/bin/ccl-run "$OUT/"
  export LD_LIBRARY_PATH="$ROOT/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  {
    for f in stdlib/{allreduce,allgather,reducescatter,alltoall,broadcast,reduce}/*.ccl \
        test/e2e/programs/*.ccl; do
      echo "pos $(basename "$f" .ccl) $(basename "$f" .ccl) $f"
    done
    echo "pos ring_i4_t2 ring stdlib/allreduce/ring.ccl --instances=4 --tiles=2"
    echo "pos ring_i8_t4 ring stdlib/allreduce/ring.ccl --instances=8 --tiles=4"
    echo "neg slot_reuse slot_reuse test/e2e/negative/slot_reuse.ccl --no-verify"
    echo "neg rr_reuse rr_reuse test/e2e/negative/rr_reuse.ccl --no-verify"
    echo "neg sem_extra sem_extra test/e2e/negative/sem_extra.ccl --no-verify"
    echo "neg ll_ahead ll_ahead test/e2e/negative/ll_ahead.ccl --no-verify"
    echo "neg ag_ring_noack ag_ring stdlib/allgather/ag_ring.ccl --no-verify --cross-call-sync=none"
  } > "$OUT/libs.txt"
  export OUTDIR=$OUT
  while read -r kind lib algo src flags; do echo "$lib $src${flags:+ $flags}"; done \
      < "$OUT/libs.txt" | xargs -P "$(nproc)" -L 1 bash -c '
    lib=$0 src=$1; shift
    out/bin/cclc "$src" --target=sm_90 --dtype=float32 --nranks=2,4 \
        --max-bytes=4M "$@" -o "$OUTDIR/lib/$lib.so"'
  rm -f "$OUT"/lib/*.h
  echo "b2b: built into $OUT ($(du -sh "$OUT" | cut -f1)); run '$OUT/b2b.sh run' on the GPU machine"
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  shift $(($# > 2 ? 2 : $#))
  ONLY=" $* "
  if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
    echo "b2b: CCL_ALLOW_MULTICAST is set; unset it" >&2
    exit 2
  fi
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$RESULTS"
  SUMMARY=$RESULTS/summary.txt
  : > "$SUMMARY"
  bad=0
  perf() { # name expect(ok|fail) args...
    local name=$1 expect=$2; shift 2
    local t0=$SECONDS
    "$HERE/ccl-perf" --target cuda -n 1 -w 0 --timeout-ms 10000 "$@" \
        > "$RESULTS/$name.txt" 2>&1
    local rc=$?
    local wrong
    wrong=$(grep -oE 'Out of bounds values : [0-9]+' "$RESULTS/$name.txt" | grep -oE '[0-9]+$' || echo "?")
    local line="$name: exit $rc, wrong $wrong, $((SECONDS - t0)) s"
    if [[ $expect == ok && ($rc != 0 || $wrong != 0) ]] ||
       [[ $expect == fail && $rc == 0 ]]; then
      line="UNEXPECTED $line (expected $expect)"
      bad=1
    fi
    echo "$line" | tee -a "$SUMMARY"
  }
  while read -r kind lib algo src flags; do
    [[ $ONLY == "  " || $ONLY == *" $lib "* ]] || continue
    if [[ $kind == pos ]]; then
      for g in 2 4; do
        devs=$(printf '0,%.0s' $(seq "$g")); devs=${devs%,}
        for k in 1 2 8 64; do
          perf "$lib-g$g-k$k" ok --lib "$HERE/lib/$lib.so" --algo "$algo" \
              --devices "$devs" -b 4 -e 256K -f 16 -k "$k" -G 2
        done
        perf "$lib-g$g-k8-delay" ok --lib "$HERE/lib/$lib.so" --algo "$algo" \
            --devices "$devs" -b 4 -e 256K -f 16 -k 8 --delay 1=1000
      done
    else
      case $lib in
        slot_reuse) d=1=20000 ;;
        rr_reuse) d=0:1=20000 ;;
        sem_extra) d=0:1=20000 ;;
        ll_ahead) d=1=50000 ;;
        ag_ring_noack) d=1:0=20000 ;;
      esac
      for run in 1 2 3; do
        perf "neg-$lib-run$run" fail --lib "$HERE/lib/$lib.so" --algo "$algo" \
            --devices 0,0 -b 4K -e 4K -k 8 --delay "$d"
      done
    fi
  done < "$HERE/libs.txt"
  echo "b2b: $(grep -c . "$SUMMARY") runs, $(grep -c UNEXPECTED "$SUMMARY") unexpected"
  exit $bad
  ;;
*)
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
