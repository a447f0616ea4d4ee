#!/usr/bin/env bash
# Writes what cclc emits for every stdlib program and the test programs
# (test/e2e/programs, test/semantic/programs) into OUTDIR, one file per
# program, rank count set, target and level, so that two snapshots taken
# before and after a change are compared with `diff -r`:
#   * each rank count alone (2, 3, 4, 8) and 2..8 in one library: the LLVM
#     IR for host, sm_90 and gfx942, and the PTX, host and AMDGPU assembly
#     of each rank count alone;
#   * the library of 2..8 ranks for host, sm_90 (PTX only) and gfx942
#     together: its header (NAME.n2-8.h) and its plans
#     (NAME.n2-8.plans, scripts/plan-dump.py: variants, scratch, kernels,
#     channels, images' sizes).
#   scripts/codegen-snapshot.sh OUTDIR [CCLC]
# CCLC defaults to out/bin/cclc (scripts/build.sh); its libcclrt.so (../lib)
# loads the libraries for the plan dump. Runs nproc compiles at a time.
set -euo pipefail
out=${1:?usage: codegen-snapshot.sh OUTDIR [CCLC]}
cclc=$(realpath "${2:-$(dirname "$0")/../out/bin/cclc}")
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
progs=("$root"/stdlib/{allreduce,allgather,reducescatter,alltoall,broadcast,reduce}/*.ccl
       "$root"/test/e2e/programs/*.ccl "$root"/test/semantic/programs/*.ccl)
jobs=()
for src in "${progs[@]}"; do
  name=$(basename "$src" .ccl)
  for n in 2 3 4 8 2..8; do
    for t in host sm_90 gfx942; do
      for e in llvm asm; do
        [[ $n == 2..8 && $e == asm ]] && continue
        jobs+=("$src $name $n $t $e")
      done
    done
  done
  jobs+=("$src $name 2..8 host,sm_90,gfx942 so")
done
export CCLC_PTXAS=none # sm_90 libraries: PTX only, whatever ptxas is here
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c '
  src=$0 name=$1 n=$2 t=$3 e=$4 out="'"$out"'" cclc="'"$cclc"'"
  tag=n${n/../-}
  if [[ $e == so ]]; then
    f=$out/$name.$tag.so
    if "$cclc" "$src" --nranks="$n" --target="$t" --max-bytes=1M -o "$f" 2> "$f.err"; then
      LD_LIBRARY_PATH=$(dirname "$cclc")/../lib python3 "'"$root"'/scripts/plan-dump.py" "$f" \
        > "$out/$name.$tag.plans" 2>> "$f.err" ||
        echo "$name $tag: plan-dump failed (see $f.err)" >&2
      rm -f "$f"
    else
      echo "$name $tag $t: cclc failed (see $f.err)" >&2
    fi
  else
    f=$out/$name.$tag.$t.$e
    if ! "$cclc" "$src" --nranks="$n" --target="$t" --emit="$e" \
        --max-bytes=1M -o "$f" 2> "$f.err"; then
      echo "$name $tag $t $e: cclc failed (see $f.err)" >&2
    fi
  fi
  [ -s "$f.err" ] || rm -f "$f.err"'
echo "snapshot: $(ls "$out" | wc -l) files in $out"
