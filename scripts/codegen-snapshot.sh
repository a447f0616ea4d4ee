#!/usr/bin/env bash
# Writes the LLVM IR and the PTX / host assembly that cclc emits for every
# stdlib program (and the e2e programs) at 2, 3, 4 and 8 ranks into OUTDIR,
# one file per program, rank count, target and level. Two snapshots taken
# before and after a refactoring are compared with `diff -r`.
#   scripts/codegen-snapshot.sh OUTDIR [CCLC]
set -euo pipefail
out=${1:?usage: codegen-snapshot.sh OUTDIR [CCLC]}
cclc=${2:-$(dirname "$0")/../out/bin/cclc}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
progs=("$root"/stdlib/{allreduce,allgather,reducescatter,alltoall,broadcast,reduce}/*.ccl
       "$root"/test/e2e/programs/*.ccl)
jobs=()
for src in "${progs[@]}"; do
  name=$(basename "$src" .ccl)
  for n in 2 3 4 8; do
    for t in host sm_90; do
      for e in llvm asm; do
        jobs+=("$src $name $n $t $e")
      done
    done
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c '
  src=$0 name=$1 n=$2 t=$3 e=$4
  f="'"$out"'/$name.n$n.$t.$e"
  if ! "'"$cclc"'" "$src" --nranks="$n" --target="$t" --emit="$e" \
      --max-bytes=1M -o "$f" 2> "$f.err"; then
    echo "$name n=$n $t $e: cclc failed (see $f.err)" >&2
  fi
  [ -s "$f.err" ] || rm -f "$f.err"'
echo "snapshot: $(ls "$out" | wc -l) files in $out"
