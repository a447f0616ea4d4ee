#!/usr/bin/env bash
# 4 x H200, 2026-11-28 (this session), call C: the rooted candidates
# (rooted.ccl: Broadcast and Reduce, LL all-pairs, trees, chains, the wide
# chains and the scatter/all-gather and reduce-scatter/gather forms) each
# forced on its own at 4 and at 2 ranks, NCCL beside the first of each
# collective; then the bundle with the 4-rank rows of this session's call B
# (AllReduce, AllGather, ReduceScatter, AllToAll) against NCCL at 4 GPUs.
# PART=bundle2: call D (Broadcast / Reduce rows).
H=$(cd "$(dirname "$0")" && pwd)
(cd $H && for f in *.txz; do tar xJf $f; done)
export LD_LIBRARY_PATH=$H NCCL_NVLS_ENABLE=0
R=$1; PART=${2:-C}; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m >> $R/gpus.txt 2>&1
run() { # NAME NGPUS LIB LIMIT ARGS
  local n=$1 ng=$2 lib=$3 lim=$4 t=$SECONDS; shift 4
  timeout $lim $H/ccl-perf --lib $lib --target cuda -g $ng -n 20 -w 5 "$@" > $R/$n.txt 2>&1
  local rc=$? wrong
  wrong=$(grep -h 'Out of bounds values' $R/$n.txt | awk '{s += $7} END {print s + 0}')
  printf '%-34s rc=%s wrong=%s %ss\n' $n $rc $wrong $((SECONDS - t)) | tee -a $R/summary.txt
  grep -E "^ +(1024|65536|1048576|67108864) " $R/$n.txt | awk '{print "   ", $1, $5, $9, $NF}'
}
C=$H/librooted.so L=$H/libccl_stdlib.so
if [ $PART = C ]; then
  for g in 4 2; do
    for a in bc_allpairs_ll red_allpairs_ll; do
      [ $g = 2 ] && continue
      run g$g-$a $g $C 40 --algo $a -G 10 -b 4 -e 256K -f 4 --root 1
    done
    for a in bc_tree red_tree; do
      [ $g = 2 ] && continue
      run g$g-$a $g $C 40 --algo $a -G 10 -b 4 -e 4M -f 4 --root 1
    done
    for a in bc_chain bc_chain_wide bc_sag_wide bc_sag_wide_tiled red_chain red_chain_wide red_rsg_wide red_rsg_wide_tiled; do
      cmp=; [ $a = bc_chain -o $a = red_chain ] && cmp="--compare nccl"
      run g$g-$a $g $C 60 --algo $a -G 10 -b 1K -e 256M -f 4 --root 1 $cmp
    done
  done
  for c in AllReduce AllGather ReduceScatter AllToAll; do
    n=$(tr '[:upper:]' '[:lower:]' <<<$c)
    run bundle-g4-$n $((4)) $L 60 --coll $c -G 10 -b 4 -e 64M -f 4 --compare nccl
  done
else
  for g in 4 2; do
    for c in Broadcast Reduce; do
      n=$(tr '[:upper:]' '[:lower:]' <<<$c)
      run bundle-g$g-$n $g $L 80 --coll $c -G 10 -b 4 -e 256M -f 4 --compare nccl
    done
  done
fi
tar czf $OUT/g4-$PART.tgz -C $(dirname $R) $(basename $R)
