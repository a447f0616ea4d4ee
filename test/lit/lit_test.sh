#!/usr/bin/env bash
# One directory of the lit suite as a Bazel test (test/lit/BUILD): the lit of
# @llvm over test/lit/DIR, with cclc and ccl-opt from //tools:dist. Output/
# and temporary files go to $TEST_TMPDIR. A test lit reports UNSUPPORTED (it
# REQUIRES a feature this machine lacks, such as ptxas) is printed as a
# SKIPPED line too (test/skip.sh).
# Usage: lit_test.sh LIT CCLC DIR
set -euo pipefail
lit=$1 cclc=$2 dir=$3
export TMPDIR=$TEST_TMPDIR PYTHONUNBUFFERED=1
CCLC_BIN_DIR=$(cd "$(dirname "$cclc")" && pwd)
export CCLC_BIN_DIR
"$lit" -v --show-unsupported "test/lit/$dir" |
  awk '{ print } /^UNSUPPORTED: / { print "SKIPPED: lit test " $4 ": a feature it REQUIRES is missing" }'
