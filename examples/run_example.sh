#!/usr/bin/env bash
# Runs the example at 2, 3 and 4 host ranks; it checks its own result.
set -euo pipefail
for n in 2 3 4; do
  examples/allreduce_host "$n"
done
