# The stdlib as one bundle (stdlib/stdlib.ccl, built by //stdlib:host_bundle
# for the host target at 2..8 ranks, every data type and operator, up to
# 4 MiB per rank) through its NCCL-shaped entry points: every collective at
# 2, 3 and 4 ranks with float32 / float16 / bfloat16 and sum / prod / max /
# min where it reduces, and at 5, 7 and 8 ranks with float32 and bfloat16,
# sum and max; out of place and in place; 0 and 1 elements up to 1.9 MiB per
# rank in odd sizes (0, 1, 5, 25, ... 1953125 bytes: every row of the
# selection table); 4 calls per rank back to back before each check
# (separate and reused buffers); Broadcast and Reduce at root 0 and at the
# last rank (the last rank only at 5 and 7). Every value must be right, and
# every row must be served by the algorithm the selection table names for it
# (check_selection.py reads `cclc --print-selection` and ccl-perf's
# algorithm column). About 10 minutes on 2 cores; the whole matrix (every
# type and operator at 5, 7 and 8 ranks too: 972 s alone on 2 cores) by hand:
#   bazel test --test_arg=full //test/e2e:stdlib_bundle_test
# Bazel runs it in shards (test/shard.sh): each collective at each rank
# count is one shard's.
set -euo pipefail
source "$REPO/test/shard.sh"
lib=$REPO/stdlib/host/libccl_stdlib.so
table=$REPO/stdlib/host/selection.txt
full=${1:-}
for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
  for g in 2 3 4 5 7 8; do
    mine || continue
    types=(-d all -o all)
    roots=0
    case $coll in Broadcast | Reduce) roots="0 $((g - 1))" ;; esac
    if ((g >= 5)) && [[ $full != full ]]; then
      types=(-d float32,bfloat16 -o sum,max)
      if ((g < 8)); then
        case $coll in Broadcast | Reduce) roots=$((g - 1)) ;; esac
      fi
    fi
    for root in $roots; do
      out=$WORK/$coll-$g-$root.txt
      if ! ccl-perf --lib "$lib" --coll "$coll" --target host -g "$g" --root "$root" \
          -b 0 -e 2M -f 5 -n 1 -w 0 -k 4 "${types[@]}" --timeout-ms 60000 \
          > "$out" 2>&1; then
        echo "FAILED: ccl-perf --coll $coll -g $g --root $root"
        cat "$out"
        exit 1
      fi
      if ! python3 "$REPO/test/e2e/check_selection.py" "$table" "$out" "$coll" "$g"; then
        echo "FAILED: the selection of $coll at $g ranks (root $root)"
        cat "$out"
        exit 1
      fi
    done
  done
done
shard_done
