#!/usr/bin/env bash
# Generated and written programs (test/semantic) on one GPU: the
# differential test's libraries compiled for sm_90 and run by contract_run
# --cuda with the ranks sharing GPU 0 (the timings mean nothing; every GPU
# code path of the programs runs).
#
#   test/hw/semantic_gpu.sh build [OUT] [SEEDS]   here (needs the toolchain;
#                                     OUT: .carry/semantic_gpu; SEEDS: A:B,
#                                     default 1:31)
#   OUT/semantic_gpu.sh run [RESULTS]   on the GPU machine
#
# build runs test/semantic/semantic.py in pack mode for the written
# programs (test/semantic/programs: issue 41's reproductions) and the
# generated programs of SEEDS, at 2, 3 and 4 ranks, --target=sm_90, the
# suite's forms (shared and per-rank kernels, each rank count alone and
# all together, instances=2): it compiles each verified program and writes
# the libraries, contracts and OUT/runs.txt, then copies contract_run and
# libcclrt.
#
# run executes every line of runs.txt twice, eagerly and as one CUDA graph
# per rank (--graph): K = 8 calls back to back, rank 1 delayed 1 ms per
# call, random floats and small integers, every root, in place where the
# program has that form, JOBS (default 4) runs at a time, in a fixed
# shuffled order (a run cut short is a sample; FROM, TIME and RUNS, below, split
# it across calls). Output per run in RESULTS
# (default ./results) for the runs that went wrong, a line per run in
# RESULTS/summary.txt; exit status
# 1 if any run was wrong or failed. NCCL_NVLS_ENABLE=0; nothing here uses
# multicast.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare semantic_gpu "${2:-}"
  seeds=${3:-1:31}
  work=$(mktemp -d)
  start=$SECONDS
  for args in "--programs test/semantic/programs/*.ccl" "--seeds $seeds"; do
    # shellcheck disable=SC2086
    PATH=$ROOT/out/bin:$PATH python3 test/semantic/semantic.py $args \
        --forms suite --target sm_90 --max-ranks 4 --pack "$OUT" --work "$work" |
      tail -3
  done
  rm -rf "$work"
  echo "semantic_gpu: compiled in $((SECONDS - start)) s, $(wc -l < "$OUT/runs.txt") runs"
  bazel build //test/semantic:contract_run >/dev/null 2>&1
  hw_install bazel-bin/test/semantic/contract_run out/lib/libcclrt.so test/hw/semantic_gpu.sh
  echo "semantic_gpu: built into $OUT ($(du -sh "$OUT" | cut -f1)); run '$OUT/semantic_gpu.sh run' on the GPU machine"
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
    echo "semantic_gpu: CCL_ALLOW_MULTICAST is set; unset it" >&2
    exit 2
  fi
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$RESULTS"
  SUMMARY=$RESULTS/summary.txt
  : > "$SUMMARY"
  one() { # index, mode, then the runs.txt line
    local i=$1 how=$2; shift 2
    local log=$RESULTS/$i-$how.txt t0=$SECONDS rc flags=(--cuda)
    [[ $how == graph ]] && flags+=(--graph)
    (cd "$HERE" && timeout 120 ./contract_run "$@" "${flags[@]}") > "$log" 2>&1
    rc=$?
    local line="run $i $how: exit $rc, $(tail -1 "$log"), $((SECONDS - t0)) s: $*"
    if [[ $rc == 0 ]]; then
      rm -f "$log" # only the logs of wrong runs are kept
    else
      line="WRONG $line"
    fi
    echo "$line" >> "$SUMMARY"
  }
  JOBS=${JOBS:-4}
  # FROM: skip the first FROM lines of the shuffled order (a later call
  # goes on where an earlier one stopped); TIME: launch no run after TIME
  # seconds (default: no limit), so that a device call's limit ends the
  # run with its summary.
  # RUNS: the list to run (default runs.txt; a subset of its lines, say
  # the written programs' alone, can run first in a call of its own).
  FROM=${FROM:-0} TIME=${TIME:-0} RUNS=${RUNS:-$HERE/runs.txt}
  i=0 line=0
  while read -r -a run; do
    line=$((line + 1))
    ((line <= FROM)) && continue
    if ((TIME > 0 && SECONDS >= TIME)); then
      echo "semantic_gpu: stopped after $TIME s at line $((line - 1)) of the shuffled runs.txt (FROM=$((line - 1)) goes on)"
      break
    fi
    for how in eager graph; do
      i=$((i + 1))
      one "$i" "$how" "${run[@]}" &
      while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
    done
  done < <(shuf --random-source=<(yes) "$RUNS")
  wait
  wrong=$(grep -c '^WRONG' "$SUMMARY")
  echo "semantic_gpu: $(grep -c . "$SUMMARY") runs, $wrong wrong or failed"
  grep '^WRONG' "$SUMMARY" | head -20
  ((wrong == 0))
  ;;
*)
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
