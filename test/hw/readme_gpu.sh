#!/usr/bin/env bash
# The README's GPU commands, as written.
#
#   test/hw/readme_gpu.sh build [OUT]   here: runs the README's cclc lines of
#                                       its "# GPU (...)" blocks (cclc needs
#                                       LLVM, not a GPU) in OUT (default
#                                       .carry/readme), with out/bin and
#                                       out/lib beside them
#   OUT/readme_gpu.sh run               on the GPU machine: runs the other
#                                       lines of the "# GPU (one)" blocks, and
#                                       of the "# GPU (two)" blocks when there
#                                       are two GPUs, in a shell started with
#                                       env -i PATH=/usr/bin:/bin HOME=$HOME
set -euo pipefail
mode=${1:-}
case "$mode" in
build)
  ROOT=$(cd "$(dirname "$0")/../.." && pwd)
  OUT=${2:-$ROOT/.carry/readme}
  case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
  rm -rf "$OUT"
  mkdir -p "$OUT/out/bin" "$OUT/out/lib"
  cp "$ROOT/out/bin/ccl-perf" "$OUT/out/bin/"
  cp "$ROOT/out/lib/libcclrt.so" "$OUT/out/lib/"
  cp "$0" "$OUT/readme_gpu.sh"
  python3 - "$ROOT/README.md" > "$OUT/commands.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = 0
while i < len(lines):
    if lines[i].strip() == "```sh" and lines[i + 1].startswith("# GPU ("):
        kind = lines[i + 1].strip()[len("# GPU ("):-1]
        i += 2
        while lines[i].strip() != "```":
            if lines[i].strip():
                print(kind + "\t" + lines[i])
            i += 1
    i += 1
PY
  cd "$OUT"
  ln -s "$ROOT/stdlib" stdlib
  ln -s "$ROOT/out/bin/cclc" out/bin/cclc
  grep -P '\tout/bin/cclc ' commands.txt | cut -f2- | while IFS= read -r cmd; do
    echo "\$ $cmd"
    env -i PATH=/usr/bin:/bin HOME="$HOME" bash -c "$cmd"
  done
  rm stdlib out/bin/cclc
  echo "readme_gpu: built into $OUT ($(du -sh "$OUT" | cut -f1))"
  ;;
run)
  cd "$(dirname "$0")"
  export NCCL_NVLS_ENABLE=0
  ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  status=0
  while IFS=$'\t' read -r kind cmd; do
    [[ $cmd == out/bin/cclc* ]] && continue
    if [[ $kind == two && $ngpus -lt 2 ]]; then
      echo "skipped (needs two GPUs, $ngpus here): $cmd"
      continue
    fi
    echo "\$ $cmd"
    if ! env -i PATH=/usr/bin:/bin HOME="$HOME" NCCL_NVLS_ENABLE=0 bash -c "$cmd"; then
      echo "FAILED: $cmd"
      status=1
    fi
  done < commands.txt
  exit $status
  ;;
*)
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
