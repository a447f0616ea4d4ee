#!/bin/bash
# ccl-perf's reference for every collective (NCCL's conventions): correct
# host libraries pass, broken ones are flagged with the wrong values where
# they are, rows follow nccl-tests' size/count/busbw conventions.
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

# size count type redop of row N (1-based) of the table.
row() { rows | sed -n "${1}p" | awk '{ print $1, $2, $3, $4 }'; }

# --- Correct libraries ---------------------------------------------------
# -b 4 -e 12K -f 7: 4 28 196 1372 9604 bytes (count from 1 element).
SWEEP="-b 4 -e 12K -f 7 -d all -o all -k 3 -n 1 -w 0"

for g in 1 2 3 4; do
  run --lib "$LIB" --algo testar_allgather --target host -g $g $SWEEP
  expect_rc 0
  expect_has "(AllGather, out-of-place"
  expect_has "# Out of bounds values : 0 OK"
  # One row per dtype (no operator): 5 sizes x 3 dtypes.
  [ "$(nrows)" -eq 15 ] || fail "allgather -g $g: $(nrows) rows, expected 15"
  # count = elements each rank sends; size = the gathered bytes.
  [ "$(row 1)" = "$((4 * g)) 1 float none" ] || fail "allgather -g $g: first row '$(row 1)'"
  [ "$(row 2)" = "$((4 * g)) 2 half none" ] || fail "allgather -g $g: second row '$(row 2)'"

  run --lib "$LIB" --algo testar_reducescatter --target host -g $g $SWEEP
  expect_rc 0
  expect_has "# Out of bounds values : 0 OK"
  [ "$(nrows)" -eq 60 ] || fail "reducescatter -g $g: $(nrows) rows, expected 60"
  # count = elements each rank receives; size = nranks * count.
  [ "$(row 1)" = "$((4 * g)) 1 float sum" ] || fail "reducescatter -g $g: first row '$(row 1)'"

  run --lib "$LIB" --algo testar_alltoall --target host -g $g $SWEEP
  expect_rc 0
  expect_has "# Out of bounds values : 0 OK"
  [ "$(nrows)" -eq 15 ] || fail "alltoall -g $g: $(nrows) rows, expected 15"
  [ "$(row 1)" = "$((4 * g)) 1 float none" ] || fail "alltoall -g $g: first row '$(row 1)'"
  # No in-place form: the in-place columns are N/A.
  rows | awk '$9 != "N/A" || $12 != "N/A" { bad = 1 } END { exit bad }' ||
    fail "alltoall -g $g: in-place columns should be N/A"
done

# Roots: the plans are written for root 1; every root of 2 ranks and more
# runs them relabelled.
for g in 2 3 4; do
  for root in 0 $((g - 1)); do
    run --lib "$LIB" --algo testar_broadcast --target host -g $g --root $root $SWEEP
    expect_rc 0
    expect_has "(Broadcast root $root, out-of-place"
    expect_has "# Out of bounds values : 0 OK"
    run --lib "$LIB" --algo testar_reduce --target host -g $g --root $root $SWEEP
    expect_rc 0
    expect_has "(Reduce root $root, out-of-place"
    expect_has "# Out of bounds values : 0 OK"
  done
  run --lib "$LIB" --algo testar_broadcast --target host -g $g --root 1 $SWEEP
  expect_rc 0
  expect_has "(Broadcast root 1, out-of-place"
  expect_has "# Out of bounds values : 0 OK"
  [ "$(nrows)" -eq 15 ] || fail "broadcast -g $g: $(nrows) rows, expected 15"
  [ "$(row 1)" = "4 1 float none" ] || fail "broadcast -g $g: first row '$(row 1)'"

  # Only the root's output is defined: testar_reduce leaves the other
  # outputs unwritten (NaN), and the check passes.
  run --lib "$LIB" --algo testar_reduce --target host -g $g --root 1 $SWEEP
  expect_rc 0
  expect_has "(Reduce root 1, out-of-place"
  expect_has "# Out of bounds values : 0 OK"
  [ "$(nrows)" -eq 60 ] || fail "reduce -g $g: $(nrows) rows, expected 60"
  [ "$(row 1)" = "4 1 float sum" ] || fail "reduce -g $g: first row '$(row 1)'"
done
run --lib "$LIB" --algo testar_broadcast --target host -g 1 --root 1 -b 1K -e 1K
expect_rc 1
expect_has "--root 1 is not a rank of -g 1"

# busbw factors: (n-1)/n for AllGather, ReduceScatter and AllToAll, 1 for
# Broadcast and Reduce (within the 2-decimal rounding of the table).
busbw_is() {  # FACTOR: busbw = FACTOR * size / time in every measured column
  rows | awk -v f="$1" '{
    for (c = 5; c <= 9; c += 4) {
      if ($c == "N/A") continue;
      bw = f * $1 / ($c * 1e3); d = $(c + 2) - bw;
      if (d < -0.006 || d > 0.006) bad = 1 } } END { exit bad }'
}
for algo in testar_allgather testar_reducescatter testar_alltoall; do
  run --lib "$LIB" --algo $algo --target host -g 4 -b 256K -e 256K -k 1 -n 3 -w 1
  expect_rc 0
  busbw_is 0.75 || fail "$algo: busbw is not 0.75 x algbw for 4 ranks"
done
for algo in testar_broadcast testar_reduce; do
  run --lib "$LIB" --algo $algo --target host -g 4 -b 1M -e 1M -k 1 -n 3 -w 1
  expect_rc 0
  busbw_is 1 || fail "$algo: busbw is not algbw"
done

# A collective without an operator runs once per dtype, whatever -o says.
run --lib "$LIB" --algo testar_allgather --target host -g 2 -b 1K -e 1K -d float32 -o max,min -n 1 -w 0
expect_rc 0
[ "$(nrows)" -eq 1 ] || fail "allgather -o max,min: $(nrows) rows, expected 1"

# Sizes: max_bytes (1 MiB) bounds count * sizeof(dtype), also for
# ReduceScatter whose input is nranks times that.
run --lib "$LIB" --algo testar_reducescatter --target host -g 2 -b 1M -e 2M -i 1M -k 1 -n 1 -w 0
expect_rc 0
[ "$(nrows)" -eq 1 ] || fail "reducescatter 1M..2M: $(nrows) rows, expected 1"
expect_has "skipped: larger than the plan's max_bytes 1048576"

# --- Broken libraries ----------------------------------------------------
# -g 2, 1024 float32 elements, K = 2: every wrong element differs for sure
# (random bits; a coincidence has probability 2^-32).
B2="--target host -g 2 -b 4K -e 4K -d float32 -k 2 -n 1 -w 0"

# Block 1 of every output holds rank 0's data: 1024 per rank per call,
# 2 ranks x 2 calls x 2 buffer modes.
run --lib "$LIB" --algo testar_allgather_broken $B2
expect_rc 1
expect_has " FAILED"
[ "$(wrong_col 8)" -eq 8192 ] || fail "allgather_broken: out-of-place #wrong $(wrong_col 8), expected 8192"
[ "$(wrong_col 12)" -eq 8192 ] || fail "allgather_broken: in-place #wrong $(wrong_col 12), expected 8192"
wrong_notes | grep -q "first: call 0 rank 0 element 1024 is 0x" ||
  fail "allgather_broken: the first wrong element should be element 1024 (block 1), shown as bits"

# Each rank gets its own block back from the peer: 1024 per rank per call.
run --lib "$LIB" --algo testar_alltoall_broken $B2
expect_rc 1
[ "$(wrong_col 8)" -eq 8192 ] || fail "alltoall_broken: #wrong $(wrong_col 8), expected 8192"

# Non-root ranks 0 and 2 skip the last block's range (682..1023: 342
# elements) with 3 ranks of 3 blocks; in place they keep their own input.
run --lib "$LIB" --algo testar_broadcast_broken --target host -g 3 --root 1 -b 4K -e 4K -d float32 -k 2 -n 1 -w 0
expect_rc 1
[ "$(wrong_col 8)" -eq 2736 ] || fail "broadcast_broken: out-of-place #wrong $(wrong_col 8), expected 2 x 342 x 2 x 2"
[ "$(wrong_col 12)" -eq 2736 ] || fail "broadcast_broken: in-place #wrong $(wrong_col 12), expected 2736"
wrong_notes | grep -q "ranks 0,2; first: call 0 rank 0 element 682 is" ||
  fail "broadcast_broken: wrong values should be on ranks 0 and 2 from element 682"

# A dropped contribution (values in [-4, 4]: the sum changes unless it is
# 0). Reduce: only the root's output counts.
run --lib "$LIB" --algo testar_reducescatter_broken --target host -g 3 -b 4K -e 4K -k 2 -n 1 -w 0
expect_rc 1
[ "$(wrong_col 8)" -gt 0 ] && [ "$(wrong_col 12)" -gt 0 ] || fail "reducescatter_broken: not flagged"
run --lib "$LIB" --algo testar_reduce_broken --target host -g 3 --root 1 -b 4K -e 4K -k 2 -n 1 -w 0
expect_rc 1
[ "$(wrong_col 8)" -gt 0 ] && [ "$(wrong_col 12)" -gt 0 ] || fail "reduce_broken: not flagged"
[ "$(wrong_col 8)" -le 4096 ] || fail "reduce_broken: $(wrong_col 8) > 1024 x 2 calls x 2 modes (root only)"
[ "$(wrong_notes | grep -c ' rank 1; ')" -eq 4 ] || fail "reduce_broken: wrong values should be on the root (rank 1) only"

# Byte-moving collectives are compared bit for bit: an AllGather that moves
# elements through a float is exact in float32 but changes float16 and
# bfloat16 NaN payloads, and is flagged there.
run --lib "$LIB" --algo testar_allgather_viafloat --target host -g 2 -b 64K -e 64K -d all -k 2 -n 1 -w 0
expect_rc 1
rows | awk '$3 == "float" && ($8 != 0 || $12 != 0) { bad = 1 } END { exit bad }' ||
  fail "allgather_viafloat: float32 should be exact"
rows | awk '$3 != "float" && ($8 == 0 || $12 == 0) { bad = 1 } END { exit bad }' ||
  fail "allgather_viafloat: float16/bfloat16 NaN payloads should be flagged"

finish
