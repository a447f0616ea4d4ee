# stdlib/allreduce/ring.ccl, the chunk-level in-place ring AllReduce: the
# verifier proves it, ccl-lower-chunks turns its cross-rank reduce and copy
# into puts, signals and waits through a transfer scratch buffer, and the
# Simple-protocol code generation runs it on the host target: 2, 3, 4 and 8
# ranks, float32 and bfloat16, 4 B to 2 MiB, in place and out of place
# (staged): 0 wrong.
set -euo pipefail
cclc "$REPO/stdlib/allreduce/ring.ccl" --target=host --nranks=2,3,4,8 \
    --dtype=float32,bfloat16 --max-bytes=4M -o "$WORK/ring.so"
for g in 2 3 4 8; do
  ccl-perf --lib "$WORK/ring.so" --algo ring --target host -g "$g" \
      -b 4 -e 4M -f 9 -d float32,bfloat16 -n 2 -w 1 --timeout-ms 30000 |
    tee "$WORK/g$g.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/g$g.txt"
  test "$(grep -cE '^ +[0-9]+ +[0-9]+ +(float|bfloat16) +sum' "$WORK/g$g.txt")" -eq 14
done
