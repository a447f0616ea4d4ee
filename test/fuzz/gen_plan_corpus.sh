#!/usr/bin/env bash
# Regenerates the plan fuzzer's seeds, test/fuzz/plan_corpus/stdlib_*: a
# few stdlib algorithms (and plan_bundle.ccl, a bundle of two) compiled by
# cclc for the host target at 2..4 ranks, float32 and sum, their plan
# tables written as plan images by //test/fuzz:plan_seeds (plan_image.h);
# the same sources and tools give the same bytes. report_* are two of them
# whose kernel reports a timeout (plan_seeds --report), so that the error
# report reads the plan's tables from the first input on. Run it after a
# change of runtime/include/ccl/plan.h (//test/fuzz:plan_replay_test fails
# until then: the runtime refuses the old seeds) and commit the result.
#
#   test/fuzz/gen_plan_corpus.sh
#
# Environment: BAZEL (default "bazel").
set -euo pipefail
cd "$(dirname "$0")/../.."
read -ra bazel <<<"${BAZEL:-bazel}"
"${bazel[@]}" build //tools:dist //test/fuzz:plan_seeds
bin=$("${bazel[@]}" info bazel-bin)
dist=$bin/tools/dist
seeds=$bin/test/fuzz/plan_seeds
out=test/fuzz/plan_corpus
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plan-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rm -f "$out"/stdlib_* "$out"/report_*

flags=(--target=host --nranks=2..4 --dtype=float32 --op=sum --max-bytes=64K)
# seed name, rank count of its call, cclc input and extra flags
gen() {
  local name=$1 nranks=$2 src=$3
  shift 3
  "$dist/bin/cclc" "$src" "${flags[@]}" "$@" -o "$tmp/$name.so"
  LD_LIBRARY_PATH=$dist/lib "$seeds" "$tmp/$name.so" "$out/stdlib_$name" "$nranks"
}
# The same library with a timeout report: report_NAME.
report() {
  LD_LIBRARY_PATH=$dist/lib "$seeds" --report "$tmp/$1.so" "$out/report_$1" "$2"
}
gen allreduce_allpairs_ll 2 stdlib/allreduce/allpairs_ll.ccl
gen allreduce_ring 3 stdlib/allreduce/ring.ccl
gen allreduce_ring_port 4 stdlib/allreduce/ring.ccl --channel=port
gen allgather_ag_ring 4 stdlib/allgather/ag_ring.ccl
gen reducescatter_rs_ring 3 stdlib/reducescatter/rs_ring.ccl
gen alltoall_a2a_allpairs 2 stdlib/alltoall/a2a_allpairs.ccl
gen broadcast_bc_tree 4 stdlib/broadcast/bc_tree.ccl
gen reduce_red_chain 3 stdlib/reduce/red_chain.ccl
report allreduce_ring 3
report reduce_red_chain 3

# A bundle of two AllReduce algorithms and its selection table.
gen bundle_allreduce 2 test/fuzz/plan_bundle.ccl -I stdlib
ls -l "$out"
