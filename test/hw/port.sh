#!/usr/bin/env bash
# The port-channel programs on one GPU (docs/runtime.md, "The proxy"),
# from the artefacts of `test/hw/b2b.sh build` (OUT, default .carry/b2b):
#
#   OUT/port.sh [RESULTS]     on the GPU machine
#
# ring_rs_overlap, ring_ce and ag_allpairs_ce:
#  - one process per rank on GPU 0 (ccl-run -n 2 and -n 4; the peers'
#    arenas are imported with cuMem file descriptors and the copy engines
#    write to them), K = 8 calls back to back;
#  - the same with every rank, or every pair of ranks, on its own "host"
#    (CCL_HOST_ID), so the proxies reach each other over loopback TCP
#    through pinned staging buffers, eager and as CUDA graphs.
# (In-process runs of the same programs are in b2b.sh.) Every run must
# have 0 wrong; a line per run goes to RESULTS/summary.txt, the exit status
# is 1 if one did not. Timings are meaningless here: the processes share
# the GPU by time slices.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RESULTS=${1:-$PWD/results}
if [[ -n "${CCL_ALLOW_MULTICAST:-}" ]]; then
  echo "port: CCL_ALLOW_MULTICAST is set; unset it" >&2
  exit 2
fi
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$RESULTS"
SUMMARY=$RESULTS/summary.txt
: > "$SUMMARY"
bad=0
run() { # NAME NRANKS RANKS-PER-HOST(0: one host) ALGO ARGS...
  local name=$1 n=$2 split=$3 algo=$4 t0=$SECONDS host
  shift 4
  host=""
  [[ $split != 0 ]] && host="CCL_HOST_ID=h\$((CCL_RANK / $split))"
  timeout 300 "$HERE/ccl-run" -n "$n" bash -c \
    "$host exec \"$HERE/ccl-perf\" --target cuda --lib \"$HERE/lib/$algo.so\" --algo $algo $* -n 1 -w 0 --timeout-ms 20000" \
    > "$RESULTS/$name.txt" 2>&1
  local rc=$? wrong
  wrong=$(grep -oE 'Out of bounds values : [0-9]+' "$RESULTS/$name.txt" | grep -oE '[0-9]+$' || echo "?")
  local line="$name: exit $rc, wrong $wrong, $((SECONDS - t0)) s"
  if [[ $rc != 0 || $wrong != 0 ]]; then line="UNEXPECTED $line"; bad=1; fi
  echo "$line" | tee -a "$SUMMARY"
}
for algo in ring_rs_overlap ring_ce ag_allpairs_ce; do
  for n in 2 4; do
    run "$algo-n$n-one-host" "$n" 0 "$algo" -b 4 -e 1M -f 16 -k 8
  done
  run "$algo-n2-tcp" 2 1 "$algo" -b 4 -e 4M -f 16 -k 8 -G 2
  run "$algo-n4-tcp-2-hosts" 4 2 "$algo" -b 4 -e 4M -f 16 -k 8 -G 2
  run "$algo-n4-tcp-4-hosts" 4 1 "$algo" -b 4 -e 4M -f 16 -k 8 -G 2
done
echo "port: $(grep -c . "$SUMMARY") runs, $(grep -c UNEXPECTED "$SUMMARY") unexpected"
exit $bad
