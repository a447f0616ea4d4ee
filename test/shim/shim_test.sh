#!/usr/bin/env bash
# libcclnccl.so on the host target (CCL_NCCL_TARGET=host): nccl_check.c, a
# C program written against nccl.h and linked against the shim, runs every
# collective the stdlib serves with K calls back to back at 2, 3 and 4
# ranks: ncclCommInitAll, one thread with ncclCommInitRank in a group, a
# thread per rank, and one process per rank under ccl-run; then calls the
# stdlib does not serve, which are forwarded and fail clearly when no NCCL
# is loadable and when NCCL is there but cannot run (no GPU).
set -euo pipefail
source test/shim/env.sh
check=$root/test/shim/nccl_check

for n in 2 3 4; do
  for mode in all group threads; do
    timeout 300 "$check" "$mode" "$n" 4 || fail "$mode $n"
  done
  rm -f id.bin
  timeout 300 "$dist/bin/ccl-run" -n "$n" "$check" proc "$work/id.bin" 4 > proc.log 2>&1 ||
    { cat proc.log; fail "ccl-run -n $n"; }
  [ "$(grep -c '^ok: proc' proc.log || true)" = "$n" ] || { cat proc.log; fail "ccl-run -n $n: not every rank passed"; }
  echo "ok: ccl-run -n $n"
done

# A bundle cut short (a partial copy) is refused before it is loaded (it
# killed the process with SIGBUS): every call is forwarded, and the message
# says why.
head -c 100000 "$CCL_NCCL_BUNDLE" > cut.so
if CCL_NCCL_BUNDLE=$work/cut.so CCL_NCCL_LIBRARY=/nonexistent/libnccl.so.2 \
    timeout 60 "$check" all 2 1 > cut.txt 2>&1; then
  cat cut.txt; fail "a bundle cut short: the run passed"
fi
expect cut.txt "the cclc bundle (CCL_NCCL_BUNDLE) could not be loaded: $work/cut.so: cut short: its "
expect cut.txt "but the file has 100000 bytes (a partial copy?)"
echo "ok: a bundle cut short"

# The per-call log says which side served each call.
CCL_NCCL_LOG=2 "$check" all 2 1 > log.txt 2>&1 || { cat log.txt; fail "log run"; }
grep -q 'rank 0/2 ncclAllReduce(count=1, float32, sum): cclc (allpairs_ll)' log.txt ||
  { cat log.txt; fail "no per-call line for the served AllReduce"; }
grep -q 'rank 1/2 ncclAlltoAll(count=20000, int32): cclc (a2a_allpairs_ll_wide)' log.txt ||
  { cat log.txt; fail "no per-call line for the served AlltoAll"; }

# Forwarded calls, no loadable NCCL.
# (NCCL_NVLS_ENABLE unset: the shim must set it to 0 itself.)
env -u NCCL_NVLS_ENABLE CCL_NCCL_LIBRARY=/nonexistent/libnccl.so.2 CCL_NCCL_LOG=2 \
  "$check" forward 2 > fwd-none.txt 2>&1 || { cat fwd-none.txt; fail "forward (no NCCL)"; }
cat fwd-none.txt
none="no loadable NCCL: CCL_NCCL_LIBRARY=/nonexistent/libnccl.so.2: /nonexistent/libnccl.so.2: cannot open shared object file"
expect fwd-none.txt "cclnccl[" # the log's prefix
expect fwd-none.txt "forwarding disabled: $none"
expect fwd-none.txt "rank 0/2 ncclSend(count=16, float32, peer=1): forwarded to NCCL: the stdlib has no point-to-point calls"
expect fwd-none.txt "rank 0/2 ncclSend(count=16, float32, peer=1): failed: forwarding is disabled"
expect fwd-none.txt "ncclSend/ncclRecv group: unhandled system error (run with NCCL_DEBUG=INFO for details): rank 0/2 ncclSend(count=16, float32, peer=1) is forwarded to NCCL (the stdlib has no point-to-point calls), but forwarding is disabled: $none"
expect fwd-none.txt "rank 0/2 ncclAllReduce(count=16, float32, avg): forwarded to NCCL: ncclAvg: the stdlib has no average"
expect fwd-none.txt "ncclAllReduce(int32): unhandled system error"
expect fwd-none.txt "AllReduce reduces float32, float16 and bfloat16 data, not int32), but forwarding is disabled: $none"
expect fwd-none.txt "foreign handle: invalid argument"
expect fwd-none.txt "NCCL_NVLS_ENABLE=0"
expect fwd-none.txt "forward: ok"

# Forwarded calls, the real NCCL loadable but unable to run (no GPU): the
# shadow communicator's creation fails and says why.
if [ -e /dev/nvidia0 ]; then
  echo "a GPU is present: the no-GPU forwarding check does not apply"
elif ! python3 -c 'import ctypes; ctypes.CDLL("libnccl.so.2")' 2>/dev/null; then
  echo "no libnccl.so.2 on the library path: the NCCL-without-GPU check does not apply"
else
  CCL_NCCL_LOG=2 "$check" forward 3 > fwd-nogpu.txt 2>&1 || { cat fwd-nogpu.txt; fail "forward (NCCL, no GPU)"; }
  cat fwd-nogpu.txt
  expect fwd-nogpu.txt "real NCCL: libnccl.so.2"
  expect fwd-nogpu.txt "rank 2/3: forwarding disabled: creating the shadow NCCL communicators (the real ncclCommInitAll of 3 ranks) failed: "
  expect fwd-nogpu.txt "ncclSend/ncclRecv group: "
  expect fwd-nogpu.txt "is forwarded to NCCL (the stdlib has no point-to-point calls), but forwarding is disabled: creating the shadow NCCL communicators"
  expect fwd-nogpu.txt "forward: ok"
fi
echo "PASSED"
