#!/usr/bin/env bash
# The main job: set up, build, compile the whole stdlib into one bundled
# library (stdlib/stdlib.ccl -> out/work/libccl_stdlib.so: every algorithm
# and the selection table) with cclc, then run and verify every collective
# through the bundle's NCCL-shaped entry points (cclAllReduce, ...) with
# ccl-perf: on the GPUs when there are at least two usable ones (beside
# NCCL), on one GPU with two ranks on it, else on the host target. Prints
# how long the compile took.
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
colls=(AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce)
lib=out/work/libccl_stdlib.so
compile() {  # TARGET MAX_BYTES
  local start=$SECONDS
  out/bin/cclc stdlib/stdlib.ccl --target="$1" --nranks=2..8 \
      --dtype=float32,float16,bfloat16 --op=sum --max-bytes="$2" -o "$lib"
  echo "main: compiled the stdlib bundle ($1, 2..8 ranks, 3 types) in" \
       "$((SECONDS - start)) s: $(du -h "$lib" | cut -f1)"
  out/bin/cclc stdlib/stdlib.ccl --max-bytes="$2" --print-selection
}
if ((ngpus >= 1)); then
  export NCCL_NVLS_ENABLE=0
  compile sm_90 64M
  if ((ngpus >= 2)); then
    n=$((ngpus > 8 ? 8 : ngpus))
    ranks=(-g "$n" --compare nccl)
  else
    echo "main: one GPU: two ranks on GPU 0 (checks every GPU code path; not link timings)"
    ranks=(--devices 0,0)
  fi
  for c in "${colls[@]}"; do
    out/bin/ccl-perf --lib "$lib" --coll "$c" --target cuda "${ranks[@]}" \
        -b 4 -e 64M -f 4 -d float32 -G 10
  done
else
  echo "main: no GPUs here; running on the host target (4 ranks, threads)"
  compile host 4M
  for c in "${colls[@]}"; do
    out/bin/ccl-perf --lib "$lib" --coll "$c" --target host -g 4 -b 0 -e 4M -f 4 \
        -d all -n 5 -w 1
  done
fi
