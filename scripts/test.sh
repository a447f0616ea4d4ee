#!/usr/bin/env bash
# The whole test suite (CI: .ci/run): set up, build, then `bazel test //...`
# (unit tests of the runtime, device library, ccl-perf and example; the lit
# suite; the host end-to-end tests; docs/dialect up to date), the GPU tests
# when this machine has a GPU, the ASan+UBSan and TSan runs (--config=asan,
# --config=tsan: DEVELOPERS.md "Sanitizers"), then every fuzzer of
# scripts/fuzz.sh for a minute (frontend, verifier, mlir, plan; bootstrap
# 30 s), in their own clang/ASan build (--config=fuzz). Then it lists what
# was skipped: the GPU tests on a machine without one, and every "SKIPPED:"
# line of the tests' logs (test/skip.sh).
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

# ASan+UBSan (--config=asan, .bazelrc): the runtime's tests and the host
# end-to-end and ccl-perf tests that exercise the runtime's paths (in
# process, one process per rank, proxy over TCP and verbs, timeouts and
# faults) with cclc, ccl-perf and libcclrt all instrumented. Tests that
# compile C++ against libcclrt with the system compiler (readme, tutorial,
# multiproc_faults, stdlib_bundle_api) and the long program sweeps
# (b2b_programs, stdlib_bundle, the Simple chunk/allpairs sweeps) are left
# to the plain build.
asan_tests=(
  //test/runtime:all //test/runtime/fake_ibverbs:all //test/runtime/hip:all
  //test/e2e:simple_hang_test //test/e2e:hang_report_test
  //test/e2e:host_allpairs_test //test/e2e:dropped_contribution_test
  //test/e2e:b2b_negative_test //test/e2e:simple_ring_test
  //test/e2e:port_channels_test //test/e2e:ib_transport_test
  //test/e2e:rank_dependent_chunks_test
  //test/perf:perf_errors_test //test/perf:perf_b2b_test
  //test/perf:perf_multiprocess_test //test/perf:perf_collectives_test
)
echo "== ASan+UBSan: ${asan_tests[*]}"
"${bazel[@]}" test --config=asan --test_output=errors "${asan_tests[@]}" ||
  failed+=("asan")
# TSan (--config=tsan): the runtime's host-target tests (threads as ranks,
# the proxy, the monitor and watchdog threads).
echo "== TSan: //test/runtime:all"
"${bazel[@]}" test --config=tsan --test_output=errors //test/runtime:all ||
  failed+=("tsan")

# Each fuzzer of scripts/fuzz.sh for a fixed time: the front end, the
# verifier and lowering from .ccl and from MLIR, libcclrt's bootstrap wire
# format and its checks of plan tables.
for run in frontend:60 verifier:60 mlir:60 bootstrap:30 plan:60; do
  fuzzer=${run%%:*} secs=${run#*:}
  echo "== fuzz ($fuzzer, $secs s)"
  bash scripts/fuzz.sh --fuzzer "$fuzzer" --time "$secs" ||
    failed+=("fuzz $fuzzer")
done

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
