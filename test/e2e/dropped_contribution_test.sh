# Negative control: a program that drops one contribution is rejected by the
# verifier; built with --no-verify it runs and ccl-perf reports #wrong > 0 and
# exits 1. Rank r still waits for the packets of every peer (so no rank can
# run two calls ahead of a peer it sends to, which would hang the LL double
# buffer instead), but adds rank r+1's packets to its input, after sending
# it, instead of to its output. Everything runs on thread block 0 so there is
# no race, only the missing contribution.
set -euo pipefail
cat > "$WORK/broken.ccl" <<'CCL'
algorithm broken implements AllReduce chunks(1) protocol(LL) {
  scratch recv[nranks];
  for r in ranks {
    for p in ranks if p != r {
      memory(r -> p).put_packets(recv[p][r], input[r][0], tb = 0);
    }
    input[r][0].copy(output[r][0], tb = 0);
    for p in ranks if p != r {
      if p == (r + 1) % nranks {
        input[r][0].reduce_packets(recv[r][p], tb = 0);
      } else {
        output[r][0].reduce_packets(recv[r][p], tb = 0);
      }
    }
  }
}
CCL
if cclc "$WORK/broken.ccl" --target=host --nranks=3 --dtype=float32 -o "$WORK/b.so" 2>"$WORK/err"; then
  echo "cclc accepted a program that drops a contribution"; exit 1
fi
cat "$WORK/err"
grep -q "with 3 ranks: AllReduce postcondition fails: output\[0\]\[0\]" "$WORK/err"
grep -q "missing: input\[1\]\[0\]" "$WORK/err"
cclc "$WORK/broken.ccl" --no-verify --target=host --nranks=3 --dtype=float32 -o "$WORK/b.so"
set +e
ccl-perf --lib "$WORK/b.so" --algo broken --target host -g 3 -b 64 -e 4K -f 4 >"$WORK/out" 2>&1
rc=$?
set -e
cat "$WORK/out"
test "$rc" -eq 1
grep -q "Out of bounds values : [1-9][0-9]* FAILED" "$WORK/out"
