//===- Schedule.cpp - global level to per-thread-block instruction lists --===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include <map>
#include <vector>

namespace ccl {
#define GEN_PASS_DEF_CCLSCHEDULE
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

/// Ranges touched since the last barrier of one thread block, where they
/// live when the algorithm is called in place (an algorithm of both forms:
/// its output may be its input, AlgorithmOp::inPlaceRef).
///
/// LL packets this block wrote into its own rank's scratch
/// (`pack_packets`, `copy_packets`) are kept apart: a packet read
/// (`reduce_packets`, `unpack_packets`, `copy_packets`) waits for each
/// packet's flag, whichever thread wrote it, so reading them needs no
/// barrier. Writing over them again still does.
struct PendingAccesses {
  SmallVector<ChunkRefAttr> reads, writes, packetWrites;

  bool conflicts(AlgorithmOp algo, InstructionOp op) const {
    auto overlapsAny = [&](ChunkRefAttr ref, ArrayRef<ChunkRefAttr> list) {
      ref = algo.inPlaceRef(ref);
      return llvm::any_of(list, [&](ChunkRefAttr o) { return o.overlaps(ref); });
    };
    for (ChunkRefAttr r : op.getReadRefs())
      if (overlapsAny(r, writes) ||
          (!readsPackets(op.getOperation()) &&
           overlapsAny(r, packetWrites)))
        return true;
    for (ChunkRefAttr w : op.getWrittenRefs())
      if (overlapsAny(w, writes) || overlapsAny(w, packetWrites) ||
          overlapsAny(w, reads))
        return true;
    return false;
  }
  void add(AlgorithmOp algo, InstructionOp op) {
    for (ChunkRefAttr r : op.getReadRefs())
      reads.push_back(algo.inPlaceRef(r));
    for (ChunkRefAttr w : op.getWrittenRefs())
      (writesOwnPackets(op.getOperation()) ? packetWrites : writes)
          .push_back(algo.inPlaceRef(w));
  }
};

/// `nextId` numbers operations across the whole module: the library's plans
/// share one table of source locations, indexed by op_id.
LogicalResult schedule(AlgorithmOp algo, int64_t &nextId) {
  Block &body = algo.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    if (isa<InstructionOp, TbBarrierOp>(op))
      ops.push_back(&op);

  OpBuilder b(algo.getContext());
  b.setInsertionPointToEnd(&body);
  std::map<std::pair<int64_t, int64_t>, ThreadBlockOp> blocks;
  std::map<std::pair<int64_t, int64_t>, PendingAccesses> pending;
  // Create the blocks in (rank, tb) order so the output is stable.
  for (Operation *op : ops) {
    if (auto bar = dyn_cast<TbBarrierOp>(op)) {
      for (int64_t t : bar.getTbs())
        blocks[{bar.getRankAttr().getInt(), t}] = nullptr;
      continue;
    }
    auto inst = cast<InstructionOp>(op);
    if (inst.getGroupSize() != 1)
      return op->emitError("thread-block groups are not scheduled yet; "
                           "place the operation on one thread block");
    blocks[{inst.getExecRank(), inst.getThreadBlock()}] = nullptr;
  }
  for (auto &[key, tb] : blocks) {
    tb = ThreadBlockOp::create(b, algo.getLoc(), key.first, key.second);
    tb.getBody().emplaceBlock();
  }

  for (Operation *raw : ops) {
    if (auto bar = dyn_cast<TbBarrierOp>(raw)) {
      // One copy in each participating block; it also orders their data.
      for (int64_t t : bar.getTbs()) {
        std::pair<int64_t, int64_t> key{bar.getRankAttr().getInt(), t};
        OpBuilder bb = OpBuilder::atBlockEnd(&blocks[key].getBody().front());
        bb.clone(*raw);
        pending[key] = PendingAccesses();
      }
      raw->erase();
      continue;
    }
    auto op = cast<InstructionOp>(raw);
    if (!op.isPlaced())
      op->setAttr("tb", b.getI64IntegerAttr(0));
    std::pair<int64_t, int64_t> key{op.getExecRank(), op.getThreadBlock()};
    Block &dest = blocks[key].getBody().front();
    PendingAccesses &acc = pending[key];
    if (acc.conflicts(algo, op)) {
      OpBuilder bb = OpBuilder::atBlockEnd(&dest);
      BarrierOp::create(bb, op.getLoc());
      acc = PendingAccesses();
    }
    acc.add(algo, op);
    setOpId(op, nextId++);
    op->moveBefore(&dest, dest.end());
  }
  algo.setScheduled(true);
  return success();
}

/// Scheduling puts a copy of a ccl.tb_barrier into each participating
/// block. A barrier wait can time out too, so every barrier without an id
/// gets one after the largest in the module: the k-th barrier over the same
/// (rank, blocks) in each of its blocks is the same source operation.
void numberBarriers(ModuleOp module) {
  int64_t next = 0;
  module.walk([&](Operation *op) {
    if (std::optional<int64_t> id = getOpId(op))
      next = std::max<int64_t>(next, *id + 1);
  });
  using Key = std::pair<int64_t, std::vector<int64_t>>; // (rank, blocks)
  for (AlgorithmOp algo : module.getOps<AlgorithmOp>()) {
    std::map<std::pair<Key, int64_t>, int64_t> ids; // (key, k) -> id
    for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
      std::map<Key, int64_t> seen;
      for (auto bar : tb.getBody().getOps<TbBarrierOp>()) {
        if (getOpId(bar))
          continue;
        Key key{bar.getRankAttr().getInt(),
                std::vector<int64_t>(bar.getTbs().begin(), bar.getTbs().end())};
        auto [it, inserted] = ids.try_emplace({key, seen[key]++}, next);
        if (inserted)
          ++next;
        setOpId(bar, it->second);
      }
    }
  }
}

struct CclSchedulePass : public ccl::impl::CclScheduleBase<CclSchedulePass> {
  void runOnOperation() override {
    // Continue after ids that earlier runs assigned.
    int64_t nextId = 0;
    getOperation().walk([&](InstructionOp op) {
      if (std::optional<int64_t> id = getOpId(op))
        nextId = std::max<int64_t>(nextId, *id + 1);
    });
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>()) {
      DeclarationIndex index(algo);
      if (!algo.getScheduled() && failed(schedule(algo, nextId)))
        return signalPassFailure();
    }
    numberBarriers(getOperation());
  }
};

} // namespace
