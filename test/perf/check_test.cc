// Tests of ccl-perf's references (tools/ccl-perf/check.h): the reduction
// accumulated while the inputs are generated (InputGen::fill with an
// accumulator, storeReduction) has the same bits as each reduction
// collective's own reference function, which generates every rank's input
// again; for every type, operator, rank counts 1..64 and odd counts, and
// for every rank's block of a ReduceScatter. A reference that differs
// would let a wrong library pass or a right one fail.
#include <cstdio>
#include <cstring>
#include <vector>

#include "tools/ccl-perf/check.h"

using namespace cclperf;

static int failures = 0;

// Tests that the accumulated reduction of `coll`'s inputs equals its
// reference at every rank for n ranks and `count`.
static void checkOne(const Collective &coll, DType t, Op op, int n, size_t count,
                     uint64_t call) {
  InputGen g;
  g.key = makeKey(42, call);
  g.op = op;
  g.nranks = n;
  const size_t es = dtypeSize(t);
  const size_t ic = coll.inCount(count, n), oc = coll.outCount(count, n);
  std::vector<int32_t> acc(ic);
  g.startReduction(acc.data(), ic);
  std::vector<unsigned char> in(ic * es);
  // Ranks in reverse order: the accumulation must not depend on it.
  for (int r = n - 1; r >= 0; r--) g.fill(r, t, in.data(), ic, acc.data());
  // The input a fill with an accumulator writes is the plain fill's.
  std::vector<unsigned char> plain(ic * es);
  g.fill(0, t, plain.data(), ic);
  std::vector<unsigned char> in0(ic * es);
  std::vector<int32_t> scratch(ic);
  g.startReduction(scratch.data(), ic);
  g.fill(0, t, in0.data(), ic, scratch.data());
  if (std::memcmp(plain.data(), in0.data(), ic * es) != 0) {
    std::printf("FAILED: %s n=%d count=%zu: fill with an accumulator wrote other inputs\n",
                coll.name, n, count);
    failures++;
  }
  std::vector<unsigned char> want(oc * es), got(oc * es);
  for (int r = 0; r < n; r++) {
    coll.reference(g, r, count, t, want.data());
    const size_t base = coll.kind == CollKind::ReduceScatter ? count * (size_t)r : 0;
    storeReduction(acc.data() + base, oc, t, got.data());
    if (std::memcmp(want.data(), got.data(), oc * es) != 0) {
      size_t i = 0;
      while (std::memcmp(want.data() + i * es, got.data() + i * es, es) == 0) i++;
      std::printf("FAILED: %s %s op %d n=%d count=%zu rank %d: element %zu differs\n",
                  coll.name, dtypeName(t), (int)op, n, count, r, i);
      failures++;
      return;
    }
    if (coll.sameOutput) break;
  }
}

int main() {
  const DType types[] = {DType::Float32, DType::Float16, DType::Bfloat16};
  const Op ops[] = {Op::Sum, Op::Prod, Op::Max, Op::Min};
  const char *names[] = {"AllReduce", "ReduceScatter", "Reduce"};
  int checked = 0;
  uint64_t call = 1;
  for (const char *name : names) {
    const Collective *coll = findCollective(name);
    if (!coll || !coll->reduction) {
      std::printf("FAILED: no reduction collective %s\n", name);
      return 1;
    }
    for (DType t : types)
      for (Op op : ops)
        for (int n : {1, 2, 3, 4, 5, 7, 8, 16, 33, 64})
          for (size_t count : {size_t(0), size_t(1), size_t(7), size_t(1000), size_t(70001)}) {
            // Above 65536 elements the generators split the work between
            // threads (parallelFor); at a few rank counts only, for time.
            if (count > 65536 && n > 4) continue;
            checkOne(*coll, t, op, n, count, call++);
            checked++;
          }
  }
  if (failures) {
    std::printf("%d of %d cases failed\n", failures, checked);
    return 1;
  }
  std::printf("PASS: %d cases\n", checked);
  return 0;
}
