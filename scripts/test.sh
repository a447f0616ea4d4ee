#!/usr/bin/env bash
# The whole test suite (CI: .ci/run): set up, build, then `bazel test //...`
# (unit tests of the runtime, device library, ccl-perf and example; the lit
# suite; the host end-to-end tests; docs/dialect up to date), the GPU tests
# when this machine has a GPU, a 60 s fuzzing run of the frontend and a
# 30 s one of libcclrt's bootstrap wire format
# (scripts/fuzz.sh; its own clang/ASan build, --config=fuzz). Then it lists
# what was skipped: the GPU tests on a machine without one, and every
# "SKIPPED:" line of the tests' logs (test/skip.sh).
#
# Environment: BAZEL (default "bazel"), e.g.
#   BAZEL="bazel --output_base=$HOME/.cache/bazel-mine" scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source test/skip.sh
read -ra bazel <<<"${BAZEL:-bazel}"
start=$(date +%s)
scripts/setup.sh || exit 1
scripts/build.sh || exit 1
echo "test: clean build done after $(( $(date +%s) - start )) s"

failed=()
echo "== bazel test //..."
"${bazel[@]}" test --test_output=errors //... || failed+=("bazel test //...")
ran=$("${bazel[@]}" query 'tests(//...) except attr(tags, "\bmanual\b", //...)')
gpu=$("${bazel[@]}" query 'attr(tags, "\bgpu\b", tests(//...))')

if have_gpu; then
  echo "== GPU tests"
  # shellcheck disable=SC2086
  "${bazel[@]}" test --test_output=errors $gpu || failed+=("GPU tests")
  ran+=$'\n'$gpu
  gpu=
fi

echo "== fuzz (frontend, 60 s)"
bash scripts/fuzz.sh --time 60 || failed+=("fuzz")
echo "== fuzz (bootstrap wire format and links, 30 s)"
bash scripts/fuzz.sh --fuzzer bootstrap --time 30 || failed+=("fuzz bootstrap")

echo "== skipped"
for t in $gpu; do
  echo "$t: no GPU on this machine"
done
for t in $ran; do
  log=bazel-testlogs/$(sed 's|^//||; s|:|/|' <<<"$t")/test.log
  grep -h '^SKIPPED: ' "$log" 2>/dev/null | sed "s|^SKIPPED: |$t: |"
done

echo "test: finished after $(( $(date +%s) - start )) s"
if ((${#failed[@]})); then
  echo "test: FAILED: ${failed[*]}"
  exit 1
fi
echo "test: all suites passed"
