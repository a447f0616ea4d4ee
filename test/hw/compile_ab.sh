#!/usr/bin/env bash
# Kernel time of two compilers' libraries on one GPU, two ranks on GPU 0 in
# one process (ccl-perf --devices 0,0; not a link timing: what matters is
# the difference). For each algorithm DIR/old_ALGO.so and DIR/new_ALGO.so,
# run alternately (old, new, old, new) with CUDA graphs and eager, results
# checked (ccl-perf -c 1), float32 sum. Output: OUT/ALGO-{old,new}-{graph,
# eager}-rK.txt and a summary table on stdout.
#
#   test/hw/compile_ab.sh DIR OUT [CCL_PERF]
set -uo pipefail
dir=$1 out=$2 perf=${3:-out/bin/ccl-perf}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
sizes() {
  case $1 in
  allpairs_ll*) echo "-b 1K -e 64K -f 4" ;;
  *) echo "-b 1M -e 64M -f 8" ;;
  esac
}
status=0
for lib in "$dir"/old_*.so; do
  algo=$(basename "$lib" .so); algo=${algo#old_}
  for k in 1 2; do
    for v in old new; do
      for mode in graph eager; do
        g=10; [[ $mode == eager ]] && g=0
        f=$out/$algo-$v-$mode-r$k.txt
        # shellcheck disable=SC2046
        timeout 120 "$perf" --lib "$dir/${v}_$algo.so" --algo "$algo" \
            --devices 0,0 $(sizes "$algo") -n 200 -w 20 -G $g -c 1 > "$f" 2>&1 ||
          { echo "FAILED: $f"; status=1; }
      done
    done
  done
done
# Summary: size, then out-of-place and in-place time (us) and #wrong.
for f in "$out"/*-r1.txt "$out"/*-r2.txt; do
  echo "== $(basename "$f")"
  awk '/^ +[0-9]+ +[0-9]+ / {print $1, "oop", $5, "wrong", $8, "ip", $9, "wrong", $12}' "$f"
done
awk '/^ +[0-9]+ +[0-9]+ / && ($8 != 0 || $12 != 0) {print FILENAME": "$0; bad=1}
     END {exit bad}' "$out"/*.txt || status=1
exit $status
