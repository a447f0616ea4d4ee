#!/usr/bin/env bash
# Benchmarks every algorithm of a bundle through its entry points (each
# forced with CCL_ALGO) and prints `select` items for the fastest one per
# size (scripts/gen-selection.py; docs/perf.md, "Regenerating the selection
# table"). Run it on the machine the table is for, one GPU per rank.
#   scripts/bench-selection.sh LIB.so NRANKS [OUTDIR] [ccl-perf flags...]
# Each algorithm runs from 4 bytes up to the largest message its plan
# supports (the table's plan-max-bytes; MAX_BYTES, default 64M, the bundle's
# --max-bytes, for the algorithms without a row).
set -euo pipefail
lib=${1:?usage: bench-selection.sh LIB.so NRANKS [OUTDIR] [flags]}
n=${2:?usage: bench-selection.sh LIB.so NRANKS [OUTDIR] [flags]}
out=${3:-bench-selection}
shift $(($# > 3 ? 3 : $#))
root=$(cd "$(dirname "$0")/.." && pwd)
perf=${CCL_PERF:-$root/out/bin/ccl-perf}
cclc=${CCLC:-$root/out/bin/cclc}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
# The algorithms of each collective, from the bundle's own table.
"$cclc" "$root/stdlib/stdlib.ccl" --max-bytes="${MAX_BYTES:-64M}" --print-selection \
    > "$out/table.txt"
for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
  algos=$(grep -E "^$coll " "$out/table.txt" | awk '{print $4}' | sort -u)
  case $coll in AllReduce) algos+=" allpairs_2p allpairs_2p_ll ring ring_oop" ;;
                Broadcast) algos+=" bc_allpairs" ;; Reduce) algos+=" red_allpairs" ;; esac
  for a in $algos; do
    max=$(awk -v a="$a" '$4 == a {print $5; exit}' "$out/table.txt")
    max=${max:-${MAX_BYTES:-64M}}
    CCL_ALGO=$coll=$a "$perf" --lib "$lib" --coll "$coll" -g "$n" -b 4 -e "$max" -f 2 \
        -G 10 -k 1 --csv "$out/$coll-$a.csv" "$@" > "$out/$coll-$a.txt" 2>&1 ||
      echo "bench-selection: $coll $a failed (see $out/$coll-$a.txt)" >&2
  done
done
python3 "$root/scripts/gen-selection.py" "$out"/*.csv
