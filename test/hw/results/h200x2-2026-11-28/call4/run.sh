#!/usr/bin/env bash
# Call 4 of 2026-11-28: the committed bundle (45c02d3: LL all-pairs of both
# forms, per-rank-count LL kernels, new AllReduce/AllGather/Broadcast/Reduce
# rows) against NCCL in the same runs; one process per GPU; PyTorch.
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; NG=${NG:-2}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt
L=$H/libccl_stdlib.so
run() { # NAME ARGS
  local n=$1 t=$SECONDS; shift
  $H/ccl-perf --lib $L --target cuda -g $NG -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-30s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
}
run allreduce-f32-graph --coll AllReduce -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/allreduce-f32-graph.png
run allreduce-f32-eager --coll AllReduce -b 4 -e 64M -f 4 --compare nccl --plot $R/allreduce-f32-eager.png
run allreduce-bf16-graph --coll AllReduce -G 10 -d bfloat16 -b 4 -e 64M -f 4 --compare nccl
for c in AllGather ReduceScatter; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  run $n-f32-graph --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
  run $n-f32-eager --coll $c -b 4 -e 64M -f 4 --compare nccl
done
for c in Broadcast Reduce; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  run $n-f32-graph --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
done
for c in AllReduce Broadcast Reduce; do
  n=$(tr '[:upper:]' '[:lower:]' <<<$c)
  t=$SECONDS
  $H/ccl-run -n $NG $H/ccl-perf --lib $L --coll $c --target cuda -b 4 -e 64M -f 16 -n 20 -w 5 -G 10 \
    --compare nccl > $R/mp-$n-graph.txt 2>&1
  echo "mp-$n-graph rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
done
t=$SECONDS
(cd $R && bash $H/../torch_shim/torch_shim.sh run > torch-run.log 2>&1)
echo "torch_shim rc=$? $((SECONDS - t))s" | tee -a $R/summary.txt
tail -22 $R/torch-run.log
