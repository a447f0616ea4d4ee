#!/usr/bin/env bash
# Regenerates docs/dialect/ (the ccl op and pass reference) from the ODS
# files, so the reference never drifts from dialect/, compiler/Transforms/ and
# compiler/Conversion/.
# Bazel generates them (//dialect:docs, //compiler/Transforms:passes_inc,
# //compiler/Conversion:passes_inc);
# //docs:dialect_docs_test, part of `bazel test //...`, fails when the
# committed ones differ. Run from anywhere; commit the result together with
# the .td change.
#
#   scripts/gen-docs.sh            # rewrite docs/dialect/*.md
#   scripts/gen-docs.sh --check    # exit 1 if they are out of date
#
# Environment: BAZEL (default "bazel").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
read -ra bazel <<<"${BAZEL:-bazel}"

if [[ "${1:-}" == "--check" ]]; then
  exec "${bazel[@]}" test --test_output=errors //docs:dialect_docs_test
fi

"${bazel[@]}" build //dialect:docs //compiler/Transforms:passes_inc \
  //compiler/Conversion:passes_inc
install -m 644 bazel-bin/dialect/CclDialect.md bazel-bin/compiler/Transforms/Passes.md docs/dialect/
install -m 644 bazel-bin/compiler/Conversion/Passes.md docs/dialect/ConversionPasses.md
echo "wrote $PWD/docs/dialect/CclDialect.md, Passes.md and ConversionPasses.md"
