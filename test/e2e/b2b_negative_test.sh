# Negative controls for calls issued back to back, one per class of bug:
# each program is correct in a single call and wrong across calls. cclc
# rejects it by default with the error naming the calls, the rank, the slot
# or semaphore and the lines; with --no-verify it compiles, and ccl-perf's
# back-to-back check (K = 8, one rank or block delayed 20-50 ms per call)
# shows wrong results or a hang report on every run (3 runs each), while a
# single synchronised call per check (K = 1) passes where the bug needs a
# rank to run ahead (not for the semaphore: its stale count survives the
# host synchronisation between checks too). The chunk-level class is a compiler
# bug made on purpose: an AllGather ring lowered without the
# acknowledgements that protect its transfer slots (--cross-call-sync=none).
set -euo pipefail
neg="$REPO/test/e2e/negative"
check_rejected() { # file extra-cclc-args expected-substring
  # shellcheck disable=SC2086
  if cclc "$1" ${2:---emit=ccl} --nranks=2,3 -o /dev/null 2>"$WORK/err"; then
    echo "FAILED: cclc accepted $1"; exit 1
  fi
  grep -qF "$3" "$WORK/err" || { echo "FAILED: $1: no '$3' in:"; cat "$WORK/err"; exit 1; }
  echo "rejected: $(head -1 "$WORK/err" | cut -c1-240)"
}
check_fails_at_run_time() { # lib algo delay [k1-passes]
  for i in 1 2 3; do
    if ccl-perf --lib "$1" --algo "$2" --target host -g 2 -b 4K -e 4K -k 8 \
        -n 1 -w 0 --timeout-ms 3000 --delay "$3" > "$WORK/out.txt" 2>&1; then
      echo "FAILED: $2 passed the back-to-back check (run $i)"; cat "$WORK/out.txt"; exit 1
    fi
    grep -qE "Out of bounds values : [1-9][0-9]* FAILED|timed out" "$WORK/out.txt" || {
      echo "FAILED: $2 failed for another reason"; cat "$WORK/out.txt"; exit 1; }
  done
  echo "fails at run time, 3 of 3 runs: $(grep -E 'Out of bounds|timed out' "$WORK/out.txt" | head -1 | cut -c1-160)"
  [[ ${4:-yes} == yes ]] || return 0
  ccl-perf --lib "$1" --algo "$2" --target host -g 2 -b 4K -e 4K -k 1 -n 1 -w 0 \
      --timeout-ms 3000 > "$WORK/out1.txt" 2>&1 ||
    { echo "FAILED: $2 fails with single calls too"; cat "$WORK/out1.txt"; exit 1; }
  echo "passes with one synchronised call per check (K = 1)"
}

# A Simple scratch slot reused by the next call before the peer read it.
check_rejected "$neg/slot_reuse.ccl" "" "write-after-read race on recv[1][0] between calls: rank 0 thread block 1 writes it in call 2 while rank 1 thread block 0 may still read it in call 1 at line 12"
cclc "$neg/slot_reuse.ccl" --no-verify --target=host --nranks=2 -o "$WORK/a.so"
check_fails_at_run_time "$WORK/a.so" slot_reuse 1=20000

# A peer's scratch read with read_reduce while the next call overwrites it.
check_rejected "$neg/rr_reuse.ccl" "" "write-after-read race on stage[0][0] between calls: rank 0 thread block 0 writes it in call 2 while rank 1 thread block 1 may still read it in call 1 at line 15"
cclc "$neg/rr_reuse.ccl" --no-verify --target=host --nranks=2 -o "$WORK/b.so"
check_fails_at_run_time "$WORK/b.so" rr_reuse 0:1=20000

# A semaphore released once more than it is acquired.
check_rejected "$neg/sem_extra.ccl" "" "release #2 of semaphore @sem_0_0 has no matching acquire in its call"
cclc "$neg/sem_extra.ccl" --no-verify --target=host --nranks=2 -o "$WORK/c.so"
check_fails_at_run_time "$WORK/c.so" sem_extra 0:1=20000 no

# An LL sender that runs two calls ahead of its receiver.
check_rejected "$neg/ll_ahead.ccl" "" "write-after-read race on recv[1][0] between calls: rank 0 thread block 1 writes it in call 3 while rank 1 thread block 0 may still read it in call 1 at line 12"
cclc "$neg/ll_ahead.ccl" --no-verify --target=host --nranks=2 -o "$WORK/d.so"
check_fails_at_run_time "$WORK/d.so" ll_ahead 1=50000

# Chunk level: the compiler's transfer slots without acknowledgements.
check_rejected "$REPO/stdlib/allgather/ag_ring.ccl" "--cross-call-sync=none --emit=sched" "write-after-read race on xfer[1][0] between calls"
cclc "$REPO/stdlib/allgather/ag_ring.ccl" --cross-call-sync=none --no-verify \
    --target=host --nranks=2 -o "$WORK/e.so"
check_fails_at_run_time "$WORK/e.so" ag_ring 1:0=20000
