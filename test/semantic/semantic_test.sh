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
  exec python3 "$REPO/test/semantic/semantic.py" --programs \
    "$REPO"/test/semantic/programs/*.ccl --forms full \
    --work "$WORK/semantic" --runner "$runner"
fi
exec python3 "$REPO/test/semantic/semantic.py" --seeds "$1" --forms suite \
  --work "$WORK/semantic" --runner "$runner"
