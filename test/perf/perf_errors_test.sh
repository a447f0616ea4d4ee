#!/bin/bash
# ccl-perf's failure paths: no GPU for --target cuda, a rank that never
# launches (timeout report, printed once), the NVLS rule, --devices on the
# host target, bad arguments.
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
  # Printed once on stdout (the # ERROR line beside its row) and once on
  # stderr, even though every rank's synchronisation reports it.
  STDOUT=$("$PERF" --lib "$LIB" --algo testar --target host -g $g --skip-rank 1 --timeout-ms 300 -b 1K -e 1K -n 2 -w 1 2>/dev/null)
  [ "$(echo "$STDOUT" | grep -c 'timed out after')" -eq 1 ] || fail "-g $g: the timeout report is not printed exactly once on stdout"
  STDERR=$("$PERF" --lib "$LIB" --algo testar --target host -g $g --skip-rank 1 --timeout-ms 300 -b 1K -e 1K -n 2 -w 1 2>&1 >/dev/null)
  [ "$(echo "$STDERR" | grep -c 'timed out after')" -eq 1 ] || fail "-g $g: the timeout report is not printed exactly once on stderr"
  echo "$STDERR" | grep -qF "ccl-perf: error: cclc 1024 B float32 sum out-of-place: cclCommSynchronize on rank 0 failed" ||
    fail "-g $g: stderr lacks the failing row and rank"
done
expect_has "(ranks 1,2 reported the same error)"
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
# NCCL needs one GPU per rank: refused before anything runs.
run --lib "$LIB" --algo testar --compare nccl --devices 0,1,0
expect_rc 1
expect_has "--compare nccl needs one GPU per rank (NCCL cannot run several ranks on one GPU), but --devices 0,1,0 puts several ranks on GPU 0"

# --devices is a CUDA option.
run --lib "$LIB" --algo testar --target host --devices 0,0 -b 1K -e 1K
expect_rc 1
expect_has "--devices 0,0 is a CUDA option: the host target runs its ranks as threads of this process (target host: --target host)"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
  run --lib "$LIB" --algo testar --devices 0,0 -b 1K -e 1K
  expect_rc 1
  expect_has "--devices 0,0 is a CUDA option: the host target runs its ranks as threads of this process (target host: no usable GPU"
fi
run --lib "$LIB" --algo testar -g 3 --devices 0,0
expect_rc 1
expect_has "--devices 0,0 names 2 ranks but -g is 3"
run --lib "$LIB" --algo testar --devices 0,x
expect_rc 1
expect_has "bad --devices (comma-separated GPU ordinals, e.g. 0,0): 0,x"

# Library / algorithm problems.
run --lib "$LIB" --algo nosuch -g 2
expect_rc 1
expect_has "has no entry point ccl_nosuch"
run --lib /nonexistent/lib.so --algo testar -g 2
expect_rc 1
expect_has "cannot load --lib /nonexistent/lib.so"
# A library cut short (a partial copy) is refused before it is loaded (it
# killed the process with SIGBUS); so is one that is no library.
tmp=${TEST_TMPDIR:-$(mktemp -d)}
head -c 20000 "$LIB" > "$tmp/cut.so"
run --lib "$tmp/cut.so" --algo testar -g 2
expect_rc 1
expect_has "cannot load --lib $tmp/cut.so: cut short: its "
expect_has "but the file has 20000 bytes (a partial copy?)"
echo "not a library" > "$tmp/text.so"
run --lib "$tmp/text.so" --algo testar -g 2
expect_rc 1
expect_has "cannot load --lib $tmp/text.so: not a shared library (no ELF header: the file has 14 bytes)"
run --lib "$LIB" --algo testar --target host -g 9 -b 1K -e 1K
expect_rc 1
expect_has "has no variant for 9 ranks"

# Arguments.
run --help
expect_rc 0
expect_has "--skip-rank R"
expect_has "-G, --cudagraph N"
expect_has "-k, --calls K"
expect_has "--delay R[:B]=US"
expect_has "--devices LIST"
expect_has "--check-mem SIZE"
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
run --lib "$LIB" --algo testar --check-mem 0
expect_rc 1
expect_has "bad size for --check-mem: 0"
run --lib "$LIB" --algo testar -g 2 --delay 1
expect_rc 1
expect_has "bad --delay (RANK[:BLOCK]=MICROSECONDS, e.g. 1=20000 or 1:0=20000): 1"
run --lib "$LIB" --algo testar -g 2 --delay 2=100
expect_rc 1
expect_has "--delay 2=100: rank 2 is not a rank (-g 2)"
run --lib "$LIB" --algo testar --target host -g 2 --delay 1:2=100 -b 1K -e 1K
expect_rc 1
expect_has "--delay 1:2=100: the 2-rank variant of testar has 2 thread blocks per rank"
run --lib "$LIB" --algo testar -g 2 --delay 1=100 -c 0
expect_rc 1
expect_has "--delay acts on the checked calls only; it has no effect with -c 0"
# Defaults that run: no -g, -b or -e gives the plan's smallest rank count
# and sizes clipped to its largest message (4 MiB), each said in the header.
run --lib "$LIB" --algo testar --target host -n 1 -w 0 -k 2
expect_rc 0
expect_has "# ranks     : 1, the smallest rank count of the plan (-g to choose; it has: 1 2 3 4 5 6 7 8)"
expect_has "# sizes     : 4194304 to 4194304 bytes: the nccl-tests defaults (-b 32M -e 32M) clipped to the plan's largest message (-b/-e to choose)"
expect_has "# Out of bounds values : 0 OK"
[ "$(nrows)" -eq 1 ] || fail "expected one row at 4 MiB"
# Given sizes are not clipped (a row above max_bytes is skipped, as before).
run --lib "$LIB" --algo testar --target host -g 2 -b 1K -e 1K -n 1 -w 0 -k 2
expect_rc 0
expect_not "# sizes     :"
expect_not "# ranks     :"

# A library named without "./" is the file in the current directory.
PERF_ABS=$(cd "$(dirname "$PERF")" && pwd)/$(basename "$PERF")
(cd "$(dirname "$LIB")" && "$PERF_ABS" --lib "$(basename "$LIB")" --algo testar --target host -g 2 -b 1K -e 1K -n 1 -w 0 -k 2 > /tmp/perf_bare.$$ 2>&1)
grep -qF "# library   : ./$(basename "$LIB")" /tmp/perf_bare.$$ || { OUT=$(cat /tmp/perf_bare.$$); fail "a bare --lib name was not loaded from the current directory"; }
rm -f /tmp/perf_bare.$$

# --version.
run --version
expect_rc 0
expect_has "ccl-perf 0.12.0 (cclc plan ABI 8)"

# An error is printed once when standard output and standard error are the
# same file (a terminal, one log).
run --lib /nonexistent/libnothing.so --algo testar
expect_rc 1
[ "$(echo "$OUT" | grep -c 'cannot load --lib /nonexistent/libnothing.so')" -eq 1 ] ||
  fail "the error is not printed exactly once"

# A delay the timeout cannot cover: a note, then the peers time out.
run --lib "$LIB" --algo testar --target host -g 2 --delay 1=500000 --timeout-ms 100 -b 1K -e 1K -n 1 -w 0
expect_rc 1
expect_has "# note      : the delay of rank 1 (500000 us) is not shorter than the timeout (100 ms)"
expect_has "timed out after"

finish
