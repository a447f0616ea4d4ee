#!/usr/bin/env bash
# The stdlib bundle on one GPU: several ranks share GPU 0 (ccl-perf
# --devices 0,0[,0,0]), so every GPU code path of the bundle's entry points
# runs on a machine with a single GPU (the timings are not link timings).
#
#   test/hw/bundle.sh build [OUT]        here (needs the toolchain; OUT:
#                                        .carry/bundle)
#   OUT/bundle.sh run [RESULTS]          on the GPU machine
#
# build compiles stdlib/stdlib.ccl for sm_90 at 2 and 4 ranks, float32,
# float16 and bfloat16, sum, prod, max and min, up to 16 MiB per rank
# (printing how long it took), and copies ccl-perf, libcclrt, the selection
# table and test/e2e/check_selection.py next to it.
#
# run checks, at 2 and 4 ranks on GPU 0, every collective through the
# bundle's NCCL-shaped entry point: every data type and operator, out of
# place and in place, 0 bytes to 4 MiB per rank, K = 4 calls back to back
# per check, eagerly and as a CUDA-graph replay (-G 2), Broadcast and Reduce
# at root 0 and at the last rank; every row must have 0 wrong values and be
# served by the algorithm the table names. Then every algorithm without a
# row, forced with CCL_ALGO, at 2 and 4 ranks (at 4 ranks the wide algorithms'
# blocks do not fit one GPU: ccl-perf lists the plans not prepared, and the
# check expects the table's next row); and each collective at 4
# ranks with K = 8 and rank 1 delayed 1 ms per call. Output per run in
# RESULTS (default ./results), a line per run in RESULTS/summary.txt; exit
# status 1 if anything did not go as expected. NCCL_NVLS_ENABLE=0; nothing
# here uses multicast.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare bundle "${2:-}"
  # OPS (default all four): fewer operators make a smaller library (the
  # device tool carries at most 64 MiB); the run checks those it has.
  ops=${OPS:-sum,prod,max,min}
  flags=(--nranks=2,4 --dtype=float32,float16,bfloat16 --op=$ops --max-bytes=16M)
  start=$SECONDS
  out/bin/cclc stdlib/stdlib.ccl --target=sm_90 "${flags[@]}" -o "$OUT/libccl_stdlib.so"
  echo "bundle: compiled stdlib/stdlib.ccl for sm_90 (${flags[*]}) in $((SECONDS - start)) s"
  out/bin/cclc stdlib/stdlib.ccl "${flags[@]}" --print-selection -o "$OUT/selection.txt"
  echo "$ops" > "$OUT/ops.txt"
  hw_install out/bin/ccl-perf out/lib/libcclrt.so test/hw/bundle.sh test/e2e/check_selection.py
  echo "bundle: built into $OUT ($(du -sh "$OUT" | cut -f1)); run '$OUT/bundle.sh run' on the GPU machine"
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
    echo "bundle: CCL_ALLOW_MULTICAST is set; unset it" >&2
    exit 2
  fi
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$RESULTS"
  SUMMARY=$RESULTS/summary.txt
  : > "$SUMMARY"
  bad=0
  lib=$HERE/libccl_stdlib.so
  ops=$(cat "$HERE/ops.txt" 2>/dev/null || echo all)
  # The plan's own byte bound of an algorithm (the table's fifth column).
  plan_max() {
    awk -v a="$1" '!/^#/ && $4 == a { print $5; exit }' "$HERE/selection.txt"
  }
  # name, the collective, the rank count, what serves the rows ("table":
  # the selection table; else the algorithm every row must name), then
  # ccl-perf's arguments.
  perf() {
    local name=$1 coll=$2 g=$3 select=$4; shift 4
    local t0=$SECONDS devs
    devs=$(printf '0,%.0s' $(seq "$g")); devs=${devs%,}
    "$HERE/ccl-perf" --lib "$lib" --coll "$coll" --target cuda --devices "$devs" \
        -n 1 -w 0 --timeout-ms 20000 "$@" > "$RESULTS/$name.txt" 2>&1
    local rc=$? sel=ok
    local wrong
    wrong=$(grep -oE 'Out of bounds values : [0-9]+' "$RESULTS/$name.txt" | grep -oE '[0-9]+$' || echo "?")
    if [[ $select == table ]]; then
      # Four ranks on one GPU: the wide algorithms' blocks do not all fit
      # at once; ccl-perf lists the plans the runtime could not prepare
      # ("# unprepared:") and the check skips their rows as the selection does.
      python3 "$HERE/check_selection.py" "$HERE/selection.txt" "$RESULTS/$name.txt" "$coll" "$g" \
          >> "$RESULTS/$name.txt" 2>&1 || sel=WRONG
    elif ! grep -qE '^ +[0-9]+ ' "$RESULTS/$name.txt" ||
         grep -E '^ +[0-9]+ ' "$RESULTS/$name.txt" | grep -v " $select\$" | grep -q .; then
      sel=WRONG
    fi
    local line="$name: exit $rc, wrong $wrong, selection $sel, $((SECONDS - t0)) s"
    if [[ $rc != 0 || $wrong != 0 || $sel != ok ]]; then
      line="UNEXPECTED $line"
      bad=1
    fi
    echo "$line" | tee -a "$SUMMARY"
  }
  for g in 2 4; do
    for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
      roots=0
      case $coll in Broadcast | Reduce) roots="0 $((g - 1))" ;; esac
      for root in $roots; do
        perf "$coll-g$g-root$root" "$coll" "$g" table --root "$root" -b 0 -e 4M -f 4 \
            -d all -o "$ops" -k 4 -G 2
      done
    done
    for forced in allreduce=allpairs_2p allreduce=allpairs_2p_ll allreduce=ring \
                  allreduce=ring_oop broadcast=bc_allpairs reduce=red_allpairs; do
      coll=${forced%%=*} algo=${forced#*=} top=4194304
      # Forced, an algorithm serves up to its plan's bound only.
      max=$(plan_max "$algo")
      [[ $max =~ ^[0-9]+$ ]] && ((max < top)) && top=$max
      CCL_ALGO=$forced perf "forced-$algo-g$g" "$coll" "$g" "$algo" --root $((g - 1)) \
          -b 0 -e "$top" -f 4 -d float32,bfloat16 -o sum,max -k 4 -G 2
    done
  done
  for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
    perf "$coll-g4-delay" "$coll" 4 table --root 2 -b 4 -e 1M -f 16 -d float32 -k 8 \
        --delay 1=1000
  done
  echo "bundle: $(grep -c . "$SUMMARY") runs, $(grep -c UNEXPECTED "$SUMMARY") unexpected"
  exit $bad
  ;;
*)
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
