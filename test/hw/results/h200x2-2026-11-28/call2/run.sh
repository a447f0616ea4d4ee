#!/usr/bin/env bash
# Call 2 of 2026-11-28: LL algorithms of both forms (new: allpairs_ll,
# allpairs_ll_wide, ag_allpairs_ll(_wide), rs_allpairs_ll(_wide) with
# implements C(inplace, outofplace); in-place calls no longer staged)
# against call 1's build (old: per-rank-count LL kernels, staged in place).
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
i=0
for v in new old new old; do
  run bundle-ar-$v-$((++i)) --lib $H/$v/libccl_stdlib.so --coll AllReduce -G 10 -b 4 -e 4M -f 4
  rows bundle-ar-$v-$i '1024|65536|1048576'
done
for c in AllGather ReduceScatter; do
  for v in new old; do
    run bundle-$c-$v --lib $H/$v/libccl_stdlib.so --coll $c -G 10 -b 4 -e 2M -f 8
    rows bundle-$c-$v '1024|8192|65536|2097152'
  done
done
for v in new old; do
  run eager-ar-$v --lib $H/$v/libccl_stdlib.so --coll AllReduce -b 4 -e 4M -f 4 --compare nccl
  rows eager-ar-$v '1024|65536|1048576' 3
done
for a in allpairs_ll allpairs_ll_wide; do
  for v in new old; do
    run cand-$a-$v --lib $H/$v/libccl_cand.so --algo $a -G 10 -b 1K -e 4M -f 4
    rows cand-$a-$v '1024|65536|1048576|4194304'
  done
done
NEW=$H/new/libccl_stdlib.so
run allreduce-f32-graph --lib $NEW --coll AllReduce -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-graph.png
for c in AllGather ReduceScatter; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  run $n-f32-graph-64M --lib $NEW --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
  run $n-f32-eager-64M --lib $NEW --coll $c -b 4 -e 64M -f 4 --compare nccl
done
t=$SECONDS
$H/ccl-run -n $NG $H/ccl-perf --lib $NEW --coll AllReduce --target cuda -b 4 -e 1G -f 16 -n 20 -w 5 -G 10 \
  --compare nccl > $R/mp-allreduce-graph.txt 2>&1
echo "mp-allreduce-graph rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
t=$SECONDS
(cd $R && bash $H/../torch_shim/torch_shim.sh run > torch-run.log 2>&1)
echo "torch_shim rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
tail -25 $R/torch-run.log
