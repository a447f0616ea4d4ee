#!/usr/bin/env bash
# Runs a GPU test (test/gpu.bzl) as a Bazel test: the command given when this
# machine has a GPU, else a SKIPPED line (test/skip.sh).
# Usage: gpu_harness.sh COMMAND [ARG...]
set -euo pipefail
source test/skip.sh
have_gpu || skip "no GPU on this machine"
exec "$@"
