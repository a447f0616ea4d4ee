#!/usr/bin/env bash
# Call 5 of 2026-11-28: bc_allpairs_ll and red_allpairs_ll of both forms
# (2-rank f32 bundle, up to 64 MiB), Broadcast and Reduce against NCCL in
# graphs, eager; AllReduce as a check of the build.
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; mkdir -p $R
L=$H/libccl_stdlib.so
run() {
  local n=$1 t=$SECONDS; shift
  $H/ccl-perf --lib $L --target cuda -g 2 -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-30s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
  grep -E "^ +(4|1024|4096|16384) " $R/$n.txt | awk '{print "   ", $1, $5, $9, $NF}' | tee -a $R/summary.txt
}
for c in Broadcast Reduce; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  run $n-graph --coll $c -G 10 -b 4 -e 64K -f 4 --compare nccl
  run $n-graph-root1 --coll $c -G 10 -b 4 -e 64K -f 4 --root 1
  run $n-eager --coll $c -b 4 -e 64K -f 4 --compare nccl
done
run allreduce-graph --coll AllReduce -G 10 -b 4 -e 64K -f 16 --compare nccl
