# Without a CUDA driver, asking for the CUDA target fails with a clear error
# (skipped on a machine with a GPU).
set -euo pipefail
source "$REPO/test/skip.sh"
have_gpu && skip "a GPU is present; this test needs a machine without one"
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=sm_90 --nranks=2 --dtype=float32 -o "$WORK/ap.so"
set +e
ccl-perf --lib "$WORK/ap.so" --algo allpairs_ll --target cuda -g 2 -b 1K -e 1K >"$WORK/out" 2>&1
rc=$?
set -e
cat "$WORK/out"
test "$rc" -eq 1
grep -q "libcuda.so.1" "$WORK/out"
