# The differential test for the seeds A:B given as the argument (run by
# test/e2e/harness.sh: the installed tools on PATH, WORK a scratch
# directory): test/semantic/semantic.py in its suite forms. Fails on any
# mismatch; prints the summary and the features the verified programs used.
set -euo pipefail
seeds=$1
python3 "$REPO/test/semantic/semantic.py" --seeds "$seeds" --forms suite \
  --work "$WORK/semantic" --runner "$REPO/test/semantic/contract_run"
