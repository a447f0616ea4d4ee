#!/usr/bin/env bash
# ncclCommSplit through libcclnccl.so on the host target
# (CCL_NCCL_TARGET=host; docs/nccl-shim.md): split_check.c, a C program
# written against nccl.h, splits 4 ranks (and 5) by rank % 2 (two 2-rank
# cclc communicators), as one (4 ranks, keys reversed), with
# NCCL_SPLIT_NOCOLOR and a 1-rank group, and into 1-rank groups (the stdlib
# has no 1-rank kernels: forwarded, which fails without a usable NCCL),
# driven by a thread per rank, by one thread (ncclCommInitAll;
# ncclCommInitRank in a group) and by a process per rank under ccl-run;
# AllReduce and AllGather on each new communicator, back to back, checked.
set -euo pipefail
source test/shim/env.sh
split=$root/test/shim/split_check

# No loadable NCCL: the forwarded groups fail, saying why.
nonccl=/nonexistent/libnccl.so.2
for mode in threads all group; do
  CCL_NCCL_LIBRARY=$nonccl timeout 300 "$split" "$mode" 4 > "split-$mode.txt" 2>&1 ||
    { cat "split-$mode.txt"; fail "split_check $mode 4"; }
  expect "split-$mode.txt" "ok: $mode, 4 ranks split"
  echo "ok: split_check $mode 4"
done
CCL_NCCL_LIBRARY=$nonccl timeout 300 "$split" all 5 > split-all5.txt 2>&1 ||
  { cat split-all5.txt; fail "split_check all 5"; }
expect split-all5.txt "ok: all, 5 ranks split"
echo "ok: split_check all 5"
rm -f split-id.bin
CCL_NCCL_LIBRARY=$nonccl timeout 300 "$dist/bin/ccl-run" -n 4 "$split" proc "$work/split-id.bin" > split-proc.txt 2>&1 ||
  { cat split-proc.txt; fail "ccl-run -n 4 split_check"; }
[ "$(grep -c '^ok: proc, 4 ranks split' split-proc.txt || true)" = 4 ] ||
  { cat split-proc.txt; fail "ccl-run -n 4 split_check: not every rank passed"; }
echo "ok: ccl-run -n 4 split_check proc"

# The log says which side each new communicator is.
CCL_NCCL_LIBRARY=$nonccl CCL_NCCL_LOG=2 timeout 300 "$split" threads 4 > split-log.txt 2>&1 ||
  { cat split-log.txt; fail "split_check log run"; }
expect split-log.txt "rank 1/4 ncclCommSplit(color=1, key=1): new communicator rank 0/2: cclc"
expect split-log.txt "rank 2/4 ncclCommSplit(color=0, key=2): new communicator rank 1/2: cclc"
expect split-log.txt "rank 0/4 ncclCommSplit(color=7, key=4): new communicator rank 3/4: cclc"
expect split-log.txt "rank 0/4 ncclCommSplit(color=NCCL_SPLIT_NOCOLOR, key=0): no new communicator (NCCL_SPLIT_NOCOLOR)"
expect split-log.txt "rank 1/4 ncclCommSplit(color=3, key=0): new communicator rank 0/2: cclc"
expect split-log.txt "rank 2/4 ncclCommSplit(color=2, key=0): the new communicator is forwarded to NCCL (the stdlib does not serve 1 rank: the bundle's plans are compiled for 2..8 ranks), but: forwarding is disabled: no loadable NCCL: CCL_NCCL_LIBRARY=$nonccl"
expect split-log.txt "rank 3/4 ncclCommSplit(color=5, key=0): failed"
expect split-log.txt "rank 1/2 ncclAllReduce(count=1000, float32, sum): cclc ("
expect split-log.txt "rank 3/4 ncclAllGather(count=20000, int32): cclc ("
echo "ok: the log lines"

# The real NCCL loadable but unable to run (no GPU): the forwarded groups
# fail as the shadow cannot be made; the cclc ones work.
if [ -e /dev/nvidia0 ]; then
  echo "a GPU is present: the no-GPU split check does not apply"
elif ! python3 -c 'import ctypes; ctypes.CDLL("libnccl.so.2")' 2>/dev/null; then
  echo "no libnccl.so.2 on the library path: the NCCL-without-GPU check does not apply"
else
  for mode in threads all; do
    timeout 300 "$split" "$mode" 4 > "split-nogpu-$mode.txt" 2>&1 ||
      { cat "split-nogpu-$mode.txt"; fail "split_check $mode 4 (NCCL, no GPU)"; }
    expect "split-nogpu-$mode.txt" "the new communicator is forwarded to NCCL (the stdlib does not serve 1 rank: the bundle's plans are compiled for 2..8 ranks), but: forwarding is disabled: creating the shadow NCCL communicator"
    expect "split-nogpu-$mode.txt" "ok: $mode, 4 ranks split"
    echo "ok: split_check $mode 4 (NCCL, no GPU)"
  done
fi
echo "PASSED"
