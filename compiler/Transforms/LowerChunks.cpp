//===- LowerChunks.cpp - chunk-level copy/reduce to one-sided ops ---------===//
//
// The pass. Which thread block an unplaced copy or reduce runs on, and the
// order of unplaced operations, are LowerChunksLanes.cpp's.
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/LowerChunksLanes.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/VerifyMachine.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace ccl {
#define GEN_PASS_DEF_CCLLOWERCHUNKS
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;
using namespace ccl::lower_chunks;

namespace {

/// Whether two operations that read and write these chunks conflict: one
/// writes what the other reads or writes.
bool conflict(ArrayRef<verify::Loc> readsA, ArrayRef<verify::Loc> writesA,
              ArrayRef<verify::Loc> readsB, ArrayRef<verify::Loc> writesB) {
  auto touches = [](ArrayRef<verify::Loc> a, ArrayRef<verify::Loc> b) {
    return llvm::any_of(
        a, [&](const verify::Loc &l) { return llvm::is_contained(b, l); });
  };
  return touches(writesA, readsB) || touches(writesA, writesB) ||
         touches(readsA, writesB);
}

bool isChunkLevel(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.isCrossRank();
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.isCrossRank();
  return false;
}

/// One chunk-level copy/reduce after lowering: the source's put into the
/// landing chunk on the destination and the destination's operation that
/// consumes it (none when the put lands in the final destination).
struct Transfer {
  Operation *put = nullptr;
  Operation *consume = nullptr;
  ChunkRefAttr landing;
  int64_t from = 0, to = 0, tb = 0;
  /// Position of the chunk-level operation among the algorithm's ones.
  size_t index = 0;
};

/// Operations that wait for something another block or rank does.
bool isBlocking(Operation *op) {
  return isa<WaitOp, AcquireOp, FlushOp, TbBarrierOp, ReducePacketsOp,
             UnpackPacketsOp, CopyPacketsOp>(op);
}

/// Synchronisation a credited wait is not moved across (it may be moved
/// across data movement, packet reads included, which it only delays).
bool isSync(Operation *op) {
  return isa<WaitOp, AcquireOp, FlushOp, TbBarrierOp>(op);
}

/// Rewrites one algorithm; `kind` is the channel kind for Simple transfers.
class ChunkLowering {
public:
  ChunkLowering(AlgorithmOp algo, ChannelKind kind, int64_t maxBlocks)
      : algo(algo), kind(kind), maxBlocks(maxBlocks), b(algo.getContext()) {}

  /// Lowers every chunk-level operation into transfers (those whose index
  /// is in `forceSlot` through a transfer slot even where they could land
  /// directly) and records them in `transfers`.
  LogicalResult run(const std::set<size_t> &forceSlot,
                    std::vector<Transfer> &transfers) {
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
    SmallVector<Operation *> laneOps, dataOps;
    for (Operation &op : body)
      if (auto inst = dyn_cast<InstructionOp>(op); inst && !inst.isPlaced()) {
        laneOps.push_back(&op);
        if (isa<CopyOp, ReduceOp>(op))
          dataOps.push_back(&op);
      }
    // Only the lanes' operations are reordered (the others keep their
    // program order on block 0).
    if (assignLanes(algo, laneOps, maxBlocks, block) > maxBlocks &&
        hasDag(dataOps))
      orderByPriority(algo, dataOps);
    // (After the reordering: the transfers are lowered in program order.)
    SmallVector<Operation *> chunkOps;
    for (Operation &op : body)
      if (isChunkLevel(&op))
        chunkOps.push_back(&op);
    if (algo.isLL() && kind != ChannelKind::Memory)
      return algo.emitError("an LL algorithm sends packets over memory "
                            "channels; --channel=")
             << stringifyChannelKind(kind) << " applies to Simple algorithms";

    collectPlaced();

    // Slots of the transfer buffer: every transfer into a rank gets its own
    // (a copy into scratch that a placed operation of the destination's
    // rank uses first goes through one too: only the destination can order
    // itself after that operation).
    std::map<int64_t, int64_t> received;
    std::vector<bool> slotted(chunkOps.size());
    for (auto [i, op] : llvm::enumerate(chunkOps)) {
      auto inst = cast<InstructionOp>(op);
      ChunkRefAttr dst = inst.getWrittenRefs().front();
      slotted[i] = needsSlot(op) || forceSlot.count(i) ||
                   !placedBefore(op, dst.getRank(), {}, refLocs(dst)).empty();
      if (slotted[i])
        received[dst.getRank()] += dst.getCount();
    }
    int64_t slots = 0;
    for (auto [rank, n] : received)
      slots = std::max(slots, n);
    StringAttr xfer;
    if (slots > 0)
      xfer = declareScratch(slots);

    std::map<int64_t, int64_t> nextSlot;
    for (auto [index, op] : llvm::enumerate(chunkOps)) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      auto inst = cast<InstructionOp>(op);
      ChunkRefAttr dst = inst.getWrittenRefs().front();
      ChunkRefAttr src = inst.getReadRefs().front();
      int64_t from = src.getRank(), to = dst.getRank();
      // A placed operation keeps its block; lanes start after the placed
      // blocks (assignLanes).
      int64_t tb = inst.isPlaced() ? inst.getThreadBlock() : block[op];
      ChannelKind chKind = algo.isLL() ? ChannelKind::Memory : kind;
      FlatSymbolRefAttr ch =
          channel(chKind == ChannelKind::Memory ? "mem" : "port", chKind, from,
                  to, tb, loc);
      IntegerAttr tb0 = b.getI64IntegerAttr(tb);
      ChunkRefAttr landing = dst;
      if (slotted[index]) {
        int64_t &slot = nextSlot[to];
        landing = ChunkRefAttr::get(b.getContext(), xfer.getValue(), to, slot,
                                    dst.getCount());
        slot += dst.getCount();
      }
      Transfer t;
      Operation *wait = nullptr;
      SmallVector<Operation *, 3> send; // after t.put, on the source's rank
      t.landing = landing;
      t.from = from;
      t.to = to;
      t.tb = tb;
      t.index = index;
      if (algo.isLL()) {
        t.put = PutPacketsOp::create(b, loc, ch, tb0, nullptr, landing, src,
                                     nullptr, nullptr);
        if (isa<ReduceOp>(op))
          t.consume = ReducePacketsOp::create(b, loc, tb0, nullptr, dst,
                                              landing, nullptr, nullptr,
                                              nullptr);
        else
          t.consume = UnpackPacketsOp::create(b, loc, tb0, nullptr, dst,
                                              landing, nullptr, nullptr,
                                              nullptr);
      } else {
        bool port = kind == ChannelKind::Port;
        t.put = PutOp::create(b, loc, ch, tb0, nullptr, landing, src,
                              UnitAttr(), UnitAttr(), nullptr, nullptr);
        send.push_back(SignalOp::create(b, loc, ch, tb0, nullptr, UnitAttr()));
        if (port)
          send.push_back(FlushOp::create(b, loc, ch, tb0, nullptr));
        wait = WaitOp::create(b, loc, ch, tb0, nullptr, UnitAttr());
        if (isa<ReduceOp>(op))
          t.consume = ReduceOp::create(b, loc, tb0, nullptr, dst, landing,
                                       nullptr, nullptr, nullptr, nullptr);
        else if (landing != dst)
          t.consume = CopyOp::create(b, loc, tb0, nullptr, dst, landing,
                                     nullptr, nullptr, nullptr);
      }
      transfers.push_back(t);
      if (wait && !t.consume)
        landedBy[wait] = refLocs(landing);
      if (inst.isPlaced()) {
        send.insert(send.begin(), t.put);
        hoistSend(send, from, tb, refLocs(src), ch);
      }
      // Each half runs after the placed operations of its own rank that
      // touch the chunks it reads or writes (docs/semantics.md, ordering
      // rule 9), which may be on other thread blocks.
      SmallVector<verify::Loc> dstLocs = refLocs(dst);
      if (failed(orderAfterPlaced(op, t.put, from, tb, refLocs(src), {})) ||
          (t.consume &&
           failed(orderAfterPlaced(op, t.consume, to, tb,
                                   isa<ReduceOp>(op) ? dstLocs
                                                     : SmallVector<verify::Loc>(),
                                   dstLocs))))
        return failure();
      if (inst.isPlaced())
        replacePlaced(op, t, wait, src);
      else
        recordLanePart(op, t, wait, src);
      position.erase(op);
      op->erase();
    }
    // Everything else still unplaced runs on its lane's block, after the
    // placed operations of other blocks it depends on.
    SmallVector<Operation *> rest;
    for (Operation &op : body)
      if (auto inst = dyn_cast<InstructionOp>(op); inst && !inst.isPlaced())
        rest.push_back(&op);
    for (Operation *op : rest) {
      op->setAttr("tb", b.getI64IntegerAttr(block[op]));
      SmallVector<verify::Loc> reads, writes;
      verify::footprint(op, reads, writes);
      if (failed(orderAfterPlaced(op, op, cast<InstructionOp>(op).getExecRank(),
                                  block[op], reads, writes)))
        return failure();
      Placed part{op, position.lookup(op), {}, {}};
      verify::footprint(op, part.reads, part.writes);
      laneParts.push_back(std::move(part));
    }
    orderPlacedAfterLanes();
    return success();
  }

  /// Slots alternate between calls in LL algorithms (two copies, by call
  /// parity), so a slot is reused two calls later; once otherwise.
  int rotation() { return algo.isLL() ? 2 : 1; }

  /// The transfers whose next use of their landing chunk is not ordered
  /// after this call's last use of it by anything the program does: the
  /// operations that touch the landing chunk (the consumer, for a transfer
  /// slot) must happen before the put `rotation()` calls later. All of them
  /// when one call cannot be analysed.
  std::vector<const Transfer *>
  unsafeTransfers(const std::vector<Transfer> &transfers) {
    std::vector<const Transfer *> unsafe;
    verify::Program program;
    std::optional<verify::CallOrder> order;
    if (succeeded(verify::buildProgram(algo, program)))
      order = verify::analyzeCallOrder(program);
    for (const Transfer &t : transfers) {
      if (!order) {
        unsafe.push_back(&t);
        continue;
      }
      SmallVector<Operation *> users;
      if (t.consume) {
        users.push_back(t.consume);
      } else {
        algo.walk([&](InstructionOp inst) {
          if (inst.getOperation() == t.put)
            return;
          SmallVector<verify::Loc> reads, writes;
          verify::footprint(inst, reads, writes);
          for (int64_t i = 0; i < t.landing.getCount(); ++i) {
            verify::Loc l = verify::locOf(t.landing, i);
            if (llvm::is_contained(reads, l) || llvm::is_contained(writes, l)) {
              users.push_back(inst);
              return;
            }
          }
        });
      }
      if (llvm::any_of(users, [&](Operation *u) {
            return !order->ordered(u, t.put, rotation());
          }))
        unsafe.push_back(&t);
    }
    return unsafe;
  }

  /// The direct landings (no transfer slot) that are not safe across calls.
  std::set<size_t> unsafeLandings(const std::vector<Transfer> &transfers) {
    std::set<size_t> out;
    for (const Transfer *t : unsafeTransfers(transfers))
      if (!t->consume)
        out.insert(t->index);
    return out;
  }

  /// Acknowledges every transfer whose slot the next call could overwrite
  /// too early: after consuming the slot, the destination's block signals a
  /// credited acknowledgement channel back to the source's block, which
  /// waits on it before it puts into the slot again. The acknowledgement
  /// channel has the transfers' kind (a port channel reaches ranks that a
  /// memory channel cannot: another host).
  void acknowledge(const std::vector<Transfer> &transfers) {
    std::vector<const Transfer *> unsafe = unsafeTransfers(transfers);
    std::map<std::string, int64_t> acks; // channel -> acks per call
    std::vector<Operation *> signals, waits;
    for (const Transfer *t : unsafe) {
      assert(t->consume && "direct landings are slotted when unsafe");
      FlatSymbolRefAttr ack =
          channel("ack", algo.isLL() ? ChannelKind::Memory : kind, t->to,
                  t->from, t->tb, t->put->getLoc());
      ++acks[ack.getValue().str()];
      IntegerAttr tb = b.getI64IntegerAttr(t->tb);
      b.setInsertionPointAfter(t->consume);
      signals.push_back(
          SignalOp::create(b, t->consume->getLoc(), ack, tb, nullptr, UnitAttr()));
      b.setInsertionPoint(t->put);
      waits.push_back(
          WaitOp::create(b, t->put->getLoc(), ack, tb, nullptr, UnitAttr()));
    }
    for (auto [name, n] : acks)
      cast<ChannelOp>(algo.lookupDeclaration(name))
          .setCreditAttr(b.getI64IntegerAttr(n * rotation()));
    // Out of the way of fusion: a signal goes after the block's
    // non-blocking operations that follow it, a wait before those that
    // precede it (neither changes what the program computes; the wait
    // depends only on earlier calls, and the signal could go anywhere
    // after the consumption).
    for (Operation *w : waits)
      while (Operation *prev = sameBlock(w, /*forward=*/false)) {
        if (isSync(prev))
          break;
        w->moveBefore(prev);
      }
    // A signal also stops before a local copy that ccl-fuse will fold into
    // the reduce after it (only waits between them).
    for (Operation *sig : signals)
      while (Operation *next = sameBlock(sig, /*forward=*/true)) {
        if (isBlocking(next) || foldsIntoReduce(next))
          break;
        sig->moveAfter(next);
      }
  }

  /// Whether `op` is a local copy `D = B` whose block's next operation
  /// other than waits is a local reduce into D (what ccl-fuse folds into
  /// `reduce D from X base B`).
  static bool foldsIntoReduce(Operation *op) {
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || copy.isCrossRank() || copy.getFwdDstsAttr())
      return false;
    Operation *next = sameBlock(op, /*forward=*/true);
    while (next && isa<WaitOp>(next))
      next = sameBlock(next, /*forward=*/true);
    auto red = dyn_cast_or_null<ReduceOp>(next);
    return red && !red.isCrossRank() && red.getDst() == copy.getDst();
  }

  /// The next (or previous) operation of `op`'s thread block.
  static Operation *sameBlock(Operation *op, bool forward) {
    auto inst = cast<InstructionOp>(op);
    int64_t rank = inst.getExecRank(), tb = inst.getThreadBlock();
    for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
         o = forward ? o->getNextNode() : o->getPrevNode()) {
      if (auto bar = dyn_cast<TbBarrierOp>(o)) {
        if (bar.getRankAttr().getInt() == rank &&
            llvm::is_contained(bar.getTbs(), tb))
          return o;
        continue;
      }
      auto other = dyn_cast<InstructionOp>(o);
      if (other && other.isPlaced() && other.getExecRank() == rank &&
          other.getThreadBlock() == tb)
        return o;
    }
    return nullptr;
  }

private:
  static SmallVector<verify::Loc> refLocs(ChunkRefAttr ref) {
    SmallVector<verify::Loc> out;
    for (int64_t i = 0; i < ref.getCount(); ++i)
      out.push_back(verify::locOf(ref, i));
    return out;
  }

  /// The operations the program placed itself (before lanes got blocks),
  /// in program order, with what they read and write.
  struct Placed {
    Operation *op;
    size_t position;
    SmallVector<verify::Loc> reads, writes;
  };
  void collectPlaced() {
    placed.clear();
    laneParts.clear();
    landedBy.clear();
    position.clear();
    size_t i = 0;
    for (Operation &op : algo.getBody().front()) {
      position[&op] = i++;
      auto inst = dyn_cast<InstructionOp>(op);
      if (!inst || !inst.isPlaced())
        continue;
      Placed p{&op, position[&op], {}, {}};
      verify::footprint(&op, p.reads, p.writes);
      placed.push_back(std::move(p));
    }
  }

  /// Placed chunk-level operation `op` was lowered into transfer `t` (and,
  /// in a Simple algorithm, `wait` on the destination) and is erased next:
  /// its entry in `placed` becomes its parts, at its position, so that the
  /// later operations are ordered after them (and never after the erased
  /// operation). The put reads the source on the source's rank; the
  /// destination's rank has the data after the consuming operation, or
  /// after the wait where the put lands in place. None of the parts reaches
  /// another rank's chunks, so they never need the error below.
  void replacePlaced(Operation *op, const Transfer &t, Operation *wait,
                     ChunkRefAttr src) {
    position.erase(op);
    auto it =
        llvm::find_if(placed, [&](const Placed &p) { return p.op == op; });
    if (it == placed.end())
      return;
    SmallVector<Placed, 2> parts = partsOf(t, wait, src, it->position);
    it = placed.erase(it);
    placed.insert(it, parts.begin(), parts.end());
  }

  /// The parts of a lowered chunk-level operation at program position `at`,
  /// with what each does on its own rank: the put reads the source; the
  /// consuming operation (or, where the put lands in place, the wait) has
  /// the data on the destination's rank.
  SmallVector<Placed, 2> partsOf(const Transfer &t, Operation *wait,
                                 ChunkRefAttr src, size_t at) {
    SmallVector<Placed, 2> parts;
    parts.push_back(Placed{t.put, at, refLocs(src), {}});
    if (t.consume) {
      Placed p{t.consume, at, {}, {}};
      verify::footprint(t.consume, p.reads, p.writes);
      parts.push_back(std::move(p));
    } else if (wait) {
      parts.push_back(Placed{wait, at, {}, refLocs(t.landing)});
    }
    return parts;
  }

  /// The sending half (`send`: the put, then its signal and flush) of a
  /// placed chunk-level operation runs on block `tb` of the source's rank
  /// `rank` as early as that block allows: before the block's operations
  /// between its program position and the last one that writes what it
  /// reads (`reads`) or sends on its channel `ch`. The verifier of the
  /// global level runs the operation on its destination's rank, where the
  /// receiving half stays: the source's rank only has to have written the
  /// data. At the operation's own position, the put would also wait for
  /// whatever the block waits for before it, which can be the receiving
  /// rank's later signals (a cyclic wait the program does not have).
  void hoistSend(ArrayRef<Operation *> send, int64_t rank, int64_t tb,
                 ArrayRef<verify::Loc> reads, FlatSymbolRefAttr ch) {
    Operation *before = nullptr;
    for (Operation *o = send.front()->getPrevNode(); o; o = o->getPrevNode()) {
      auto other = dyn_cast<InstructionOp>(o);
      if (!other || !other.isPlaced() || other.getExecRank() != rank ||
          other.getThreadBlock() != tb)
        continue;
      if (o->getAttrOfType<FlatSymbolRefAttr>("channel") == ch)
        break; // the channel's earlier signals come first
      SmallVector<verify::Loc> r, w;
      verify::footprint(o, r, w);
      if (auto it = landedBy.find(o); it != landedBy.end())
        llvm::append_range(w, it->second);
      if (llvm::any_of(w, [&](const verify::Loc &l) {
            return llvm::is_contained(reads, l);
          }))
        break;
      before = o;
    }
    if (before)
      for (Operation *op : send)
        op->moveBefore(before);
  }

  /// Unplaced chunk-level operation `op` was lowered into transfer `t` (and
  /// `wait`) on its lane's blocks: its parts, at its position, with what
  /// each does on its own rank (as replacePlaced records them), for
  /// orderPlacedAfterLanes.
  void recordLanePart(Operation *op, const Transfer &t, Operation *wait,
                      ChunkRefAttr src) {
    llvm::append_range(laneParts, partsOf(t, wait, src, position.lookup(op)));
  }

  /// A placed operation that touches chunks an earlier unplaced operation
  /// of its rank touched (one of them writing) runs after it: the verifier
  /// of the global level has unplaced operations in program order with the
  /// placed ones, but their lanes run on blocks of their own. Unless the
  /// two are on one block, the lane's block releases a semaphore after the
  /// unplaced operation's part, and the placed operation acquires it.
  void orderPlacedAfterLanes() {
    for (const Placed &p : placed) {
      auto later = cast<InstructionOp>(p.op);
      for (const Placed &u : laneParts) {
        if (u.position >= p.position)
          continue;
        auto lane = cast<InstructionOp>(u.op);
        if (lane.getExecRank() != later.getExecRank() ||
            lane.getThreadBlock() == later.getThreadBlock())
          continue;
        if (conflict(u.reads, u.writes, p.reads, p.writes))
          order(u.op, lane.getThreadBlock(), p.op, later.getThreadBlock(),
                later.getExecRank());
      }
    }
  }

  /// Orders `after` (on block `afterTb`) after `before` (on block
  /// `beforeTb`), two operations of rank `rank`, with a new semaphore:
  /// released after `before`, acquired before `after`.
  void order(Operation *before, int64_t beforeTb, Operation *after,
             int64_t afterTb, int64_t rank) {
    std::string name;
    for (int i = 0; name.empty() || algo.lookupDeclaration(name); ++i)
      name = llvm::formatv("order_{0}_{1}", rank, semaphores++).str();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(&algo.getBody().front(),
                        algo.declarationSlot(AlgorithmOp::Decl::Semaphore));
    SemaphoreOp::create(b, before->getLoc(), name, rank);
    auto sym = FlatSymbolRefAttr::get(b.getContext(), name);
    b.setInsertionPointAfter(before);
    ReleaseOp::create(b, before->getLoc(), sym, b.getI64IntegerAttr(beforeTb),
                      nullptr);
    b.setInsertionPoint(after);
    AcquireOp::create(b, after->getLoc(), sym, b.getI64IntegerAttr(afterTb),
                      nullptr);
  }

  /// The placed operations before `op` in program order that touch chunks
  /// of rank `rank` which `op` reads (`reads`, they write them) or writes
  /// (`writes`, they read or write them).
  std::vector<const Placed *> placedBefore(Operation *op, int64_t rank,
                                           ArrayRef<verify::Loc> reads,
                                           ArrayRef<verify::Loc> writes) {
    std::vector<const Placed *> out;
    auto it = position.find(op);
    if (it == position.end())
      return out;
    for (const Placed &p : placed) {
      if (p.position >= it->second)
        break;
      if (conflict(p.reads, p.writes, reads, writes) &&
          (llvm::any_of(reads, [&](auto &l) { return l.rank == rank; }) ||
           llvm::any_of(writes, [&](auto &l) { return l.rank == rank; })))
        out.push_back(&p);
    }
    return out;
  }

  /// Makes `part` (the half of lowered operation `op` that runs on thread
  /// block `tb` of rank `rank`, reading `reads` and writing `writes`) wait
  /// for every earlier placed operation it conflicts with on another block:
  /// that block releases a semaphore after the operation, `part`'s block
  /// acquires it first. An earlier operation of another rank that reaches
  /// these chunks remotely cannot be ordered this way: an error that says
  /// so (a limitation of the compiler, not a mistake in the program).
  LogicalResult orderAfterPlaced(Operation *op, Operation *part, int64_t rank,
                                 int64_t tb, ArrayRef<verify::Loc> reads,
                                 ArrayRef<verify::Loc> writes) {
    for (const Placed *p : placedBefore(op, rank, reads, writes)) {
      auto dep = cast<InstructionOp>(p->op);
      if (dep.getExecRank() != rank) {
        InFlightDiagnostic d =
            op->emitError("cclc cannot order this chunk-level operation after "
                          "the ")
            << p->op->getName().stripDialect() << " at "
            << verify::lineOf(p->op) << " (rank " << dep.getExecRank()
            << " reaches rank " << rank
            << "'s chunks remotely); place this operation (tb = ...) and "
               "synchronise the two explicitly";
        d.attachNote(p->op->getLoc()) << "the earlier operation is here";
        return failure();
      }
      if (dep.getThreadBlock() == tb && dep.getGroupSize() == 1)
        continue; // program order on the block
      order(p->op, dep.getThreadBlock(), part, tb, rank);
    }
    return success();
  }

  std::vector<Placed> placed;
  /// The parts of the lowered unplaced operations (orderPlacedAfterLanes).
  std::vector<Placed> laneParts;
  /// The wait of each lowered transfer that lands in place, with the
  /// chunks the put wrote (hoistSend).
  llvm::DenseMap<Operation *, SmallVector<verify::Loc>> landedBy;
  llvm::DenseMap<Operation *, size_t> position;
  int64_t semaphores = 0;

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

  /// The channel `chKind from -> to` of thread block `tb`, named
  /// `PREFIX_from_to_bTB` (each channel end belongs to one block), created
  /// on first use.
  FlatSymbolRefAttr channel(StringRef prefix, ChannelKind chKind, int64_t from,
                            int64_t to, int64_t tb, Location loc) {
    auto key = std::make_tuple(prefix.str(), from, to, tb);
    if (auto it = channels.find(key); it != channels.end())
      return it->second;
    std::string base =
        llvm::formatv("{0}_{1}_{2}_b{3}", prefix, from, to, tb).str();
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
  ChannelKind kind;
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
    std::optional<ChannelKind> kind = symbolizeChannelKind(channelKind);
    if (!kind) {
      getOperation().emitError("--channel must be memory or port, not '")
          << channelKind << "'";
      return signalPassFailure();
    }
    if (crossCall != "ack" && crossCall != "none") {
      getOperation().emitError("--cross-call must be ack or none, not '")
          << crossCall << "'";
      return signalPassFailure();
    }
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>()) {
      DeclarationIndex index(algo); // declarations are added, never removed
      // The program's channel(...) clause wins over the option.
      ChannelKind algoKind = algo.getChannelKind().value_or(*kind);
      if (!algo.getScheduled() && failed(lower(algo, algoKind)))
        return signalPassFailure();
    }
  }

  /// Lowers `algo`'s chunk-level operations; Simple transfers go over
  /// channels of `kind`.
  LogicalResult lower(AlgorithmOp algo, ChannelKind kind) {
    std::set<size_t> forceSlot;
    if (crossCall == "ack" && landsDirectly(algo)) {
      // Lower a copy first to see which direct landings are safe.
      OwningOpRef<AlgorithmOp> trial = cast<AlgorithmOp>(algo->clone());
      DeclarationIndex trialIndex(*trial);
      std::vector<Transfer> transfers;
      ChunkLowering lowering(*trial, kind, maxBlocks);
      if (failed(lowering.run({}, transfers)))
        return failure();
      forceSlot = lowering.unsafeLandings(transfers);
    }
    std::vector<Transfer> transfers;
    ChunkLowering lowering(algo, kind, maxBlocks);
    if (failed(lowering.run(forceSlot, transfers)))
      return failure();
    if (crossCall == "ack" && !transfers.empty())
      lowering.acknowledge(transfers);
    return success();
  }

  /// A Simple chunk-level copy into a scratch buffer (it may land there
  /// without a transfer slot).
  static bool landsDirectly(AlgorithmOp algo) {
    if (algo.isLL())
      return false;
    for (Operation &op : algo.getBody().front())
      if (auto c = dyn_cast<CopyOp>(op); c && isChunkLevel(&op) &&
                                         c.getDst().isScratch())
        return true;
    return false;
  }
};

} // namespace
