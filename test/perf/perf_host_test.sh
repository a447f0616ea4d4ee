#!/bin/bash
# ccl-perf on the host target with a correct AllReduce: every dtype and op,
# 2, 3 and 4 ranks, sizes that are not a multiple of anything.
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

for g in 2 3 4; do
  # -b 4 -e 1M -f 3: 4 12 36 ... 708588 -> 12 sizes, x 3 dtypes x 4 ops.
  run --lib "$LIB" --algo testar --target host -g $g -b 4 -e 1M -f 3 -d all -o all -n 2 -w 1
  expect_rc 0
  expect_has "# target    : host (--target host)"
  expect_has "# Out of bounds values : 0 OK"
  expect_has "# Avg bus bandwidth    :"
  [ "$(nrows)" -eq 144 ] || fail "-g $g: $(nrows) rows, expected 144"
  [ "$(wrong_total)" -eq 0 ] || fail "-g $g: $(wrong_total) wrong values"
  # size count type redop of a few rows (nccl-tests' conventions).
  rows | grep -Eq '^ +4 +1 +float +sum ' || fail "-g $g: no 4-byte float row"
  rows | grep -Eq '^ +4 +2 +half +prod ' || fail "-g $g: no 4-byte half prod row"
  rows | grep -Eq '^ +708588 +354294 +bfloat16 +min ' || fail "-g $g: no 708588-byte bf16 row"
done

# Default target without a GPU: host, and says why. Odd byte sizes: the
# count rounds down (5 B of float16 -> 2 elements, 4 B printed), and a size
# smaller than one element still moves one.
run --lib "$LIB" --algo testar -g 3 -b 1 -e 7 -i 3 -d float16 -o sum -n 2 -w 0
expect_rc 0
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
  expect_has "# target    : host (no usable GPU"
fi
rows | grep -Eq '^ +2 +1 +half +sum ' || fail "1 B float16 should be 1 element (2 B)"
rows | grep -Eq '^ +4 +2 +half +sum ' || fail "4 B float16 should be 2 elements"
rows | grep -Eq '^ +6 +3 +half +sum ' || fail "7 B float16 should be 3 elements (6 B)"
[ "$(nrows)" -eq 3 ] || fail "$(nrows) rows, expected 3 (1, 4, 7 bytes)"

# busbw = algbw * 2(n-1)/n: with 4 ranks busbw = 1.5 * bytes / time
# (within the 2-decimal rounding of the table).
run --lib "$LIB" --algo testar --target host -g 4 -b 1M -e 1M -n 3 -w 1
expect_rc 0
rows | awk '{ bw = 1.5 * $1 / ($5 * 1e3); d = $7 - bw; if (d < -0.006 || d > 0.006) bad = 1 } END { exit bad }' ||
  fail "busbw is not 1.5 x algbw for 4 ranks"
run --lib "$LIB" --algo testar --target host -g 2 -b 1M -e 1M -n 3 -w 1
expect_rc 0
rows | awk '$6 != $7 { bad = 1 } END { exit bad }' || fail "busbw != algbw for 2 ranks"

# A plan without some kernels: those combinations are skipped, not failed.
run --lib "$LIB" --algo testar_sumonly --target host -g 2 -b 64 -e 256 -f 2 -d all -o sum,max -n 2 -w 1
expect_rc 0
expect_has "skipping float16 sum: the plan has no kernel for it"
expect_has "skipping float32 max: the plan has no kernel for it"
[ "$(nrows)" -eq 3 ] || fail "sumonly: $(nrows) rows, expected 3"

# Sizes above the plan's max_bytes (4M) are skipped; nothing measured = failure.
run --lib "$LIB" --algo testar --target host -g 2 -b 8M -e 8M -n 1 -w 0
expect_rc 1
expect_has "skipped: larger than the plan's max_bytes 4194304"
expect_has "nothing was measured"

# -c 0: no check, #wrong is N/A.
run --lib "$LIB" --algo testar --target host -g 2 -b 1K -e 1K -c 0 -n 2 -w 1
expect_rc 0
rows | grep -q 'N/A' || fail "-c 0 should print N/A for #wrong"

# Same seed, same data: a different seed still passes.
run --lib "$LIB" --algo testar --target host -g 3 -b 4K -e 4K -o prod -d bf16 --seed 12345 -n 2
expect_rc 0
expect_has "seed: 12345"

finish
