//===- VerifyOps.cpp - what each operation does to the machine ------------===//
//
// The data semantics and synchronisation of every ccl operation in the
// symbolic machine (VerifyMachine.cpp): reads and writes of chunk slots
// with their happens-before checks, remote writes on delivery threads,
// signals, waits (credited ones matching earlier calls' signals),
// semaphores, LL packets and the fused forwards.
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachineImpl.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace ccl {
namespace verify {
namespace detail {

static void add(Value &into, const Value &v) {
  for (const auto &[k, n] : v)
    into[k] += n;
}

/// The second half of a fused operation: its result (a put's source) is
/// also put to each forward destination over the forward's channel, as
/// packets when the operation handles packets, then signalled when the
/// operation carries a signal; a multimem reduce that broadcasts stores its
/// result on every member.
LogicalResult Machine::execForwards(int b, Operation *op) {
  int call = callOf[b];
  if (auto mr = dyn_cast<MultimemReduceOp>(op); mr && mr.getBroadcast()) {
    Access a = event(b, op);
    ChunkRefAttr dst = mr.getDst();
    std::vector<Value> vals;
    for (int64_t i = 0; i < dst.getCount(); ++i) {
      FailureOr<Value> v = readRange(dst, i, a);
      if (failed(v))
        return failure();
      vals.push_back(*v);
    }
    SmallVector<Loc> members;
    addOnMembers(op, mr.getChannelAttr(), dst, members);
    Access wa;
    const VClock &dvc = deliver(b, channelId(mr.getChannel()), true, wa, op);
    for (size_t k = 0; k < members.size(); ++k)
      if (members[k].rank != dst.getRank() &&
          failed(write(slots[slotId(members[k], call)], wa, dvc,
                       vals[k % vals.size()], false)))
        return failure();
    return success();
  }
  auto dsts = op->getAttrOfType<ArrayAttr>("fwd_dsts");
  auto chans = op->getAttrOfType<ArrayAttr>("fwd_channels");
  if (!dsts || !chans) {
    signalAll(b, op);
    return success();
  }
  auto result = isa<PutOp, PutPacketsOp>(op)
                    ? op->getAttrOfType<ChunkRefAttr>("src")
                    : op->getAttrOfType<ChunkRefAttr>("dst");
  bool packets = isa<PutPacketsOp, ReducePacketsOp>(op);
  Access a = event(b, op);
  std::vector<Value> vals;
  for (int64_t i = 0; i < result.getCount(); ++i) {
    FailureOr<Value> v = readRange(result, i, a);
    if (failed(v))
      return failure();
    vals.push_back(*v);
  }
  for (auto [d, c] : llvm::zip(dsts, chans)) {
    auto dst = cast<ChunkRefAttr>(d);
    StringRef channel = cast<FlatSymbolRefAttr>(c).getValue();
    Access wa;
    const VClock &dvc = deliver(b, channelId(channel), false, wa, op);
    for (int64_t i = 0; i < dst.getCount(); ++i) {
      Slot &s = slotAt(dst, i, call);
      if (failed(write(s, wa, dvc, vals[i], false)))
        return failure();
      if (packets)
        writePackets(s, op, call, dvc);
    }
  }
  signalAll(b, op);
  return success();
}

/// The signals of a fused operation, after its data movement (a signal
/// covers the block's earlier puts on the channel): each channel it
/// signals once, as the code generator does.
void Machine::signalAll(int b, Operation *op) {
  if (isa<SignalOp>(op))
    return; // signalled by execOp (it may be relaxed)
  for (StringRef c : ccl::signalledChannels(op))
    signal(b, c, false, op);
}

LogicalResult Machine::execOp(int b, Operation *op) {
  int call = callOf[b];
  // Plain dst = src (or dst += src) on one thread block, element-wise.
  auto move = [&](ChunkRefAttr dst, ChunkRefAttr src,
                  bool accumulate) -> LogicalResult {
    Access a = event(b, op);
    for (int64_t i = 0; i < src.getCount(); ++i) {
      FailureOr<Value> v = readRange(src, i, a);
      if (failed(v))
        return failure();
      Slot &d = slotAt(dst, i, call);
      if (accumulate && failed(read(d, a, clocks[b], true)))
        return failure();
      if (failed(write(d, a, clocks[b], *v, accumulate)))
        return failure();
    }
    return success();
  };
  // A packet read: the flags order it after the packets' writer.
  auto packetRead = [&](ChunkRefAttr dst, ChunkRefAttr src, bool accumulate,
                        bool packetsOut) -> LogicalResult {
    for (int64_t i = 0; i < src.getCount(); ++i)
      clocks[b].join(slotAt(src, i, call).packetClock);
    if (failed(move(dst, src, accumulate)))
      return failure();
    if (packetsOut)
      for (int64_t i = 0; i < dst.getCount(); ++i)
        writePackets(slotAt(dst, i, call), op, call, clocks[b]);
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<PutOp>([&](PutOp put) -> LogicalResult {
        Access a = event(b, op);
        bool port = isPort(put.getChannelAttr());
        ChunkRefAttr src = put.getSrc(), dst = put.getDst();
        unsigned ch = channelId(put.getChannel());
        std::vector<Value> vals;
        for (int64_t i = 0; i < src.getCount(); ++i) {
          Access ra = a;
          if (port) {
            ra.pendingPort = true;
            ra.channel = ch;
          }
          unsigned slot = slotId(locOf(src, i), call);
          FailureOr<Value> v = read(slots[slot], ra, clocks[b]);
          if (failed(v))
            return failure();
          if (port)
            pendingPort[{b, ch}].push_back({slot, op});
          vals.push_back(*v);
        }
        Access wa;
        const VClock &dvc = deliver(b, ch, false, wa, op);
        for (int64_t i = 0; i < dst.getCount(); ++i)
          if (failed(write(slotAt(dst, i, call), wa, dvc, vals[i], false)))
            return failure();
        if (put.getWithFlush())
          flush(b, put.getChannel(), a);
        return success();
      })
      .Case<PutPacketsOp>([&](PutPacketsOp put) -> LogicalResult {
        Access a = event(b, op);
        ChunkRefAttr src = put.getSrc(), dst = put.getDst();
        std::vector<Value> vals;
        for (int64_t i = 0; i < src.getCount(); ++i) {
          FailureOr<Value> v = readRange(src, i, a);
          if (failed(v))
            return failure();
          vals.push_back(*v);
        }
        Access wa;
        const VClock &dvc = deliver(b, channelId(put.getChannel()), false, wa, op);
        for (int64_t i = 0; i < dst.getCount(); ++i) {
          Slot &s = slotAt(dst, i, call);
          if (failed(write(s, wa, dvc, vals[i], false)))
            return failure();
          writePackets(s, op, call, dvc);
        }
        return success();
      })
      .Case<GetOp, CopyOp>(
          [&](auto o) { return move(o.getDst(), o.getSrc(), false); })
      .Case<ReduceOp>([&](ReduceOp o) -> LogicalResult {
        // With a base: the copy of the base it folds in, then the reduce.
        if (ChunkRefAttr base = o.getBaseAttr())
          if (failed(move(o.getDst(), base, false)))
            return failure();
        if (failed(move(o.getDst(), o.getSrc(), true)))
          return failure();
        if (auto more = o.getMoreAttr())
          for (Attribute m : more)
            if (failed(move(o.getDst(), cast<ChunkRefAttr>(m), true)))
              return failure();
        return success();
      })
      .Case<ReducePacketsOp>([&](ReducePacketsOp o) {
        return packetRead(o.getDst(), o.getSrc(), true, false);
      })
      .Case<UnpackPacketsOp>([&](UnpackPacketsOp o) {
        return packetRead(o.getDst(), o.getSrc(), false, false);
      })
      .Case<CopyPacketsOp>([&](CopyPacketsOp o) {
        return packetRead(o.getDst(), o.getSrc(), false, true);
      })
      .Case<PackPacketsOp>([&](PackPacketsOp o) -> LogicalResult {
        // A local write of packets: the block's own clock orders it.
        if (failed(move(o.getDst(), o.getSrc(), false)))
          return failure();
        for (int64_t i = 0; i < o.getDst().getCount(); ++i)
          writePackets(slotAt(o.getDst(), i, call), op, call, clocks[b]);
        return success();
      })
      .Case<ReadReduceOp>([&](ReadReduceOp o) -> LogicalResult {
        Access a = event(b, op);
        ChunkRefAttr dst = o.getDst();
        for (int64_t i = 0; i < dst.getCount(); ++i) {
          Value sum;
          std::vector<int32_t> srcExprs;
          for (Attribute s : o.getSrcs()) {
            FailureOr<Value> v = readRange(cast<ChunkRefAttr>(s), i, a);
            if (failed(v))
              return failure();
            add(sum, *v);
            srcExprs.push_back(v->expr);
          }
          Slot &d = slotAt(dst, i, call);
          FailureOr<Value> old = read(d, a, clocks[b], true);
          if (failed(old) || failed(write(d, a, clocks[b], sum, true)))
            return failure();
          // Folded left to right from dst, a rounded step per source.
          int32_t e = old->expr;
          for (int32_t x : srcExprs)
            e = exprs.combine(e, x, op);
          d.value.expr = e;
        }
        return success();
      })
      .Case<MultimemReduceOp>([&](MultimemReduceOp o) -> LogicalResult {
        Access a = event(b, op);
        SmallVector<Loc> reads, writes;
        footprint(op, reads, writes);
        int64_t n = o.getSrc().getCount();
        std::vector<Value> sums(n);
        for (size_t k = 0; k < reads.size(); ++k) {
          FailureOr<Value> v = read(slots[slotId(reads[k], call)], a, clocks[b]);
          if (failed(v))
            return failure();
          add(sums[k % n], *v);
        }
        for (int64_t i = 0; i < n; ++i) {
          // The switch adds in an order of its own: equal only to itself.
          sums[i].expr = exprs.opaque(op, sums[i]);
          if (failed(write(slotAt(o.getDst(), i, call), a, clocks[b], sums[i],
                           false)))
            return failure();
        }
        return success();
      })
      .Case<MultimemBroadcastOp>([&](MultimemBroadcastOp o) -> LogicalResult {
        Access a = event(b, op);
        int64_t n = o.getSrc().getCount();
        std::vector<Value> vals;
        for (int64_t i = 0; i < n; ++i) {
          FailureOr<Value> v = readRange(o.getSrc(), i, a);
          if (failed(v))
            return failure();
          vals.push_back(*v);
        }
        SmallVector<Loc> reads, writes;
        footprint(op, reads, writes);
        Access wa;
        const VClock &dvc = deliver(b, channelId(o.getChannel()), true, wa, op);
        for (size_t k = 0; k < writes.size(); ++k)
          if (failed(write(slots[slotId(writes[k], call)], wa, dvc,
                           vals[k % n], false)))
            return failure();
        return success();
      })
      .Case<SignalOp>([&](SignalOp s) {
        event(b, op);
        signal(b, s.getChannel(), s.getRelaxed(), op);
        return success();
      })
      .Case<WaitOp>([&](WaitOp w) {
        ChannelState &ch = channels[channelId(w.getChannel())];
        int64_t match = int64_t(ch.waits++) - ch.credit;
        if (match >= 0) {
          // Each signal is matched by one wait: its clock is not needed
          // after this (only the count of signals is), so it is dropped
          // (a long pipeline issues a signal per step and tile).
          std::optional<VClock> &sig = ch.signals[match];
          if (sig && !w.getRelaxed())
            clocks[b].join(*sig);
          sig.reset();
        }
        event(b, op);
        return success();
      })
      .Case<FlushOp>([&](FlushOp f) {
        Access a = event(b, op);
        flush(b, f.getChannel(), a);
        return success();
      })
      .Case<ReleaseOp>([&](ReleaseOp r) {
        event(b, op);
        unsigned sem = semaphoreIds.lookup(r.getSemaphore());
        semaphores[sem].releases.push_back(clocks[b]);
        semaphores[sem].releaseCalls.push_back(callOf[b]);
        wake(WaitOn::Semaphore, sem);
        return success();
      })
      .Case<AcquireOp>([&](AcquireOp acq) {
        SemaphoreState &sem =
            semaphores[semaphoreIds.lookup(acq.getSemaphore())];
        // As for signals: each release is taken by one acquire.
        clocks[b].join(sem.releases[sem.acquires]);
        sem.releases[sem.acquires++] = VClock();
        event(b, op);
        return success();
      })
      .Default([&](Operation *) -> LogicalResult {
        return op->emitError("the verifier does not know '")
               << op->getName() << "'";
      });
}

} // namespace detail
} // namespace verify
} // namespace ccl
