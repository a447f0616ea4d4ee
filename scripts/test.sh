#!/usr/bin/env bash
# The whole test suite: set up, build, then Bazel unit tests (runtime,
# device library, ccl-perf, example), the lit tests (frontend, dialect,
# passes, code generation), the host end-to-end tests and a 60 s fuzzing run
# of the frontend (scripts/fuzz.sh; its own clang/ASan build, --config=fuzz).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh || exit 1
scripts/build.sh || exit 1
echo "test: clean build done after $(( $(date +%s) - start )) s"

failed=()
echo "== bazel unit tests"
bazel test --test_output=errors //test/runtime/... //test/device/... //test/perf/... //examples/... ||
  failed+=("bazel test")

echo "== lit"
CCLC_BIN_DIR="$PWD/out/bin" /usr/lib/llvm-22/bin/lit -sv test/lit || failed+=("lit")

echo "== host end-to-end"
bash test/e2e/run.sh || failed+=("e2e")

echo "== fuzz (frontend, 60 s)"
bash scripts/fuzz.sh --time 60 || failed+=("fuzz")

echo "test: finished after $(( $(date +%s) - start )) s"
if ((${#failed[@]})); then
  echo "test: FAILED: ${failed[*]}"
  exit 1
fi
echo "test: all suites passed"
