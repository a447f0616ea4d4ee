#!/bin/bash
# ccl-perf --bitwise: random floats for the reductions (checked within
# their rounding), the ranks' shared outputs compared bit for bit, and each
# AllReduce row's output against a larger count's with the same inputs. The
# stdlib ring (every rank adds in the same order) has 0 rank differences
# but size differences (its chunk boundaries, and with them the order of
# additions, move with the count); own_order (test/semantic/negative: each
# rank adds its own input first) has rank differences, which the
# exact-integer data of a plain run cannot show; the LL all-pairs
# (bits(size_invariant)) has neither. All have 0 wrong values.
PERF=$1 LIB=$2 RING=$3 OWN=$4 ALLPAIRS=$5
source "$(dirname "$0")/testlib.sh"
SWEEP="--target host -g 4 -b 4 -e 64K -f 16 -k 3 -n 1 -w 0 --bitwise"

# Tests that a rank-consistent AllReduce shows none, in every type.
run --lib "$RING" --algo ring $SWEEP -d all -o sum,max
expect_rc 0
expect_has "# Out of bounds values : 0 OK"
expect_has "# Rank differences     : 0 elements whose bits differ between ranks sharing an output"
expect_not "#   ranks differ:"

# Tests that the ring's bits depend on the message size, shown with the
# first differing element and the count it was compared with.
run --lib "$RING" --algo ring $SWEEP -d float32 -o sum
expect_rc 0
expect_re "^# Size differences     : [1-9][0-9]* elements whose bits differ from another count's with the same inputs"
expect_re "^#   sizes differ: [0-9]+ elements? of call 0 out of place separate buffers differs? from a [0-9]+-element call with the same inputs \(first: element [0-9]+\)"

# Tests that an algorithm that adds in rank order at every count (the LL
# all-pairs) shows no difference of either kind, in place and out of place,
# in every type.
run --lib "$ALLPAIRS" --algo allpairs_ll $SWEEP -d all -o sum,max
expect_rc 0
expect_has "# Out of bounds values : 0 OK"
expect_has "# Rank differences     : 0 elements"
expect_has "# Size differences     : 0 elements"
expect_not "#   sizes differ:"

# Tests that an AllReduce whose ranks add in their own order shows them,
# with the first differing element, and is still right within rounding.
run --lib "$OWN" --algo own_order $SWEEP -d float32 -o sum
expect_rc 0
expect_has "# Out of bounds values : 0 OK"
expect_re "^# Rank differences     : [1-9][0-9]* elements"
expect_re "^#   ranks differ: [0-9]+ elements in out of place separate buffers \(first: call [0-9]+, rank [0-9]+ element [0-9]+ has other bits than rank [0-9]+'s\)"

# Tests that max is order-independent: no differences even there.
run --lib "$OWN" --algo own_order $SWEEP -d float32 -o max
expect_rc 0
expect_has "# Rank differences     : 0 elements"

# Tests that without --bitwise (exact integers) nothing is reported.
run --lib "$OWN" --algo own_order --target host -g 4 -b 4 -e 64K -f 16 -k 3 -n 1 -w 0
expect_rc 0
expect_not "Rank differences"

# Tests that --bitwise without a check is refused.
run --lib "$RING" --algo ring --target host -g 4 -c 0 --bitwise
expect_rc 1
expect_has "--bitwise acts on the checked calls only"
finish
