# ccl-run exits with the first failure's status (128+S for a rank killed by
# signal S), after ending the other ranks: SIGTERM, then SIGKILL after
# --grace-ms. No rank outlives it.
source "$LAUNCHER_TESTS/lib.sh"

# Each rank records its pid, then becomes `sleep` (same pid).
sleeper='echo $$ >pid.$CCL_RANK; exec sleep 60'

# Rank 2 exits 3 once all ranks run; the others sleep. SIGTERM ends them
# at once: well within the (long) grace time.
ccl_run -n 4 --grace-ms 20000 bash -c "
  if [ \$CCL_RANK = 2 ]; then
    while [ \$(ls pid.* 2>/dev/null | wc -l) -lt 3 ]; do sleep 0.02; done
    exit 3
  fi
  $sleeper"
expect_rc 3
grep -qx "ccl-run: rank 2 (pid [0-9]*) exited with status 3; ending the other ranks" <<<"$err" ||
  fail "message: $err"
[ "$(wc -l <<<"$err")" = 1 ] || fail "more than one line: $err"
[ "$ms" -lt 5000 ] || fail "took $ms ms: the sleeping ranks were not ended by SIGTERM"
expect_gone $(cat pid.0 pid.1 pid.3)
rm -f pid.*

# Ranks that ignore SIGTERM get SIGKILL after --grace-ms.
ccl_run -n 3 --grace-ms 1000 bash -c "
  trap '' TERM
  if [ \$CCL_RANK = 0 ]; then
    while [ \$(ls pid.* 2>/dev/null | wc -l) -lt 2 ]; do sleep 0.02; done
    exit 1
  fi
  $sleeper"
expect_rc 1
[ "$(sed 's/(pid [0-9]*)/(pid P)/' <<<"$err")" = "$(printf '%s\n%s' \
  "ccl-run: rank 0 (pid P) exited with status 1; ending the other ranks" \
  "ccl-run: ranks 1, 2 are still running 1000 ms after SIGTERM; sending SIGKILL")" ] ||
  fail "messages: $err"
[ "$ms" -ge 1000 ] || fail "SIGKILL came after $ms ms, before the grace time"
[ "$ms" -lt 6000 ] || fail "took $ms ms"
expect_gone $(cat pid.1 pid.2)
rm -f pid.*

# A stopped rank is resumed (SIGCONT) to act on its SIGTERM: it does not
# wait for the SIGKILL.
ccl_run -n 2 --grace-ms 20000 bash -c "
  if [ \$CCL_RANK = 1 ]; then
    while [ ! -e pid.0 ] || ! grep -q ') T' /proc/\$(cat pid.0)/stat; do sleep 0.02; done
    exit 2
  fi
  echo \$\$ >pid.0
  kill -STOP \$\$
  exec sleep 60"
expect_rc 2
[ "$ms" -lt 5000 ] || fail "took $ms ms: the stopped rank waited for SIGKILL"
expect_gone $(cat pid.0)
rm -f pid.*

# A rank killed by a signal: 128 + its number.
ccl_run -n 3 bash -c "
  if [ \$CCL_RANK = 1 ]; then
    while [ \$(ls pid.* 2>/dev/null | wc -l) -lt 2 ]; do sleep 0.02; done
    kill -KILL \$\$
  fi
  $sleeper"
expect_rc 137
grep -qx "ccl-run: rank 1 (pid [0-9]*) was killed by signal SIGKILL (9); ending the other ranks" <<<"$err" ||
  fail "message: $err"
expect_gone $(cat pid.0 pid.2)
rm -f pid.*

# The first failure counts: rank 1 exits 5; rank 0 then exits 9 on the
# SIGTERM that ends it.
ccl_run -n 2 bash -c "
  if [ \$CCL_RANK = 1 ]; then
    while [ ! -e ready ]; do sleep 0.02; done
    exit 5
  fi
  trap 'exit 9' TERM
  sleep 60 & echo \$! >pid.sleep
  touch ready
  wait"
expect_rc 5
grep -q "rank 1 (pid [0-9]*) exited with status 5" <<<"$err" || fail "message: $err"
grep -q "status 9" <<<"$err" && fail "the second failure was reported: $err"
kill "$(cat pid.sleep)" 2>/dev/null || true
rm -f ready pid.*

# Ranks that exit 0 are not failures: the others go on to their end.
ccl_run -n 3 bash -c '[ $CCL_RANK = 0 ] || sleep 0.3; echo done $CCL_RANK'
expect_rc 0
[ "$(sort <<<"$out")" = "$(printf 'done 0\ndone 1\ndone 2')" ] || fail "out: $out"
[ -z "$err" ] || fail "stderr: $err"

# With nothing left to end, the message says no more.
ccl_run -n 1 bash -c 'exit 42'
expect_rc 42
grep -qx "ccl-run: rank 0 (pid [0-9]*) exited with status 42" <<<"$err" || fail "message: $err"
ccl_run -n 2 bash -c '[ $CCL_RANK = 0 ] && exit 0; sleep 0.3; exit 4'
expect_rc 4
grep -qx "ccl-run: rank 1 (pid [0-9]*) exited with status 4" <<<"$err" || fail "message: $err"
echo PASS
