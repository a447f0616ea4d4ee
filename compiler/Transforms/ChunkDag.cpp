//===- ChunkDag.cpp - RAW/WAR/WAW edges between operations ----------------===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <set>
#include <tuple>

namespace ccl {
#define GEN_PASS_DEF_CCLCHUNKDAG
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

using Slot = std::tuple<std::string, int64_t, int64_t>;

/// Per slot: the last writer and the readers since.
struct SlotState {
  int64_t writer = -1;
  std::set<int64_t> readers;
};

void buildDag(AlgorithmOp algo) {
  std::map<Slot, SlotState> slots;
  int64_t id = 0;
  // Slots where they live in place (an algorithm of both forms: edges
  // for what conflicts only when its output is its input, too).
  auto each = [&](ArrayRef<ChunkRefAttr> refs, auto fn) {
    for (ChunkRefAttr ref : refs) {
      ChunkRefAttr r = algo.inPlaceRef(ref);
      for (int64_t i = 0; i < r.getCount(); ++i)
        fn(Slot{r.getBuffer().str(), r.getRank(), r.getIndex() + i});
    }
  };
  for (Operation &op : algo.getBody().front()) {
    if (!isa<InstructionOp, TbBarrierOp>(op))
      continue;
    int64_t me = id++;
    setDagId(&op, me);
    for (DagEdge kind : kDagEdges)
      setDagEdges(&op, kind, {});
    auto inst = dyn_cast<InstructionOp>(op);
    if (!inst)
      continue;
    std::set<int64_t> raw, war, waw;
    SmallVector<ChunkRefAttr, 2> reads = inst.getReadRefs();
    SmallVector<ChunkRefAttr, 2> writes = inst.getWrittenRefs();
    if (inst.accumulates())
      reads.push_back(writes.front());
    each(reads, [&](const Slot &s) {
      if (int64_t w = slots[s].writer; w >= 0)
        raw.insert(w);
    });
    each(writes, [&](const Slot &s) {
      SlotState &st = slots[s];
      if (st.writer >= 0)
        waw.insert(st.writer);
      for (int64_t r : st.readers)
        if (r != me)
          war.insert(r);
    });
    // Update after computing edges: reads first, then the writes reset.
    each(reads, [&](const Slot &s) { slots[s].readers.insert(me); });
    each(writes, [&](const Slot &s) {
      SlotState &st = slots[s];
      st.writer = me;
      st.readers.clear();
    });
    auto set = [&](DagEdge kind, const std::set<int64_t> &ids) {
      setDagEdges(&op, kind, SmallVector<int64_t>(ids.begin(), ids.end()));
    };
    set(DagEdge::ReadAfterWrite, raw);
    set(DagEdge::WriteAfterRead, war);
    set(DagEdge::WriteAfterWrite, waw);
  }
}

struct CclChunkDagPass : public ccl::impl::CclChunkDagBase<CclChunkDagPass> {
  void runOnOperation() override {
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>())
      if (!algo.getScheduled()) {
        DeclarationIndex index(algo);
        buildDag(algo);
      }
  }
};

} // namespace
