# lib.sh - helpers of the ccl-run tests, sourced by each NAME_test.sh. They
# run ccl-run from PATH (harness.sh puts //tools:dist's bin/ first; by hand:
# PATH=$PWD/out/bin:$PATH WORK=$(mktemp -d) LAUNCHER_TESTS=$PWD/test/launcher
# bash test/launcher/NAME_test.sh).
set -euo pipefail
cd "$WORK"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ccl_run ARGS...: runs `ccl-run ARGS...` in the foreground and sets rc (its
# exit status), out and err (its stdout and stderr) and ms (how long it
# took, in milliseconds).
ccl_run() {
  local t0
  t0=$(now_ms)
  set +e
  ccl-run "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  rc=$?
  set -e
  ms=$(($(now_ms) - t0))
  out=$(cat "$WORK/stdout")
  err=$(cat "$WORK/stderr")
  echo "ccl-run $* -> status $rc in $ms ms"
  [ -z "$err" ] || printf '  stderr: %s\n' "$err"
}

expect_rc() {
  [ "$rc" = "$1" ] || fail "exit status $rc, expected $1"
}

expect_err() {
  [ "$err" = "$1" ] || fail "stderr is '$err', expected '$1'"
}

expect_out() {
  [ "$out" = "$1" ] || fail "stdout is '$out', expected '$1'"
}

# wait_files COUNT GLOB: waits (up to 10 s) until GLOB names COUNT files.
wait_files() {
  local count=$1 glob=$2 i
  for i in $(seq 200); do
    # shellcheck disable=SC2086
    [ "$(ls -d $glob 2>/dev/null | wc -l)" -ge "$count" ] && return 0
    sleep 0.05
  done
  fail "timed out waiting for $count files $glob"
}

# expect_gone PID...: none of the processes exists any more (not even as
# an unreaped zombie).
expect_gone() {
  local p
  for p; do
    if kill -0 "$p" 2>/dev/null; then
      ps -o pid,ppid,stat,args -p "$p" >&2 || true
      kill -KILL "$p" 2>/dev/null || true
      fail "process $p is still there"
    fi
  done
}

# expect_dead PID...: each process has ended: gone, or a zombie that its
# new parent has not reaped yet (a rank whose ccl-run was killed).
expect_dead() {
  local p state
  for p; do
    state=$(sed 's/.*) \([A-Za-z]\).*/\1/' "/proc/$p/stat" 2>/dev/null) || continue
    [ "$state" = Z ] || { kill -KILL "$p"; fail "process $p is still running (state $state)"; }
  done
}
