#!/bin/bash
# ccl-perf's sizes at their limits: values that do not fit in 64 bits
# name the flag and why.
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

finish
