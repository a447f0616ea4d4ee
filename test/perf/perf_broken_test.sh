#!/bin/bash
# ccl-perf must catch a wrong AllReduce (the last rank's contribution is
# dropped): #wrong > 0, FAILED, exit status 1.
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

for g in 2 3 4; do
  run --lib "$LIB" --algo testar_broken --target host -g $g -b 64 -e 4K -f 4 -d all -o sum,prod -n 2 -w 1
  expect_rc 1
  expect_has "# Out of bounds values : "
  expect_has " FAILED"
  [ "$(nrows)" -eq 24 ] || fail "-g $g: $(nrows) rows, expected 24"
  [ "$(wrong_total)" -gt 0 ] || fail "-g $g: no wrong values reported"
  # Every float sum row of 1024 elements has wrong values in both columns.
  rows | awk '$3 == "float" && $4 == "sum" && $2 >= 256 && ($8 == 0 || $12 == 0) { bad = 1 } END { exit bad }' ||
    fail "-g $g: a float sum row with #wrong == 0"
done

# Without checking, the broken library "passes".
run --lib "$LIB" --algo testar_broken --target host -g 2 -b 1K -e 1K -c 0 -n 2
expect_rc 0

finish
