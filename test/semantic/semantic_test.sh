# The differential test (run by test/e2e/harness.sh: the installed tools on
# PATH, WORK a scratch directory): test/semantic/semantic.py for the seeds
# A:B given as the argument, in its suite forms, or with "programs" for the
# written programs of test/semantic/programs in every form. Fails on any
# mismatch; prints the summary and the features the programs used.
set -euo pipefail
runner=$REPO/test/semantic/contract_run
if [[ $1 == programs ]]; then
  exec python3 "$REPO/test/semantic/semantic.py" --programs \
    "$REPO"/test/semantic/programs/*.ccl --forms full \
    --work "$WORK/semantic" --runner "$runner"
fi
exec python3 "$REPO/test/semantic/semantic.py" --seeds "$1" --forms suite \
  --work "$WORK/semantic" --runner "$runner"
