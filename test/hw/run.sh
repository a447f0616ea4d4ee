#!/usr/bin/env bash
# The GPU suite (NVIDIA). Runs from the folder test/hw/build.sh made:
#
#   run.sh [--ngpus LIST] [--stages smoke,check,bench] [--sizes MIN:MAX]
#          [--results DIR] [--only LIB,...] [--repeat N]
#
# Stages, in order (a failed stage does not stop the later ones; the exit
# status is 1 if anything failed):
#   smoke  the device-library smoke test and libcclrt's CUDA test (2 GPUs)
#   check  every library of algos.txt with ccl-perf on every rank count of
#          --ngpus it was compiled for: float32 and bfloat16, 4 B to 64 MiB
#          (x4), eager and a CUDA-graph replay, out of place and in place;
#          --repeat N runs each N times (intermittent failures)
#   bench  ccl-perf --compare nccl (NCCL in the same run, NVLS off), --sizes
#          (default 1K:1G, x4), eager (-n 20) and CUDA graphs (-G 10), also
#          checked
# Output of every run goes to --results (default ./results) as
# STAGE-LIB-gN[-graph][-K].txt, and a summary line per run to summary.txt.
#
# --ngpus defaults to 2,4,8 capped at the GPUs present. NCCL_NVLS_ENABLE is
# forced to 0; CCL_ALLOW_MULTICAST must not be set (switch channels stay
# off on shared hosts).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RESULTS=$PWD/results
STAGES=smoke,check,bench
SIZES=1K:1G
ONLY=
REPEAT=1
NGPUS=
while (($#)); do
  case "$1" in
    --ngpus) NGPUS=$2; shift 2 ;;
    --stages) STAGES=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --results) RESULTS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
  echo "run.sh: CCL_ALLOW_MULTICAST is set; this suite never runs switch-channel code; unset it" >&2
  exit 2
fi
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if ((have < 2)); then
  echo "run.sh: found $have GPU(s); the suite needs at least 2" >&2
  exit 2
fi
if [[ -z "$NGPUS" ]]; then
  NGPUS=$(for g in 2 4 8; do ((g <= have)) && echo -n "$g,"; done)
  NGPUS=${NGPUS%,}
fi
mkdir -p "$RESULTS"
SUMMARY=$RESULTS/summary.txt
: > "$SUMMARY"
failed=0
nvidia-smi -L > "$RESULTS/gpus.txt"
nvidia-smi topo -m >> "$RESULTS/gpus.txt" 2>&1 || true
stage() { [[ ",$STAGES," == *",$1,"* ]]; }
wanted() { [[ -z "$ONLY" || ",$ONLY," == *",$1,"* ]]; }
record() { # NAME RC FILE
  local verdict=PASS
  (($2 == 0)) || { verdict="FAIL (exit $2)"; failed=1; }
  local wrong
  wrong=$(grep -h 'Out of bounds values' "$3" 2>/dev/null | awk '{s += $7} END {print s + 0}')
  printf '%-40s %-14s wrong=%s\n' "$1" "$verdict" "$wrong" | tee -a "$SUMMARY"
}
# Rank counts a library was compiled for: its --nranks in algos.txt.
ranks_of() {
  local spec
  spec=$(sed -n "s/^$1 .*--nranks=\([^ ]*\).*/\1/p" "$HERE/algos.txt")
  local out=
  IFS=, read -ra parts <<< "$spec"
  for p in "${parts[@]}"; do
    if [[ "$p" == *..* ]]; then
      for ((k = ${p%..*}; k <= ${p#*..}; k++)); do out+="$k "; done
    else
      out+="$p "
    fi
  done
  echo "$out"
}
compiled_for() { [[ " $(ranks_of "$1") " == *" $2 "* ]]; }

if stage smoke; then
  f=$RESULTS/smoke-device.txt
  "$HERE/device/gpu_test" "$HERE/device/gpu_test.ptx" > "$f" 2>&1
  record smoke-device $? "$f"
  f=$RESULTS/smoke-runtime.txt
  "$HERE/runtime/cuda_runtime_test" "$HERE/runtime/ap_ll.ptx" > "$f" 2>&1
  record smoke-runtime $? "$f"
fi

while read -r lib algo _; do
  [[ -z "$lib" || "$lib" == \#* ]] && continue
  wanted "$lib" || continue
  IFS=, read -ra gl <<< "$NGPUS"
  for g in "${gl[@]}"; do
    compiled_for "$lib" "$g" || continue
    if stage check; then
      for ((k = 1; k <= REPEAT; k++)); do
        sfx=; ((REPEAT > 1)) && sfx=-$k
        f=$RESULTS/check-$lib-g$g$sfx.txt
        "$HERE/ccl-perf" --lib "$HERE/lib/$lib.so" --algo "$algo" --target cuda \
            -g "$g" -b 4 -e 64M -f 4 -d float32,bfloat16 -n 2 -w 1 -G 1 > "$f" 2>&1
        record "check $lib g$g$sfx" $? "$f"
      done
    fi
    if stage bench; then
      f=$RESULTS/bench-$lib-g$g.txt
      "$HERE/ccl-perf" --lib "$HERE/lib/$lib.so" --algo "$algo" --target cuda \
          -g "$g" -b "${SIZES%:*}" -e "${SIZES#*:}" -f 4 -d float32 -n 20 -w 5 \
          --compare nccl > "$f" 2>&1
      record "bench $lib g$g eager" $? "$f"
      f=$RESULTS/bench-$lib-g$g-graph.txt
      "$HERE/ccl-perf" --lib "$HERE/lib/$lib.so" --algo "$algo" --target cuda \
          -g "$g" -b "${SIZES%:*}" -e "${SIZES#*:}" -f 4 -d float32 -n 20 -w 5 \
          -G 10 --compare nccl > "$f" 2>&1
      record "bench $lib g$g graph" $? "$f"
    fi
  done
done < "$HERE/algos.txt"

echo "results in $RESULTS; summary:"
cat "$SUMMARY"
exit $failed
