#!/usr/bin/env bash
# 4 x H200, 2026-11-28 (this session), call A: the bundle of 45c02d3
# (2, 4, 8 ranks, f32 + bf16, 1 GiB; the build of 2026-11-28's call 4)
# against NCCL 2.28 in the same runs. call B (PART=cand): each candidate
# of the selection rows forced on its own at 4 ranks (libccl_cand.so,
# cand.ccl, 4 MiB per rank).
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz && { [ -f cand.txz ] && tar xJf cand.txz; true; })
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; PART=${2:-bundle}; NG=${NG:-4}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m >> $R/gpus.txt 2>&1
run() { # NAME LIB LIMIT ARGS
  local n=$1 lib=$2 lim=$3 t=$SECONDS; shift 3
  timeout $lim $H/ccl-perf --lib $lib --target cuda -g $NG -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-34s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
  grep -E "^ +(1024|65536|1048576|67108864|1073741824) " $R/$n.txt | awk '{print "   ", $1, $5, $9, $NF}'
}
L=$H/libccl_stdlib.so C=$H/libccl_cand.so
if [ $PART = bundle ]; then
  run allreduce-f32-graph $L 200 --coll AllReduce -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-graph.png
  run allreduce-f32-eager $L 60 --coll AllReduce -b 4 -e 64M -f 4 --compare nccl
  run allreduce-bf16-graph $L 80 --coll AllReduce -G 10 -d bfloat16 -b 4 -e 64M -f 4 --compare nccl
  for c in AllGather ReduceScatter AllToAll Broadcast Reduce; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run $n-f32-graph $L 60 --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
  done
  t=$SECONDS
  timeout 60 $H/ccl-run -n $NG $H/ccl-perf --lib $L --coll AllReduce --target cuda -b 4 -e 64M -f 16 -n 20 -w 5 -G 10 \
    --compare nccl > $R/mp-allreduce-graph.txt 2>&1
  echo "mp-allreduce-graph rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
else
  for a in $(grep -o 'select [A-Za-z]* {[^}]*}' $H/cand.ccl | sed 's/select [A-Za-z]* {//; s/[;}]//g'); do
    run cand-$a $C 40 --algo $a -G 10 -b 4 -e 4M -f 4 --compare nccl
  done
fi
tar czf $OUT/g4-$PART.tgz -C $(dirname $R) $(basename $R)
