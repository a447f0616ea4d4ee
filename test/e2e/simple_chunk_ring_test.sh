# stdlib/allreduce/ring.ccl, the chunk-level in-place ring AllReduce, and
# ring_oop.ccl, its out-of-place twin: the verifier proves them,
# ccl-lower-chunks turns their cross-rank reduces and copies into puts,
# signals and waits through a transfer scratch buffer, and the
# Simple-protocol code generation runs them on the host target: 2, 3, 4 and
# 8 ranks, float32 and bfloat16, 4 B to 2 MiB, in place and out of place
# (the other placement staged): 0 wrong. ring_oop also with 2 instances and
# 2 tiles (the wavefront order).
set -euo pipefail
cclc "$REPO/stdlib/allreduce/ring.ccl" --target=host --nranks=2,3,4,8 \
    --dtype=float32,bfloat16 --max-bytes=4M -o "$WORK/ring.so"
cclc "$REPO/stdlib/allreduce/ring_oop.ccl" --target=host --nranks=2,3,4,8 \
    --dtype=float32,bfloat16 --max-bytes=4M --instances=2 --tiles=2 \
    -o "$WORK/ring_oop.so"
for algo in ring ring_oop; do
  for g in 2 3 4 8; do
    ccl-perf --lib "$WORK/$algo.so" --algo "$algo" --target host -g "$g" \
        -b 4 -e 4M -f 9 -d float32,bfloat16 -n 2 -w 1 --timeout-ms 30000 |
      tee "$WORK/$algo-g$g.txt"
    grep -q "Out of bounds values : 0 OK" "$WORK/$algo-g$g.txt"
    test "$(grep -cE '^ +[0-9]+ +[0-9]+ +(float|bfloat16) +sum' "$WORK/$algo-g$g.txt")" -eq 14
  done
done
