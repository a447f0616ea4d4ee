#!/usr/bin/env bash
# Fuzzes cclc and libcclrt with libFuzzer for a bounded time: builds the
# chosen target of //test/fuzz with --config=fuzz (clang-22, ASan, UBSan),
# runs it on a copy of its seed corpus in a temporary directory and prints
# libFuzzer's summary. Exits non-zero when the fuzzer finds a crash, a
# sanitizer report, a leak, a timeout or an out-of-memory; the input that
# caused it is saved under test/fuzz/crashes/ and printed in base64 (CI logs
# carry it). Known open bugs (test/fuzz/regressions/) are not findings; the
# script says whether each still reproduces. See DEVELOPERS.md, "Fuzzing".
#
#   scripts/fuzz.sh [--time SECONDS] [--fuzzer NAME]
#
# --time defaults to 60 s. --fuzzer (default frontend) is one of
#   frontend   the .ccl front end (//test/fuzz:frontend_fuzzer, corpus
#              test/fuzz/corpus/)
#   verifier   .ccl programs through the front end, ccl-verify and the
#              lowering to the kernel level (//test/fuzz:verifier_fuzzer,
#              corpus test/fuzz/corpus/ and test/fuzz/verifier_corpus/)
#   mlir       textual ccl-dialect MLIR as ccl-opt reads it, through the
#              same passes (//test/fuzz:ccl_opt_fuzzer, test/fuzz/mlir_corpus/)
#   bootstrap  libcclrt's bootstrap wire format and links
#              (//test/fuzz:bootstrap_fuzzer, test/fuzz/bootstrap_corpus/)
#   plan       libcclrt's checks of the plan tables a generated library
#              registers (//test/fuzz:plan_fuzzer, test/fuzz/plan_corpus/)
#   semantic   the differential test (test/semantic/README.md): fresh seeds
#              of generated programs, every form, compared with their
#              contract; failing programs are copied to
#              test/semantic/regressions/ (no libFuzzer, the plain build)
#
# Environment: BAZEL (default "bazel"), e.g.
#   BAZEL="bazel --output_base=$HOME/.cache/bazel-fuzz" scripts/fuzz.sh
# to keep the fuzz build in its own Bazel server. Extra libFuzzer flags can
# be given in FUZZ_FLAGS (e.g. FUZZ_FLAGS="-seed=1 -only_ascii=1").
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

usage() { sed -n '2,35s/^# \{0,1\}//p' "$0"; }

time_s=60
fuzzer=frontend
while (($#)); do
  case $1 in
    --time) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; time_s=$2; shift 2 ;;
    --time=*) time_s=${1#--time=}; shift ;;
    --fuzzer) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; fuzzer=$2; shift 2 ;;
    --fuzzer=*) fuzzer=${1#--fuzzer=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "fuzz: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
# The target, its seed corpora (the first one is where new seeds go) and
# its flags.
case $fuzzer in
  frontend) target=frontend_fuzzer corpora=(test/fuzz/corpus)
    dict=(-dict="$repo/test/fuzz/ccl.dict") ;;
  verifier) target=verifier_fuzzer
    corpora=(test/fuzz/verifier_corpus test/fuzz/corpus)
    dict=(-dict="$repo/test/fuzz/ccl.dict" -max_len=8192) ;;
  mlir) target=ccl_opt_fuzzer corpora=(test/fuzz/mlir_corpus)
    dict=(-dict="$repo/test/fuzz/mlir.dict" -max_len=8192) ;;
  bootstrap) target=bootstrap_fuzzer corpora=(test/fuzz/bootstrap_corpus)
    dict=(-max_len=4096) ;;
  plan) target=plan_fuzzer corpora=(test/fuzz/plan_corpus)
    dict=(-dict="$repo/test/fuzz/plan.dict" -max_len=16384) ;;
  semantic) ;;
  *) echo "fuzz: --fuzzer is frontend, verifier, mlir, bootstrap, plan or semantic, not '$fuzzer'" >&2
    exit 2 ;;
esac
[[ $time_s =~ ^[0-9]+$ && $time_s -gt 0 ]] ||
  { echo "fuzz: --time needs a positive number of seconds, not '$time_s'" >&2; exit 2; }
if [[ $fuzzer == semantic ]]; then
  scripts/setup.sh
  read -ra bazel <<<"${BAZEL:-bazel}"
  "${bazel[@]}" build //tools:dist //test/semantic:contract_run
  bin=$("${bazel[@]}" info bazel-bin 2>/dev/null)
  export PATH="$bin/tools/dist/bin:$PATH"
  export LD_LIBRARY_PATH="$bin/tools/dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  exec python3 test/semantic/semantic.py --minutes "$(python3 -c "print($time_s / 60)")" \
    --forms full --keep test/semantic/regressions \
    --runner "$bin/test/semantic/contract_run"
fi

scripts/setup.sh

read -ra bazel <<<"${BAZEL:-bazel}"
start=$(date +%s)
# --symlink_prefix=/: leave bazel-bin & co. pointing at the normal build.
"${bazel[@]}" build --config=fuzz --symlink_prefix=/ //test/fuzz:$target
echo "fuzz: build took $(( $(date +%s) - start )) s"
bin="$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)/test/fuzz/$target"
[[ -x $bin ]] || { echo "fuzz: $bin was not built" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cclc-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
seeds=0
for c in "${corpora[@]}"; do
  cp "$c"/* "$work/corpus/"
  seeds=$((seeds + $(ls "$c" | wc -l)))
done

echo "fuzz: running $bin for $time_s s on a copy of ${corpora[*]} ($(ls "$work/corpus" | wc -l) inputs)"
read -ra extra <<<"${FUZZ_FLAGS:-}"
rc=0
(cd "$work" && "$bin" \
    -max_total_time="$time_s" -timeout=10 -rss_limit_mb=4096 \
    "${dict[@]}" -artifact_prefix="$work/artifacts/" \
    -print_final_stats=1 "${extra[@]}" corpus >"$work/log" 2>&1) || rc=$?

# libFuzzer's last status line ('#N DONE cov: ... ft: ... corp: ... exec/s:
# ...'), or the last one before it stopped, then its final statistics.
grep -E '^#[0-9]+' "$work/log" | tail -n 1 || true
grep -E '^stat::' "$work/log" || true
echo "fuzz: corpus grew from $seeds to $(ls "$work/corpus" | wc -l) inputs"

# Known open bugs (test/fuzz/regressions/, ignored by the fuzzer unless
# CCL_FUZZ_STRICT=1): say which still reproduce. Informational only.
# The front end's are test/fuzz/regressions/*.ccl, the other fuzzers' in
# test/fuzz/regressions/FUZZER/.
if [[ $fuzzer == frontend ]]; then
  known=(test/fuzz/regressions/*.ccl)
else
  known=(test/fuzz/regressions/"$fuzzer"/*)
fi
for f in "${known[@]}"; do
  [[ -e $f && $f != *.md ]] || continue
  if CCL_FUZZ_STRICT=1 "$bin" "$f" >/dev/null 2>&1; then
    echo "fuzz: $f no longer fails: move it to ${corpora[0]}/ and drop its entry in the fuzzer's list of known bugs"
  else
    echo "fuzz: known bug still open: $f"
  fi
done

# slow-unit-* files are only informational; these are findings.
shopt -s nullglob
found=("$work"/artifacts/{crash,leak,timeout,oom}-*)
if ((rc != 0 || ${#found[@]})); then
  echo "fuzz: FAILED (libFuzzer exit status $rc); the end of its log:"
  tail -n 80 "$work/log"
  mkdir -p test/fuzz/crashes
  for f in "${found[@]}"; do
    dest="$repo/test/fuzz/crashes/$(basename "$f")"
    cp "$f" "$dest"
    echo "fuzz: input saved as $dest ($(wc -c <"$f") bytes); base64:"
    base64 "$f"
  done
  echo "fuzz: replay with: $bin $repo/test/fuzz/crashes/<file>  (CCL_FUZZ_VERBOSE=1 prints the diagnostics)"
  exit 1
fi
echo "fuzz: no crash in $time_s s"
