#!/usr/bin/env bash
# Every stdlib AllReduce on the host target with ccl-perf --bitwise after
# the LL all-pairs began adding in rank order: rank differences and wrong
# values at 2, 3, 4 and 8 ranks, float32 sum, 4 KiB .. 16 MiB per rank
# (4 Mi elements), K = 8 calls back to back (ccl-perf lowers K for rows
# whose K buffer pairs pass --check-mem), in and out of place. Run from the
# repository root after scripts/build.sh; prints one table row per
# algorithm and rank count.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/out/lib
w=$(mktemp -d)
echo "| algorithm | ranks | rows | wrong | rank differences |"
echo "|---|---|---|---|---|"
for f in stdlib/allreduce/*.ccl; do
  a=$(basename "$f" .ccl)
  out/bin/cclc "$f" --target=host --nranks=2,3,4,8 --dtype=float32 --max-bytes=16M -o "$w/$a.so" \
    > "$w/$a.cc.txt" 2>&1 || { echo "| $a | - | cclc failed | | |"; continue; }
  for g in 2 3 4 8; do
    out/bin/ccl-perf --lib "$w/$a.so" --algo "$a" --target host -g $g -b 4K -e 16M -f 16 \
      -k 8 -n 1 -w 0 --bitwise > "$w/$a.$g.txt" 2>&1
    rows=$(awk '!/^#/ && NF >= 12' "$w/$a.$g.txt" | wc -l)
    wrong=$(grep -oE 'Out of bounds values : [0-9]+' "$w/$a.$g.txt" | grep -oE '[0-9]+$')
    diff=$(grep -oE 'Rank differences +: [0-9]+' "$w/$a.$g.txt" | grep -oE '[0-9]+$')
    echo "| $a | $g | $rows | ${wrong:-?} | ${diff:-?} |"
  done
done
rm -rf "$w"
