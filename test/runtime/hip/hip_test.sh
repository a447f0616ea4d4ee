#!/usr/bin/env bash
# Runs hip_test against the test double of the HIP runtime
# (fake_hip/libamdhip64.so, named by CCL_HIP_LIBRARY), one mode per
# process: communicators in one process (2 and 4 ranks), the error paths
# (no library, no device, no peer access, two or no architecture names),
# and two processes, one per rank, started torchrun style.
set -euo pipefail
bin=$1 fake=$2 gfx942=$3 gfx90a=$4
export CCL_HIP_LIBRARY="$(cd "$(dirname "$fake")" && pwd)/$(basename "$fake")"
work=${TEST_TMPDIR:-$(mktemp -d)}
source test/free_port.sh

CCL_FAKE_HIP_DEVICES=4 CCL_FAKE_HIP_LOG="$work/inprocess.log" \
  "$bin" inprocess "$gfx942" "$gfx90a" "$work/inprocess.log"
CCL_HIP_LIBRARY=/nonexistent/libamdhip64.so "$bin" nolib
CCL_FAKE_HIP_DEVICES=0 "$bin" nodev
CCL_FAKE_HIP_NO_PEER=1 "$bin" nopeer
CCL_FAKE_HIP_EXTRA_ARCH=gfx90a "$bin" twoarch
CCL_FAKE_HIP_ARCH=none "$bin" noarch

# Two processes, one per rank: IPC handles through the double.
port=$(free_port)
pids=()
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
    CCL_BOOTSTRAP_TIMEOUT_MS=20000 CCL_FAKE_HIP_LOG="$work/ranks.log" \
    "$bin" rank "$gfx942" "$gfx90a" "$work/ranks.log" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
if [ "$status" != 0 ]; then
  echo "FAILED: a rank of the two-process job failed" >&2
  exit 1
fi
n=$(grep -c '^launch .*kernel=fake_ar_r' "$work/ranks.log" || true)
if [ "$n" != 2 ]; then
  echo "FAILED: expected 2 launches in the two-process log, got $n" >&2
  cat "$work/ranks.log" >&2
  exit 1
fi
echo "hip_test.sh: PASSED"
