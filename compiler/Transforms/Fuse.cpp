//===- Fuse.cpp - fuse consecutive operations of a thread block -----------===//

#include "compiler/Transforms/LowerChunksLanes.h"
#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <map>

namespace ccl {
#define GEN_PASS_DEF_CCLFUSE
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

bool single(Operation *op) {
  return !op->hasAttr("group");
}

ArrayAttr append(Builder &b, ArrayAttr list, Attribute item) {
  SmallVector<Attribute> items;
  if (list)
    llvm::append_range(items, list);
  items.push_back(item);
  return b.getArrayAttr(items);
}

/// Adds a forward of the result over `put`'s channel to `put`'s destination.
template <typename OpT> void addForward(OpT op, Operation *put) {
  Builder b(op.getContext());
  auto ch = put->getAttrOfType<FlatSymbolRefAttr>("channel");
  auto dst = put->getAttrOfType<ChunkRefAttr>("dst");
  op.setFwdDstsAttr(append(b, op.getFwdDstsAttr(), dst));
  op.setFwdChannelsAttr(append(b, op.getFwdChannelsAttr(), ch));
}

/// The port channels of an algorithm: a put over one is a request for the
/// proxy (a copy engine moves the bytes), so it never becomes a forward,
/// which the threads store.
using PortSet = llvm::DenseSet<StringAttr>;

bool overPort(const PortSet &ports, Operation *op) {
  auto put = dyn_cast<PutOp>(op);
  return put && ports.contains(put.getChannelAttr().getAttr());
}

/// Tries to fold `next` into `prev` (consecutive in one block). Returns true
/// when `next` was absorbed (the caller erases it).
bool fuse(Operation *prev, Operation *next, const PortSet &ports) {
  if (!single(prev) || !single(next))
    return false;
  // put + signal (+ flush).
  if (auto put = dyn_cast<PutOp>(prev); put && !put.getFwdDstsAttr()) {
    if (auto sig = dyn_cast<SignalOp>(next);
        sig && !sig.getRelaxed() && sig.getChannel() == put.getChannel() &&
        !put.getWithSignal()) {
      put.setWithSignal(true);
      return true;
    }
    if (auto fl = dyn_cast<FlushOp>(next);
        fl && put.getWithSignal() && fl.getChannel() == put.getChannel() &&
        !put.getWithFlush()) {
      put.setWithFlush(true);
      return true;
    }
  }
  // The forms below turn a put into a forward: not over a port channel.
  if (overPort(ports, prev) || overPort(ports, next))
    return false;
  // Multi-destination put: same source, same signal and flush.
  if (auto a = dyn_cast<PutOp>(prev)) {
    if (auto c = dyn_cast<PutOp>(next);
        c && c.getSrc() == a.getSrc() && !c.getFwdDstsAttr() &&
        c.getWithSignal() == a.getWithSignal() &&
        c.getWithFlush() == a.getWithFlush()) {
      addForward(a, next);
      return true;
    }
  }
  // rcs / reduce-send: a local result, then a put of it.
  auto forwardPut = [&](auto op) -> bool {
    auto put = dyn_cast<PutOp>(next);
    if (!put || put.getSrc() != op.getDst() || put.getFwdDstsAttr() ||
        put.getWithFlush() || op.getFwdSignal())
      return false;
    if (op.getFwdDstsAttr() && put.getWithSignal())
      return false;
    addForward(op, next);
    if (put.getWithSignal())
      op.setFwdSignal(true);
    return true;
  };
  // A forwarding op followed by the signal of its single forward channel.
  auto forwardSignal = [&](auto op) -> bool {
    auto sig = dyn_cast<SignalOp>(next);
    ArrayAttr chans = op.getFwdChannelsAttr();
    if (!sig || sig.getRelaxed() || !chans || chans.size() != 1 ||
        op.getFwdSignal() ||
        cast<FlatSymbolRefAttr>(chans[0]) != sig.getChannelAttr())
      return false;
    op.setFwdSignal(true);
    return true;
  };
  if (auto copy = dyn_cast<CopyOp>(prev); copy && !copy.isCrossRank())
    return forwardPut(copy) || forwardSignal(copy);
  if (auto red = dyn_cast<ReduceOp>(prev); red && !red.isCrossRank()) {
    if (forwardPut(red) || forwardSignal(red))
      return true;
    // n-ary reduce.
    auto more = dyn_cast<ReduceOp>(next);
    if (more && !more.isCrossRank() && more.getDst() == red.getDst() &&
        !red.getFwdDstsAttr() && !more.getFwdDstsAttr() &&
        !more.getMoreAttr() && !red.getBaseAttr() && !more.getBaseAttr()) {
      Builder b(red.getContext());
      red.setMoreAttr(append(b, red.getMoreAttr(), more.getSrc()));
      return true;
    }
    return false;
  }
  // Packet reduce-copy-send.
  if (auto rp = dyn_cast<ReducePacketsOp>(prev)) {
    auto pp = dyn_cast<PutPacketsOp>(next);
    if (pp && pp.getSrc() == rp.getDst() && !pp.getFwdDstsAttr()) {
      addForward(rp, next);
      return true;
    }
    return false;
  }
  // Multimem load-reduce-store.
  if (auto mr = dyn_cast<MultimemReduceOp>(prev)) {
    auto mb = dyn_cast<MultimemBroadcastOp>(next);
    if (mb && !mr.getBroadcast() && mb.getChannel() == mr.getChannel() &&
        mb.getSrc() == mr.getDst() && mb.getDst() == mr.getDst()) {
      mr.setBroadcast(true);
      return true;
    }
  }
  return false;
}

/// Folds the local copy `prev` (`dst = base`) into the local reduce `red`
/// of the same destination that follows it, with only waits of the block
/// in between: `red` becomes `dst = base OP src` and the copy goes. The
/// copy then happens at the reduce, after the waits; a wait only orders
/// later operations after a peer's, so nothing that raced neither the copy
/// nor the reduce before can race them now. Not when `src` is (in place)
/// the copy's destination, which the reduce would read after the copy, or
/// when base and destination partly overlap in place.
bool foldCopyIntoReduce(AlgorithmOp algo, Operation *prev, ReduceOp red) {
  auto copy = dyn_cast_or_null<CopyOp>(prev);
  if (!copy || !single(copy) || !single(red) || copy.isCrossRank() ||
      red.isCrossRank() || copy.getFwdDstsAttr() || copy.getFwdSignal() ||
      red.getBaseAttr() || red.getMoreAttr() || copy.getDst() != red.getDst())
    return false;
  if (!lower_chunks::canFoldBase(algo, red.getDst(), red.getSrc(),
                                 copy.getSrc()))
    return false;
  red.setBaseAttr(copy.getSrc());
  return true;
}

void fuseAlgorithm(AlgorithmOp algo) {
  PortSet ports;
  for (auto ch : algo.getBody().getOps<ChannelOp>())
    if (ch.getKind() == ChannelKind::Port)
      ports.insert(ch.getSymNameAttr());
  std::map<std::pair<int64_t, int64_t>, Operation *> last;
  // Per block, the last operation that is not a wait (waits after it).
  std::map<std::pair<int64_t, int64_t>, Operation *> beforeWaits;
  SmallVector<Operation *> dead;
  for (Operation &op : algo.getBody().front()) {
    if (auto bar = dyn_cast<TbBarrierOp>(op)) {
      for (int64_t t : bar.getTbs()) {
        last[{bar.getRankAttr().getInt(), t}] = nullptr;
        beforeWaits[{bar.getRankAttr().getInt(), t}] = nullptr;
      }
      continue;
    }
    auto inst = dyn_cast<InstructionOp>(op);
    if (!inst || !inst.isPlaced())
      continue;
    auto key = std::make_pair(inst.getExecRank(), inst.getThreadBlock());
    Operation *prev = last[key];
    if (prev && fuse(prev, &op, ports)) {
      dead.push_back(&op);
      continue;
    }
    if (auto red = dyn_cast<ReduceOp>(op);
        red && foldCopyIntoReduce(algo, beforeWaits[key], red)) {
      dead.push_back(beforeWaits[key]);
      beforeWaits[key] = nullptr;
    }
    last[key] = &op;
    if (!isa<WaitOp>(op) || !single(&op))
      beforeWaits[key] = &op;
  }
  for (Operation *op : dead)
    op->erase();
}

struct CclFusePass : public ccl::impl::CclFuseBase<CclFusePass> {
  void runOnOperation() override {
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>())
      if (!algo.getScheduled()) {
        DeclarationIndex index(algo);
        fuseAlgorithm(algo);
      }
  }
};

} // namespace
