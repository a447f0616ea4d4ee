#!/usr/bin/env bash
# Runs fake_cuda_test against the fake CUDA driver (fake_cuda/), found as
# libcuda.so.1 through LD_LIBRARY_PATH, with a device that cannot export
# memory as a file descriptor.
set -euo pipefail
bin=$1 fake=$2
export LD_LIBRARY_PATH="$(cd "$(dirname "$fake")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FAKE_CUDA_FD_EXPORT=0
exec "$bin"
