# shard.sh - a share of a long sweep, for the tests Bazel runs in parallel
# shards (shard_count in their BUILD; DEVELOPERS.md, "Testing"). Sourced by
# the test script; then `mine` before each item of the sweep says whether
# this shard runs it: the items are dealt out in turn, so every item runs in
# exactly one shard. Outside Bazel (no TEST_TOTAL_SHARDS) every item is
# mine, and the script runs the whole sweep.
#
#   source "$REPO/test/shard.sh"
#   for prog in ...; do mine || continue; ...; done
#   shard_done   # fails a shard that ran nothing (more shards than items)
shard_index=${TEST_SHARD_INDEX:-0}
shard_total=${TEST_TOTAL_SHARDS:-1}
shard_item=0
shard_ran=0
# Bazel asks a sharded test to say that it shards (touch the status file).
if [ -n "${TEST_SHARD_STATUS_FILE:-}" ]; then
  touch "$TEST_SHARD_STATUS_FILE"
fi
if ((shard_total > 1)); then
  echo "shard $((shard_index + 1)) of $shard_total"
fi

# True (0) when the next item of the sweep is this shard's.
mine() {
  local i=$shard_item
  shard_item=$((i + 1))
  ((i % shard_total == shard_index)) || return 1
  shard_ran=$((shard_ran + 1))
  return 0
}

shard_done() {
  if ((shard_ran == 0)); then
    echo "FAILED: shard $((shard_index + 1)) of $shard_total ran none of the $shard_item items"
    exit 1
  fi
  echo "shard $((shard_index + 1)) of $shard_total: $shard_ran of $shard_item items"
}
