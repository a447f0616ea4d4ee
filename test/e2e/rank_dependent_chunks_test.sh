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
# The scratch each rank's plan holds (ccl-perf's "# memory" line,
# cclCommPlanMemory) must be what that rank count's own schedule needs:
# for each scratch buffer, its slots times ceil(count / chunks) elements
# for the wider of 2- and 4-byte elements (the runtime's sizing), with the
# chunk count of `cclc --emit=sched` for that rank count. Sized with another
# variant's chunk count it would be too small (the overrun above) or too
# large (the 141 GB).
# Bazel runs it in shards (test/shard.sh): each algorithm is one shard's.
set -euo pipefail
source "$REPO/test/shard.sh"
expected_scratch() { # SCHED: the bytes of the plan's scratch buffers
  awk -v mb=2097152 '
    /^algorithm / { for (i = 1; i <= NF; i++) if ($i ~ /^chunks/) c = $(i - 1) }
    /^  scratch / { if ($0 ~ /packet/) bad = 1; slots[++n] = $(NF - 1) }
    END {
      if (bad || !c || !n) { print "unparsed"; exit }
      total = 0
      for (j = 1; j <= n; j++) {
        best = 0
        for (e = 2; e <= 4; e += 2) {
          count = int(mb / e); unit = int((count + c - 1) / c)
          if (unit * e * slots[j] > best) best = unit * e * slots[j]
        }
        total += best
      }
      print total
    }' "$1"
}
for algo in allgather/ag_ring_wide reducescatter/rs_ring_wide alltoall/a2a_wide \
    allgather/ag_ring_wide_tiled reducescatter/rs_ring_wide_tiled; do
  mine || continue
  name=${algo#*/}
  declare -A want=()
  for g in 2 4 8; do
    cclc "$REPO/stdlib/$algo.ccl" --nranks=$g --dtype=float32 --op=sum \
        --emit=sched -o "$WORK/$name-$g.sched"
    want[$g]=$(expected_scratch "$WORK/$name-$g.sched")
  done
  for ranks in 2,4,8 8,4,2; do
    cclc "$REPO/stdlib/$algo.ccl" --target=host --nranks=$ranks \
        --dtype=float32 --op=sum --max-bytes=2M -o "$WORK/$name.so"
    for g in 2 4 8; do
      ccl-perf --lib "$WORK/$name.so" --algo "$name" --target host -g "$g" \
          -b 2M -e 2M -n 1 -w 1 --timeout-ms 60000 | tee "$WORK/$name-$g.txt"
      grep -q "Out of bounds values : 0 OK" "$WORK/$name-$g.txt"
      test "$(grep -cE '^ +[0-9]+ +[0-9]+ +float ' "$WORK/$name-$g.txt")" -eq 1
      got=$(sed -n 's/^# memory    : \([0-9]*\) B of scratch .*, 1 prepared plan$/\1/p' \
          "$WORK/$name-$g.txt")
      if [ "$got" != "${want[$g]}" ]; then
        echo "FAIL: $name at $g ranks (library for $ranks): the plan holds '$got' bytes of scratch, its schedule needs '${want[$g]}'"
        grep '^# memory' "$WORK/$name-$g.txt" || true
        head -3 "$WORK/$name-$g.sched"
        exit 1
      fi
    done
  done
done
shard_done
