# The differential test (run by test/e2e/harness.sh: the installed tools on
# PATH, WORK a scratch directory): test/semantic/semantic.py for the seeds
# A:B given as the argument, in its suite forms, or with "programs" for the
# written programs of test/semantic/programs in every form. Fails on any
# mismatch; prints the summary and the features the programs used.
set -euo pipefail
runner=$REPO/test/semantic/contract_run
if [[ $1 == programs ]]; then
  # Negative control: an AllReduce whose ranks add in different orders must
  # be reported by the bitwise agreement check.
  neg=$REPO/test/semantic/negative/own_order.ccl
  cclc "$neg" --target=host --nranks=4 --dtype=float32 -o "$WORK/own_order.so"
  cclc "$neg" --nranks=4 --emit=ccl -o "$WORK/own_order.mlir"
  python3 "$REPO/test/semantic/contract.py" from-ccl "$WORK/own_order.mlir" "$WORK"
  if "$runner" "$WORK/own_order.so" own_order "$WORK/own_order.n4.contract" \
      --count 6561 --agree > "$WORK/neg.txt" 2>&1 ||
     ! grep -q "other bits than another rank" "$WORK/neg.txt"; then
    echo "FAILED: contract_run --agree did not report own_order"
    cat "$WORK/neg.txt"
    exit 1
  fi
  echo "ok: contract_run --agree reports own_order ($(tail -1 "$WORK/neg.txt"))"
  # The reducer (reduce.py) on a seeded miscompile: generated program 39
  # with its chunk references damaged after the proof (--test-corrupt, the
  # translation validation's internal error) shrinks to a smaller program
  # that still verifies undamaged and still fails damaged; a program that
  # does not fail is refused (exit 2).
  python3 "$REPO/test/semantic/gen.py" 39 "$WORK/gen"
  red=$WORK/g39.reduced.ccl
  python3 "$REPO/test/semantic/reduce.py" "$WORK/gen/g39.ccl" --nranks 2,3,4 \
    --cclc-flag=--test-corrupt=chunk-index --match 'chunk references differ' \
    --runner "$runner" --out "$red" > "$WORK/reduce.txt" 2>&1 ||
    { echo "FAILED: reduce.py"; cat "$WORK/reduce.txt"; exit 1; }
  before=$(grep -c . "$WORK/gen/g39.ccl") after=$(grep -c . "$red")
  ranks=$(grep -o 'rank counts [0-9,]*[0-9]' "$WORK/reduce.txt" | cut -d' ' -f3)
  cclc "$red" --target=host --nranks="$ranks" -o "$WORK/red.so" ||
    { echo "FAILED: the reduced program does not compile undamaged"; exit 1; }
  if cclc "$red" --target=host --nranks="$ranks" --test-corrupt=chunk-index \
      -o "$WORK/red-bad.so" > "$WORK/red-bad.txt" 2>&1 ||
     ! grep -q 'internal compiler error' "$WORK/red-bad.txt" || ((after >= before)); then
    echo "FAILED: reduce.py: $before -> $after lines, damaged compile:"
    cat "$WORK/reduce.txt" "$WORK/red-bad.txt"
    exit 1
  fi
  if python3 "$REPO/test/semantic/reduce.py" "$REPO/test/semantic/programs/shift_relay.ccl" \
      --nranks 2,4 --runner "$runner" --out "$WORK/no.ccl" > "$WORK/reduce-no.txt" 2>&1; then
    echo "FAILED: reduce.py reduced a program that does not fail"; exit 1
  fi
  grep -q 'does not fail' "$WORK/reduce-no.txt" ||
    { echo "FAILED: reduce.py's refusal"; cat "$WORK/reduce-no.txt"; exit 1; }
  echo "ok: reduce.py: g39 with damaged chunk references, $before -> $after lines at $ranks ranks ($(grep -o '[0-9]* candidates tried' "$WORK/reduce.txt"))"
  exec python3 "$REPO/test/semantic/semantic.py" --programs \
    "$REPO"/test/semantic/programs/*.ccl --forms full \
    --work "$WORK/semantic" --runner "$runner"
fi
exec python3 "$REPO/test/semantic/semantic.py" --seeds "$1" --forms suite \
  --work "$WORK/semantic" --runner "$runner"
