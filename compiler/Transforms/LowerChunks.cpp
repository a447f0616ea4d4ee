//===- LowerChunks.cpp - chunk-level copy/reduce to one-sided ops ---------===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <map>
#include <tuple>

namespace ccl {
#define GEN_PASS_DEF_CCLLOWERCHUNKS
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

bool isChunkLevel(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.isCrossRank();
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.isCrossRank();
  return false;
}

/// True when the chunk DAG (--ccl-chunk-dag) numbered every operation.
bool hasDag(ArrayRef<Operation *> ops) {
  return llvm::all_of(ops, [](Operation *op) { return op->hasAttr("dag_id"); });
}

/// Calls `fn` with the dag_id of every operation `op` depends on.
void forEachDagDep(Operation *op, llvm::function_ref<void(int64_t)> fn) {
  for (StringRef kind : {"raw", "war", "waw"})
    if (auto edges = op->getAttrOfType<DenseI64ArrayAttr>(kind))
      for (int64_t id : edges.asArrayRef())
        fn(id);
}

/// Rewrites one algorithm; `kind` is the channel kind for Simple transfers.
class ChunkLowering {
public:
  ChunkLowering(AlgorithmOp algo, StringRef kind, int64_t maxBlocks)
      : algo(algo), kind(kind), maxBlocks(maxBlocks), b(algo.getContext()) {}

  /// Splits the unplaced operations into lanes: operations that touch a
  /// common chunk (transitively) share a lane, operations of different
  /// lanes are independent. Each lane gets its own thread block (modulo
  /// maxBlocks) after the blocks the program placed itself. Returns the
  /// number of lanes.
  int64_t assignLanes(ArrayRef<Operation *> ops) {
    std::map<Operation *, Operation *> parent;
    std::function<Operation *(Operation *)> find = [&](Operation *x) {
      Operation *&p = parent[x];
      if (!p || p == x)
        return p = x;
      return p = find(p);
    };
    std::map<std::tuple<std::string, int64_t, int64_t>, Operation *> last;
    int64_t placedBlocks = 0;
    for (Operation &op : algo.getBody().front()) {
      if (auto bar = dyn_cast<TbBarrierOp>(op))
        placedBlocks = std::max(placedBlocks, bar.getTbs().back() + 1);
      if (auto inst = dyn_cast<InstructionOp>(op); inst && inst.isPlaced())
        placedBlocks = std::max(placedBlocks,
                                inst.getThreadBlock() + inst.getGroupSize());
    }
    // With the chunk DAG (--ccl-chunk-dag), its edges link the lanes;
    // without it, any two operations touching a common slot do.
    bool haveDag = hasDag(ops);
    std::map<int64_t, Operation *> byId;
    if (haveDag)
      for (Operation *op : ops)
        byId[op->getAttrOfType<IntegerAttr>("dag_id").getInt()] = op;
    for (Operation *op : ops) {
      find(op);
      if (haveDag) {
        forEachDagDep(op, [&](int64_t id) {
          if (auto it = byId.find(id); it != byId.end())
            parent[find(op)] = find(it->second);
        });
        continue;
      }
      auto inst = cast<InstructionOp>(op);
      SmallVector<ChunkRefAttr> refs(inst.getReadRefs());
      llvm::append_range(refs, inst.getWrittenRefs());
      for (ChunkRefAttr r : refs)
        for (int64_t i = 0; i < r.getCount(); ++i) {
          auto key = std::make_tuple(r.getBuffer().str(), r.getRank(),
                                     r.getIndex() + i);
          auto it = last.find(key);
          if (it != last.end())
            parent[find(op)] = find(it->second);
          last[key] = op;
        }
    }
    std::map<Operation *, int64_t> laneOfRoot;
    for (Operation *op : ops) {
      Operation *root = find(op);
      auto it = laneOfRoot.find(root);
      if (it == laneOfRoot.end())
        it = laneOfRoot.emplace(root, laneOfRoot.size()).first;
      block[op] = placedBlocks + it->second % maxBlocks;
    }
    return laneOfRoot.size();
  }

  /// When several lanes share a thread block (more lanes than max-blocks),
  /// program order would run one lane's whole chain before the next lane
  /// starts on that block. Instead, order the operations by priority:
  /// depth in the chunk DAG (longest chain of dependencies before the
  /// operation), then reverse depth (longest chain after it, the critical
  /// path first), then program order. Every dependency goes from a smaller
  /// depth to a larger one, so this is a valid program order with the same
  /// meaning; the transfers are lowered in it, so every wait still follows
  /// its send and the result is deadlock free. `ops` are the unplaced
  /// operations, numbered by the chunk DAG; only a program made of them
  /// alone, contiguous, is reordered.
  void orderByPriority(ArrayRef<Operation *> ops) {
    Block &body = algo.getBody().front();
    size_t insts = llvm::count_if(
        body, [](Operation &op) { return isa<InstructionOp, TbBarrierOp>(op); });
    if (ops.size() < 2 || insts != ops.size())
      return; // placed operations too: keep the program's order
    for (size_t i = 1; i < ops.size(); ++i)
      if (ops[i]->getPrevNode() != ops[i - 1])
        return;
    std::map<int64_t, size_t> index;
    for (size_t i = 0; i < ops.size(); ++i)
      index[ops[i]->getAttrOfType<IntegerAttr>("dag_id").getInt()] = i;
    std::vector<SmallVector<size_t>> preds(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
      forEachDagDep(ops[i], [&](int64_t id) {
        if (auto it = index.find(id); it != index.end() && it->second < i)
          preds[i].push_back(it->second);
      });
    // Program order is topological (an edge points to an earlier op).
    std::vector<int64_t> depth(ops.size(), 0), rdepth(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i)
      for (size_t p : preds[i])
        depth[i] = std::max(depth[i], depth[p] + 1);
    for (size_t i = ops.size(); i-- > 0;)
      for (size_t p : preds[i])
        rdepth[p] = std::max(rdepth[p], rdepth[i] + 1);
    SmallVector<size_t> order(ops.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::stable_sort(order, [&](size_t a, size_t b) {
      return std::make_tuple(depth[a], -rdepth[a], a) <
             std::make_tuple(depth[b], -rdepth[b], b);
    });
    Operation *after = ops.back()->getNextNode();
    for (size_t i : order) {
      if (after)
        ops[i]->moveBefore(after);
      else
        ops[i]->moveBefore(&body, body.end());
    }
  }

  LogicalResult run() {
    Block &body = algo.getBody().front();
    bool chunkLevel = false, unplaced = false;
    for (Operation &op : body) {
      if (isChunkLevel(&op))
        chunkLevel = true;
      else if (auto inst = dyn_cast<InstructionOp>(op))
        unplaced |= !inst.isPlaced();
    }
    if (!chunkLevel && !unplaced)
      return success();
    SmallVector<Operation *> laneOps;
    for (Operation &op : body)
      if (auto inst = dyn_cast<InstructionOp>(op); inst && !inst.isPlaced())
        laneOps.push_back(&op);
    if (assignLanes(laneOps) > maxBlocks && hasDag(laneOps))
      orderByPriority(laneOps);
    // (After the reordering: the transfers are lowered in program order.)
    SmallVector<Operation *> chunkOps;
    for (Operation &op : body)
      if (isChunkLevel(&op))
        chunkOps.push_back(&op);
    if (algo.isLL() && kind != "memory")
      return algo.emitError("an LL algorithm sends packets over memory "
                            "channels; --channel=")
             << kind << " applies to Simple algorithms";

    // Slots of the transfer buffer: every transfer into a rank gets its own.
    std::map<int64_t, int64_t> received;
    for (Operation *op : chunkOps) {
      auto inst = cast<InstructionOp>(op);
      ChunkRefAttr dst = inst.getWrittenRefs().front();
      if (needsSlot(op))
        received[dst.getRank()] += dst.getCount();
    }
    int64_t slots = 0;
    for (auto [rank, n] : received)
      slots = std::max(slots, n);
    StringAttr xfer;
    if (slots > 0)
      xfer = declareScratch(slots);

    std::map<int64_t, int64_t> nextSlot;
    for (Operation *op : chunkOps) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      auto inst = cast<InstructionOp>(op);
      ChunkRefAttr dst = inst.getWrittenRefs().front();
      ChunkRefAttr src = inst.getReadRefs().front();
      int64_t from = src.getRank(), to = dst.getRank();
      int64_t tb = block[op];
      FlatSymbolRefAttr ch = channel(algo.isLL() ? "memory" : kind, from, to,
                                     tb, loc);
      IntegerAttr tb0 = b.getI64IntegerAttr(tb);
      ChunkRefAttr landing = dst;
      if (needsSlot(op)) {
        int64_t &slot = nextSlot[to];
        landing = ChunkRefAttr::get(b.getContext(), xfer.getValue(), to, slot,
                                    dst.getCount());
        slot += dst.getCount();
      }
      if (algo.isLL()) {
        PutPacketsOp::create(b, loc, ch, tb0, nullptr, landing, src, nullptr,
                             nullptr);
        if (isa<ReduceOp>(op))
          ReducePacketsOp::create(b, loc, tb0, nullptr, dst, landing, nullptr,
                                  nullptr, nullptr);
        else
          UnpackPacketsOp::create(b, loc, tb0, nullptr, dst, landing, nullptr,
                                  nullptr, nullptr);
      } else {
        bool port = kind == "port";
        PutOp::create(b, loc, ch, tb0, nullptr, landing, src, UnitAttr(),
                      UnitAttr(), nullptr, nullptr);
        SignalOp::create(b, loc, ch, tb0, nullptr, UnitAttr());
        if (port)
          FlushOp::create(b, loc, ch, tb0, nullptr);
        WaitOp::create(b, loc, ch, tb0, nullptr, UnitAttr());
        if (isa<ReduceOp>(op))
          ReduceOp::create(b, loc, tb0, nullptr, dst, landing, nullptr, nullptr,
                           nullptr, nullptr);
        else if (landing != dst)
          CopyOp::create(b, loc, tb0, nullptr, dst, landing, nullptr, nullptr,
                         nullptr);
      }
      op->erase();
    }
    // Everything else still unplaced runs on its lane's block.
    for (Operation &op : body)
      if (auto inst = dyn_cast<InstructionOp>(op); inst && !inst.isPlaced())
        op.setAttr("tb", b.getI64IntegerAttr(block[&op]));
    return success();
  }

private:
  /// A copy into a scratch buffer of a Simple algorithm lands directly;
  /// everything else goes through a transfer slot.
  bool needsSlot(Operation *op) {
    if (algo.isLL() || isa<ReduceOp>(op))
      return true;
    return !cast<CopyOp>(op).getDst().isScratch();
  }

  StringAttr declareScratch(int64_t slots) {
    std::string name = "xfer";
    for (int i = 1; algo.lookupDeclaration(name); ++i)
      name = "xfer" + std::to_string(i);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(&algo.getBody().front(),
                        algo.declarationSlot(AlgorithmOp::Decl::Scratch));
    ScratchOp::create(b, algo.getLoc(), name, slots);
    return b.getStringAttr(name);
  }

  /// The channel `kind from -> to` of thread block `tb` (each channel end
  /// belongs to one block), created on first use.
  FlatSymbolRefAttr channel(StringRef chKind, int64_t from, int64_t to,
                            int64_t tb, Location loc) {
    auto key = std::make_tuple(chKind.str(), from, to, tb);
    if (auto it = channels.find(key); it != channels.end())
      return it->second;
    std::string base = llvm::formatv("{0}_{1}_{2}_b{3}",
                                     chKind == "memory" ? "mem" : chKind, from,
                                     to, tb)
                           .str();
    std::string name = base;
    for (int i = 1; algo.lookupDeclaration(name); ++i)
      name = base + "_" + std::to_string(i);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(&algo.getBody().front(),
                        algo.declarationSlot(AlgorithmOp::Decl::Channel));
    ChannelOp::create(b, loc, name, chKind, from, to, /*credit=*/nullptr);
    return channels[key] = FlatSymbolRefAttr::get(b.getContext(), name);
  }

  AlgorithmOp algo;
  std::string kind;
  int64_t maxBlocks;
  OpBuilder b;
  std::map<Operation *, int64_t> block;
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, FlatSymbolRefAttr>
      channels;
};

struct CclLowerChunksPass
    : public ccl::impl::CclLowerChunksBase<CclLowerChunksPass> {
  using CclLowerChunksBase::CclLowerChunksBase;
  void runOnOperation() override {
    if (maxBlocks < 1) {
      getOperation().emitError("max-blocks must be at least 1");
      return signalPassFailure();
    }
    if (channelKind != "memory" && channelKind != "port") {
      getOperation().emitError("--channel must be memory or port, not '")
          << channelKind << "'";
      return signalPassFailure();
    }
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>())
      if (!algo.getScheduled() &&
          failed(ChunkLowering(algo, channelKind, maxBlocks).run()))
        return signalPassFailure();
  }
};

} // namespace
