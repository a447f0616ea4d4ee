#!/usr/bin/env bash
# docs/dialect/ is up to date: each pair of arguments is the file mlir-tblgen
# generates now and the one committed. scripts/gen-docs.sh rewrites them.
# Usage: dialect_docs_test.sh GENERATED COMMITTED [GENERATED COMMITTED...]
set -euo pipefail
status=0
while (($#)); do
  diff -u "$2" "$1" || { echo "$2 is out of date: run scripts/gen-docs.sh"; status=1; }
  shift 2
done
((status == 0)) && echo "docs/dialect is up to date"
exit "$status"
