# A real job: every rank creates its communicator with cclCommInitFromEnv
# from what ccl-run put in the environment, and the ranks check over the
# bootstrap that each is the rank ccl-run says (init_from_env.cc). A rank
# that fails before joining ends the job at once: the others, waiting in
# cclCommInitFromEnv, do not wait for the bootstrap timeout.
source "$LAUNCHER_TESTS/lib.sh"
prog=$LAUNCHER_TESTS/init_from_env

for n in 1 2 4; do
  ccl_run -n $n "$prog"
  expect_rc 0
  [[ $out =~ ^joined:\ $n\ ranks(,\ rank\ [0-9]+\ is\ pid\ [0-9]+){$n}$ ]] ||
    fail "out: $out"
done

# Rank 1 exits 7 without joining; the bootstrap timeout is 60 s.
CCL_BOOTSTRAP_TIMEOUT_MS=60000 ccl_run -n 3 --grace-ms 20000 "$prog" exit 1 7
expect_rc 7
grep -qx "ccl-run: rank 1 (pid [0-9]*) exited with status 7; ending the other ranks" <<<"$err" ||
  fail "message: $err"
[ "$ms" -lt 5000 ] || fail "took $ms ms to end the job"

# Two jobs at once get different ids and do not meet.
ccl-run -n 2 "$prog" >job1 2>&1 &
p1=$!
ccl-run -n 2 "$prog" >job2 2>&1 &
p2=$!
wait $p1 || fail "job 1: $(cat job1)"
wait $p2 || fail "job 2: $(cat job2)"
grep -q '^joined: 2 ranks' job1 || fail "job 1: $(cat job1)"
grep -q '^joined: 2 ranks' job2 || fail "job 2: $(cat job2)"
echo PASS
