#!/usr/bin/env bash
# Host end-to-end tests: each test/e2e/*_test.sh gets the installed tools
# (out/bin, out/lib) and a scratch directory; prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/out/bin:$PATH"
export LD_LIBRARY_PATH="$PWD/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export REPO="$PWD"
pass=0 fail=0
for t in test/e2e/*_test.sh; do
  work=$(mktemp -d)
  start=$(date +%s)
  if WORK="$work" bash "$t" >"$work/log" 2>&1; then
    pass=$((pass + 1)); echo "PASS: $t ($(( $(date +%s) - start )) s)"
  else
    fail=$((fail + 1)); echo "FAIL: $t"; sed 's/^/    /' "$work/log" | tail -40
  fi
  rm -rf "$work"
done
echo "e2e: $pass passed, $fail failed"
((fail == 0))
