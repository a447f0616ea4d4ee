#!/usr/bin/env bash
# Runs one ccl-run test, test/launcher/NAME_test.sh, as a Bazel test
# (test/launcher/BUILD), with the installed tools of //tools:dist first on
# PATH (ccl-run finds libcclrt through its runpath, as in out/). The test
# gets WORK, an empty scratch directory, and the helpers of lib.sh; TMPDIR
# and HOME are $TEST_TMPDIR, so nothing is written outside it.
# Usage: harness.sh TEST.sh
set -euo pipefail
runfiles=$PWD
export TMPDIR=$TEST_TMPDIR HOME=$TEST_TMPDIR
export WORK=$TEST_TMPDIR/work LAUNCHER_TESTS=$runfiles/test/launcher
mkdir -p "$WORK"
export PATH="$runfiles/tools/dist/bin:$PATH"
exec bash "$runfiles/$1"
