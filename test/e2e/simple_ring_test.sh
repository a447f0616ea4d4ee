# ring_simple (test/e2e/inputs/ring_simple.ccl: a channel-level ring
# AllReduce with the Simple protocol: put ... signal into the next rank's
# scratch, wait, local reduce and copy) on the host target: 2, 3, 4 and 8
# ranks, float32 and bfloat16, 4 B to 2 MiB in steps of x9 (sizes that do
# not divide by the rank count or the vector width) and 4 MiB, out of place
# and in place: 0 wrong. Every row makes several calls of the algorithm, so
# the signal counters carried from call to call are exercised too.
set -euo pipefail
src="$REPO/test/e2e/inputs/ring_simple.ccl"
# The verifier is being extended to the Simple-protocol operations; use it
# as soon as it accepts the program.
verify=--no-verify
if cclc "$src" --emit=ccl --nranks=3 >/dev/null 2>"$WORK/verify.err"; then
  verify=
else
  echo "# ccl-verify does not accept the program yet, compiling with --no-verify:"
  head -1 "$WORK/verify.err"
fi
cclc "$src" $verify --target=host --nranks=2,3,4,8 --dtype=float32,bfloat16 \
    --max-bytes=4M -o "$WORK/ring.so"
for g in 2 3 4 8; do
  ccl-perf --lib "$WORK/ring.so" --algo ring_simple --target host -g "$g" \
      -b 4 -e 4M -f 9 -d float32,bfloat16 -n 2 -w 1 --timeout-ms 30000 |
    tee "$WORK/g$g.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/g$g.txt"
  # 7 sizes x 2 dtypes measured.
  test "$(grep -cE '^ +[0-9]+ +[0-9]+ +(float|bfloat16) +sum' "$WORK/g$g.txt")" -eq 14
  ccl-perf --lib "$WORK/ring.so" --algo ring_simple --target host -g "$g" \
      -b 4M -e 4M -d float32,bfloat16 -n 1 -w 1 --timeout-ms 30000 |
    tee "$WORK/big$g.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/big$g.txt"
  test "$(grep -cE '^ +4194304 +[0-9]+ +(float|bfloat16) +sum' "$WORK/big$g.txt")" -eq 2
done
