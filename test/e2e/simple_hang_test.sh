# Negative control for the Simple protocol: a signal is dropped. In a
# 3-rank ring AllReduce, rank 1's last all-gather put carries no signal, so
# rank 2's last wait on channel 1 -> 2 never sees its signal. The wait must
# time out after --timeout-ms (not hang), and the report must name rank 2,
# thread block 0, the wait and its source line, the counts (signal 4 of
# the call waited for, 3 arrived) and that rank 1's program has only 3
# signals per call on the channel. The others finish the call, so the
# report is the same on every run. One call per check (-k 1): with calls
# back to back the missing signal would be made up by the next call's first
# one, and only the last call would hang (the verifier rejects the program
# for that: a call must produce the signals it consumes).
set -euo pipefail
source "$REPO/test/e2e/expect_timeout.sh"
cat > "$WORK/dropped.ccl" <<'CCL'
algorithm dropped implements AllReduce chunks(nranks) {
  scratch recv[2 * nranks - 2];
  for r in ranks {
    let nxt = (r + 1) % nranks;
    let prv = (r + nranks - 1) % nranks;
    for c in 0..nranks {
      input[r][c].copy(output[r][c], tb = 0);
    }
    for s in 0..nranks - 1 {
      memory(r -> nxt).put_with_signal(recv[nxt][s], output[r][(r - s + nranks) % nranks], tb = 0);
      memory(prv -> r).wait(tb = 0);
      output[r][(r - s - 1 + 2 * nranks) % nranks].reduce(recv[r][s], tb = 0);
    }
    for s in 0..nranks - 1 {
      let send = (r + 1 - s + nranks) % nranks;
      if r == 1 && s == nranks - 2 {
        memory(r -> nxt).put(recv[nxt][nranks - 1 + s], output[r][send], tb = 0);
      } else {
        memory(r -> nxt).put_with_signal(recv[nxt][nranks - 1 + s], output[r][send], tb = 0);
      }
      memory(prv -> r).wait(tb = 0);
      recv[r][nranks - 1 + s].copy(output[r][(r - s + nranks) % nranks], tb = 0);
    }
  }
}
CCL
cclc "$WORK/dropped.ccl" --no-verify --target=host --nranks=3 --dtype=float32 -o "$WORK/d.so"
expect_timeout "$WORK/out" ccl-perf --lib "$WORK/d.so" --algo dropped --target host -g 3 \
    -b 1K -e 1K -n 1 -w 0 -k 1 --timeout-ms 1000
grep -q "rank 2 thread block 0 timed out after 1\.[0-9][0-9] s in wait at .*dropped.ccl:21:24 (algorithm dropped): waited for signal 4 on its channel from rank 1 (which signals it only 3 times per call, fewer than this rank waits on it), 3 had arrived; the communicator is aborted" "$WORK/out"

# Likewise a semaphore acquired once more than it is released: block 0 of
# rank 1 times out in its second acquire, reported with its source line.
cat > "$WORK/sem.ccl" <<'CCL'
algorithm sem implements AllReduce chunks(1) {
  for r in ranks {
    let s = semaphore(r);
    input[r][0].copy(output[r][0], tb = 1);
    s.release(tb = 1);
    s.acquire(tb = 0);
    if r == 1 {
      s.acquire(tb = 0);
    }
  }
}
CCL
cclc "$WORK/sem.ccl" --no-verify --target=host --nranks=2 --dtype=float32 -o "$WORK/s.so"
expect_timeout "$WORK/out2" ccl-perf --lib "$WORK/s.so" --algo sem --target host -g 2 \
    -b 1K -e 1K -n 1 -w 0 -c 0 --timeout-ms 500
grep -q "rank 1 thread block 0 timed out after 0\.[0-9][0-9] s in acquire at .*sem.ccl:8:9 (algorithm sem): waited for release 2 of the semaphore, 1 had happened" "$WORK/out2"
