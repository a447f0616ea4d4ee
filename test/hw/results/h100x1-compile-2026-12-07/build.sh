#!/bin/bash
# A/B libraries: old = /tmp/old-out (HEAD 3b4d98e), new = working tree out/
cd /work/main/.carry/ab
T="--target=sm_90 --nranks=2..8 --dtype=float32,bfloat16 --op=sum,max"
for v in old new; do
  C=/work/main/out/bin/cclc; [[ $v == old ]] && C=/tmp/old-out/bin/cclc
  /usr/bin/time -f "$v allpairs_ll %e s %M KB" $C /work/main/stdlib/allreduce/allpairs_ll.ccl $T --max-bytes=1M -o ${v}_allpairs_ll.so
  /usr/bin/time -f "$v ring %e s %M KB" $C /work/main/stdlib/allreduce/ring.ccl $T --max-bytes=64M -o ${v}_ring.so
  /usr/bin/time -f "$v ring_oop_wide_tiled %e s %M KB" $C /work/main/stdlib/allreduce/ring_oop_wide_tiled.ccl $T --max-bytes=64M -o ${v}_ring_oop_wide_tiled.so
done
