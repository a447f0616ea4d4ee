#!/usr/bin/env bash
# The stdlib bundle against NCCL on two GPUs (docs/perf.md), one call of the
# device tool:
#
#   test/hw/two_gpu.sh build [OUT]          here (toolchain; OUT: .carry/two)
#   OUT/two_gpu.sh run [RESULTS] [PARTS]    on a machine with 2 GPUs
#
# build compiles stdlib/stdlib.ccl for sm_90 at 2, 4 and 8 ranks, float32 and
# bfloat16, sum, up to 1 GiB per rank (MAX_BYTES in the environment: another
# bound), and copies ccl-perf, ccl-run,
# libcclrt and test/hw/ceiling.cu next to it.
#
# run (PARTS: a comma list, default all of them):
#   ceiling  the link ceilings (ceiling.cu, built there with nvcc)
#   ar       AllReduce float32, eager and CUDA graphs (-G 10), and
#            bfloat16 in graphs
#   ag rs a2a bc red  AllGather, ReduceScatter, AllToAll, Broadcast,
#            Reduce float32, eager and graphs
#   wide     AllGather, ReduceScatter, AllToAll in graphs with the wide
#            algorithms forced at every size (CCL_ALGO: ag_ring_wide,
#            rs_ring_wide, a2a_wide), sizes x16, NCCL beside them
#   tiled    AllGather and ReduceScatter in graphs with the tiled wide
#            rings forced at every size (ag_ring_wide_tiled,
#            rs_ring_wide_tiled), sizes x16, NCCL beside them
#   mp       AllReduce with one process per GPU (ccl-run -n 2), eager
#            and graphs
#   mpall    AllGather, ReduceScatter, AllToAll, Broadcast and Reduce with
#            one process per GPU, in graphs, sizes x16
#   cand     each candidate algorithm of the selection tables up to
#            4 MiB (CANDIDATES below; CAND in the environment: fewer) on
#            its own, from a library of just those compiled up to 4 MiB
#            per rank, in graphs, 4 B .. 4 MiB (x4; CAND_FACTOR: another
#            step), NCCL beside it: the data the rows come from
# Every part runs on all the machine's GPUs (NGPUS in the environment:
# fewer). EAGER=0 in the environment skips the eager runs, BF16=0 the
# bfloat16 AllReduce.
# Every row 4 B .. 1 GiB (x4; FACTOR=16 in the environment: x16), out of place and in place, checked with
# K = 8 calls back to back (fewer where 1 GiB buffers do not fit
# --check-mem), NCCL in the same run (--compare nccl; in mp NCCL joins with
# ncclCommInitRank in the same processes). NCCL_NVLS_ENABLE=0; nothing
# here creates multicast objects. Output per run in RESULTS (default
# ./results), a line per run in RESULTS/summary.txt, all of it packed into
# RESULTS.tgz at the end.
set -uo pipefail
mode=${1:-}
# The candidates of the cand part, COLLECTIVE:FILE under stdlib/.
CANDIDATES="AllReduce:allreduce/allpairs_ll AllReduce:allreduce/allpairs_ll_wide
  AllReduce:allreduce/allpairs_ll_split AllReduce:allreduce/allpairs_ll_split_wide
  AllReduce:allreduce/allpairs_2p AllReduce:allreduce/ring_oop_wide
  AllGather:allgather/ag_allpairs_ll AllGather:allgather/ag_allpairs_ll_wide
  AllGather:allgather/ag_allpairs_ll_split_wide
  AllGather:allgather/ag_allpairs AllGather:allgather/ag_ring_wide
  ReduceScatter:reducescatter/rs_allpairs_ll
  ReduceScatter:reducescatter/rs_allpairs_ll_wide
  ReduceScatter:reducescatter/rs_allpairs ReduceScatter:reducescatter/rs_ring_wide
  AllToAll:alltoall/a2a_allpairs_ll AllToAll:alltoall/a2a_allpairs_ll_wide
  AllToAll:alltoall/a2a_allpairs AllToAll:alltoall/a2a_wide
  Broadcast:broadcast/bc_allpairs_ll Broadcast:broadcast/bc_allpairs_ll_wide
  Broadcast:broadcast/bc_tree Broadcast:broadcast/bc_sag_wide
  Broadcast:broadcast/bc_chain_wide Reduce:reduce/red_allpairs_ll
  Reduce:reduce/red_allpairs_ll_wide Reduce:reduce/red_tree
  Reduce:reduce/red_chain_wide"
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare two "${2:-}"
  start=$SECONDS
  # MAX_BYTES: 256M for 4 or 8 GPUs, where 1G's scratch does not fit (the
  # rooted plans are prepared per root: 139 GiB per rank at 4 ranks).
  out/bin/cclc stdlib/stdlib.ccl --target=sm_90 --nranks=2,4,8 \
      --dtype=float32,bfloat16 --op=sum --max-bytes="${MAX_BYTES:-1G}" \
      -o "$OUT/libccl_stdlib.so"
  echo "two_gpu: compiled the bundle in $((SECONDS - start)) s"
  start=$SECONDS
  # Selection tables make cclc compile the imported algorithms; ccl-perf
  # calls each by its own entry point (--algo), not through the tables.
  { for c in $CANDIDATES; do printf 'import "%s.ccl";\n' "${c#*:}"; done
    for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
      printf 'select %s {' "$coll"
      for c in $CANDIDATES; do
        if [[ ${c%%:*} == "$coll" ]]; then printf ' %s;' "$(basename "${c#*:}")"; fi
      done
      printf ' }\n'
    done
  } >"$OUT/cand.ccl"
  out/bin/cclc "$OUT/cand.ccl" -I stdlib --target=sm_90 --nranks=2,4,8 \
      --dtype=float32 --op=sum --max-bytes=4M -o "$OUT/libccl_cand.so"
  echo "two_gpu: compiled the candidates in $((SECONDS - start)) s"
  hw_install out/bin/ccl-perf out/bin/ccl-run out/lib/libcclrt.so \
      test/hw/ceiling.cu test/hw/cuda_check.h test/hw/two_gpu.sh
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  PARTS=${3:-ceiling,ar,ag,rs,a2a,bc,red,wide,tiled,mp,mpall,cand}
  FACTOR=${FACTOR:-4} # size step
  EAGER=${EAGER:-1}   # 0: CUDA graphs only
  BF16=${BF16:-1}     # 0: no bfloat16 AllReduce
  NGPUS=${NGPUS:-$(nvidia-smi -L | grep -c '^GPU')}
  if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
    echo "two_gpu: CCL_ALLOW_MULTICAST is set; unset it" >&2
    exit 2
  fi
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$HERE:$PATH"
  mkdir -p "$RESULTS"
  SUMMARY=$RESULTS/summary.txt
  : >"$SUMMARY"
  nvidia-smi -L >"$RESULTS/gpus.txt"
  nvidia-smi topo -m >>"$RESULTS/gpus.txt" 2>&1 || true
  failed=0
  part() { [[ ",$PARTS," == *",$1,"* ]]; }
  record() { # NAME RC FILE SECONDS
    local verdict=PASS wrong
    (($2 == 0)) || { verdict="FAIL (exit $2)"; failed=1; }
    wrong=$(grep -h 'Out of bounds values' "$3" 2>/dev/null | awk '{s += $7} END {print s + 0}')
    printf '%-34s %-14s wrong=%s %ss\n' "$1" "$verdict" "$wrong" "$4" | tee -a "$SUMMARY"
  }
  lib=$HERE/libccl_stdlib.so
  perf() { # NAME ARGS...
    local name=$1 t=$SECONDS
    shift
    ccl-perf --lib "$lib" --target cuda -b 4 -e 1G -f "$FACTOR" -n 20 -w 5 "$@" \
        >"$RESULTS/$name.txt" 2>&1
    record "$name" $? "$RESULTS/$name.txt" $((SECONDS - t))
  }
  if part ceiling; then
    t=$SECONDS
    nvcc -O3 -arch=sm_90 -o /tmp/ceiling "$HERE/ceiling.cu" &&
      /tmp/ceiling 256 >"$RESULTS/ceiling.txt" 2>&1
    record ceiling $? "$RESULTS/ceiling.txt" $((SECONDS - t))
  fi
  if part ar; then
    ((EAGER)) && perf allreduce-f32-eager --coll AllReduce -g "$NGPUS" --compare nccl \
        --plot "$RESULTS/allreduce-f32-eager.png"
    perf allreduce-f32-graph --coll AllReduce -g "$NGPUS" -G 10 --compare nccl \
        --plot "$RESULTS/allreduce-f32-graph.png"
    ((BF16)) && perf allreduce-bf16-graph --coll AllReduce -g "$NGPUS" -G 10 -d bfloat16 \
        --compare nccl
  fi
  for c in ag:AllGather rs:ReduceScatter a2a:AllToAll bc:Broadcast red:Reduce; do
    part "${c%%:*}" || continue
    n=$(tr '[:upper:]' '[:lower:]' <<<"${c#*:}")
    ((EAGER)) && perf "$n-f32-eager" --coll "${c#*:}" -g "$NGPUS" --compare nccl
    perf "$n-f32-graph" --coll "${c#*:}" -g "$NGPUS" -G 10 --compare nccl \
        --plot "$RESULTS/$n-f32-graph.png"
  done
  if part wide; then
    for c in AllGather:ag_ring_wide ReduceScatter:rs_ring_wide AllToAll:a2a_wide; do
      n=$(tr '[:upper:]' '[:lower:]' <<<"${c%%:*}")
      CCL_ALGO="$n=${c#*:}" FACTOR=16 perf "${c#*:}-f32-graph" \
          --coll "${c%%:*}" -g "$NGPUS" -G 10 --compare nccl
    done
  fi
  if part tiled; then
    for c in AllGather:ag_ring_wide_tiled ReduceScatter:rs_ring_wide_tiled; do
      n=$(tr '[:upper:]' '[:lower:]' <<<"${c%%:*}")
      CCL_ALGO="$n=${c#*:}" FACTOR=16 perf "${c#*:}-f32-graph" \
          --coll "${c%%:*}" -g "$NGPUS" -G 10 --compare nccl
    done
  fi
  if part mp; then
    t=$SECONDS
    ccl-run -n "$NGPUS" ccl-perf --lib "$lib" --coll AllReduce --target cuda \
        -b 4 -e 1G -f "$FACTOR" -n 20 -w 5 --compare nccl >"$RESULTS/mp-allreduce-eager.txt" 2>&1
    record mp-allreduce-eager $? "$RESULTS/mp-allreduce-eager.txt" $((SECONDS - t))
    t=$SECONDS
    ccl-run -n "$NGPUS" ccl-perf --lib "$lib" --coll AllReduce --target cuda \
        -b 4 -e 1G -f "$FACTOR" -n 20 -w 5 -G 10 --compare nccl >"$RESULTS/mp-allreduce-graph.txt" 2>&1
    record mp-allreduce-graph $? "$RESULTS/mp-allreduce-graph.txt" $((SECONDS - t))
  fi
  if part mpall; then
    for c in AllGather ReduceScatter AllToAll Broadcast Reduce; do
      n=$(tr '[:upper:]' '[:lower:]' <<<"$c")
      t=$SECONDS
      ccl-run -n "$NGPUS" ccl-perf --lib "$lib" --coll "$c" --target cuda \
          -b 4 -e 1G -f 16 -n 20 -w 5 -G 10 --compare nccl >"$RESULTS/mp-$n-graph.txt" 2>&1
      record "mp-$n-graph" $? "$RESULTS/mp-$n-graph.txt" $((SECONDS - t))
    done
  fi
  if part cand; then
    for c in ${CAND:-$CANDIDATES}; do
      a=$(basename "${c#*:}")
      lib=$HERE/libccl_cand.so FACTOR=${CAND_FACTOR:-4} perf "cand-$a-f32-graph" \
          --algo "$a" -g "$NGPUS" -G 10 -e 4M --compare nccl
    done
  fi
  # One archive beside the folder: the device tool returns a limited number
  # of files (a run that left one file per table lost most of them).
  tar czf "$RESULTS.tgz" -C "$(dirname "$RESULTS")" "$(basename "$RESULTS")"
  echo "results in $RESULTS (and $RESULTS.tgz); summary:"
  cat "$SUMMARY"
  exit $failed
  ;;
*)
  sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
