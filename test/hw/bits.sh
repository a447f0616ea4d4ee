#!/usr/bin/env bash
# Same bits on every rank (docs/semantics.md, "Rank-consistent results") on
# one GPU, the ranks sharing GPU 0 (timings are not link timings).
#
#   test/hw/bits.sh build [OUT]     here (OUT: .carry/bits)
#   OUT/bits.sh run [RESULTS]       on the GPU machine (RESULTS: ./results)
#
# build compiles the stdlib bundle for sm_90 at 2 and 4 ranks (float32,
# float16, bfloat16, sum, up to 64 MiB per rank), allpairs_ll as the stdlib
# has it (every rank adds in rank order) and as it was (each rank its own
# input first, bits(any): test/hw/bits_own_first.ccl), each in a library of
# its own, libcclnccl.so, and copies ccl-perf, libcclrt and torch_bits.py.
#
# run: (1) ccl-perf --bitwise on the bundle's cclAllReduce at 2 and 4 ranks,
# each dtype, 4 B to 64 MiB, K = 8 back to back, eager and in CUDA graphs:
# 'Rank differences' must be 0 and every value right; (2) the two
# allpairs_ll libraries side by side at 2 and 4 ranks, 8 B to 64 KiB, in
# graphs (the cost of the rank order, with the ranks time-slicing one GPU);
# (3) PyTorch's all_reduce through libcclnccl.so under torchrun with 2 and
# 4 processes on GPU 0 (torch_bits.py); (4) "det": the bundle's
# deterministic table (CCL_DETERMINISTIC=1): ccl-perf --bitwise at 2 and 4
# ranks, eager and in graphs, 0 rank and 0 size differences; PyTorch at 4
# processes with torch_bits.py --invariance (batches of 1, 3, 64 rows and
# 1024 against a prefix of 1 Mi elements: 0 differences), and the same
# without the variable as the control (differences are expected where the
# default table's rings serve). PARTS (default "bundle allpairs torch")
# picks the parts, to split the run across device calls.
# NCCL_NVLS_ENABLE=0 throughout; no multicast. Exit status 1 if any check
# failed.
set -uo pipefail
mode=${1:-}
case "$mode" in
build)
  set -e
  source "$(dirname "$0")/prepare.sh"
  hw_prepare bits "${2:-}"
  start=$SECONDS
  out/bin/cclc stdlib/stdlib.ccl --target=sm_90 --nranks=2,4 \
      --dtype=float32,float16,bfloat16 --op=sum --max-bytes=64M \
      -o "$OUT/libccl_stdlib.so"
  echo "bits: bundle compiled in $((SECONDS - start)) s"
  out/bin/cclc stdlib/allreduce/allpairs_ll.ccl --target=sm_90 --nranks=2,4 \
      --dtype=float32 --op=sum -o "$OUT/librank_order.so"
  out/bin/cclc test/hw/bits_own_first.ccl --target=sm_90 --nranks=2,4 \
      --dtype=float32 --op=sum -o "$OUT/libown_first.so"
  hw_install out/bin/ccl-perf out/lib/libcclrt.so out/lib/libcclnccl.so \
      test/hw/bits.sh test/hw/torch_bits.py
  (cd "$OUT" && tar cJf libs.txz libccl_stdlib.so && rm libccl_stdlib.so)
  echo "bits: built into $OUT ($(du -sh "$OUT" | cut -f1))"
  ;;
run)
  HERE=$(cd "$(dirname "$0")" && pwd)
  RESULTS=${2:-$PWD/results}
  mkdir -p "$RESULTS"
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  export LD_LIBRARY_PATH=$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  [[ -f $HERE/libccl_stdlib.so ]] || (cd "$HERE" && tar xJf libs.txz)
  status=0
  bad() { echo "FAILED: $*" | tee -a "$RESULTS/summary.txt"; status=1; }
  perf=$HERE/ccl-perf
  parts=" ${PARTS:-bundle allpairs torch} "
  for n in 2 4; do
    devs=$(printf '0,%.0s' $(seq "$n")); devs=${devs%,}
    [[ $parts == *" bundle "* ]] && for g in 0 2; do
      log=$RESULTS/bundle_n${n}_G$g.txt
      timeout 200 "$perf" --lib "$HERE/libccl_stdlib.so" --coll AllReduce \
        --devices "$devs" -d all -o sum --bitwise -b 4 -e 64M -f 4 -k 8 \
        -n 2 -w 1 -G $g > "$log" 2>&1 || bad "bundle at $n ranks, -G $g (exit $?)"
      diff=$(sed -n 's/^# Rank differences *: \([0-9]*\).*/\1/p' "$log")
      wrong=$(awk '!/^#/ && NF > 8 {w += $8 + $12} END {print w + 0}' "$log")
      echo "bundle cclAllReduce, $n ranks on GPU 0, -G $g: rank differences ${diff:-?}, wrong $wrong" |
        tee -a "$RESULTS/summary.txt"
      [[ "$diff" == 0 && "$wrong" == 0 ]] || bad "bundle at $n ranks, -G $g"
    done
    [[ $parts == *" allpairs "* ]] || continue
    for lib in rank_order own_first; do
      timeout 100 "$perf" --lib "$HERE/lib$lib.so" --algo allpairs_ll \
        --devices "$devs" -d float32 -o sum -b 8 -e 64K -f 2 -k 8 \
        -n 200 -w 20 -G 1 > "$RESULTS/allpairs_ll_${lib}_n$n.txt" 2>&1 ||
        bad "allpairs_ll $lib at $n ranks (exit $?)"
    done
    echo "allpairs_ll at $n ranks on GPU 0 (CUDA graphs; us, out of place / in place):" |
      tee -a "$RESULTS/summary.txt"
    paste <(awk '!/^#/ && NF > 8 {print $1, $5, $9}' "$RESULTS/allpairs_ll_rank_order_n$n.txt") \
          <(awk '!/^#/ && NF > 8 {print $5, $9}' "$RESULTS/allpairs_ll_own_first_n$n.txt") |
      awk 'BEGIN {print "  bytes  rank_order(oop ip)  own_first(oop ip)"} {print "  " $0}' |
      tee -a "$RESULTS/summary.txt"
  done
  [[ $parts == *" torch "* ]] && for n in 2 4; do
    LD_PRELOAD=$HERE/libcclnccl.so CCL_NCCL_BUNDLE=$HERE/libccl_stdlib.so \
      CCL_NCCL_LOG=1 timeout 240 python3 -m torch.distributed.run \
      --nproc-per-node "$n" --master-port $((29600 + n)) "$HERE/torch_bits.py" \
      "$RESULTS/torch_n$n" > "$RESULTS/torch_n$n.txt" 2>&1 ||
      bad "PyTorch at $n ranks (exit $?)"
    grep -E 'differ between|torch_bits:' "$RESULTS/torch_n$n.txt" | sed "s/^/torch $n ranks: /" |
      tee -a "$RESULTS/summary.txt"
    rm -rf "$RESULTS/torch_n$n"
  done
  [[ $parts == *" det "* ]] && for n in 2 4; do
    devs=$(printf '0,%.0s' $(seq "$n")); devs=${devs%,}
    for g in 0 2; do
      log=$RESULTS/det_bundle_n${n}_G$g.txt
      CCL_DETERMINISTIC=1 timeout 200 "$perf" --lib "$HERE/libccl_stdlib.so" --coll AllReduce \
        --devices "$devs" -d all -o sum --bitwise -b 4 -e 64M -f 4 -k 8 \
        -n 2 -w 1 -G $g > "$log" 2>&1 || bad "deterministic bundle at $n ranks, -G $g (exit $?)"
      diff=$(sed -n 's/^# Rank differences *: \([0-9]*\).*/\1/p' "$log")
      sdiff=$(sed -n 's/^# Size differences *: \([0-9]*\).*/\1/p' "$log")
      wrong=$(awk '!/^#/ && NF > 8 {w += $8 + $12} END {print w + 0}' "$log")
      algs=$(awk '!/^#/ && NF == 13 {print $13}' "$log" | sort -u | tr '\n' ' ')
      echo "deterministic cclAllReduce, $n ranks on GPU 0, -G $g: rank differences ${diff:-?}, size differences ${sdiff:-?}, wrong $wrong; served by $algs" |
        tee -a "$RESULTS/summary.txt"
      [[ "$diff" == 0 && "$sdiff" == 0 && "$wrong" == 0 ]] || bad "deterministic bundle at $n ranks, -G $g"
    done
    [[ $n == 4 ]] || continue
    for det in 1 0; do
      tag=torch_det${det}_n$n
      expect=$([[ $det == 1 ]] && echo --expect-invariant)
      LD_PRELOAD=$HERE/libcclnccl.so CCL_NCCL_BUNDLE=$HERE/libccl_stdlib.so \
        CCL_DETERMINISTIC=$det CCL_NCCL_LOG=1 timeout 240 python3 -m torch.distributed.run \
        --nproc-per-node "$n" --master-port $((29700 + n + 10 * det)) "$HERE/torch_bits.py" \
        "$RESULTS/$tag" --invariance $expect > "$RESULTS/$tag.txt" 2>&1 ||
        bad "PyTorch CCL_DETERMINISTIC=$det at $n ranks (exit $?)"
      grep -E 'differ|torch_bits:' "$RESULTS/$tag.txt" | sed "s/^/torch CCL_DETERMINISTIC=$det $n ranks: /" |
        tee -a "$RESULTS/summary.txt"
      rm -rf "$RESULTS/$tag"
    done
  done
  exit $status
  ;;
*)
  echo "usage: $0 build [OUT] | run [RESULTS]" >&2
  exit 2
  ;;
esac
