# Algorithms whose chunk count depends on the rank count, compiled into one
# library for several rank counts and run at each, on the host target, with
# calls back to back: 0 wrong. ag_ring_wide has instances(64 / nranks):
# 32 chunks at 2 ranks, 16 at 4, 8 at 8. The runtime sizes each variant's
# scratch with the variant's own chunk count (plan ABI 6); it used to take
# the first variant's (32) for all, so the 4- and 8-rank kernels wrote past
# their scratch (a segmentation fault on the host, wrong sums on 4 H200s),
# then the smallest (8) for all, which gave the 2-rank variant of the tiled
# rings 16 times the scratch it needs (the bundle's plans took all 141 GB of
# an H200). Also in the order that never failed (largest rank count first),
# for the ReduceScatter and AllToAll of the same shape and for the tiled
# rings, whose tiles depend on the rank count too. (Under ASan in
# scripts/test.sh: an overrun of a few bytes is a report.) One size, the
# plan's largest (2 MiB), whose chunks fill the scratch slots: the 8-rank
# runs are 64 host threads per rank, slow under ASan on 2 cores.
set -euo pipefail
for algo in allgather/ag_ring_wide reducescatter/rs_ring_wide alltoall/a2a_wide \
    allgather/ag_ring_wide_tiled reducescatter/rs_ring_wide_tiled; do
  name=${algo#*/}
  for ranks in 2,4,8 8,4,2; do
    cclc "$REPO/stdlib/$algo.ccl" --target=host --nranks=$ranks \
        --dtype=float32 --op=sum --max-bytes=2M -o "$WORK/$name.so"
    for g in 2 4 8; do
      ccl-perf --lib "$WORK/$name.so" --algo "$name" --target host -g "$g" \
          -b 2M -e 2M -n 1 -w 1 --timeout-ms 60000 | tee "$WORK/$name-$g.txt"
      grep -q "Out of bounds values : 0 OK" "$WORK/$name-$g.txt"
      test "$(grep -cE '^ +[0-9]+ +[0-9]+ +float ' "$WORK/$name-$g.txt")" -eq 1
    done
  done
done
