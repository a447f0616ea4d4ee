# Back-to-back calls on the host target, for the stdlib algorithms
# (stdlib/<collective>/*.ccl) other than those only the bundle tests run
# (stdlib_bundle*_test: the LL all-pairs of AllGather, ReduceScatter and
# AllToAll, the two-phase AllReduces, the trees; and the
# programs over port channels, ring_rs_overlap, ag_allpairs_ce and ring_ce,
# which port_channels_test runs), and for
# the chunk- and channel-level programs of test/e2e/programs (AllGather,
# ReduceScatter, AllToAll in ring and chain shapes; ranges of chunks into
# scratch slots). Each is verified
# by cclc (across calls) and then run by ccl-perf with K = 1, 2, 8 and 64
# calls per rank issued without synchronisation (separate buffers per call
# and reused buffers), at 2, 3, 4 and 8 ranks, counts of 1, 81 and 6561
# elements (not multiples of the chunk count), float32 (and bfloat16 at
# K = 8); K = 8 also with rank 1, and with thread block 0 of rank 0, delayed
# 2 ms per call. Every result must be exact. Bazel runs it in shards
# (test/shard.sh): each program, with all its runs, is one shard's.
set -euo pipefail
source "$REPO/test/shard.sh"
progs=("$REPO"/stdlib/{allreduce,allgather,reducescatter,alltoall,broadcast,reduce}/*.ccl
       "$REPO"/test/e2e/programs/*.ccl)
for src in "${progs[@]}"; do
  name=$(basename "$src" .ccl)
  case $name in
    ring_rs_overlap | ag_allpairs_ce | ring_ce | allpairs_2p | allpairs_2p_ll | ag_allpairs_ll | \
      rs_allpairs_ll | a2a_allpairs_ll | bc_tree | red_tree) continue ;;
  esac
  mine || continue
  cclc "$src" --target=host --nranks=2,3,4,8 --dtype=float32,bfloat16 \
      --max-bytes=64K -o "$WORK/$name.so"
  for g in 2 3 4 8; do
    runs=("-k 1 -d float32" "-k 2 -d float32" "-k 64 -d float32"
          "-k 8 -d float32,bfloat16" "-k 8 -d float32 --delay 1=2000"
          "-k 8 -d float32 --delay 0:0=2000")
    for args in "${runs[@]}"; do
      # shellcheck disable=SC2086
      if ! ccl-perf --lib "$WORK/$name.so" --algo "$name" --target host -g "$g" \
          -b 4 -e 26244 -f 81 -n 1 -w 0 --timeout-ms 30000 \
          $args > "$WORK/out.txt" 2>&1 ||
         ! grep -q "Out of bounds values : 0 OK" "$WORK/out.txt"; then
        echo "FAILED: $name -g $g $args"
        cat "$WORK/out.txt"
        exit 1
      fi
    done
    echo "ok: $name -g $g (K = 1, 2, 8, 64; delayed rank and block)"
  done
done
shard_done
