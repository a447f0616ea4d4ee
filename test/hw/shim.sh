#!/usr/bin/env bash
# libcclnccl.so, the NCCL drop-in library (docs/nccl-shim.md), on one GPU.
#
#   test/hw/shim.sh build [OUT]     here (the toolchain, CUDA headers and
#                                   libcudart; OUT: .carry/shim)
#   OUT/shim.sh run                 on the GPU machine
#
# build compiles the stdlib bundle for sm_90 (2..4 ranks, float32, float16,
# bfloat16, every operator), builds libcclnccl.so and test/shim/nccl_check.c
# with -DSHIM_CUDA (device memory, a stream per rank) and copies them with
# libcclrt.so next to this script.
#
# run (exit status 1 on any mismatch or missing log line):
#  1. nccl_check with 2 ranks on GPU 0 (ncclCommInitAll with devices 0,0,
#     and one thread with ncclCommInitRank x 2 in a group), every collective
#     4 times back to back, all served by cclc kernels (the per-call log is
#     checked: no call forwarded);
#  2. a single-rank PyTorch job (torch.distributed, backend nccl) with the
#     shim LD_PRELOADed: all_reduce, checked; at 1 rank the stdlib serves
#     nothing, so the call is forwarded to the real NCCL (PyTorch's own
#     libnccl.so.2), and the shim's per-call log says so. Skipped (said so)
#     when python3 has no torch with CUDA.
# NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 throughout.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare shim "${2:-}"
  out/bin/cclc stdlib/stdlib.ccl --target=sm_90 --nranks=2..4 \
      --dtype=float32,float16,bfloat16 --op=sum,prod,max,min --max-bytes=4M \
      -o "$OUT/libccl_stdlib.so"
  bazel ${BAZEL_FLAGS:-} build //shim:libcclnccl.so
  cp -L bazel-bin/shim/libcclnccl.so out/lib/libcclrt.so test/hw/shim.sh "$OUT/"
  chmod u+w "$OUT"/*
  cuda=${CUDA_HOME:-/usr/local/cuda}
  gcc -O1 -std=c11 -DSHIM_CUDA -I. -I"$cuda/include" test/shim/nccl_check.c \
      -o "$OUT/nccl_check" -L"$OUT" -l:libcclnccl.so -L"$cuda/lib64" -lcudart \
      -Wl,-rpath,'$ORIGIN' -pthread
  rm -f "$OUT"/*.h
  echo "shim: built into $OUT"
  ;;
run)
  here=$(cd "$(dirname "$0")" && pwd)
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  export CCL_NCCL_BUNDLE=$here/libccl_stdlib.so CCL_NCCL_LOG=2
  export LD_LIBRARY_PATH=$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  status=0
  bad() { echo "FAILED: $*"; status=1; }
  for m in all group; do
    CUDA_DEVICE=0 timeout 300 "$here/nccl_check" "$m" 2 4 > "c-$m.log" 2>&1
    rc=$?
    grep -v 'cclc (' "c-$m.log" | head -40
    echo "($(grep -c 'cclc (' "c-$m.log") calls served by cclc)"
    [ $rc = 0 ] && grep -q "^ok: $m" "c-$m.log" || bad "nccl_check $m 2 (exit $rc)"
    grep -q 'forwarded to NCCL' "c-$m.log" && bad "nccl_check $m 2: a call was forwarded"
    grep -q 'ncclAllReduce(count=20000, float32, sum): cclc (' "c-$m.log" || bad "nccl_check $m 2: no served AllReduce in the log"
  done
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    cat > torch_allreduce.py <<'PY'
import os, sys, torch, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
torch.cuda.set_device(0)
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
ok = torch.equal(x, torch.arange(1 << 20, dtype=torch.float32, device="cuda"))
print("torch all_reduce:", "ok" if ok else "MISMATCH")
dist.destroy_process_group()
sys.exit(0 if ok else 1)
PY
    LD_PRELOAD=$here/libcclnccl.so CCL_NCCL_LOG=3 timeout 300 python3 torch_allreduce.py > torch.log 2>&1
    rc=$?
    cat torch.log
    echo "NCCL functions PyTorch called (CCL_NCCL_LOG=3):"
    grep -o 'cclnccl\[[0-9]*\]: \(rank [0-9/]* \)\?nccl[A-Za-z]*' torch.log |
        grep -o 'nccl[A-Za-z]*$' | sort | uniq -c
    [ $rc = 0 ] && grep -q "torch all_reduce: ok" torch.log || bad "PyTorch all_reduce (exit $rc)"
    grep -q 'cclnccl\[' torch.log || bad "PyTorch: the shim was not loaded (no cclnccl log line)"
    grep -q 'ncclAllReduce(count=1048576, float32, sum): forwarded to NCCL' torch.log ||
        bad "PyTorch: no per-call line for the forwarded all_reduce"
  else
    echo "SKIPPED: PyTorch job: python3 has no torch with CUDA"
  fi
  [ $status = 0 ] && echo "shim: all checks passed"
  exit $status
  ;;
*)
  echo "usage: $0 build [OUT] | run" >&2
  exit 2
  ;;
esac
