#!/bin/bash
# The back-to-back check: on by default, K calls per rank queued without
# host synchronisation, in two buffer modes. A correct library passes for
# any K, with or without --delay; testar_racy (a Broadcast whose root reuses
# its scratch without waiting for the readers) is caught with --delay on the
# reading rank on every run, and not with K = 1.
PERF=$1 LIB=$2
source "$(dirname "$0")/testlib.sh"

# On by default, K = 8, stated in the header.
run --lib "$LIB" --algo testar --target host -g 2 -b 1K -e 1K -n 1 -w 0
expect_rc 0
expect_has "seed: 1 calls: 8"
expect_has "# check     : K = 8 calls per rank back to back"
expect_has "# Out of bounds values : 0 OK"

# A correct AllReduce passes for K = 1, 2, 8, 64: 3 ranks (3 thread blocks),
# every dtype, sizes 4 36 324 2916 26244 bytes.
for k in 1 2 8 64; do
  run --lib "$LIB" --algo testar --target host -g 3 -b 4 -e 40K -f 9 -d all -o sum,max -k $k -n 1 -w 0
  expect_rc 0
  expect_has "calls: $k"
  expect_has "# Out of bounds values : 0 OK"
  expect_not "back-to-back check of"  # K never reduced at these sizes
  [ "$(nrows)" -eq 30 ] || fail "-k $k: $(nrows) rows, expected 30"
  [ "$(wrong_total)" -eq 0 ] || fail "-k $k: $(wrong_total) wrong values"
done
run --lib "$LIB" --algo testar --target host -g 2 -k 0
expect_rc 1
expect_has "bad --calls (1 to 4096): 0"

# Correct libraries stay correct when a rank, or one block of it, is held
# back at the start of every call (the delay is only a delay).
for algo in testar testar_broadcast testar_reducescatter; do
  for d in 1=20000 1:1=20000; do
    run --lib "$LIB" --algo $algo --target host -g 3 -b 1K -e 1K -o sum -k 4 --delay $d -n 1 -w 0
    expect_rc 0
    expect_has "# Out of bounds values : 0 OK"
  done
done
expect_has "# delay     : rank 1, thread block 1: 20000 us at the start of every checked call"

# The race: root 0 runs all K calls at once (it waits for nobody); rank 1,
# delayed 100 ms at the start of each call, then reads the scratch the root
# has already refilled for a later call. Calls 0..K-2 of rank 1 are wrong;
# the last call (nothing overwrites it) and the root's own output are right.
# Every run, every buffer mode and placement.
for i in 1 2 3; do
  run --lib "$LIB" --algo testar_racy --target host -g 2 -b 4K -e 4K -k 4 --delay 1=100000 -n 1 -w 0
  expect_rc 1
  expect_has "# delay     : rank 1, every thread block: 100000 us"
  expect_has "# Out of bounds values : "
  expect_has " FAILED"
  [ "$(wrong_notes | wc -l)" -eq 4 ] || fail "run $i: expected 4 '# wrong' lines (2 modes x 2 placements)"
  for what in "out-of-place, separate buffers" "out-of-place, reused buffers" \
              "in-place, separate buffers" "in-place, reused buffers"; do
    # float32, 1024 elements, 3 calls: all of them differ (random bits).
    wrong_notes | grep -qF "$what, eager: 3072 wrong in calls 0,1,2 of 4, rank 1; first: call 0 rank 1 element 0 is" ||
      fail "run $i: no '$what' line with 3072 wrong values in calls 0,1,2 of rank 1"
  done
  # #wrong of a row = both buffer modes together.
  [ "$(wrong_col 8)" -eq 6144 ] || fail "run $i: out-of-place #wrong $(wrong_col 8), expected 6144"
  [ "$(wrong_col 12)" -eq 6144 ] || fail "run $i: in-place #wrong $(wrong_col 12), expected 6144"
done

# Only block 0 of rank 1 delayed: its range (elements 0..511) is wrong for
# sure; block 1 races with the root and may be wrong too.
run --lib "$LIB" --algo testar_racy --target host -g 2 -b 4K -e 4K -k 4 --delay 1:0=100000 -n 1 -w 0
expect_rc 1
[ "$(wrong_notes | wc -l)" -eq 4 ] || fail "--delay 1:0: expected 4 '# wrong' lines"
[ "$(wrong_notes | grep -c 'calls 0,1,2 of 4, rank 1; first: call 0 rank 1 element 0 is')" -eq 4 ] ||
  fail "--delay 1:0: block 0's range of calls 0..2 should be wrong in every check"
[ "$(wrong_col 8)" -ge 3072 ] || fail "--delay 1:0: out-of-place #wrong $(wrong_col 8) < 2 x 3 x 512"

# The same race with K = 1: every call is synchronised and checked on its
# own, and the library is right. The check needs K > 1 to see it.
for i in 1 2; do
  run --lib "$LIB" --algo testar_racy --target host -g 2 -b 4K -e 4K -k 1 --delay 1=100000 -n 1 -w 0
  expect_rc 0
  expect_has "calls: 1"
  expect_has "# Out of bounds values : 0 OK"
done

# --check-mem caps the check's buffers: K shrinks for large rows (2K + 1
# buffers of the row's size must fit in 1 MiB), with a note, and the rows
# are still checked.
run --lib "$LIB" --algo testar --target host -g 2 -b 64K -e 256K -f 2 -k 8 --check-mem 1M -n 1 -w 0
expect_rc 0
expect_has "# back-to-back check of 65536-byte rows: K = 7 calls instead of 8"
expect_has "# back-to-back check of 131072-byte rows: K = 3 calls instead of 8"
expect_has "# back-to-back check of 262144-byte rows: K = 1 call instead of 8"
expect_has "# Out of bounds values : 0 OK"
[ "$(nrows)" -eq 3 ] || fail "--check-mem: $(nrows) rows, expected 3"
# ... and a reduced K still catches the race (K = 3 at 128 KiB): every
# check finds rank 1's result of call 0 or 1 (or both) overwritten, never
# call 2's (nothing comes after it). Which of the two depends on how the
# threads were scheduled: on a loaded machine call 0 was read in time once.
run --lib "$LIB" --algo testar_racy --target host -g 2 -b 128K -e 128K -k 8 --check-mem 1M --delay 1=100000 -n 1 -w 0
expect_rc 1
expect_has "K = 3 calls instead of 8"
[ "$(wrong_notes | grep -cE 'in calls? (0,1|0|1) of 3, rank 1')" -eq 4 ] ||
  fail "--check-mem with K = 3: every check should find call 0 or 1 wrong"
# Below three buffers of the largest row, K = 1 and a note.
run --lib "$LIB" --algo testar --target host -g 2 -b 1M -e 1M --check-mem 2M -n 1 -w 0
expect_rc 0
expect_has "# note      : the largest rows need 3 buffers of 1048576 bytes per rank (K = 1), more than --check-mem 2097152"
expect_has "K = 1 call instead of 8"

finish
