# The whole stdlib compiles for AMD GPUs: the bundle (stdlib/stdlib.ccl) and
# the algorithms it leaves out, for gfx942 and gfx90a at 2..8 ranks
# (float32, sum; the dtype and operator only change the reduction's
# arithmetic). Then, of each library (amdgpu/plan_images.py loads it and
# reads what it registers): one AMDGPU plan per algorithm holding a gfx942
# and a gfx90a code object, the same for all algorithms; and of each code
# object (llvm-readelf --notes): an AMDGPU shared object for its
# architecture whose metadata lists exactly the plans' kernels (or their
# per-rank forms), each with the 32-byte kernel signature, 256 threads,
# no scratch memory, no stack and no spills. Last, one library for gfx942,
# gfx90a, sm_90 and host: one plan per plan target, and its host plan runs
# (ccl-perf, 2 ranks). No AMD GPU runs anything here. About 5.5 minutes
# of CPU on one core (cold CI run of 2026-12-07, two cores busy: 253 s the
# bundle, 39 s ring_rs_overlap.ccl, 31 s ring_wide_tiled.ccl; almost all
# of it LLVM's O3 and AMDGPU code generation, once per architecture).
# Bazel runs it in shards (test/shard.sh): the bundle, each algorithm it
# leaves out and the library for every target are one shard's each.
# Usage: amdgpu_stdlib_test.sh [NRANKS]   (default 2..8)
set -euo pipefail
source "$REPO/test/shard.sh"
ranks=${1:-2..8}
export CCLC_PTXAS=none # sm_90: PTX only (no cubin), whatever is installed
readelf=
for r in "$REPO/external/llvm/bin/llvm-readelf" /usr/lib/llvm-22/bin/llvm-readelf \
    "$(command -v llvm-readelf-22 || true)"; do
  if [ -n "$r" ] && [ -x "$r" ]; then readelf=$r; break; fi
done
[ -n "$readelf" ] || { echo "FAILED: no llvm-readelf"; exit 1; }

# check_hsaco FILE ARCH KERNELS: the code object's file header and notes.
check_hsaco() {
  local file=$1 arch=$2 kernels=$3 notes=$WORK/notes.txt
  "$readelf" --file-header --notes "$file" > "$notes"
  grep -qE 'Type: +DYN' "$notes" && grep -qE 'Machine: +EM_AMDGPU' "$notes" ||
    { echo "FAILED: $file is not an AMDGPU shared object"; exit 1; }
  grep -qE "^amdhsa.target: +amdgcn-amd-amdhsa--$arch\$" "$notes" ||
    { echo "FAILED: $file is not for $arch"; exit 1; }
  # A plan's kernel SYMBOL is one kernel, or one per rank, SYMBOL_rR (the
  # runtime looks for the rank's own first).
  sed -n 's/^ *\.name: *\(ccl_[A-Za-z0-9_]*\)$/\1/p' "$notes" | sort > "$WORK/names.txt"
  sed 's/_r[0-9]*$//' "$WORK/names.txt" | sort -u > "$WORK/symbols.txt"
  if ! cmp -s "$WORK/symbols.txt" "$kernels"; then
    echo "FAILED: the kernels of $file differ from the plans':"
    diff "$WORK/symbols.txt" "$kernels" || true
    exit 1
  fi
  local n
  n=$(wc -l < "$WORK/names.txt")
  [ "$n" -gt 0 ] || { echo "FAILED: no kernel in $file"; exit 1; }
  for field in '.kernarg_segment_size: 32' '.private_segment_fixed_size: 0' \
      '.uses_dynamic_stack: false' '.sgpr_spill_count: 0' \
      '.vgpr_spill_count: 0' '.max_flat_workgroup_size: 256' \
      '.wavefront_size: 64'; do
    local got
    got=$(grep -cE "^ +\\${field%%:*}: +${field#*: }\$" "$notes" || true)
    [ "$got" -eq "$n" ] ||
      { echo "FAILED: $file: $got of $n kernels have $field"; exit 1; }
  done
  echo "$file: $n kernels for $arch, no scratch"
}

# The bundle.
if mine; then
  start=$SECONDS
  cclc "$REPO/stdlib/stdlib.ccl" --target=gfx942,gfx90a \
    --nranks="$ranks" --dtype=float32 --op=sum -o "$WORK/bundle.so"
  echo "bundle: $((SECONDS - start)) s"
  algs=$(sed -n 's/^cclResult_t ccl_\([A-Za-z0-9_]*\)(.*/\1/p' "$WORK/bundle.h")
  [ "$(wc -w <<<"$algs")" -gt 20 ] || { echo "FAILED: algorithms: $algs"; exit 1; }
  mkdir -p "$WORK/bundle"
  python3 "$REPO/test/e2e/amdgpu/plan_images.py" "$WORK/bundle.so" "$WORK/bundle" \
    gfx942 gfx90a -- $algs
  for arch in gfx942 gfx90a; do
    check_hsaco "$WORK/bundle/$arch.hsaco" "$arch" "$WORK/bundle/kernels.txt"
  done
fi

# The algorithms the bundle does not import.
n=0
for f in "$REPO"/stdlib/*/*.ccl; do
  rel=${f#"$REPO/stdlib/"}
  grep -q "^import \"$rel\";" "$REPO/stdlib/stdlib.ccl" && continue
  n=$((n + 1))
  mine || continue
  name=$(basename "$f" .ccl)
  start=$SECONDS
  cclc "$f" --target=gfx942,gfx90a --nranks="$ranks" --dtype=float32 --op=sum \
    -o "$WORK/$name.so"
  echo "$rel: $((SECONDS - start)) s"
  mkdir -p "$WORK/$name"
  python3 "$REPO/test/e2e/amdgpu/plan_images.py" "$WORK/$name.so" "$WORK/$name" \
    gfx942 gfx90a -- "$(sed -n 's/^cclResult_t ccl_\([A-Za-z0-9_]*\)(.*/\1/p' "$WORK/$name.h")"
  for arch in gfx942 gfx90a; do
    check_hsaco "$WORK/$name/$arch.hsaco" "$arch" "$WORK/$name/kernels.txt"
  done
done
[ "$n" -gt 0 ] || { echo "FAILED: every stdlib algorithm is in the bundle?"; exit 1; }

# One library for every target: one plan per plan target (gfx942 and
# gfx90a share one), and the host plan runs beside the GPU plans.
if mine; then
  cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=gfx942,gfx90a,sm_90,host \
    --nranks=2,3 --dtype=float32 --op=sum -o "$WORK/mixed.so"
  mkdir -p "$WORK/mixed"
  python3 "$REPO/test/e2e/amdgpu/plan_images.py" "$WORK/mixed.so" "$WORK/mixed" \
    gfx942 gfx90a sm_90 host -- allpairs_ll
  for arch in gfx942 gfx90a; do
    check_hsaco "$WORK/mixed/$arch.hsaco" "$arch" "$WORK/mixed/kernels.txt"
  done
  ccl-perf --lib "$WORK/mixed.so" --algo allpairs_ll --target host -g 2 \
    -b 4 -e 4K -f 4 -d float32 -n 1 -w 0 | tee "$WORK/perf.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/perf.txt"
fi
shard_done
echo PASS
