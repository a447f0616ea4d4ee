#!/bin/bash
# ccl-perf's failure paths: no GPU for --target cuda, a rank that never
# launches (timeout report), the NVLS rule, bad arguments.
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

# --target cuda on a machine without a GPU.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
  run --lib "$LIB" --algo testar --target cuda -g 2 -b 1K -e 1K
  expect_rc 1
  expect_has "--target cuda: no usable GPU: cannot load libcuda.so.1"
else
  echo "SKIP: libcuda.so.1 present, --target cuda test needs a GPU-less machine"
fi

# A rank that never launches: the others time out, the runtime reports it.
for g in 2 3; do
  run --lib "$LIB" --algo testar --target host -g $g --skip-rank 1 --timeout-ms 300 -b 1K -e 1K -n 2 -w 1
  expect_rc 1
  expect_has "# debug     : rank 1 skips its launches"
  expect_has "cclCommSynchronize on rank 0 failed"
  echo "$OUT" | grep -qi "timeout\|timed out" || fail "no timeout in the report"
  expect_has "# FAILED:"
done
run --lib "$LIB" --algo testar --target host -g 2 --skip-rank 2
expect_rc 1
expect_has "--skip-rank 2 is not a rank"

# NVLS / multicast rule for --compare nccl (checked before anything runs):
# any value but 0 is refused, so the test asks with 2 and never enables NVLS.
NCCL_NVLS_ENABLE=2 run --lib "$LIB" --algo testar --compare nccl -g 2
expect_rc 1
expect_has "NCCL_NVLS_ENABLE=2 is set"
CCL_ALLOW_MULTICAST=1 run --lib "$LIB" --algo testar --compare nccl -g 2
expect_rc 1
expect_has "CCL_ALLOW_MULTICAST is set"
run --lib "$LIB" --algo testar --compare nccl --target host -g 2
expect_rc 1
expect_has "--compare nccl needs the cuda target"

# Library / algorithm problems.
run --lib "$LIB" --algo nosuch -g 2
expect_rc 1
expect_has "has no entry point ccl_nosuch"
run --lib /nonexistent/lib.so --algo testar -g 2
expect_rc 1
expect_has "cannot load --lib /nonexistent/lib.so"
run --lib "$LIB" --algo testar --target host -g 9 -b 1K -e 1K
expect_rc 1
expect_has "has no variant for 9 ranks"

# Arguments.
run --help
expect_rc 0
expect_has "--skip-rank R"
expect_has "-G, --cudagraph N"
run --algo testar
expect_rc 1
expect_has "--lib is required"
run --lib "$LIB" --algo testar -d float64
expect_rc 1
expect_has "bad --datatype"
run --lib "$LIB" --algo testar -b 2M -e 1M
expect_rc 1
expect_has "larger than -e"
run --lib "$LIB" --algo testar -b 1X
expect_rc 1
expect_has "bad size"

finish
