#!/usr/bin/env bash
# PyTorch through libcclnccl.so (docs/nccl-shim.md) on 2 GPUs, one process
# per GPU started by torchrun.
#
#   test/hw/torch_shim.sh build [OUT]   here (OUT: .carry/torch_shim)
#   OUT/torch_shim.sh run               on a machine with 2 GPUs and torch
#
# build compiles the stdlib bundle for sm_90 at 2 ranks (float32, float16,
# bfloat16, sum; messages up to 512 MiB), builds libcclnccl.so and copies
# them with libcclrt.so and torch_shim.py next to this script.
#
# run: torch_shim.py (all_reduce, all_gather_into_tensor,
# reduce_scatter_tensor, broadcast, all_to_all_single; float32, bfloat16,
# float16; 1 element to 256 MiB; eager and in a CUDA graph; calls back to
# back) twice under `torchrun --nproc-per-node 2`: with the shim preloaded
# (CCL_NCCL_LOG=2), then without it (PyTorch's own NCCL). Exit status 1 unless
# both runs have 0 wrong results, their result checksums are equal, and the
# shim's log shows AllReduce, AllGather and ReduceScatter served by cclc.
# Prints the all_reduce latency of both runs side by side, and how many
# calls of each kind cclc served and NCCL got. NCCL_NVLS_ENABLE=0 and
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1 throughout.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare torch_shim "${2:-}"
  out/bin/cclc stdlib/stdlib.ccl --target=sm_90 --nranks=2 \
      --dtype=float32,float16,bfloat16 --op=sum --max-bytes=512M \
      -o "$OUT/libccl_stdlib.so"
  hw_install out/lib/libcclnccl.so out/lib/libcclrt.so test/hw/torch_shim.sh \
      test/hw/torch_shim.py
  echo "torch_shim: built into $OUT"
  ;;
run)
  here=$(cd "$(dirname "$0")" && pwd)
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  status=0
  bad() { echo "FAILED: $*"; status=1; }
  trun() { timeout 240 python3 -m torch.distributed.run --nproc-per-node 2 \
      --master-port "$1" "$here/torch_shim.py" "$2"; }
  rm -f shim.json nccl.json # no stale results from an earlier run
  # The run with the shim first: it is the one this script is for (on a
  # machine with little time left, its log is what matters).
  t=$SECONDS
  LD_PRELOAD=$here/libcclnccl.so CCL_NCCL_BUNDLE=$here/libccl_stdlib.so \
    CCL_NCCL_LOG=2 LD_LIBRARY_PATH=$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    trun 29621 shim.json > shim.log 2>&1 || bad "the run with the shim (exit $?)"
  grep -v 'cclnccl\[' shim.log | grep -v '^\[' | tail -20
  echo "(the run with the shim took $((SECONDS - t)) s)"
  t=$SECONDS
  trun 29611 nccl.json > nccl.log 2>&1 || bad "the run without the shim (exit $?)"
  grep -v '^\[' nccl.log | tail -5
  echo "(the run without the shim took $((SECONDS - t)) s)"
  echo "calls by side (the shim's log):"
  grep -o 'nccl[A-Za-z]*(count=[^)]*): \(cclc\|forwarded\)' shim.log |
    sed 's/(count=[^)]*)//' | sort | uniq -c
  for f in AllReduce AllGather ReduceScatter; do
    grep -q "nccl$f(count=.*): cclc (" shim.log || bad "no nccl$f served by cclc"
  done
  python3 - nccl.json shim.json <<'PY' || status=1
import json, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except (OSError, ValueError) as e:
    print("FAILED: no results to compare:", e); sys.exit(1)
ok = a["wrong"] == 0 and b["wrong"] == 0
print(f"wrong: without the shim {a['wrong']}, with it {b['wrong']}")
diff = [k for k in a["checksums"] if a["checksums"][k] != b["checksums"].get(k)]
print(f"{len(a['checksums'])} checks; checksums that differ: {len(diff)}")
for k in diff[:20]:
    print("  differs:", k)
ok = ok and not diff and len(a["checksums"]) == len(b["checksums"])
print("all_reduce float32, us per call (2 GPUs; graph of 20 calls / eager)")
print(f"{'bytes':>10} {'NCCL graph':>11} {'shim graph':>11} {'NCCL eager':>11} {'shim eager':>11}")
for k in a["allreduce_us"]:
    if k.endswith("eager"):
        continue
    e = k + " eager"
    print(f"{k:>10} {a['allreduce_us'][k]:11.2f} {b['allreduce_us'][k]:11.2f}"
          f" {a['allreduce_us'][e]:11.2f} {b['allreduce_us'][e]:11.2f}")
sys.exit(0 if ok else 1)
PY
  [ $status = 0 ] && echo "torch_shim: all checks passed"
  exit $status
  ;;
*)
  echo "usage: $0 build [OUT] | run" >&2
  exit 2
  ;;
esac
