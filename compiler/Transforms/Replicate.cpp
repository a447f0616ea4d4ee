//===- Replicate.cpp - instances: copies of an algorithm side by side -----===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace ccl {
#define GEN_PASS_DEF_CCLREPLICATE
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

class Replicator {
public:
  Replicator(AlgorithmOp algo, int64_t k, bool share)
      : algo(algo), k(k), share(share) {}

  LogicalResult run() {
    Block &body = algo.getBody().front();
    SmallVector<Operation *> program, decls, contract;
    int64_t blocks = 1;
    for (Operation &op : body) {
      if (auto inst = dyn_cast<InstructionOp>(op)) {
        if (!inst.isPlaced())
          return success(); // needs --ccl-lower-chunks first
        blocks = std::max(blocks, inst.getThreadBlock() + inst.getGroupSize());
        program.push_back(&op);
      } else if (auto bar = dyn_cast<TbBarrierOp>(op)) {
        blocks = std::max(blocks, bar.getTbs().back() + 1);
        program.push_back(&op);
      } else if (isa<RequireOp, EnsureOp>(op)) {
        contract.push_back(&op);
      } else {
        decls.push_back(&op);
      }
    }
    OpBuilder b(algo.getContext());
    // Declarations: scratch grows, channels and semaphores are copied.
    for (Operation *op : decls) {
      if (auto s = dyn_cast<ScratchOp>(op)) {
        s.setSlots(s.getSlots() * k);
        continue;
      }
      if (share)
        continue; // tiles reuse the channels and semaphores
      auto sym = cast<SymbolOpInterface>(op);
      std::string name = sym.getName().str();
      b.setInsertionPoint(op);
      for (int64_t j = 0; j < k; ++j) {
        Operation *copy = b.clone(*op);
        std::string renamed = name + "_i" + std::to_string(j);
        cast<SymbolOpInterface>(copy).setName(b.getStringAttr(renamed));
        renames[name].push_back(renamed);
      }
      op->erase();
    }
    // The program, one copy after the other; then the contract.
    b.setInsertionPoint(contract.empty() ? nullptr : contract.front());
    if (contract.empty())
      b.setInsertionPointToEnd(&body);
    for (int64_t j = 0; j < k; ++j)
      for (Operation *op : program)
        emitCopies(b, op, j, blocks);
    for (Operation *op : contract)
      for (int64_t j = 0; j < k; ++j) {
        b.setInsertionPoint(op);
        Operation *copy = b.clone(*op);
        rewrite(copy, j, /*piece=*/0, blocks);
      }
    for (Operation *op : program)
      op->erase();
    for (Operation *op : contract)
      op->erase();

    auto scale = [&](IntegerAttr a) {
      return a ? b.getI64IntegerAttr(a.getInt() * k) : IntegerAttr();
    };
    algo.setChunks(algo.getChunks() * k);
    algo.setInputChunksAttr(scale(algo.getInputChunksAttr()));
    algo.setOutputChunksAttr(scale(algo.getOutputChunksAttr()));
    if (!share) {
      int64_t prev =
          algo.getInstancesAttr() ? algo.getInstancesAttr().getInt() : 1;
      algo.setInstancesAttr(b.getI64IntegerAttr(prev * k));
    }
    return success();
  }

private:
  /// Emits copy `j` of `op`, one operation per chunk of its references.
  void emitCopies(OpBuilder &b, Operation *op, int64_t j, int64_t blocks) {
    int64_t count = 1;
    op->getAttrDictionary().walk([&](ChunkRefAttr r) {
      count = std::max<int64_t>(count, r.getCount());
    });
    for (int64_t m = 0; m < count; ++m) {
      Operation *copy = b.clone(*op);
      rewrite(copy, j, m, blocks);
      // A fused signal or flush belongs after the last piece only.
      if (auto put = dyn_cast<PutOp>(copy); put && m + 1 < count) {
        put.setWithSignal(false);
        put.setWithFlush(false);
      }
    }
  }

  /// Refines the chunk references of `op` to piece `piece` of copy `j`,
  /// renames its channels and semaphores and moves its thread blocks.
  void rewrite(Operation *op, int64_t j, int64_t piece, int64_t blocks) {
    MLIRContext *ctx = op->getContext();
    auto refine = [&](Attribute a) -> Attribute {
      if (auto r = dyn_cast<ChunkRefAttr>(a))
        return ChunkRefAttr::get(ctx, r.getBuffer(), r.getRank(),
                                 (r.getIndex() + piece) * k + j, 1);
      if (auto s = dyn_cast<FlatSymbolRefAttr>(a)) {
        auto it = renames.find(s.getValue());
        if (it != renames.end())
          return FlatSymbolRefAttr::get(ctx, it->second[j]);
      }
      return a;
    };
    for (NamedAttribute na : op->getAttrs()) {
      Attribute a = na.getValue();
      if (auto arr = dyn_cast<ArrayAttr>(a)) {
        SmallVector<Attribute> items;
        for (Attribute x : arr)
          items.push_back(refine(x));
        op->setAttr(na.getName(), ArrayAttr::get(ctx, items));
      } else {
        op->setAttr(na.getName(), refine(a));
      }
    }
    if (share)
      return; // tiles run on the same thread blocks, one after the other
    if (auto tb = op->getAttrOfType<IntegerAttr>("tb"))
      op->setAttr("tb", IntegerAttr::get(tb.getType(), tb.getInt() + j * blocks));
    if (auto bar = dyn_cast<TbBarrierOp>(op)) {
      SmallVector<int64_t> tbs;
      for (int64_t t : bar.getTbs())
        tbs.push_back(t + j * blocks);
      bar.setTbs(tbs);
    }
  }

  AlgorithmOp algo;
  int64_t k;
  bool share;
  llvm::StringMap<SmallVector<std::string>> renames;
};

struct CclReplicatePass
    : public ccl::impl::CclReplicateBase<CclReplicatePass> {
  using CclReplicateBase::CclReplicateBase;
  void runOnOperation() override {
    if (instances < 1 || instances > 1024) {
      getOperation().emitError("instances must be in 1..1024, not ")
          << static_cast<int64_t>(instances);
      return signalPassFailure();
    }
    if (instances == 1)
      return;
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>())
      if (!algo.getScheduled() &&
          failed(Replicator(algo, instances, shareBlocks).run()))
        return signalPassFailure();
  }
};

} // namespace
