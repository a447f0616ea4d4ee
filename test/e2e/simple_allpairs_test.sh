# allpairs_rr (test/e2e/inputs/allpairs_rr.ccl: a channel-level all-pairs
# AllReduce with the Simple protocol that reads peers: read_reduce with two
# and one sources, get, signal/wait on id-1 channels, semaphores and
# multi-block barriers, one thread block per peer) on the host target: 2, 3,
# 4 and 8 ranks, float32 and bfloat16, sum and max, 4 B to 2 MiB, out of
# place and in place: 0 wrong.
set -euo pipefail
src="$REPO/test/e2e/inputs/allpairs_rr.ccl"
verify=--no-verify
if cclc "$src" --emit=ccl --nranks=3 >/dev/null 2>"$WORK/verify.err"; then
  verify=
else
  echo "# ccl-verify does not accept the program yet, compiling with --no-verify:"
  head -1 "$WORK/verify.err"
fi
cclc "$src" $verify --target=host --nranks=2,3,4,8 --dtype=float32,bfloat16 \
    --op=sum,max --max-bytes=4M -o "$WORK/ap.so"
for g in 2 3 4 8; do
  ccl-perf --lib "$WORK/ap.so" --algo allpairs_rr --target host -g "$g" \
      -b 4 -e 4M -f 9 -d float32,bfloat16 -o sum,max -n 2 -w 1 \
      --timeout-ms 30000 | tee "$WORK/g$g.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/g$g.txt"
  # 7 sizes x 2 dtypes x 2 ops measured.
  test "$(grep -cE '^ +[0-9]+ +[0-9]+ +(float|bfloat16) +(sum|max)' "$WORK/g$g.txt")" -eq 28
done
