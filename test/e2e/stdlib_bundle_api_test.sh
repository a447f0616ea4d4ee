# The stdlib bundle (//stdlib:host_bundle, host target) beyond the sweep of
# stdlib_bundle_test: the C API checks of bundle/bundle_api.cc (a new root
# on every back-to-back call; NCCL's other data types by size; the errors of
# unserved and invalid calls; CCL_ALGO); every algorithm the table does not
# name, forced with CCL_ALGO through the entry point; each collective with
# one process per rank (ccl-run); and back-to-back calls with a delayed
# rank and a delayed thread block. Bazel runs it in shards
# (test/shard.sh): the C API checks, each forced algorithm, each collective's
# runs and the --csv check are one shard's each.
set -euo pipefail
source "$REPO/test/shard.sh"
lib=$REPO/stdlib/host/libccl_stdlib.so
table=$REPO/stdlib/host/selection.txt
cd "$WORK"
fail() { echo "FAILED: $*"; exit 1; }
if mine; then
  cp "$REPO/stdlib/host/libccl_stdlib.h" .
  c++ -std=c++17 -O1 -I. -I"$REPO/out/include" "$REPO/test/e2e/bundle/bundle_api.cc" \
      -o bundle_api -L"$REPO/out/lib" -lcclrt "$lib" -Wl,-rpath,"$REPO/out/lib" \
      -Wl,-rpath,"$(dirname "$lib")" -pthread

  # --- The C API.
  for n in 2 3 4 8; do
    ./bundle_api roots "$n"
    ./bundle_api types "$n"
    ./bundle_api errors "$n"
  done
  ./bundle_api unserved 9
  ./bundle_api forced 3 allpairs_ll
  CCL_ALGO=allreduce=ring ./bundle_api forced 3 ring
  CCL_ALGO=AllReduce=allpairs_2p,allgather=ag_ring ./bundle_api forced 4 allpairs_2p
  CCL_ALGO=allreduce=nccl_ring ./bundle_api forced 2 \
      "error:CCL_ALGO forces AllReduce=nccl_ring, but this library's AllReduce algorithms are: allpairs_ll, allpairs_ll_wide, allpairs_ll_split, allpairs_ll_split_wide, allpairs_2p, allpairs_2p_det, allpairs_2p_ll, ring, ring_oop, ring_oop_wide, ring_oop_wide_tiled"
  CCL_ALGO=allreduc=ring ./bundle_api forced 2 \
      "error:CCL_ALGO=\"allreduc=ring\": 'allreduc=ring' is not COLLECTIVE=ALGORITHM"

  # --- Every algorithm without a row (and one whose row serves only some
  # rank counts), forced through the entry point, up to the largest message
  # its scratch is sized for (MAX: a row's max_bytes; default the bundle's
  # 2 MiB).
fi

forced() {  # COLLECTIVE ALGORITHM [MAX]
  mine || return 0
  for g in 2 3 5 8; do
    out=forced-$2-$g.txt
    CCL_ALGO=$1=$2 ccl-perf --lib "$lib" --coll "$1" --target host -g "$g" \
        --root $((g - 1)) -b 0 -e "${3:-2M}" -f 5 -n 1 -w 0 -k 4 -d float32,bfloat16 \
        -o sum,max > "$out" 2>&1 || { cat "$out"; fail "CCL_ALGO=$1=$2 -g $g"; }
    grep -q "Out of bounds values : 0 OK" "$out" || { cat "$out"; fail "CCL_ALGO=$1=$2 -g $g"; }
    # Every row names the forced algorithm.
    if grep -E '^ +[0-9]+ ' "$out" | grep -v " $2\$" | grep -q .; then
      cat "$out"
      fail "CCL_ALGO=$1=$2 -g $g: a row was served by another algorithm"
    fi
  done
  echo "ok: CCL_ALGO=$1=$2 (2, 3, 5, 8 ranks)"
}
grep '^# in the library without a row' "$table"
forced allreduce allpairs_2p 256K   # its row: 3 ranks and more, up to 256 KiB
forced allreduce allpairs_2p_ll
forced allreduce allpairs_ll_split
forced allreduce ring
forced allreduce ring_oop
forced broadcast bc_allpairs
forced reduce red_allpairs
forced reduce red_allpairs_ll 4K    # its row: 2 ranks only

# --- One process per rank, and delays.
for coll in AllReduce AllGather ReduceScatter AllToAll Broadcast Reduce; do
  mine || continue
  for n in 3 4; do
    out=multi-$coll-$n.txt
    ccl-run -n "$n" ccl-perf --lib "$lib" --coll "$coll" --target host --root 1 \
        -b 0 -e 2M -f 5 -n 1 -w 0 -k 4 -d float32,bfloat16 -o sum,min > "$out" 2>&1 ||
      { cat "$out"; fail "ccl-run -n $n ccl-perf --coll $coll"; }
    python3 "$REPO/test/e2e/check_selection.py" "$table" "$out" "$coll" "$n" ||
      { cat "$out"; fail "ccl-run -n $n --coll $coll"; }
  done
  for delay in 1=2000 0:0=2000; do
    out=delay-$coll.txt
    ccl-perf --lib "$lib" --coll "$coll" --target host -g 4 --root 2 -b 4 -e 2M -f 9 \
        -n 1 -w 0 -k 8 -d float32 --delay "$delay" > "$out" 2>&1 ||
      { cat "$out"; fail "--coll $coll --delay $delay"; }
    python3 "$REPO/test/e2e/check_selection.py" "$table" "$out" "$coll" 4 ||
      { cat "$out"; fail "--coll $coll --delay $delay"; }
  done
done

# --- --csv and --plot: every measured row in the CSV with the algorithm that
# served it; a plot when matplotlib is there, else a message that says so.
# Without matplotlib the run fails (exit 1): an output asked for is missing.
# A --csv or --plot into a folder that does not exist, and --skip-rank with
# no timeout, are refused before anything runs.
if mine; then
  rc=0
  ccl-perf --lib "$lib" --coll AllGather --target host -g 3 -b 4 -e 1M -f 16 -n 1 -w 0 \
      -k 1 -d float32,bfloat16 --csv rows.csv --plot rows.png > csv.txt 2>&1 || rc=$?
  if python3 -c 'import matplotlib' 2>/dev/null; then want=0; else want=1; fi
  [ "$rc" = "$want" ] || { cat csv.txt; fail "--csv/--plot run: exit $rc, not $want"; }
  head -1 rows.csv | grep -q '^backend,collective,nranks,target,bytes,count,type,redop,placement,time_us,algbw_gbs,busbw_gbs,wrong,algorithm$' ||
    fail "--csv: the header is $(head -1 rows.csv)"
  # 5 sizes x 2 types x 2 placements, each naming the algorithm the table names.
  test "$(grep -c '^cclc,AllGather,3,host,' rows.csv)" = 20 || { cat rows.csv; fail "--csv rows"; }
  grep -q ',ag_allpairs_ll$' rows.csv && grep -q ',ag_allpairs_ll_wide$' rows.csv || { cat rows.csv; fail "--csv algorithms"; }
  if python3 -c 'import matplotlib' 2>/dev/null; then
    test -s rows.png || fail "--plot wrote no image"
  else
    grep -q "# ERROR: --plot: matplotlib is not available to python3" csv.txt || { cat csv.txt; fail "--plot without matplotlib"; }
  fi
  for flag in --csv --plot; do
    if ccl-perf --lib "$lib" --coll AllGather --target host -g 2 -b 4 -e 4 -n 1 -w 0 \
        $flag no-such-dir/rows.out > nodir.txt 2>&1; then
      cat nodir.txt; fail "$flag into a missing folder exited 0"
    fi
    grep -qF -- "$flag no-such-dir/rows.out: cannot write into no-such-dir: No such file or directory" nodir.txt ||
      { cat nodir.txt; fail "$flag into a missing folder: message"; }
    ! grep -q "^ *4 " nodir.txt || { cat nodir.txt; fail "$flag into a missing folder ran"; }
  done
  if ccl-perf --lib "$lib" --coll AllGather --target host -g 2 -b 4 -e 4 -n 1 -w 0 \
      --skip-rank 1 --timeout-ms 0 > skip.txt 2>&1; then
    cat skip.txt; fail "--skip-rank 1 --timeout-ms 0 exited 0"
  fi
  grep -q "with --timeout-ms 0 (no timeout) they would wait forever" skip.txt ||
    { cat skip.txt; fail "--skip-rank with --timeout-ms 0: message"; }
  echo "ok: --csv and --plot"
fi
shard_done
