#!/usr/bin/env bash
# Compile time, peak memory and library size of cclc on the stdlib and on
# large rank counts (issue 17's numbers; docs/perf-history.md "Compile time and code
# size"). Runs one compilation at a time; prints a markdown table row per
# case. Needs out/ (scripts/build.sh) and GNU time.
#
#   scripts/compile-bench.sh [CASE...]   cases: goals algos main range stdlib
#                                        bundle ring allpairs (default: all)
#
# `goals` is the goal table of docs/perf.md "Compile time" (each row one
# compile; the whole stdlib bundle for sm_90 and host among them); `algos`
# is one algorithm of each collective at 2..8 ranks, 3 types x 4 operators,
# for each target alone.
set -uo pipefail
cd "$(dirname "$0")/.."
CCLC=${CCLC:-out/bin/cclc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cases=${*:-goals algos main range stdlib bundle ring allpairs}

# run LABEL ARGS...: one compilation; prints | LABEL | time | memory | size | result |
run() {
  local label=$1; shift
  local out=$TMP/lib.so
  rm -f "$out"
  /usr/bin/time -f '%e %M' -o "$TMP/time" "$CCLC" "$@" -o "$out" \
      > "$TMP/log" 2>&1
  local rc=$?
  read -r secs kb < <(tail -1 "$TMP/time")
  local size="-"
  [[ -f $out ]] && size=$(awk -v b="$(stat -c %s "$out")" 'BEGIN{printf "%.2f MB", b/1e6}')
  local result=ok
  [[ $rc != 0 ]] && result="error: $(grep -m1 -o 'error: .*' "$TMP/log" | cut -c1-90)"
  printf '| %s | %s s | %s MB | %s | %s |\n' "$label" "$secs" "$((kb / 1024))" "$size" "$result"
}

echo "| case | time | peak memory | library | result |"
echo "| --- | --- | --- | --- | --- |"
ALL="--dtype=float32,float16,bfloat16 --op=sum,prod,max,min"
for c in $cases; do
  case $c in
  goals)
    run "stdlib bundle, sm_90+host, 2..8 ranks, 3 dtypes x 4 ops, 64M" \
        stdlib/stdlib.ccl --target=sm_90,host --nranks=2..8 $ALL --max-bytes=64M
    for a in ring allpairs_ll; do
      run "$a, 64 ranks, sm_90+host, 3 dtypes x 4 ops" \
          stdlib/allreduce/$a.ccl --target=sm_90,host --nranks=64 $ALL
    done
    run "ring, 32 ranks, 16 tiles, host, float32" \
        stdlib/allreduce/ring.ccl --target=host --nranks=32 --tiles=16 --dtype=float32
    run "allpairs_ll, 2..64 ranks, host, float32" \
        stdlib/allreduce/allpairs_ll.ccl --target=host --nranks=2..64 --dtype=float32
    for n in 2 4 8 16 32 64; do
      run "allpairs_ll, $n ranks, host, float32" \
          stdlib/allreduce/allpairs_ll.ccl --target=host --nranks=$n --dtype=float32
    done ;;
  algos)
    for f in allreduce/ring_oop_wide_tiled allgather/ag_ring_wide_tiled \
             reducescatter/rs_ring_wide_tiled alltoall/a2a_wide \
             broadcast/bc_chain_wide reduce/red_chain_wide_tiled; do
      for t in host sm_90; do
        run "$(basename $f), 2..8 ranks, $t, 3 dtypes x 4 ops" \
            stdlib/$f.ccl --target=$t --nranks=2..8 $ALL
      done
    done ;;
  main)
    run "ring, 8 ranks, 8 instances x 4 tiles, sm_90, float32" \
        stdlib/allreduce/ring.ccl --target=sm_90 --nranks=8 --instances=8 --tiles=4 --dtype=float32 ;;
  range)
    run "ring, 2..8 ranks, 8 instances x 4 tiles, sm_90, float32" \
        stdlib/allreduce/ring.ccl --target=sm_90 --nranks=2..8 --instances=8 --tiles=4 --dtype=float32 ;;
  stdlib)
    for f in stdlib/allreduce/*.ccl; do
      run "$(basename "$f" .ccl), 2..8 ranks, 3 dtypes x 4 ops, sm_90+host" \
          "$f" --target=sm_90,host --nranks=2..8 --dtype=float32,float16,bfloat16 --op=sum,prod,max,min
    done ;;
  bundle)
    # The whole stdlib in one library (scripts/main.sh builds it).
    run "stdlib bundle, 2..8 ranks, 3 dtypes x sum, sm_90" \
        stdlib/stdlib.ccl --target=sm_90 --nranks=2..8 --dtype=float32,float16,bfloat16 --max-bytes=64M
    run "stdlib bundle, 2..8 ranks, 3 dtypes x 4 ops, host" \
        stdlib/stdlib.ccl --target=host --nranks=2..8 --dtype=float32,float16,bfloat16 \
        --op=sum,prod,max,min --max-bytes=4M
    run "stdlib bundle, 2..8 ranks, 3 dtypes x 4 ops, sm_90+host" \
        stdlib/stdlib.ccl --target=sm_90,host --nranks=2..8 --dtype=float32,float16,bfloat16 \
        --op=sum,prod,max,min --max-bytes=64M ;;
  ring)
    for n in 8 16 32 64 128; do
      for t in host sm_90; do
        run "ring, $n ranks, $t, float32" stdlib/allreduce/ring.ccl --target=$t --nranks=$n --dtype=float32
      done
    done ;;
  allpairs)
    for n in 32 64 128 1024; do
      run "allpairs_ll, $n ranks, host, float32" stdlib/allreduce/allpairs_ll.ccl --target=host --nranks=$n --dtype=float32
    done ;;
  esac
done
