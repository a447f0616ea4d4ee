# Negative control: rank 1 never launches. Rank 0's wait times out, and the
# report names rank, thread block, operation and source line; the run ends
# within the timeout instead of hanging.
set -euo pipefail
source "$REPO/test/e2e/expect_timeout.sh"
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=host --nranks=2 --dtype=float32 -o "$WORK/ap.so"
expect_timeout "$WORK/out" ccl-perf --lib "$WORK/ap.so" --algo allpairs_ll --target host -g 2 \
    -b 1K -e 1K --skip-rank 1 --timeout-ms 1000
# The line of the 2-rank reduction: the report must name it exactly.
line=$(grep -n 'reduce_packets(recv\[r\]\[1 - r\]' "$REPO/stdlib/allreduce/allpairs_ll.ccl" | cut -d: -f1)
[[ -n "$line" ]] || { echo "FAILED: no 2-rank reduce_packets in allpairs_ll.ccl"; exit 1; }
grep -q "rank 0 thread block 0 timed out after 1\.[0-9][0-9] s in reduce_packets at .*allpairs_ll.ccl:$line:20" "$WORK/out"

# Eight ranks of the Simple ring, rank 5 never launches. Whichever rank
# times out first, its report names the rank its wait is on, the operation
# of that rank that pairs with the wait (file:line:col), and rank 5 as the
# rank that has not made the call the others wait for.
cclc "$REPO/stdlib/allreduce/ring.ccl" --target=host --nranks=8 --dtype=float32 -o "$WORK/ring.so"
expect_timeout "$WORK/out8" ccl-perf --lib "$WORK/ring.so" --algo ring --target host -g 8 \
    -b 1K -e 1K -n 1 -w 0 --skip-rank 5 --timeout-ms 1000
grep -q "timed out after 1\.[0-9][0-9] s in wait at .*ring.ccl:[0-9]*:[0-9]* (algorithm ring): waited for signal [0-9]* on its channel from rank [0-7] (its [a-z_]* at .*ring.ccl:[0-9]*:[0-9]*), [0-9]* had arrived (rank 5 queued [0-9]* calls on this communicator, the others [0-9]*: it has not made the call the others wait for)" "$WORK/out8"
