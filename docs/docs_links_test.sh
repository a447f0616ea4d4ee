#!/usr/bin/env bash
# The docs check on the repository (docs/check_docs.py): every relative
# link of a Markdown file and every Markdown file of docs/ that a file cites exists, and
# the root holds no stray file. The checker reads the source tree itself
# (found through its own path, which Bazel links to the checkout), then
# must report a planted broken link, a citation of a missing doc and a
# stray root file.
set -euo pipefail
script=$(readlink -f "$1")
root=$(cd "$(dirname "$script")/.." && pwd)
if ! git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  echo "SKIPPED: $root is not a git checkout; the docs check reads its tracked files"
  exit 0
fi
python3 "$script" "$root" || { echo "FAILED: the tree's docs have the problems above"; exit 1; }
echo "ok: the tree"

# (The planted names are spelled through $d: this file is checked too.)
d=docs
tree=${TEST_TMPDIR:-$(mktemp -d)}/planted
mkdir -p "$tree/$d" "$tree/src"
printf 'See [the guide](guide.md) and [this](a.md).\n' > "$tree/$d/a.md"
printf '// How it works: %s/nothing.md\n' "$d" > "$tree/src/x.cc"
echo 'bash: line 40: ./test: Is a directory' > "$tree/out.l1"
if python3 "$script" "$tree" "$d/a.md" src/x.cc out.l1 > "$tree/report.txt"; then
  cat "$tree/report.txt"; echo "FAILED: the planted problems were not reported"; exit 1
fi
for want in "$d/a.md: the link to guide.md leads nowhere" \
    "src/x.cc: cites $d/nothing.md, which does not exist" \
    "out.l1: a stray file at the repository's root"; do
  grep -qxF -- "$want" "$tree/report.txt" ||
    { cat "$tree/report.txt"; echo "FAILED: not reported: $want"; exit 1; }
done
[ "$(wc -l < "$tree/report.txt")" -eq 3 ] ||
  { cat "$tree/report.txt"; echo "FAILED: more than the 3 planted problems reported"; exit 1; }
echo "ok: the planted broken link, missing doc and stray file are reported"
