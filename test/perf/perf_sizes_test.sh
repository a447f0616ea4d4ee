#!/bin/bash
# ccl-perf's sizes at their limits: values that do not fit in 64 bits, -e
# above the plan's largest message (rows above it skipped, buffers sized
# for the plan, not for -e), and a host allocation that fails (a message
# and exit status 1, never std::bad_alloc's abort).
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

# Sizes that overflow 64 bits name the flag, the value and why.
run --lib "$LIB" --algo testar -e 17179869184G
expect_rc 1
expect_has "ccl-perf: bad size for --maxbytes: 17179869184G (more than 2^64 - 1 bytes)"
run --lib "$LIB" --algo testar -b 18446744073709551616
expect_rc 1
expect_has "ccl-perf: bad size for --minbytes: 18446744073709551616 (more than 2^64 - 1 bytes)"
run --lib "$LIB" --algo testar -i 99999999999999999999K
expect_rc 1
expect_has "ccl-perf: bad size for --stepbytes: 99999999999999999999K (more than 2^64 - 1 bytes)"
run --lib "$LIB" --algo testar --check-mem 17179869185G
expect_rc 1
expect_has "ccl-perf: bad size for --check-mem: 17179869185G (more than 2^64 - 1 bytes)"
# The largest size that fits is a size (the sweep stops at -e, whatever -f).
run --lib "$LIB" --algo testar --target host -g 1 -b 1K -e 18446744073709551615 -f 1e300 -c 0 -n 1 -w 0
expect_rc 0
[ "$(nrows)" -eq 1 ] || fail "-f 1e300: $(nrows) rows, expected 1"

# -e far above the plan's 4 MiB: the rows above it are skipped (as
# documented), and the buffers are sized for 4 MiB, not for 64 GiB.
run --lib "$LIB" --algo testar --target host -g 2 -b 1K -e 64G -f 1024 -n 1 -w 0 -k 2
expect_rc 0
expect_has "# sizes     : rows above the plan's largest message (4194304 bytes) are skipped; the buffers are sized for it, not for -e 68719476736"
expect_has "skipped: larger than the plan's max_bytes 4194304"
[ "$(nrows)" -eq 2 ] || fail "-e 64G: $(nrows) measured rows, expected 2 (1K, 1M)"

# No plan bounds testar_noplan's sizes: 8 GiB under a 4 GiB address-space
# limit cannot be allocated, and ccl-perf says so.
if (ulimit -v 4194304) 2>/dev/null; then
  echo "+ (ulimit -v 4194304; ccl-perf --algo testar_noplan -e 8G ...)"
  OUT=$(ulimit -v 4194304; "$PERF" --lib "$LIB" --algo testar_noplan --target host -g 1 -b 8G -e 8G -n 1 -w 0 2>&1)
  RC=$?
  expect_rc 1
  expect_has "cannot allocate 8589934592 bytes of host memory for the check's staging buffer (messages up to 8589934592 bytes; a smaller -e, or -c 0, needs less)"
  expect_not "bad_alloc"
  expect_not "terminate"
  # Without the check, the working buffers: libcclrt's error, passed on.
  echo "+ (ulimit -v 4194304; ccl-perf --algo testar_noplan -e 8G -c 0 ...)"
  OUT=$(ulimit -v 4194304; "$PERF" --lib "$LIB" --algo testar_noplan --target host -g 1 -b 8G -e 8G -n 1 -w 0 -c 0 2>&1)
  RC=$?
  expect_rc 1
  expect_has "cclMemAlloc on rank 0 failed: cclSystemError: an operating-system call failed: cclMemAlloc(rank 0): allocating 8589934592 bytes for cclMemAlloc failed: out of host memory"
  expect_not "bad_alloc"
else
  echo "SKIPPED: ulimit -v is not available here; the allocation failure is not tested"
fi

finish
