#!/usr/bin/env bash
# Call 3 of 2026-11-28: the LL bundles alternated. old: call 1's build
# (staged in place); A: small and wide LL algorithms of both forms, the wide
# ones with 64 / nranks instances of one block; B: small ones of both forms,
# the wide AllReduce and AllGather as before (out of place, a put block per
# peer). ReduceScatter is of both forms in A and B.
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; NG=${NG:-2}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt
run() { # NAME ARGS
  local n=$1 t=$SECONDS; shift
  $H/ccl-perf --target cuda -g $NG -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-30s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
}
rows() { grep -E "^ +($2) " $R/$1.txt | head -${3:-9} | awk '{print "   ", $1, $5, $9, $NF}' | tee -a $R/summary.txt; }
for k in 1 2; do
  for v in old A B; do
    run ar-graph-$v-$k --lib $H/$v/libccl_stdlib.so --coll AllReduce -G 10 -b 4 -e 4M -f 4 --compare nccl
    rows ar-graph-$v-$k '1024|65536|262144|1048576' 4
    run ag-graph-$v-$k --lib $H/$v/libccl_stdlib.so --coll AllGather -G 10 -b 4 -e 2M -f 8 --compare nccl
    rows ag-graph-$v-$k '8192|131072|2097152' 3
    run rs-graph-$v-$k --lib $H/$v/libccl_stdlib.so --coll ReduceScatter -G 10 -b 4 -e 2M -f 8 --compare nccl
    rows rs-graph-$v-$k '8192|131072|2097152' 3
  done
done
for k in 1 2; do
  for v in old A B; do
    run ar-eager-$v-$k --lib $H/$v/libccl_stdlib.so --coll AllReduce -b 4 -e 4M -f 4 --compare nccl
    rows ar-eager-$v-$k '1024|65536|1048576' 3
  done
done
