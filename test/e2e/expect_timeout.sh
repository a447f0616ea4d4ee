# Sourced by the hang tests. expect_timeout OUT CMD...: runs CMD (killed
# after 60 s) with its output in OUT, prints that output, and fails unless
# CMD exited with status 1 within 30 s: a timeout report, not a hang.
expect_timeout() {
  local out=$1 start rc=0
  shift
  start=$(date +%s)
  timeout 60 "$@" >"$out" 2>&1 || rc=$?
  cat "$out"
  if ((rc != 1)); then
    echo "expect_timeout: $1 exited with status $rc, not 1" >&2
    return 1
  fi
  if (($(date +%s) - start >= 30)); then
    echo "expect_timeout: $1 took $(($(date +%s) - start)) s" >&2
    return 1
  fi
}
