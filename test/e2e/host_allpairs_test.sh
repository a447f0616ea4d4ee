# allpairs_ll on the host target: 2, 3, 4 and 8 ranks, 4 B to 1 MiB in steps
# of x3 (sizes that are not a multiple of a packet or of the rank count),
# float32 / float16 / bfloat16, sum, out of place and in place: 0 wrong.
set -euo pipefail
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=host --nranks=2,3,4,8 -o "$WORK/ap.so"
for g in 2 3 4 8; do
  ccl-perf --lib "$WORK/ap.so" --algo allpairs_ll --target host -g "$g" \
      -b 4 -e 1M -f 3 -d all -n 2 -w 1 | tee "$WORK/g$g.txt"
  grep -q "Out of bounds values : 0 OK" "$WORK/g$g.txt"
  # 12 sizes x 3 dtypes measured.
  test "$(grep -cE '^ +[0-9]+ +[0-9]+ +(float|half|bfloat16) +sum' "$WORK/g$g.txt")" -eq 36
done
