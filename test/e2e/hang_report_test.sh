# Negative control: rank 1 never launches. Rank 0's wait times out, and the
# report names rank, thread block, operation and source line; the run ends
# within the timeout instead of hanging.
set -euo pipefail
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=host --nranks=2 --dtype=float32 -o "$WORK/ap.so"
set +e
start=$(date +%s)
timeout 60 ccl-perf --lib "$WORK/ap.so" --algo allpairs_ll --target host -g 2 \
    -b 1K -e 1K --skip-rank 1 --timeout-ms 1000 >"$WORK/out" 2>&1
rc=$?
set -e
cat "$WORK/out"
test "$rc" -eq 1
test $(( $(date +%s) - start )) -lt 30
grep -q "rank 0 thread block 0 timed out after 1\.[0-9][0-9] s in reduce_packets at .*allpairs_ll.ccl:15:20" "$WORK/out"
