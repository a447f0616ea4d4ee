#!/usr/bin/env bash
# libcclnccl.so exports every function of the nccl.h it was built against,
# pnccl* profiling names included, and every nccl*/pnccl* function of the
# real libnccl.so.2 that nccl.h declares (exports.py says what it checks).
# Usage: exports_test.sh LIBCCLNCCL NCCL_H [LIBNCCL]
set -euo pipefail
exec python3 "$(dirname "$0")/exports.py" "$@"
