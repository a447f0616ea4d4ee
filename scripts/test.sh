#!/usr/bin/env bash
# The whole test suite (CI: .ci/run): set up, build, then `bazel test //...`
# (unit tests of the runtime, device library, ccl-perf and example; the lit
# suite; the host end-to-end tests, the long sweeps sharded; the
# differential test; docs/dialect up to date), the GPU tests when this
# machine has a GPU, the sanitizer runs (every test tagged "asan" with
# --config=asan, every test tagged "tsan" with --config=tsan: DEVELOPERS.md
# "Sanitizers"), then every fuzzer of scripts/fuzz.sh for a fixed time
# (frontend, verifier, mlir, plan, bootstrap; two at a time), built with --config=fuzz,
# which is the ASan build plus libFuzzer's coverage (one instrumented build
# of the compiler serves both). Then it lists what was skipped (the GPU
# tests on a machine without one, and every "SKIPPED:" line of the tests'
# logs: test/skip.sh) and the time of each part against its budget.
#
# The budgets (seconds, on the 2-core CI machine from a cold Bazel cache;
# the whole suite must stay within 30 minutes), split as the parts
# measured from a cold cache (test/hw/results/suite-2cpu-2026-12-03: 197,
# 967, 502, 38 and 167 s; 2026-12-07: 219, 825, 502, 45 and 138 s, 1729 s
# in all): a part over its budget is reported as such at the end (the
# suite does not fail for it).
#
# Environment: BAZEL (default "bazel"), e.g.
#   BAZEL="bazel --output_base=$HOME/.cache/bazel-mine" scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source test/skip.sh
read -ra bazel <<<"${BAZEL:-bazel}"
declare -A budget=([build]=240 [test]=900 [asan]=450 [tsan]=60 [fuzz]=150)
parts=() failed=()
start=$(date +%s)
part_start() { part_t0=$(date +%s); }
part_end() {
  local t=$(( $(date +%s) - part_t0 ))
  parts+=("$1:$t")
  echo "test: $1 took $t s (budget ${budget[$1]} s)"
}

part_start
scripts/setup.sh || exit 1
scripts/build.sh || exit 1
part_end build

part_start
echo "== bazel test //..."
"${bazel[@]}" test --test_output=errors //... || failed+=("bazel test //...")
part_end test
ran=$("${bazel[@]}" query 'tests(//...) except attr(tags, "\bmanual\b", //...)')
gpu=$("${bazel[@]}" query 'attr(tags, "\bgpu\b", tests(//...))')

if have_gpu; then
  echo "== GPU tests"
  # shellcheck disable=SC2086
  "${bazel[@]}" test --test_output=errors $gpu || failed+=("GPU tests")
  ran+=$'\n'$gpu
  gpu=
fi

# ASan+UBSan (--config=asan, .bazelrc): every test tagged "asan" (the
# runtime's tests and the host end-to-end and ccl-perf tests that exercise
# the runtime's paths; the BUILD files say which and why), with cclc,
# ccl-perf and libcclrt all instrumented. TSan (--config=tsan): every test
# tagged "tsan" (the runtime's host-target tests: threads as ranks, the
# proxy, the monitor and watchdog threads).
for san in asan tsan; do
  part_start
  tests=$("${bazel[@]}" query "attr(tags, \"\\b$san\\b\", tests(//...))" 2>/dev/null)
  [ -n "$tests" ] || { echo "test: no test is tagged $san"; failed+=("$san"); continue; }
  echo "== $san: $(wc -w <<<"$tests") tests"
  # shellcheck disable=SC2086
  "${bazel[@]}" test --config=$san --test_output=errors $tests || failed+=("$san")
  part_end "$san"
done

# Each fuzzer of scripts/fuzz.sh for a fixed time: the front end, the
# verifier and lowering from .ccl and from MLIR, libcclrt's bootstrap wire
# format and its checks of plan tables. A fuzzer is one process on one
# core: all are built first, then run two at a time (the CI machine has
# two cores), each with its own output shown when it ends. Their times add
# up to 120 s, so that the build and each run's setup fit the part's 150 s
# (at 150 s of fuzzing alone the part took 158-167 s).
part_start
"${bazel[@]}" build --config=fuzz --symlink_prefix=/ //test/fuzz:frontend_fuzzer \
  //test/fuzz:verifier_fuzzer //test/fuzz:ccl_opt_fuzzer //test/fuzz:bootstrap_fuzzer \
  //test/fuzz:plan_fuzzer || failed+=("fuzz build")
fuzz_dir=$(mktemp -d)
for pair in "frontend:45 verifier:45" "mlir:45 plan:45" "bootstrap:30"; do
  for run in $pair; do
    fuzzer=${run%%:*} secs=${run#*:}
    (bash scripts/fuzz.sh --fuzzer "$fuzzer" --time "$secs" > "$fuzz_dir/$fuzzer.log" 2>&1
     echo $? > "$fuzz_dir/$fuzzer.rc") &
  done
  wait
  for run in $pair; do
    fuzzer=${run%%:*} secs=${run#*:}
    echo "== fuzz ($fuzzer, $secs s)"
    cat "$fuzz_dir/$fuzzer.log"
    [[ $(cat "$fuzz_dir/$fuzzer.rc") == 0 ]] || failed+=("fuzz $fuzzer")
  done
done
rm -rf "$fuzz_dir"
part_end fuzz

echo "== skipped"
for t in $gpu; do
  echo "$t: no GPU on this machine"
done
for t in $ran; do
  log=bazel-testlogs/$(sed 's|^//||; s|:|/|' <<<"$t")/test.log
  grep -h '^SKIPPED: ' "$log" 2>/dev/null | sed "s|^SKIPPED: |$t: |"
done

echo "== time (s)"
over=()
for p in "${parts[@]}"; do
  name=${p%%:*} t=${p#*:}
  mark=
  ((t > budget[$name])) && { mark=" OVER BUDGET"; over+=("$name"); }
  printf '%-6s %6d of %6d%s\n' "$name" "$t" "${budget[$name]}" "$mark"
done
echo "test: finished after $(( $(date +%s) - start )) s"
((${#over[@]})) && echo "test: over budget: ${over[*]}"
if ((${#failed[@]})); then
  echo "test: FAILED: ${failed[*]}"
  exit 1
fi
echo "test: all suites passed"
