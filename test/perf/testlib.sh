# Helpers for the ccl-perf shell tests. Usage: source it with
#   PERF=<ccl-perf> LIB=<libtestar.so> set by the caller.
set -u
FAILS=0
OUT=""
RC=0

# run ARGS...: runs ccl-perf, keeps stdout+stderr in $OUT and status in $RC.
run() {
  echo "+ ccl-perf $*"
  OUT=$("$PERF" "$@" 2>&1)
  RC=$?
}

fail() {
  echo "FAIL: $*"
  echo "---- output ----"
  echo "$OUT"
  echo "----------------"
  FAILS=$((FAILS + 1))
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"; }
expect_has() { echo "$OUT" | grep -qF -- "$1" || fail "output lacks '$1'"; }
expect_re() { echo "$OUT" | grep -qE -- "$1" || fail "output lacks /$1/"; }
expect_not() { echo "$OUT" | grep -qF -- "$1" && fail "output has '$1'"; }

# Table rows: lines that do not start with '#' and have 12 columns.
rows() { echo "$OUT" | awk '!/^#/ && NF == 12'; }
nrows() { rows | wc -l; }
# Sum of both #wrong columns over all rows.
wrong_total() { rows | awk '{ s += $8 + $12 } END { print s + 0 }'; }

# Sum of one #wrong column (8: out of place, 12: in place) over all rows.
wrong_col() { rows | awk -v c="$1" '{ s += $c } END { print s + 0 }'; }

finish() {
  if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed"
    exit 1
  fi
  echo "all checks passed"
  exit 0
}

# The "#   wrong: ..." lines ccl-perf prints below a row with wrong values.
wrong_notes() { echo "$OUT" | grep '^#   wrong: '; }
