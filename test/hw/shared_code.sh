#!/usr/bin/env bash
# Shared block programs against the unrolled per-rank kernels they
# replaced, on the same GPUs in the same call (docs/perf.md):
#
#   test/hw/shared_code.sh build [OUT]     here (toolchain; OUT: .carry/shared)
#   OUT/shared_code.sh run [RESULTS]       on a machine with 2 GPUs
#
# build compiles allpairs_ll (up to 64 KiB per rank), allpairs_ll_wide (up
# to 1 MiB), ring_wide and ring_wide_tiled (up to 1 GiB) for sm_90 at 2
# ranks twice: with the
# default --kernels=shared (one kernel for every rank, block programs read
# from tables) and with --kernels=per-rank (one kernel per rank, every
# constant inlined: the code the block programs replaced, kept as an
# option). run times each pair with ccl-perf in CUDA graphs (-G 10), out of
# place and in place, with the back-to-back check (K = 8), in the order
# shared, per-rank, shared, so that drift between runs shows; then prints,
# per size, per-rank time / shared time for both shared runs.
set -uo pipefail
mode=${1:-}
ALGOS="allpairs_ll:64K allpairs_ll_wide:1M ring_wide:1G ring_wide_tiled:1G"
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare shared "${2:-}"
  for a in $ALGOS; do
    name=${a%%:*} max=${a#*:}
    src=$(ls stdlib/*/"$name".ccl)
    for k in shared per-rank; do
      out/bin/cclc "$src" --target=sm_90 --nranks=2 --dtype=float32 --op=sum \
          --max-bytes="$max" --kernels="$k" -o "$OUT/$name-$k.so"
    done
  done
  hw_install out/bin/ccl-perf out/lib/libcclrt.so test/hw/shared_code.sh
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results-shared}
  export NCCL_NVLS_ENABLE=0
  export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$RESULTS"
  status=0
  for a in $ALGOS; do
    name=${a%%:*} max=${a#*:}
    for run in shared per-rank shared2; do
      k=${run%2}
      f=$RESULTS/$name-$run.txt
      "$HERE/ccl-perf" --lib "$HERE/$name-$k.so" --algo "$name" --target cuda \
          -g 2 -b 4 -e "$max" -f 4 -n 20 -w 5 -G 10 > "$f" 2>&1 ||
        { echo "FAILED: $name $run (exit $?)"; status=1; }
      grep -q 'Out of bounds values : 0 OK' "$f" ||
        { echo "FAILED: $name $run: wrong values"; status=1; }
    done
    echo "# $name, CUDA graphs, us per call: shared / per-rank / shared again; per-rank over shared (out of place, in place)"
    python3 - "$RESULTS/$name-shared.txt" "$RESULTS/$name-per-rank.txt" \
        "$RESULTS/$name-shared2.txt" <<'PY'
import sys
def rows(p):
    out = {}
    for line in open(p):
        f = line.split()
        if len(f) >= 12 and f[0].isdigit() and not line.startswith("#"):
            out[int(f[0])] = (float(f[4]), float(f[8]))
    return out
s, p, s2 = (rows(x) for x in sys.argv[1:4])
print(f"{'bytes':>11} {'shared':>17} {'per-rank':>17} {'shared again':>17} {'ratio':>13}")
for b in sorted(s):
    if b not in p or b not in s2:
        continue
    r = [p[b][i] / ((s[b][i] + s2[b][i]) / 2) for i in (0, 1)]
    print(f"{b:>11} {s[b][0]:8.2f} {s[b][1]:8.2f} {p[b][0]:8.2f} {p[b][1]:8.2f}"
          f" {s2[b][0]:8.2f} {s2[b][1]:8.2f} {r[0]:6.3f} {r[1]:6.3f}")
PY
  done
  exit $status
  ;;
*)
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
