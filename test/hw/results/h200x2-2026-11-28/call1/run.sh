#!/usr/bin/env bash
# Per-rank-count LL kernels (new bundle, .carry/two) against the bundle of
# 2026-11-27e (p4: one LL kernel for all rank counts), probes of allpairs_ll
# (ap2: 2 ranks only; apv: 2..8, a kernel per rank count; apr: 2..8,
# --kernels=per-rank), then the new bundle against NCCL, the rooted
# algorithms forced one by one, one process per GPU.  NG GPUs (default 2).
H=$(cd "$(dirname "$0")" && pwd); T=$H/../two; P4=$H/../p4
(cd $P4 && tar xJf libs.txz)
export LD_LIBRARY_PATH=$T NCCL_NVLS_ENABLE=0
R=$1; NG=${NG:-2}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt
NEW=$T/libccl_stdlib.so OLD=$P4/libccl_stdlib.so
run() { # NAME ARGS
  local n=$1 t=$SECONDS; shift
  $T/ccl-perf --target cuda -g $NG -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-30s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
}
rows() { grep -E "^ +($2) " $R/$1.txt | awk '{print "   ", $1, $5, $9, $NF}' | tee -a $R/summary.txt; }
i=0
for v in new old new old; do
  lib=$NEW; [ $v = old ] && lib=$OLD
  run bundle-$v-$((++i)) --lib $lib --coll AllReduce -G 10 -b 4 -e 4M -f 4
  rows bundle-$v-$i '1024|65536|1048576'
done
for l in ap2 apv apr apv apr ap2; do
  run probe-$l-$((++i)) --lib $H/$l.so --algo allpairs_ll -G 10 -b 1K -e 64K -f 64 -n 50 -w 10
  rows probe-$l-$i '1024|65536'
done
run allreduce-f32-graph --lib $NEW --coll AllReduce -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-graph.png
run allreduce-f32-eager --lib $NEW --coll AllReduce -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-eager.png
for c in AllGather ReduceScatter AllToAll; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  run $n-f32-graph-64M --lib $NEW --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
done
for a in bc_allpairs_ll bc_allpairs bc_tree bc_chain red_allpairs_ll red_allpairs red_tree red_chain; do
  run rooted-$a --lib $H/rooted.so --algo $a -G 10 -b 4 -e 64M -f 16 --compare nccl
done
run allreduce-bf16-graph --lib $NEW --coll AllReduce -G 10 -d bfloat16 -b 4 -e 1G -f 4 --compare nccl
t=$SECONDS
$T/ccl-run -n $NG $T/ccl-perf --lib $NEW --coll AllReduce --target cuda -b 4 -e 1G -f 16 -n 20 -w 5 -G 10 \
  --compare nccl > $R/mp-allreduce-graph.txt 2>&1
echo "mp-allreduce-graph rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
t=$SECONDS
$T/ccl-run -n $NG $T/ccl-perf --lib $NEW --coll AllReduce --target cuda -b 4 -e 64M -f 16 -n 20 -w 5 \
  --compare nccl > $R/mp-allreduce-eager.txt 2>&1
echo "mp-allreduce-eager rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
