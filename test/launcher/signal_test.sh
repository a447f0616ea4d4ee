# Signals sent to ccl-run reach every rank; a SIGKILLed ccl-run takes its
# ranks with it (PR_SET_PDEATHSIG).
source "$LAUNCHER_TESTS/lib.sh"

# Job control: the background ccl-run gets its own process group (so a
# signal to its pid reaches only ccl-run, and the ranks only through it),
# and SIGINT and SIGQUIT stay as they are (a background job of a
# non-interactive shell would ignore them).
set -m

# start ARGS...: starts `ccl-run ARGS...` in the background; pid=its pid.
start() {
  ccl-run "$@" >"$WORK/stdout" 2>"$WORK/stderr" &
  pid=$!
}

# finish: waits for ccl-run; rc=its status, err=its stderr.
finish() {
  set +e
  wait "$pid"
  rc=$?
  set -e
  err=$(cat "$WORK/stderr")
}

# Each rank traps SIG, records it and exits 0; the `sleep` it waits for
# is ended by the trap, so that nothing outlives the test.
for sig in TERM INT HUP QUIT USR1 USR2; do
  rm -f ready.* got.*
  start -n 3 bash -c "
    trap 'echo $sig >got.\$CCL_RANK; kill \$!; exit 0' $sig
    sleep 60 & touch ready.\$CCL_RANK
    wait"
  wait_files 3 "ready.*"
  kill -s "$sig" "$pid"
  finish
  expect_rc 0
  for r in 0 1 2; do
    [ "$(cat got.$r 2>/dev/null)" = "$sig" ] || fail "SIG$sig: rank $r did not get it"
  done
  echo "SIG$sig forwarded to the 3 ranks"
done

# A rank that dies of the forwarded signal is a failure like any other.
rm -f pid.*
start -n 2 bash -c 'echo $$ >pid.$CCL_RANK; exec sleep 60'
wait_files 2 "pid.*"
kill -TERM "$pid"
finish
expect_rc 143
grep -qx "ccl-run: rank [01] (pid [0-9]*) was killed by signal SIGTERM (15).*" <<<"$err" ||
  fail "message: $err"
expect_gone $(cat pid.0 pid.1)

# ccl-run killed: its ranks die too.
rm -f pid.*
start -n 3 bash -c 'echo $$ >pid.$CCL_RANK; exec sleep 60'
wait_files 3 "pid.*"
kill -KILL "$pid"
finish
expect_rc 137
# The kernel sends the death signal as ccl-run exits; give it a moment.
for i in $(seq 40); do
  (expect_dead $(cat pid.*)) 2>/dev/null && break
  sleep 0.05
done
expect_dead $(cat pid.*)
echo PASS
