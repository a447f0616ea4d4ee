#!/usr/bin/env bash
# 2 x H200, 2026-11-28 (session b), call 8: the final bundle (Broadcast /
# Reduce rows from call 7's candidates). Parts (comma list):
#  a  the bundle's AllGather / ReduceScatter from 4 MiB, its wide rings now
#     of both forms (in-place calls no longer staged), NCCL beside them
#  b  large-message candidates forced, 4 MiB .. 1 GiB (x16): bc_chain_wide
#     vs bc_chain_wide_tiled, red_chain_wide vs red_chain_wide_tiled,
#     a2a_wide vs a2a_wide_tiled
#  c  small-message rooted candidates, 4 KiB .. 4 MiB (x4): the LL
#     all-pairs and their wide forms, the chains, bc_sag_wide
#  d  the bundle's Broadcast and Reduce, CUDA graphs, 4 B .. 1 GiB (x4);
#     AllReduce 4 B .. 64 MiB
#  e  one process per GPU (ccl-run), every collective; PyTorch via the shim
#  f  AllReduce bfloat16 graphs and float32 eager
# Usage: run.sh RESULTS PARTS [DEADLINE_S]
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && tar xJf libs.txz)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; P=,$2,; DL=${3:-520}; NG=${NG:-2}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m >> $R/gpus.txt 2>&1
L=$H/libccl_stdlib.so
left() { ((SECONDS < DL)) || { echo "skipped $1 (deadline)" | tee -a $R/summary.txt; return 1; }; }
record() { # NAME RC T
  local wrong
  wrong=$(grep -h 'Out of bounds values' $R/$1.txt | awk '{s += $7} END {print s + 0}')
  printf '%-38s rc=%s wrong=%s %ss\n' $1 $2 $wrong $((SECONDS - $3)) | tee -a $R/summary.txt
}
run() { # NAME ARGS
  local n=$1 t=$SECONDS; shift; left $n || return
  timeout $((DL + 30 - SECONDS)) $H/ccl-perf --target cuda -g $NG -n 20 -w 5 --lib "${LIB:-$L}" "$@" > $R/$n.txt 2>&1
  record $n $? $t
}
mp() { # NAME COLL ARGS
  local n=$1 c=$2 t=$SECONDS; shift 2; left $n || return
  timeout $((DL + 30 - SECONDS)) $H/ccl-run -n $NG $H/ccl-perf --lib $L --coll $c --target cuda -n 20 -w 5 "$@" \
    --compare nccl > $R/$n.txt 2>&1
  record $n $? $t
}
if [[ $P == *,a,* ]]; then
  for c in AllGather ReduceScatter; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run bundle-$n-f32-graph-4M --coll $c -G 10 -b 4M -e 1G -f 4 --compare nccl
  done
fi
if [[ $P == *,b,* ]]; then
  for a in Broadcast:bc_chain_wide Broadcast:bc_chain_wide_tiled Reduce:red_chain_wide \
      Reduce:red_chain_wide_tiled AllToAll:a2a_wide AllToAll:a2a_wide_tiled; do
    LIB=$H/cand-big.so run cand-${a#*:} --algo ${a#*:} -G 10 -b 4M -e 1G -f 16 --compare nccl
  done
fi
if [[ $P == *,c,* ]]; then
  for a in bc_allpairs_ll bc_allpairs_ll_wide bc_chain bc_sag_wide red_allpairs_ll \
      red_allpairs_ll_wide red_chain; do
    LIB=$H/cand-small.so run cand-$a --algo $a -G 10 -b 4K -e 4M -f 4 --compare nccl
  done
fi
if [[ $P == *,d,* ]]; then
  for c in Broadcast Reduce; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run $n-f32-graph --coll $c -G 10 -b 4 -e 1G -f 4 --compare nccl --plot $R/$n-f32-graph.png
  done
  run allreduce-f32-graph-small --coll AllReduce -G 10 -b 4 -e 64M -f 4 --compare nccl
fi
if [[ $P == *,e,* ]]; then
  mp mp-allreduce-graph AllReduce -G 10 -b 4 -e 64M -f 16
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
if [[ $P == *,f,* ]]; then
  run allreduce-bf16-graph --coll AllReduce -G 10 -d bfloat16 -b 4 -e 1G -f 16 --compare nccl
  run allreduce-f32-eager --coll AllReduce -b 4 -e 64M -f 16 --compare nccl
  run allreduce-f16-graph --coll AllReduce -G 10 -d float16 -b 4 -e 64M -f 16 --compare nccl
fi
cat $R/summary.txt
tar czf $R.tgz -C $(dirname $R) $(basename $R)
