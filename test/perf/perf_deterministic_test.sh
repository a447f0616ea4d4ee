#!/bin/bash
# The stdlib bundle's deterministic table (CCL_DETERMINISTIC=1;
# docs/semantics.md, "Deterministic family") on the host target, random
# floats (--bitwise), K = 3 calls back to back: every element of an
# AllReduce or Reduce has the same bits at every count and whichever
# algorithm of the table serves the call (the sweep crosses its rows:
# allpairs_ll, allpairs_ll_wide, allpairs_2p_det; red_allpairs_det,
# red_rsg_det), on every rank; the default table's ring does not (the
# negative control). The errors: a bad CCL_DETERMINISTIC, and CCL_ALGO
# forcing an algorithm outside the deterministic table.
PERF=$1 LIB=$2 BUNDLE=$3
source "$(dirname "$0")/testlib.sh"
SWEEP="--target host -k 3 -n 1 -w 0 --bitwise"

# The algorithm column of --coll rows (13 columns), one name per line.
algorithms() { echo "$OUT" | awk '!/^#/ && NF == 13 { print $13 }' | sort -u; }
wrong13() { echo "$OUT" | awk '!/^#/ && NF == 13 { s += $8 + $12 } END { print s + 0 }'; }

# Tests that the deterministic AllReduce gives the same bits at every count
# across the three algorithms of its table, on every rank, in every type,
# in place and out of place.
export CCL_DETERMINISTIC=1
run --lib "$BUNDLE" --coll allreduce -g 4 -b 4 -e 256K -f 4 $SWEEP -d all -o sum
expect_rc 0
[ "$(wrong13)" = 0 ] || fail "wrong values"
expect_has "# Rank differences     : 0 elements"
expect_has "# Size differences     : 0 elements"
[ "$(algorithms | tr '\n' ' ')" = "allpairs_2p_det allpairs_ll allpairs_ll_wide " ] ||
  fail "the rows were not served by allpairs_ll, allpairs_ll_wide and allpairs_2p_det: $(algorithms | tr '\n' ' ')"

# Tests the same at 3 ranks (an odd rank count) beyond the default table's
# switch to the ring.
run --lib "$BUNDLE" --coll allreduce -g 3 -b 64K -e 4M -f 8 $SWEEP -d float32 -o sum
expect_rc 0
[ "$(wrong13)" = 0 ] || fail "wrong values"
expect_has "# Size differences     : 0 elements"

# Tests that the deterministic Reduce has the same bits at every count,
# for a root other than 0, across red_allpairs_det and red_rsg_det.
run --lib "$BUNDLE" --coll reduce --root 2 -g 4 -b 4 -e 1M -f 16 $SWEEP -d float32,bfloat16 -o sum
expect_rc 0
[ "$(wrong13)" = 0 ] || fail "wrong values"
expect_has "# Size differences     : 0 elements"
[ "$(algorithms | tr '\n' ' ')" = "red_allpairs_det red_rsg_det " ] ||
  fail "the rows were not served by red_allpairs_det and red_rsg_det: $(algorithms | tr '\n' ' ')"

# Tests that the deterministic ReduceScatter is right across its rows.
run --lib "$BUNDLE" --coll reducescatter -g 4 -b 16 -e 1M -f 16 $SWEEP -d float32 -o sum,max
expect_rc 0
[ "$(wrong13)" = 0 ] || fail "wrong values"
[ "$(algorithms | tr '\n' ' ')" = "rs_allpairs_det rs_allpairs_ll_det " ] ||
  fail "the rows were not served by rs_allpairs_ll_det and rs_allpairs_det: $(algorithms | tr '\n' ' ')"

# Tests that CCL_ALGO may force only an algorithm of the deterministic table.
CCL_ALGO=allreduce=ring run --lib "$BUNDLE" --coll allreduce -g 4 -b 4 -e 4 --target host
expect_rc 1
expect_has "CCL_ALGO forces AllReduce=ring, which is not of the library's deterministic AllReduce table"

# Tests that a value other than 0 or 1 is refused.
CCL_DETERMINISTIC=yes run --lib "$BUNDLE" --coll allreduce -g 4 -b 4 -e 4 --target host
expect_rc 1
expect_has "CCL_DETERMINISTIC is 'yes'; it must be 1 (the deterministic selection table) or 0"

# Tests the negative control: the default table's ring (from 1 MiB at 4
# ranks) gives other bits at other counts.
export CCL_DETERMINISTIC=0
run --lib "$BUNDLE" --coll allreduce -g 4 -b 256K -e 4M -f 4 $SWEEP -d float32 -o sum
expect_rc 0
expect_re "^# Size differences     : [1-9][0-9]* elements"
finish
