# A generated library depends only on libcclrt and the C runtime (never
# LLVM), for the host and the NVPTX target alike.
set -euo pipefail
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=host,sm_90 --nranks=2 --dtype=float32 -o "$WORK/ap.so"
readelf -d "$WORK/ap.so" | tee "$WORK/dyn"
needed=$(grep NEEDED "$WORK/dyn" | sed 's/.*\[\(.*\)\]/\1/' | sort | tr '\n' ' ')
echo "NEEDED: $needed"
test "$needed" = "ld-linux-x86-64.so.2 libc.so.6 libcclrt.so "
grep -q 'Library soname: \[ap.so\]' "$WORK/dyn"
# The header next to it declares the entry point.
grep -q 'cclResult_t ccl_allpairs_ll(cclComm_t comm' "$WORK/ap.h"
