#!/bin/bash
# ccl-perf with one process per rank (docs/ccl-perf.md, "One process per
# rank"): the N ranks of a job are N processes of ccl-perf started by
# ccl-run; each checks and times its own rank, and rank 0 prints the one
# table.
#
# - allpairs_ll, ring (in place) and ring_oop (out of place), compiled by
#   cclc for the host target: 2, 3, 4 and 8 processes, float32, float16 and
#   bfloat16, odd sizes (3 B to 100 KiB in steps of x7), a start delay on
#   rank 1, K = 8 calls back to back: 0 wrong, exit 0, one table, one
#   "Rank" line per process; once more started by hand, as torchrun would
#   (RANK, WORLD_SIZE, and CCL_COMM_ID for the bootstrap root);
# - testar_broken and every other collective of testar, correct and
#   broken: the same rows, wrong counts and "#   wrong:" lines as the
#   in-process run (the outcomes of the ranks are gathered and merged);
# - testar_racy with --delay on the reading rank: caught with K = 4, not
#   with K = 1, as in-process;
# - failures: -g against the job's rank count, --compare nccl on the host
#   target, a rank that cannot load --lib (rank 0 reports that rank's
#   message), a rank that never launches (the timeout reaches every rank,
#   no hang).
PERF=$1 LIB=$2 AP=$3 RING=$4 RING_OOP=$5 CCL_RUN=$6
source "$(dirname "$0")/testlib.sh"
source "$(dirname "$0")/../free_port.sh"
WORK=${TEST_TMPDIR:-$(mktemp -d)}
# A failed rendezvous must end the test, not hang it.
export CCL_BOOTSTRAP_TIMEOUT_MS=30000

# launch_prog N PROG ARGS...: `ccl-run -n N PROG ARGS...`; $OUT gets the
# ranks' standard output and error (ccl-run's too), $RC ccl-run's exit
# status (the first failed rank's), $SECS the wall time.
launch_prog() {
  local n=$1 t0=$SECONDS
  echo "+ ccl-run -n $n $(basename "$2") ${*:3}"
  OUT=$(timeout 300 "$CCL_RUN" -n "$n" "${@:2}" 2>&1)
  RC=$?
  SECS=$((SECONDS - t0))
}
launch() { launch_prog "$1" "$PERF" "${@:2}"; }

# launch_by_hand N ARGS...: as launch, with the ranks started here as
# torchrun would (RANK, WORLD_SIZE), meeting at CCL_COMM_ID (rank 0 hosts
# the bootstrap root on a free port). $OUT: rank 0's output first.
launch_by_hand() {
  local n=$1 port r t0=$SECONDS pids=()
  shift
  echo "+ $n ranks by hand: ccl-perf $*"
  port=$(free_port)
  for ((r = 0; r < n; r++)); do
    CCL_COMM_ID=127.0.0.1:$port RANK=$r WORLD_SIZE=$n \
      timeout 300 "$PERF" "$@" >"$WORK/rank$r.out" 2>&1 &
    pids+=($!)
  done
  RC=0
  for ((r = 0; r < n; r++)); do
    wait "${pids[$r]}"
    local s=$?
    [ "$RC" -eq 0 ] && RC=$s
  done
  SECS=$((SECONDS - t0))
  OUT=$(for ((r = 0; r < n; r++)); do cat "$WORK/rank$r.out"; done)
}

# The checks of a run that must have passed: exit 0, nothing wrong, ROWS
# rows with both placements measured, one table, one Rank line per rank.
expect_clean_table() {
  local n=$1 algo=$2 nrows=$3
  expect_rc 0
  expect_has "# ranks     : $n (one process per rank, launched by"
  expect_has "# Out of bounds values : 0 OK"
  [ "$(nrows)" -eq "$nrows" ] || fail "$algo, $n ranks: $(nrows) rows, expected $nrows"
  [ "$(wrong_total)" -eq 0 ] || fail "$algo, $n ranks: $(wrong_total) wrong values"
  rows | grep -q 'N/A' && fail "$algo, $n ranks: a placement was not measured"
  [ "$(echo "$OUT" | grep -c "^# cclc $algo (AllReduce, host, $n ranks)")" -eq 1 ] ||
    fail "$algo, $n ranks: not exactly one table"
  [ "$(echo "$OUT" | grep -cE '^#  Rank +[0-9]+ Pid')" -eq "$n" ] ||
    fail "$algo, $n ranks: not one Rank line per rank"
  [ "$(echo "$OUT" | grep -E '^#  Rank +[0-9]+ Pid' | awk '{ print $5 }' | sort -u | wc -l)" -eq "$n" ] ||
    fail "$algo, $n ranks: the ranks do not run in $n processes"
}

# 1. The stdlib algorithms: 3 21 147 1029 7203 50421 bytes x 3 dtypes = 18
# rows (counts round down: 3 B of float32 is 1 element, printed as 4 B).
for n in 2 3 4 8; do
  for spec in "allpairs_ll $AP" "ring $RING" "ring_oop $RING_OOP"; do
    set -- $spec
    launch "$n" --lib "$2" --algo "$1" --target host -b 3 -e 100K -f 7 \
      -d float32,float16,bfloat16 -n 2 -w 1 --delay 1=1000
    echo "  $1, $n ranks: $SECS s"
    expect_clean_table "$n" "$1" 18
    expect_has "# delay     : rank 1, every thread block: 1000 us"
    rows | grep -Eq '^ +50420 +25210 +bfloat16 +sum ' || fail "$1, $n ranks: no 50420-byte bfloat16 row"
    rows | grep -Eq '^ +4 +1 +float +sum ' || fail "$1, $n ranks: no 4-byte float row"
  done
done
expect_has "# ranks     : 8 (one process per rank, launched by ccl-run)"
# Started by hand: the header says where the rank count came from.
launch_by_hand 4 --lib "$RING" --algo ring --target host -b 3 -e 100K -f 7 \
  -d float32,float16,bfloat16 -n 2 -w 1 --delay 1=1000
expect_clean_table 4 ring 18
expect_has "# ranks     : 4 (one process per rank, launched by torchrun (RANK, WORLD_SIZE))"

# 2. A broken AllReduce (drops the last rank's contribution): the wrong
# counts and every "#   wrong:" line (calls, ranks, first mismatch) are
# those of the in-process run, gathered from the processes.
args=(--lib "$LIB" --algo testar_broken --target host -b 4 -e 10K -f 9 -d all -k 4 -n 1 -w 0)
run "${args[@]}" -g 3
expect_rc 1
INPROC_ROWS=$(rows | awk '{ print $1, $2, $3, $4, $8, $12 }')
INPROC_NOTES=$(wrong_notes)
launch 3 "${args[@]}"
expect_rc 1
expect_has "FAILED"
[ "$(rows | awk '{ print $1, $2, $3, $4, $8, $12 }')" = "$INPROC_ROWS" ] ||
  fail "testar_broken: rows or #wrong differ from the in-process run"
[ -n "$INPROC_NOTES" ] && [ "$(wrong_notes)" = "$INPROC_NOTES" ] ||
  fail "testar_broken: the '#   wrong:' lines differ from the in-process run"
echo "$OUT" | grep -q "ranks 0,1,2; first: call 0 rank 0 element 0" ||
  fail "testar_broken: the notes do not merge the ranks"

# Every collective (the in-place layouts of AllGather and ReduceScatter,
# Reduce's root, Broadcast's root), correct and broken: the same rows,
# "#   wrong:" lines and exit status as in-process.
for coll in allgather reducescatter alltoall broadcast reduce; do
  for algo in testar_$coll testar_${coll}_broken; do
    args=(--lib "$LIB" --algo "$algo" --target host --root 1 -b 5 -e 40K -f 11 -d all -o all -k 3 -n 1 -w 0)
    run "${args[@]}" -g 3
    INPROC_RC=$RC
    INPROC=$(rows | awk '{ print $1, $2, $3, $4, $8, $12 }'; wrong_notes)
    launch 3 "${args[@]}"
    [ "$RC" -eq "$INPROC_RC" ] || fail "$algo: exit status $RC, in-process $INPROC_RC"
    [ "$(rows | awk '{ print $1, $2, $3, $4, $8, $12 }'; wrong_notes)" = "$INPROC" ] ||
      fail "$algo: rows or '#   wrong:' lines differ from the in-process run"
    [ "$(nrows)" -gt 0 ] || fail "$algo: no rows"
  done
  [ "$RC" -eq 1 ] || fail "testar_${coll}_broken: exit status $RC, expected 1"
done

# 3. The back-to-back check across processes: the racy Broadcast is wrong
# in calls 0..K-2 of the delayed reader (rank 1), with K = 4, every buffer
# mode and placement; a single call is right.
launch 2 --lib "$LIB" --algo testar_racy --target host -b 4K -e 4K -k 4 --delay 1=100000 -n 1 -w 0
expect_rc 1
[ "$(wrong_notes | wc -l)" -eq 4 ] || fail "racy: expected 4 '# wrong' lines"
[ "$(wrong_notes | grep -c ': 3072 wrong in calls 0,1,2 of 4, rank 1; first: call 0 rank 1 element 0 is')" -eq 4 ] ||
  fail "racy: expected 3072 wrong values in calls 0,1,2 of rank 1, 4 times"
launch 2 --lib "$LIB" --algo testar_racy --target host -b 4K -e 4K -k 1 --delay 1=100000 -n 1 -w 0
expect_rc 0
[ "$(wrong_total)" -eq 0 ] || fail "racy with -k 1: $(wrong_total) wrong values"

# 4. Failures.
# -g must be the job's rank count; said once (by rank 0).
launch 3 --lib "$AP" --algo allpairs_ll --target host -g 2 -b 1K -e 1K
expect_rc 1
expect_has "-g 2 does not match the job of 3 ranks (one process per rank, launched by ccl-run); give -g 3 or leave it out"
# (The ranks' standard output and error are one file here: printed once.)
[ "$(echo "$OUT" | grep -c 'does not match the job')" -eq 1 ] ||
  fail "-g mismatch: not reported once, by rank 0"
launch 2 --lib "$AP" --algo allpairs_ll --target host -g 2 -b 1K -e 1K -n 1 -w 0
expect_rc 0
launch 2 --lib "$AP" --algo allpairs_ll --target host --devices 0,0
expect_rc 1
expect_has "--devices is for one process that drives every rank"
# NCCL needs the cuda target: each rank says so (no GPU here, or --target
# host).
launch 2 --lib "$AP" --algo allpairs_ll --compare nccl --target host
expect_rc 1
expect_has "--compare nccl needs the cuda target (--target host was given)"
# Rank 2 cannot load the library: every rank stops, at once, and rank 0
# prints rank 2's message.
cat >"$WORK/lib_on_rank2.sh" <<EOF
#!/bin/bash
lib=$AP
[ "\$CCL_RANK" = 2 ] && lib=/nonexistent/liballpairs_ll.so
exec "$PERF" --lib "\$lib" "\$@"
EOF
chmod +x "$WORK/lib_on_rank2.sh"
launch_prog 4 "$WORK/lib_on_rank2.sh" --algo allpairs_ll --target host -b 1K -e 1K
expect_rc 1
expect_has "# ERROR: rank 2: cannot load --lib /nonexistent/liballpairs_ll.so: "
[ "$(echo "$OUT" | grep -c 'cannot load --lib')" -eq 1 ] ||
  fail "lib on rank 2: not reported once, by rank 0"
[ "$SECS" -lt 20 ] || fail "lib on rank 2: took $SECS s"
# A rank that never launches: the others time out, which aborts the
# communicator on every rank, so the ranks cannot agree on one report: rank
# 0 reports its own at once (the runtime's report of the timeout), before
# ccl-run ends the job.
launch 3 --lib "$AP" --algo allpairs_ll --target host --skip-rank 1 --timeout-ms 300 -b 1K -e 1K -n 1 -w 0
expect_rc 1
expect_has "# debug     : rank 1 skips its launches"
# Ranks 0 and 2 both wait for rank 1 and time out; each forwards its
# report, so rank 0 reports its own timeout (cclTimeout) or rank 2's
# (cclRemoteError), whichever came first.
expect_re "# ERROR: cclc 1024 B float32 sum out-of-place: cclCommSynchronize on rank 0 failed: ccl(Timeout|RemoteError)"
expect_re "rank [02] thread block 0 timed out after 0\.3"
expect_has "# FAILED: the cclc run stopped at the error above"
[ "$SECS" -lt 20 ] || fail "skip-rank: took $SECS s"

finish
