#!/usr/bin/env bash
# 2 x H200, 2026-11-28 (session b), call 6: the bundle with ring_oop_wide /
# ring_oop_wide_tiled (both forms) as the AllReduce rows from 256 KiB, the
# wide Broadcast / Reduce forms, against NCCL in the same runs; the old
# in-place rings forced in the same call; one process per GPU; PyTorch.
# Usage: run.sh RESULTS PARTS(comma list of a,b,c) [DEADLINE_S]
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; P=,$2,; DL=${3:-560}; NG=${NG:-2}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m >> $R/gpus.txt 2>&1
L=$H/libccl_stdlib.so
left() { ((SECONDS < DL)) || { echo "skipped $1 (deadline)" | tee -a $R/summary.txt; return 1; }; }
run() { # NAME ARGS
  local n=$1 t=$SECONDS; shift; left $n || return
  timeout $((DL + 30 - SECONDS)) $H/ccl-perf --lib $L --target cuda -g $NG -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-34s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
}
mp() { # NAME COLL ARGS
  local n=$1 c=$2 t=$SECONDS; shift 2; left $n || return
  timeout $((DL + 30 - SECONDS)) $H/ccl-run -n $NG $H/ccl-perf --lib $L --coll $c --target cuda -n 20 -w 5 "$@" \
    --compare nccl > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-34s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
}
if [[ $P == *,a,* ]]; then
  run allreduce-f32-graph --coll AllReduce -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-graph.png
  CCL_ALGO=allreduce=ring_wide_tiled run forced-ring_wide_tiled-f32-graph --coll AllReduce -G 10 -b 4M -e 1G -f 4 --compare nccl
  CCL_ALGO=allreduce=ring_wide run forced-ring_wide-f32-graph --coll AllReduce -G 10 -b 256K -e 4M -f 4 --compare nccl
  for c in AllGather ReduceScatter AllToAll Broadcast Reduce; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run $n-f32-graph --coll $c -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/$n-f32-graph.png
  done
fi
if [[ $P == *,b,* ]]; then
  mp mp-allreduce-graph AllReduce -G 10 -b 4 -e 64M -f 4
  mp mp-allreduce-eager AllReduce -b 4 -e 64M -f 16
  for c in AllGather ReduceScatter AllToAll Broadcast Reduce; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    mp mp-$n-graph $c -G 10 -b 4 -e 64M -f 16
  done
  t=$SECONDS
  if left torch; then
    (cd $R && timeout 300 bash $H/torch_shim.sh run > torch-run.log 2>&1)
    echo "torch_shim rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
    tail -24 $R/torch-run.log
  fi
fi
if [[ $P == *,c,* ]]; then
  run allreduce-bf16-graph --coll AllReduce -G 10 -d bfloat16 -b 4 -e 1G -f 4 --compare nccl
  run allreduce-f32-eager --coll AllReduce -b 4 -e 64M -f 4 --compare nccl --plot $R/allreduce-f32-eager.png
  for c in AllGather ReduceScatter AllToAll Broadcast Reduce; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run $n-f32-eager --coll $c -b 4 -e 64M -f 16 --compare nccl
  done
fi
cat $R/summary.txt
tar czf $R.tgz -C $(dirname $R) $(basename $R)
