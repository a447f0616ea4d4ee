# Every rank gets CCL_RANK (0..N-1, each once), CCL_NRANKS, CCL_LOCAL_RANK,
# CCL_LOCAL_NRANKS and one CCL_UNIQUE_ID (256 lowercase hex digits, the
# same in all ranks, new for every run); the rest of the environment, the
# arguments and the working directory reach the ranks unchanged.
source "$LAUNCHER_TESTS/lib.sh"

show='echo $CCL_RANK $CCL_NRANKS $CCL_LOCAL_RANK $CCL_LOCAL_NRANKS $CCL_UNIQUE_ID'
CCL_RANK=99 CCL_UNIQUE_ID=stale FOO='a b' ccl_run -n 4 bash -c "$show; echo \"\$FOO\" >foo.\$CCL_RANK"
expect_rc 0
[ -z "$err" ] || fail "unexpected stderr"
ranks=$(awk '{print $1, $2, $3, $4}' <<<"$out" | sort)
[ "$ranks" = "$(printf '0 4 0 4\n1 4 1 4\n2 4 2 4\n3 4 3 4')" ] ||
  fail "ranks: $ranks"
ids=$(awk '{print $5}' <<<"$out" | sort -u)
[ "$(wc -l <<<"$ids")" = 1 ] || fail "the ranks got different ids: $ids"
[[ $ids =~ ^[0-9a-f]{256}$ ]] || fail "id is not 256 lowercase hex digits: $ids"
for r in 0 1 2 3; do
  [ "$(cat foo.$r)" = "a b" ] || fail "rank $r: FOO is '$(cat foo.$r)'"
done

# A new id for every run.
ccl_run -n 1 bash -c 'echo $CCL_UNIQUE_ID'
expect_rc 0
[[ $out =~ ^[0-9a-f]{256}$ ]] || fail "id: $out"
[ "$out" != "$ids" ] || fail "two runs got the same id"

# One rank.
ccl_run -n 1 bash -c 'echo $CCL_RANK/$CCL_NRANKS'
expect_rc 0
expect_out "0/1"

# The arguments reach the program as they are: options of ccl-run after
# PROGRAM belong to PROGRAM; "--" ends ccl-run's options.
ccl_run -n 2 printf '[%s]' -n 3 --tag-output 'x y' ''
expect_rc 0
expect_out "[-n][3][--tag-output][x y][][-n][3][--tag-output][x y][]"
ccl_run --nranks=1 --grace-ms 10 -- printf '%s,' -- -h
expect_rc 0
expect_out "--,-h,"

# PROGRAM is searched in PATH; a path runs as given, relative to the
# working directory, which the ranks share.
mkdir -p bin sub
printf '#!/bin/sh\necho "prog $CCL_RANK $PWD $*"\n' >bin/prog
chmod +x bin/prog
PATH=$WORK/bin:$PATH ccl_run -n 1 prog z
expect_rc 0
expect_out "prog 0 $WORK z"
(cd sub && ccl_run -n 1 ../bin/prog && expect_rc 0 && expect_out "prog 0 $WORK/sub ")
# A script without #! runs with /bin/sh, as in a shell.
printf 'echo plain $CCL_RANK\n' >bin/plain
chmod +x bin/plain
ccl_run -n 2 bin/plain
expect_rc 0
[ "$(sort <<<"$out")" = "$(printf 'plain 0\nplain 1')" ] || fail "plain: $out"

# stdin is shared by the ranks.
set +e
out=$(echo hello | ccl-run -n 1 cat)
rc=$?
set -e
expect_rc 0
expect_out hello
echo PASS
