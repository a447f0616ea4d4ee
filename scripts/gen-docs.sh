#!/usr/bin/env bash
# Regenerates docs/dialect/ (the ccl op and pass reference) from the ODS
# files, so the reference never drifts from dialect/, compiler/Transforms/
# and compiler/Conversion/.
# Run from anywhere; commit the result together with the .td change.
#
#   scripts/gen-docs.sh            # rewrite docs/dialect/*.md
#   scripts/gen-docs.sh --check    # exit 1 if they are out of date
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
llvm="${LLVM_DIR:-/usr/lib/llvm-22}"
tblgen="$llvm/bin/mlir-tblgen"
out="$root/docs/dialect"

gen() {
  "$tblgen" -gen-dialect-doc -dialect=ccl -I "$llvm/include" \
    -I "$root/dialect/include" "$root/dialect/include/ccl/Dialect/CclOps.td" >"$1/CclDialect.md"
  "$tblgen" -gen-pass-doc -I "$llvm/include" \
    "$root/compiler/Transforms/Passes.td" >"$1/Passes.md"
  "$tblgen" -gen-pass-doc -I "$llvm/include" \
    "$root/compiler/Conversion/Passes.td" >"$1/ConversionPasses.md"
}

if [[ "${1:-}" == "--check" ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  gen "$tmp"
  diff -u "$out/CclDialect.md" "$tmp/CclDialect.md"
  diff -u "$out/Passes.md" "$tmp/Passes.md"
  diff -u "$out/ConversionPasses.md" "$tmp/ConversionPasses.md"
  echo "docs/dialect is up to date"
  exit 0
fi

mkdir -p "$out"
gen "$out"
echo "wrote $out/CclDialect.md, $out/Passes.md and $out/ConversionPasses.md"
