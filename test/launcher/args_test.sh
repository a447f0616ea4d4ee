# A bad command line: exit status 2 and a message naming the problem; a
# PROGRAM that cannot be run: 127 or 126 and the message a shell gives.
# Nothing starts in either case.
source "$LAUNCHER_TESTS/lib.sh"

usage_error() {
  ccl_run "${@:2}"
  expect_rc 2
  expect_err "$(printf 'ccl-run: %s\nTry %s for more.' "$1" "'ccl-run --help'")"
  [ -z "$out" ] || fail "stdout: $out"
}
usage_error "missing -n N (the number of ranks; options go before PROGRAM)"
usage_error "missing -n N (the number of ranks; options go before PROGRAM)" true
usage_error "missing -n N (the number of ranks; options go before PROGRAM)" true -n 2
usage_error "missing PROGRAM" -n 2
usage_error "missing PROGRAM" -n 2 --
usage_error "-n: must be at least 1 (got 0)" -n 0 true
usage_error "-n: must be at least 1 (got -3)" -n -3 true
usage_error "-n: 'x' is not an integer" -n x true
usage_error "-n: '2x' is not an integer" -n 2x true
usage_error "--grace-ms: must be at least 0 (got -1)" -n 1 --grace-ms -1 true
usage_error "unknown option '--bogus'" -n 1 --bogus true
usage_error "unknown option '-x'" -n 1 -x true
ccl_run -n
expect_rc 2
grep -q '^ccl-run: .*-n' <<<"$err" || fail "-n without a value: $err"

# Not found: 127, like a shell, before any rank starts.
touch started
ccl_run -n 3 no-such-program-xyz rm started
expect_rc 127
expect_err "ccl-run: no-such-program-xyz: command not found"
[ -e started ] || fail "something ran"
ccl_run -n 2 ./no/such/file
expect_rc 127
expect_err "ccl-run: ./no/such/file: No such file or directory"
# "--" lets PROGRAM start with '-'.
ccl_run -n 2 -- -dash
expect_rc 127
expect_err "ccl-run: -dash: command not found"
# Not executable: 126.
printf '#!/bin/sh\necho hi\n' >noexec
chmod -x noexec
ccl_run -n 2 ./noexec
expect_rc 126
expect_err "ccl-run: ./noexec: Permission denied"
ccl_run -n 2 "$WORK"
expect_rc 126
expect_err "ccl-run: $WORK: Is a directory"
mkdir -p bin1 bin2
cp noexec bin1/tool
cp noexec bin2/tool
chmod +x bin2/tool
# Found in PATH only where it is not executable: 126; executable later in
# PATH: that one runs.
PATH=$WORK/bin1:$PATH ccl_run -n 1 tool
expect_rc 126
expect_err "ccl-run: $WORK/bin1/tool: Permission denied"
PATH=$WORK/bin1:$WORK/bin2:$PATH ccl_run -n 1 tool
expect_rc 0
expect_out hi

# --help and --version work without -n.
ccl_run --help
expect_rc 0
grep -q '^Usage: ccl-run -n N \[options\] \[--\] PROGRAM \[ARGS...\]$' <<<"$out" ||
  fail "--help: $out"
ccl_run -h -n 0
expect_rc 0
grep -q '^Usage: ccl-run' <<<"$out" || fail "-h: $out"
ccl_run --version
expect_rc 0
[[ $out =~ ^ccl-run\ \(cclc\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version: $out"
echo PASS
