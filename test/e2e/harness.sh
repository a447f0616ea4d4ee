#!/usr/bin/env bash
# Runs one host end-to-end test, test/e2e/NAME_test.sh, as a Bazel test
# (test/e2e/BUILD). The test script expects:
#   REPO   the repository root, with the installed tools in out/: here a
#          directory of links to the test's runfiles, and out/ linked to
#          //tools:dist;
#   PATH, LD_LIBRARY_PATH  leading to out/bin and out/lib;
#   WORK   an empty scratch directory.
# TMPDIR and HOME (which Bazel leaves unset) are $TEST_TMPDIR, so nothing
# is written outside it.
# Usage: harness.sh TEST.sh [ARG...]   (ARGs, from bazel test --test_arg, go to
# the test script)
set -euo pipefail
runfiles=$PWD
export TMPDIR=$TEST_TMPDIR HOME=$TEST_TMPDIR
export REPO=$TEST_TMPDIR/repo WORK=$TEST_TMPDIR/work
mkdir -p "$REPO" "$WORK"
ln -s "$runfiles"/* "$REPO/"
ln -s "$runfiles/tools/dist" "$REPO/out"
export PATH="$REPO/out/bin:$PATH"
export LD_LIBRARY_PATH="$REPO/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec bash "$runfiles/$1" "${@:2}"
