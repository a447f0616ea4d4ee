#!/usr/bin/env bash
# The main job: set up, build, compile the stdlib allpairs_ll AllReduce with
# cclc, then run and verify it with ccl-perf, on the GPUs when there are at
# least two usable ones, else on the host target.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
export LD_LIBRARY_PATH="$PWD/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p out/work

ngpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
if ((ngpus >= 2)); then
  export NCCL_NVLS_ENABLE=0
  out/bin/cclc stdlib/allreduce/allpairs_ll.ccl --target=sm_90 --nranks=2..8 \
      --dtype=float32,float16,bfloat16 -o out/work/allpairs_ll.so
  n=$((ngpus > 8 ? 8 : ngpus))
  out/bin/ccl-perf --lib out/work/allpairs_ll.so --algo allpairs_ll --target cuda \
      -g "$n" -b 4 -e 1M -f 2 -d float32 -G 10 --compare nccl
else
  echo "main: no GPUs here; running on the host target (4 ranks, threads)"
  out/bin/cclc stdlib/allreduce/allpairs_ll.ccl --target=host --nranks=2..8 \
      --dtype=float32,float16,bfloat16 -o out/work/allpairs_ll.so
  out/bin/ccl-perf --lib out/work/allpairs_ll.so --algo allpairs_ll --target host \
      -g 4 -b 4 -e 1M -f 4 -d all -n 5 -w 1
fi
