#!/bin/bash
# One GPU, several ranks on it: gpu_test (device library incl. reduce_base),
# then the programs the copy-into-reduce fold changed, back to back (-k 8).
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
mkdir -p "$OUT/r"
nvidia-smi -L
timeout 60 ./gpu_test_bin gpu_test.ptx > "$OUT/r/gpu_test.txt" 2>&1; echo "gpu_test rc=$?"; tail -3 "$OUT/r/gpu_test.txt"
start=$SECONDS
for spec in ring_oop:ring_oop ring_oop_wide:ring_oop_wide rs_ring_wide:rs_ring_wide red_chain_wide_tiled:red_chain_wide_tiled allpairs_2p:allpairs_2p bc_chain_wide:bc_chain_wide; do
  lib=${spec%%:*}; algo=${spec##*:}
  for g in 2 4; do
    devs=0; for ((i=1;i<g;i++)); do devs=$devs,0; done
    roots=0; case $algo in red_*|bc_*) roots="0 $((g-1))";; esac
    for dt in float32 bfloat16; do for r in $roots; do
      f="$OUT/r/$lib-g$g-$dt-r$r.txt"
      timeout 40 bin/ccl-perf --lib libs/$lib.so --algo $algo -g $g --devices $devs -b 4 -e 16M -f 8 -d $dt --root $r -k 8 -n 3 -w 1 --timeout-ms 20000 > "$f" 2>&1
      rc=$?
      if [ $rc = 0 ] && grep -q "Out of bounds values : 0 OK" "$f"; then echo "ok $lib g=$g $dt root=$r"; else echo "FAIL $lib g=$g $dt root=$r rc=$rc"; tail -3 "$f"; fi
    done; done
    if (( SECONDS - start > 150 )); then echo "stopping: time"; break 2; fi
  done
done
