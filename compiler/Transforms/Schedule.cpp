//===- Schedule.cpp - global level to per-thread-block instruction lists --===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include <map>

namespace ccl {
#define GEN_PASS_DEF_CCLSCHEDULE
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

/// Ranges touched since the last barrier of one thread block.
struct PendingAccesses {
  SmallVector<ChunkRefAttr> reads, writes;

  bool conflicts(InstructionOp op) const {
    auto overlapsAny = [](ChunkRefAttr ref, ArrayRef<ChunkRefAttr> list) {
      return llvm::any_of(list, [&](ChunkRefAttr o) { return o.overlaps(ref); });
    };
    return overlapsAny(op.getReadRef(), writes) ||
           overlapsAny(op.getWrittenRef(), writes) ||
           overlapsAny(op.getWrittenRef(), reads);
  }
  void add(InstructionOp op) {
    reads.push_back(op.getReadRef());
    writes.push_back(op.getWrittenRef());
  }
};

/// `nextId` numbers operations across the whole module: the library's plans
/// share one table of source locations, indexed by op_id.
void schedule(AlgorithmOp algo, int64_t &nextId) {
  Block &body = algo.getBody().front();
  SmallVector<InstructionOp> ops;
  for (Operation &op : body)
    if (auto inst = dyn_cast<InstructionOp>(op))
      ops.push_back(inst);

  OpBuilder b(algo.getContext());
  b.setInsertionPointToEnd(&body);
  std::map<std::pair<int64_t, int64_t>, ThreadBlockOp> blocks;
  std::map<std::pair<int64_t, int64_t>, PendingAccesses> pending;
  // Create the blocks in (rank, tb) order so the output is stable.
  for (InstructionOp op : ops)
    blocks[{op.getExecRank(), op.getThreadBlock()}] = nullptr;
  for (auto &[key, tb] : blocks) {
    tb = ThreadBlockOp::create(b, algo.getLoc(), key.first, key.second);
    tb.getBody().emplaceBlock();
  }

  for (InstructionOp op : ops) {
    std::pair<int64_t, int64_t> key{op.getExecRank(), op.getThreadBlock()};
    Block &dest = blocks[key].getBody().front();
    PendingAccesses &acc = pending[key];
    if (acc.conflicts(op)) {
      OpBuilder bb = OpBuilder::atBlockEnd(&dest);
      BarrierOp::create(bb, op.getLoc());
      acc = PendingAccesses();
    }
    acc.add(op);
    op->setAttr("op_id", b.getI64IntegerAttr(nextId++));
    op->moveBefore(&dest, dest.end());
  }
  algo.setScheduled(true);
}

struct CclSchedulePass : public ccl::impl::CclScheduleBase<CclSchedulePass> {
  void runOnOperation() override {
    // Continue after ids that earlier runs assigned.
    int64_t nextId = 0;
    getOperation().walk([&](InstructionOp op) {
      if (auto id = op->getAttrOfType<IntegerAttr>("op_id"))
        nextId = std::max<int64_t>(nextId, id.getInt() + 1);
    });
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>())
      if (!algo.getScheduled())
        schedule(algo, nextId);
  }
};

} // namespace
