//===- VerifyMachine.cpp - symbolic execution with happens-before ---------===//
//
// The engine of --ccl-verify. Values are multisets of input chunks; every
// (rank, thread block) is a thread of a vector-clock machine. Remote writes
// of puts and multimem broadcasts run on extra "delivery" threads, one per
// (thread block, channel), which a later non-relaxed signal of that block
// joins, so a read on the destination is ordered after the put only through
// signal + wait (or the flags of LL packets).
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachine.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <deque>
#include <optional>
#include <set>

using namespace mlir;

namespace ccl {
namespace verify {

//===----------------------------------------------------------------------===//
// Helpers shared with Verify.cpp
//===----------------------------------------------------------------------===//

std::string Loc::str() const {
  return buffer + "[" + std::to_string(rank) + "][" + std::to_string(chunk) +
         "]";
}

Loc locOf(ChunkRefAttr ref, int64_t i) {
  return {ref.getBuffer().str(), ref.getRank(), ref.getIndex() + i};
}

std::string render(const Value &v) {
  if (v.empty())
    return "nothing";
  std::string s;
  for (const auto &[key, n] : v) {
    if (!s.empty())
      s += " + ";
    if (n != 1)
      s += std::to_string(n) + " x ";
    s += "input[" + std::to_string(key.first) + "][" +
         std::to_string(key.second) + "]";
  }
  return s;
}

std::string lineOf(Operation *op) {
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return "line " + std::to_string(loc.getLine());
  return "line ?";
}

static void addRange(ChunkRefAttr ref, SmallVectorImpl<Loc> &out) {
  for (int64_t i = 0; i < ref.getCount(); ++i)
    out.push_back(locOf(ref, i));
}

/// `ref` on every member of switch channel `sym`.
static void addOnMembers(Operation *op, FlatSymbolRefAttr sym, ChunkRefAttr ref,
                         SmallVectorImpl<Loc> &out) {
  auto sw = dyn_cast_or_null<SwitchChannelOp>(
      getEnclosingAlgorithm(op).lookupDeclaration(sym.getValue()));
  if (!sw) {
    addRange(ref, out);
    return;
  }
  for (int64_t r : sw.getRanks())
    for (int64_t i = 0; i < ref.getCount(); ++i)
      out.push_back({ref.getBuffer().str(), r, ref.getIndex() + i});
}

void footprint(Operation *op, SmallVectorImpl<Loc> &reads,
               SmallVectorImpl<Loc> &writes) {
  llvm::TypeSwitch<Operation *>(op)
      .Case<PutOp, GetOp, PutPacketsOp, CopyOp, UnpackPacketsOp,
            CopyPacketsOp>([&](auto o) {
        addRange(o.getSrc(), reads);
        addRange(o.getDst(), writes);
      })
      .Case<ReduceOp, ReducePacketsOp>([&](auto o) {
        addRange(o.getSrc(), reads);
        addRange(o.getDst(), reads);
        addRange(o.getDst(), writes);
      })
      .Case<ReadReduceOp>([&](ReadReduceOp o) {
        for (Attribute a : o.getSrcs())
          addRange(cast<ChunkRefAttr>(a), reads);
        addRange(o.getDst(), reads);
        addRange(o.getDst(), writes);
      })
      .Case<MultimemReduceOp>([&](MultimemReduceOp o) {
        addOnMembers(op, o.getChannelAttr(), o.getSrc(), reads);
        if (o.getBroadcast())
          addOnMembers(op, o.getChannelAttr(), o.getDst(), writes);
        else
          addRange(o.getDst(), writes);
      })
      .Case<MultimemBroadcastOp>([&](MultimemBroadcastOp o) {
        addRange(o.getSrc(), reads);
        addOnMembers(op, o.getChannelAttr(), o.getDst(), writes);
      })
      .Default([](Operation *) {});
  // Fused forms: the extra sources of an n-ary reduce, the forwarded
  // destinations.
  if (auto more = op->getAttrOfType<ArrayAttr>("more"))
    for (Attribute a : more)
      addRange(cast<ChunkRefAttr>(a), reads);
  if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_dsts"))
    for (Attribute a : fwd)
      addRange(cast<ChunkRefAttr>(a), writes);
}

bool isChunkLevel(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.isCrossRank() || !c.getTbAttr();
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.isCrossRank() || !r.getTbAttr();
  return false;
}

//===----------------------------------------------------------------------===//
// Vector clocks
//===----------------------------------------------------------------------===//

namespace {

class VClock {
public:
  uint32_t get(size_t i) const { return i < c.size() ? c[i] : 0; }
  void tick(size_t i) {
    if (i >= c.size())
      c.resize(i + 1, 0);
    ++c[i];
  }
  void join(const VClock &o) {
    if (o.c.size() > c.size())
      c.resize(o.c.size(), 0);
    for (size_t i = 0; i < o.c.size(); ++i)
      c[i] = std::max(c[i], o.c[i]);
  }

private:
  std::vector<uint32_t> c;
};

/// One access to a chunk, stamped with the epoch (thread, clock) of the event
/// that made it.
struct Access {
  Operation *op = nullptr;
  size_t thread = 0;
  uint32_t clock = 0;
  /// The thread block that issued it (index into Program::blocks).
  int block = -1;
  /// The remote write of a put or a multimem broadcast.
  bool delivery = false;
  /// The source read of a port-channel put that no flush completed yet.
  bool pendingPort = false;
  /// The channel of a pending port read.
  std::string channel;
};

struct Slot {
  bool defined = false;
  Value value;
  /// The last write; none while the slot holds its initial contents.
  std::optional<Access> lastWrite;
  /// Reads since the last write.
  std::vector<Access> reads;
  /// LL packets of this call: who wrote them and the writer's clock.
  Operation *packetWriter = nullptr;
  VClock packetClock;
};

struct ChannelState {
  /// Per signal issued so far: the released clock (none when relaxed).
  std::vector<std::optional<VClock>> signals;
  std::vector<Operation *> signalOps;
  size_t waits = 0;
};

struct SemaphoreState {
  std::vector<VClock> releases;
  size_t acquires = 0;
};

class Machine {
public:
  explicit Machine(const Program &p) : prog(p), algo(p.algo) {}
  LogicalResult run();

private:
  // Structure.
  bool ready(int b, const Step &s, std::string &blockedOn);
  void wake(const std::string &key);
  LogicalResult exec(int b, const Step &s);
  LogicalResult execOp(int b, Operation *op);
  LogicalResult execForwards(int b, Operation *op);
  LogicalResult execBarrier(const Step &s);

  // Events and accesses.
  Access event(int b, Operation *op);
  size_t deliveryThread(int b, StringRef channel, bool isSwitch);
  VClock &deliver(int b, StringRef channel, bool isSwitch, Access &a,
                  Operation *op);
  bool hb(const Access &a, const VClock &vc) const {
    return vc.get(a.thread) >= a.clock;
  }
  FailureOr<Value> read(const Loc &l, const Access &a, const VClock &vc,
                        bool target = false);
  LogicalResult write(const Loc &l, const Access &a, const VClock &vc,
                      Value v, bool accumulate);
  FailureOr<Value> readRange(ChunkRefAttr ref, int64_t i, const Access &a) {
    return read(locOf(ref, i), a, clocks[a.block]);
  }
  void signal(int b, StringRef channel, bool relaxed, Operation *op);
  void flush(int b, StringRef channel, const Access &a);

  // Diagnostics.
  std::string who(int b) const {
    return "rank " + std::to_string(prog.blocks[b].rank) + " thread block " +
           std::to_string(prog.blocks[b].tb);
  }
  std::string name(Operation *op) const {
    return op->getName().stripDialect().str();
  }
  void trace(InFlightDiagnostic &d, Operation *at, ArrayRef<int> blocks);
  LogicalResult raceError(const Loc &l, const Access &earlier,
                          const Access &later, bool earlierWrites,
                          bool laterWrites);
  LogicalResult reportStuck();
  LogicalResult checkEnd();
  LogicalResult checkPostcondition();

  const Program &prog;
  AlgorithmOp algo;
  std::map<Loc, Slot> slots;
  std::vector<VClock> clocks;
  std::vector<size_t> pc;
  std::vector<std::deque<Operation *>> history;
  /// Delivery threads: (block, channel) -> thread, and their clocks.
  std::map<std::pair<int, std::string>, size_t> deliveries;
  std::map<size_t, VClock> deliveryClocks;
  std::map<int, std::vector<size_t>> switchDeliveries;
  size_t nextThread = 0;
  std::map<std::string, ChannelState> channels;
  std::map<std::string, SemaphoreState> semaphores;
  /// Port puts whose source reads wait for a flush: (block, channel) ->
  /// locations (and the put) of pending reads.
  std::map<std::pair<int, std::string>, std::vector<std::pair<Loc, Operation *>>>
      pendingPort;
  llvm::DenseSet<Operation *> executed;
  llvm::DenseSet<Operation *> needDone;
  llvm::DenseMap<Operation *, VClock> done;
  /// Delivery clock of the op being executed (for its `done` clock).
  std::optional<VClock> opDelivery;
  /// Everything the program ever writes, per chunk (for messages).
  std::map<Loc, Operation *> someWriter;
  std::map<Loc, Operation *> packetSenders;
  std::map<std::string, size_t> totalSignals, totalReleases;
  /// Scheduling: blocks whose head may run, ordered by the head's global
  /// order, and blocks parked until an event with their key happens.
  std::set<std::pair<int64_t, int>> candidates;
  std::vector<bool> parked;
  std::map<std::string, std::vector<int>> waiters;
  void consider(int b) {
    if (pc[b] < prog.blocks[b].steps.size())
      candidates.insert({prog.blocks[b].steps[pc[b]].order, b});
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

Access Machine::event(int b, Operation *op) {
  clocks[b].tick(b);
  Access a;
  a.op = op;
  a.thread = b;
  a.clock = clocks[b].get(b);
  a.block = b;
  return a;
}

size_t Machine::deliveryThread(int b, StringRef channel, bool isSwitch) {
  auto [it, inserted] = deliveries.try_emplace({b, channel.str()}, nextThread);
  if (inserted) {
    ++nextThread;
    if (isSwitch)
      switchDeliveries[b].push_back(it->second);
  }
  return it->second;
}

/// Starts the remote write of a put/broadcast issued by event `a` of block
/// `b`: after everything `b` did so far and after the earlier deliveries of
/// the same (block, channel). Rewrites `a` into the delivery's epoch.
VClock &Machine::deliver(int b, StringRef channel, bool isSwitch, Access &a,
                         Operation *op) {
  size_t t = deliveryThread(b, channel, isSwitch);
  VClock &vc = deliveryClocks[t];
  vc.join(clocks[b]);
  vc.tick(t);
  a.op = op;
  a.thread = t;
  a.clock = vc.get(t);
  a.block = b;
  a.delivery = true;
  if (!opDelivery)
    opDelivery = VClock();
  opDelivery->join(vc);
  return vc;
}

void Machine::signal(int b, StringRef channel, bool relaxed, Operation *op) {
  ChannelState &ch = channels[channel.str()];
  ch.signalOps.push_back(op);
  wake("c:" + channel.str());
  if (relaxed) {
    ch.signals.push_back(std::nullopt);
    return;
  }
  VClock vc = clocks[b];
  auto it = deliveries.find({b, channel.str()});
  if (it != deliveries.end())
    vc.join(deliveryClocks[it->second]);
  for (size_t t : switchDeliveries[b])
    vc.join(deliveryClocks[t]);
  ch.signals.push_back(vc);
}

void Machine::flush(int b, StringRef channel, const Access &a) {
  auto it = pendingPort.find({b, channel.str()});
  if (it == pendingPort.end())
    return;
  for (auto &[loc, put] : it->second)
    for (Access &r : slots[loc].reads)
      if (r.pendingPort && r.op == put && r.block == b) {
        r.pendingPort = false;
        r.thread = a.thread;
        r.clock = a.clock;
      }
  pendingPort.erase(it);
}

//===----------------------------------------------------------------------===//
// Reads and writes
//===----------------------------------------------------------------------===//

void Machine::trace(InFlightDiagnostic &d, Operation *at,
                    ArrayRef<int> blocks) {
  std::string text = "counterexample, the last steps of the thread blocks "
                     "involved:";
  std::set<int> seen;
  bool first = true;
  for (int b : blocks) {
    if (b < 0 || !seen.insert(b).second)
      continue;
    text += first ? " " : "; ";
    first = false;
    text += who(b) + " ran ";
    if (history[b].empty()) {
      text += "nothing yet";
      continue;
    }
    bool firstOp = true;
    for (Operation *op : history[b]) {
      text += firstOp ? "" : ", ";
      firstOp = false;
      text += name(op) + " (" + lineOf(op) + ")";
    }
  }
  d.attachNote(at->getLoc()) << text;
}

LogicalResult Machine::raceError(const Loc &l, const Access &earlier,
                                 const Access &later, bool earlierWrites,
                                 bool laterWrites) {
  Operation *op = later.op;
  if (earlierWrites && !laterWrites && earlier.delivery) {
    std::string what = isa<MultimemBroadcastOp>(earlier.op)
                           ? "multimem_broadcast"
                           : name(earlier.op);
    InFlightDiagnostic d =
        op->emitError() << who(later.block) << " reads " << l.str()
                        << " before the data is visible: the " << what
                        << " by " << who(earlier.block) << " at "
                        << lineOf(earlier.op)
                        << " that writes it is not ordered before this read "
                           "(a signal after it and a matching wait before "
                           "the read would order it)";
    d.attachNote(earlier.op->getLoc()) << "the " << what << " is here";
    trace(d, op, {earlier.block, later.block});
    return failure();
  }
  std::string head;
  if (earlierWrites && laterWrites)
    head = "write-write conflict on ";
  else if (laterWrites)
    head = "write-after-read race on ";
  else
    head = "data race on ";
  InFlightDiagnostic d = op->emitError()
                         << head << l.str() << ": " << who(later.block)
                         << (laterWrites ? " writes" : " reads") << " it while "
                         << who(earlier.block)
                         << (earlierWrites ? " writes" : " may still read")
                         << " it at " << lineOf(earlier.op)
                         << ", with nothing ordering the two";
  d.attachNote(earlier.op->getLoc()) << "the other access is here";
  trace(d, op, {earlier.block, later.block});
  return failure();
}

FailureOr<Value> Machine::read(const Loc &l, const Access &a, const VClock &vc,
                               bool target) {
  Slot &s = slots[l];
  if (s.lastWrite && !hb(*s.lastWrite, vc)) {
    (void)raceError(l, *s.lastWrite, a, true, false);
    return failure();
  }
  if (!s.defined) {
    InFlightDiagnostic d = a.op->emitError()
                           << (target ? "reduces into " : "reads ") << l.str()
                           << " before anything wrote it";
    auto it = someWriter.find(l);
    if (it != someWriter.end() && it->second != a.op) {
      d << ": the " << name(it->second) << " at " << lineOf(it->second)
        << " writes it, but nothing orders that before this operation";
      d.attachNote(it->second->getLoc()) << "the write is here";
    }
    return failure();
  }
  s.reads.push_back(a);
  return s.value;
}

LogicalResult Machine::write(const Loc &l, const Access &a, const VClock &vc,
                             Value v, bool accumulate) {
  Slot &s = slots[l];
  if (s.lastWrite && !hb(*s.lastWrite, vc))
    return raceError(l, *s.lastWrite, a, true, true);
  for (const Access &r : s.reads) {
    if (r.pendingPort && r.op != a.op) {
      auto ch = cast<PutOp>(r.op).getChannel();
      InFlightDiagnostic d =
          a.op->emitError()
          << "overwrites " << l.str() << " while the port-channel put at "
          << lineOf(r.op) << " may still read it: " << who(r.block)
          << " has not flushed @" << ch << " since that put";
      d.attachNote(r.op->getLoc()) << "the put is here";
      trace(d, a.op, {r.block, a.block});
      return failure();
    }
    if (!r.pendingPort && !hb(r, vc))
      return raceError(l, r, a, false, true);
  }
  if (accumulate) {
    for (const auto &[k, n] : v)
      s.value[k] += n;
  } else {
    s.value = std::move(v);
  }
  s.defined = true;
  s.lastWrite = a;
  s.reads.clear();
  return success();
}

static void add(Value &into, const Value &v) {
  for (const auto &[k, n] : v)
    into[k] += n;
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

/// Keys of the events a parked block waits for.
static std::string opKey(Operation *op) {
  return "o:" + std::to_string(reinterpret_cast<uintptr_t>(op));
}

bool Machine::ready(int b, const Step &s, std::string &blockedOn) {
  if (s.barrier >= 0) {
    blockedOn = "b:" + std::to_string(s.barrier);
    const BarrierInstance &inst = prog.barriers[s.barrier];
    if (inst.present.size() != inst.tbs.size())
      return false;
    for (int p : inst.present) {
      const BlockQueue &q = prog.blocks[p];
      if (pc[p] >= q.steps.size() || q.steps[pc[p]].barrier != s.barrier)
        return false;
    }
    return true;
  }
  if (s.chunkLevel)
    for (Operation *dep : s.deps)
      if (!executed.contains(dep)) {
        blockedOn = opKey(dep);
        return false;
      }
  Operation *op = s.op;
  if (auto w = dyn_cast<WaitOp>(op)) {
    blockedOn = "c:" + w.getChannel().str();
    ChannelState &ch = channels[w.getChannel().str()];
    return ch.signals.size() > ch.waits;
  }
  if (auto acq = dyn_cast<AcquireOp>(op)) {
    blockedOn = "s:" + acq.getSemaphore().str();
    SemaphoreState &sem = semaphores[acq.getSemaphore().str()];
    return sem.releases.size() > sem.acquires;
  }
  if (isa<ReducePacketsOp, UnpackPacketsOp, CopyPacketsOp>(op)) {
    ChunkRefAttr src = cast<InstructionOp>(op).getReadRefs().front();
    for (int64_t i = 0; i < src.getCount(); ++i)
      if (!slots[locOf(src, i)].packetWriter) {
        blockedOn = "p:" + locOf(src, i).str();
        return false;
      }
  }
  (void)b;
  return true;
}

void Machine::wake(const std::string &key) {
  auto it = waiters.find(key);
  if (it == waiters.end())
    return;
  std::vector<int> blocks = std::move(it->second);
  waiters.erase(it);
  for (int b : blocks)
    if (parked[b]) {
      parked[b] = false;
      consider(b);
    }
}

LogicalResult Machine::execBarrier(const Step &s) {
  const BarrierInstance &inst = prog.barriers[s.barrier];
  VClock joined;
  for (int p : inst.present) {
    clocks[p].tick(p);
    joined.join(clocks[p]);
  }
  for (int p : inst.present) {
    clocks[p] = joined;
    Operation *op = prog.blocks[p].steps[pc[p]].op;
    history[p].push_back(op);
    if (history[p].size() > 3)
      history[p].pop_front();
    ++pc[p];
    parked[p] = false;
    candidates.erase({s.order, p});
  }
  waiters.erase("b:" + std::to_string(s.barrier));
  for (int p : inst.present)
    consider(p);
  return success();
}

LogicalResult Machine::exec(int b, const Step &s) {
  if (s.barrier >= 0)
    return execBarrier(s);
  if (s.chunkLevel)
    for (Operation *dep : s.deps)
      clocks[b].join(done[dep]);
  opDelivery.reset();
  if (failed(execOp(b, s.op)) || failed(execForwards(b, s.op)))
    return failure();
  executed.insert(s.op);
  if (needDone.contains(s.op)) {
    VClock vc = clocks[b];
    if (opDelivery)
      vc.join(*opDelivery);
    done[s.op] = vc;
  }
  history[b].push_back(s.op);
  if (history[b].size() > 3)
    history[b].pop_front();
  ++pc[b];
  consider(b);
  wake(opKey(s.op));
  return success();
}

/// The second half of a fused operation: its result (a put's source) is
/// also put to each forward destination over the forward's channel, as
/// packets when the operation handles packets, then signalled when the
/// operation carries a signal; a multimem reduce that broadcasts stores its
/// result on every member.
LogicalResult Machine::execForwards(int b, Operation *op) {
  if (auto mr = dyn_cast<MultimemReduceOp>(op); mr && mr.getBroadcast()) {
    Access a = event(b, op);
    ChunkRefAttr dst = mr.getDst();
    std::vector<Value> vals;
    for (int64_t i = 0; i < dst.getCount(); ++i) {
      FailureOr<Value> v = read(locOf(dst, i), a, clocks[b]);
      if (failed(v))
        return failure();
      vals.push_back(*v);
    }
    SmallVector<Loc> members;
    addOnMembers(op, mr.getChannelAttr(), dst, members);
    Access wa;
    VClock &dvc = deliver(b, mr.getChannel(), true, wa, op);
    for (size_t k = 0; k < members.size(); ++k)
      if (members[k].rank != dst.getRank() &&
          failed(write(members[k], wa, dvc, vals[k % vals.size()], false)))
        return failure();
    return success();
  }
  auto dsts = op->getAttrOfType<ArrayAttr>("fwd_dsts");
  auto chans = op->getAttrOfType<ArrayAttr>("fwd_channels");
  if (!dsts || !chans)
    return success();
  auto result = isa<PutOp, PutPacketsOp>(op)
                    ? op->getAttrOfType<ChunkRefAttr>("src")
                    : op->getAttrOfType<ChunkRefAttr>("dst");
  bool packets = isa<PutPacketsOp, ReducePacketsOp>(op);
  bool withSignal = op->hasAttr("with_signal") || op->hasAttr("fwd_signal");
  Access a = event(b, op);
  std::vector<Value> vals;
  for (int64_t i = 0; i < result.getCount(); ++i) {
    FailureOr<Value> v = read(locOf(result, i), a, clocks[b]);
    if (failed(v))
      return failure();
    vals.push_back(*v);
  }
  for (auto [d, c] : llvm::zip(dsts, chans)) {
    auto dst = cast<ChunkRefAttr>(d);
    StringRef channel = cast<FlatSymbolRefAttr>(c).getValue();
    Access wa;
    VClock &dvc = deliver(b, channel, false, wa, op);
    for (int64_t i = 0; i < dst.getCount(); ++i) {
      if (failed(write(locOf(dst, i), wa, dvc, vals[i], false)))
        return failure();
      if (packets) {
        Slot &sl = slots[locOf(dst, i)];
        sl.packetWriter = op;
        sl.packetClock = dvc;
        wake("p:" + locOf(dst, i).str());
      }
    }
  }
  if (withSignal && !packets)
    for (Attribute c : chans)
      signal(b, cast<FlatSymbolRefAttr>(c).getValue(), false, op);
  return success();
}

LogicalResult Machine::execOp(int b, Operation *op) {
  auto isPort = [&](FlatSymbolRefAttr sym) {
    auto ch = dyn_cast_or_null<ChannelOp>(
        getEnclosingAlgorithm(op).lookupDeclaration(sym.getValue()));
    return ch && ch.getKind() == "port";
  };
  // Plain dst = src (or dst += src) on one thread block, element-wise.
  auto move = [&](ChunkRefAttr dst, ChunkRefAttr src,
                  bool accumulate) -> LogicalResult {
    Access a = event(b, op);
    for (int64_t i = 0; i < src.getCount(); ++i) {
      FailureOr<Value> v = readRange(src, i, a);
      if (failed(v))
        return failure();
      if (accumulate && failed(read(locOf(dst, i), a, clocks[b], true)))
        return failure();
      if (failed(write(locOf(dst, i), a, clocks[b], *v, accumulate)))
        return failure();
    }
    return success();
  };
  // A packet read: the flags order it after the packets' writer.
  auto packetRead = [&](ChunkRefAttr dst, ChunkRefAttr src, bool accumulate,
                        bool packetsOut) -> LogicalResult {
    for (int64_t i = 0; i < src.getCount(); ++i)
      clocks[b].join(slots[locOf(src, i)].packetClock);
    if (failed(move(dst, src, accumulate)))
      return failure();
    if (packetsOut)
      for (int64_t i = 0; i < dst.getCount(); ++i) {
        Slot &s = slots[locOf(dst, i)];
        s.packetWriter = op;
        s.packetClock = clocks[b];
        wake("p:" + locOf(dst, i).str());
      }
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<PutOp>([&](PutOp put) -> LogicalResult {
        Access a = event(b, op);
        bool port = isPort(put.getChannelAttr());
        ChunkRefAttr src = put.getSrc(), dst = put.getDst();
        std::vector<Value> vals;
        for (int64_t i = 0; i < src.getCount(); ++i) {
          Access ra = a;
          if (port) {
            ra.pendingPort = true;
            ra.channel = put.getChannel().str();
          }
          FailureOr<Value> v = read(locOf(src, i), ra, clocks[b]);
          if (failed(v))
            return failure();
          if (port)
            pendingPort[{b, put.getChannel().str()}].push_back(
                {locOf(src, i), op});
          vals.push_back(*v);
        }
        Access wa;
        VClock &dvc = deliver(b, put.getChannel(), false, wa, op);
        for (int64_t i = 0; i < dst.getCount(); ++i)
          if (failed(write(locOf(dst, i), wa, dvc, vals[i], false)))
            return failure();
        if (put.getWithSignal())
          signal(b, put.getChannel(), false, op);
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
        VClock &dvc = deliver(b, put.getChannel(), false, wa, op);
        for (int64_t i = 0; i < dst.getCount(); ++i) {
          if (failed(write(locOf(dst, i), wa, dvc, vals[i], false)))
            return failure();
          Slot &s = slots[locOf(dst, i)];
          s.packetWriter = op;
          s.packetClock = dvc;
          wake("p:" + locOf(dst, i).str());
        }
        return success();
      })
      .Case<GetOp, CopyOp>(
          [&](auto o) { return move(o.getDst(), o.getSrc(), false); })
      .Case<ReduceOp>([&](ReduceOp o) -> LogicalResult {
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
      .Case<ReadReduceOp>([&](ReadReduceOp o) -> LogicalResult {
        Access a = event(b, op);
        ChunkRefAttr dst = o.getDst();
        for (int64_t i = 0; i < dst.getCount(); ++i) {
          Value sum;
          for (Attribute s : o.getSrcs()) {
            FailureOr<Value> v = readRange(cast<ChunkRefAttr>(s), i, a);
            if (failed(v))
              return failure();
            add(sum, *v);
          }
          if (failed(read(locOf(dst, i), a, clocks[b], true)) ||
              failed(write(locOf(dst, i), a, clocks[b], sum, true)))
            return failure();
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
          FailureOr<Value> v = read(reads[k], a, clocks[b]);
          if (failed(v))
            return failure();
          add(sums[k % n], *v);
        }
        for (int64_t i = 0; i < n; ++i)
          if (failed(write(locOf(o.getDst(), i), a, clocks[b], sums[i],
                           false)))
            return failure();
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
        VClock &dvc = deliver(b, o.getChannel(), true, wa, op);
        for (size_t k = 0; k < writes.size(); ++k)
          if (failed(write(writes[k], wa, dvc, vals[k % n], false)))
            return failure();
        return success();
      })
      .Case<SignalOp>([&](SignalOp s) {
        event(b, op);
        signal(b, s.getChannel(), s.getRelaxed(), op);
        return success();
      })
      .Case<WaitOp>([&](WaitOp w) {
        ChannelState &ch = channels[w.getChannel().str()];
        const std::optional<VClock> &sig = ch.signals[ch.waits++];
        if (sig && !w.getRelaxed())
          clocks[b].join(*sig);
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
        semaphores[r.getSemaphore().str()].releases.push_back(clocks[b]);
        wake("s:" + r.getSemaphore().str());
        return success();
      })
      .Case<AcquireOp>([&](AcquireOp acq) {
        SemaphoreState &sem = semaphores[acq.getSemaphore().str()];
        clocks[b].join(sem.releases[sem.acquires++]);
        event(b, op);
        return success();
      })
      .Default([&](Operation *) -> LogicalResult {
        return op->emitError("the verifier does not know '")
               << op->getName() << "'";
      });
}

//===----------------------------------------------------------------------===//
// Deadlocks and end-of-call checks
//===----------------------------------------------------------------------===//

static std::string ordinal(size_t k) { return "#" + std::to_string(k); }

LogicalResult Machine::reportStuck() {
  struct Stuck {
    int block;
    const Step *step;
    bool missing;
    std::string why;
    Operation *note = nullptr; // an operation worth pointing at
  };
  std::vector<Stuck> stuck;
  for (size_t b = 0; b < prog.blocks.size(); ++b) {
    if (pc[b] >= prog.blocks[b].steps.size())
      continue;
    const Step &s = prog.blocks[b].steps[pc[b]];
    Stuck st{int(b), &s, false, "", nullptr};
    Operation *op = s.op;
    if (s.barrier >= 0) {
      const BarrierInstance &inst = prog.barriers[s.barrier];
      st.why = "at the thread-block barrier";
      int64_t absent = -1, behind = -1;
      for (int64_t t : inst.tbs) {
        auto it = llvm::find_if(inst.present, [&](int p) {
          return prog.blocks[p].tb == t;
        });
        if (it == inst.present.end()) {
          if (absent < 0)
            absent = t;
        } else if (pc[*it] >= prog.blocks[*it].steps.size() ||
                   prog.blocks[*it].steps[pc[*it]].barrier != s.barrier) {
          if (behind < 0)
            behind = t;
        }
      }
      if (absent >= 0) {
        st.missing = true;
        st.why += ": thread block " + std::to_string(absent) +
                  " never reaches it";
      } else {
        st.why += ": thread block " + std::to_string(behind) +
                  " is itself stuck before it (cyclic wait)";
      }
    } else if (s.chunkLevel &&
               llvm::any_of(s.deps, [&](Operation *d) {
                 return !executed.contains(d);
               })) {
      Operation *dep = *llvm::find_if(
          s.deps, [&](Operation *d) { return !executed.contains(d); });
      st.why = "before this chunk-level " + name(op) +
               ": it must run after the " + name(dep) + " at " +
               lineOf(dep) +
               ", which is itself behind a wait that never completes "
               "(cyclic wait)";
      st.note = dep;
    } else if (auto w = dyn_cast<WaitOp>(op)) {
      std::string ch = w.getChannel().str();
      size_t k = channels[ch].waits + 1;
      st.why = "for signal " + ordinal(k) + " on channel @" + ch;
      size_t total = totalSignals[ch];
      if (total < k) {
        st.missing = true;
        st.why += ": no operation signals it";
        if (total)
          st.why += " (the channel has " + std::to_string(total) +
                    " signal" + (total == 1 ? "" : "s") + " in all)";
      } else {
        st.why += ": the signal is itself behind a wait that never "
                  "completes (cyclic wait)";
      }
    } else if (auto acq = dyn_cast<AcquireOp>(op)) {
      std::string sem = acq.getSemaphore().str();
      size_t k = semaphores[sem].acquires + 1;
      st.why = "on semaphore @" + sem + " (acquire " + ordinal(k) + ")";
      size_t total = totalReleases[sem];
      if (total < k) {
        st.missing = true;
        st.why += ": no operation releases it";
        if (total)
          st.why += " (the semaphore has " + std::to_string(total) +
                    " release" + (total == 1 ? "" : "s") + " in all)";
      } else {
        st.why += ": the release is itself behind a wait that never "
                  "completes (cyclic wait)";
      }
    } else {
      ChunkRefAttr src = cast<InstructionOp>(op).getReadRefs().front();
      Loc missing = locOf(src, 0);
      for (int64_t i = 0; i < src.getCount(); ++i)
        if (!slots[locOf(src, i)].packetWriter) {
          missing = locOf(src, i);
          break;
        }
      st.why = "for packets in " + missing.str();
      if (!packetSenders.count(missing)) {
        st.missing = true;
        st.why += ": no operation sends them";
      } else {
        st.why += ": the send is itself behind a wait that never completes "
                  "(cyclic wait)";
      }
    }
    stuck.push_back(st);
  }
  if (stuck.empty())
    return success();
  auto first = llvm::find_if(stuck, [](const Stuck &s) { return s.missing; });
  const Stuck &main = first != stuck.end() ? *first : stuck.front();
  Operation *at = main.step->op;
  InFlightDiagnostic d = at->emitError()
                         << who(main.block) << " would wait forever "
                         << main.why;
  std::vector<int> involved{main.block};
  if (!main.missing) {
    for (const Stuck &s : stuck) {
      if (&s == &main)
        continue;
      d.attachNote(s.step->op->getLoc()) << who(s.block) << " is stuck here";
      involved.push_back(s.block);
    }
  }
  trace(d, at, involved);
  return failure();
}

LogicalResult Machine::checkEnd() {
  // Port puts whose source may still be read when the kernel ends.
  for (auto &[key, list] : pendingPort) {
    if (list.empty())
      continue;
    auto put = cast<PutOp>(list.front().second);
    return put.emitError("the port-channel put of ")
           << list.front().first.str() << " on @" << put.getChannel()
           << " is never flushed: the kernel may end while the proxy still "
              "reads its source";
  }
  // Signals no wait consumed stay in the semaphore for the next call.
  for (auto &[name, ch] : channels)
    if (ch.signals.size() > ch.waits) {
      Operation *sig = ch.signalOps[ch.waits];
      return sig->emitError("signal ")
             << ordinal(ch.waits + 1) << " on channel @" << name
             << " has no matching wait: a later call would see a stale "
                "signal";
    }
  return success();
}

//===----------------------------------------------------------------------===//
// Contract
//===----------------------------------------------------------------------===//

LogicalResult Machine::checkPostcondition() {
  int64_t n = algo.getNranks();
  for (EnsureOp ensure : algo.getBody().getOps<EnsureOp>()) {
    Loc at = locOf(ensure.getAt(), 0);
    Value want;
    for (Attribute t : ensure.getTerms()) {
      auto ref = cast<ChunkRefAttr>(t);
      want[{ref.getRank(), ref.getIndex()}] += 1;
    }
    const Slot &s = slots[at];
    if (s.defined && s.value == want)
      continue;
    // Reported at the algorithm (the user's file); the contract line, which
    // may be in the built-in prelude, is a note.
    InFlightDiagnostic d = algo.emitError()
                           << algo.getCollective() << " postcondition fails "
                           << "with " << n << " rank" << (n == 1 ? "" : "s")
                           << ": " << at.str() << " (rank " << at.rank
                           << ", chunk " << at.chunk << ") ";
    if (!s.defined) {
      d << "is never written, but must hold " << render(want);
      d.attachNote(ensure.getLoc()) << "the postcondition is stated here";
      return failure();
    }
    d << "holds " << render(s.value) << " but must hold " << render(want);
    std::string missing, twice, extra;
    for (const auto &[k, cnt] : want) {
      auto it = s.value.find(k);
      int64_t have = it == s.value.end() ? 0 : it->second;
      if (have < cnt)
        missing += (missing.empty() ? "" : ", ") +
                   render(Value{{k, cnt - have}});
    }
    for (const auto &[k, cnt] : s.value) {
      auto it = want.find(k);
      int64_t need = it == want.end() ? 0 : it->second;
      if (cnt <= need)
        continue;
      std::string &list = need ? twice : extra;
      list += (list.empty() ? "" : ", ") + render(Value{{k, cnt - need}});
    }
    if (!missing.empty())
      d << " (missing: " << missing << ")";
    if (!twice.empty())
      d << " (counted more than once: " << twice << ")";
    if (!extra.empty())
      d << " (not part of it: " << extra << ")";
    if (s.lastWrite)
      d.attachNote(s.lastWrite->op->getLoc()) << "last written here";
    d.attachNote(ensure.getLoc()) << "the postcondition is stated here";
    return failure();
  }
  return success();
}

LogicalResult Machine::run() {
  size_t nblocks = prog.blocks.size();
  clocks.resize(nblocks);
  pc.assign(nblocks, 0);
  history.resize(nblocks);
  nextThread = nblocks;

  // What the program could ever do, for the messages.
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps) {
      if (s.barrier >= 0)
        continue;
      for (Operation *dep : s.deps)
        needDone.insert(dep);
      SmallVector<Loc> reads, writes;
      footprint(s.op, reads, writes);
      for (const Loc &l : writes) {
        someWriter.try_emplace(l, s.op);
        if (isa<PutPacketsOp, CopyPacketsOp>(s.op))
          packetSenders.try_emplace(l, s.op);
      }
      if (auto sig = dyn_cast<SignalOp>(s.op))
        ++totalSignals[sig.getChannel().str()];
      if (auto put = dyn_cast<PutOp>(s.op))
        if (put.getWithSignal())
          ++totalSignals[put.getChannel().str()];
      if (auto rel = dyn_cast<ReleaseOp>(s.op))
        ++totalReleases[rel.getSemaphore().str()];
    }

  // Precondition.
  for (RequireOp req : algo.getBody().getOps<RequireOp>()) {
    Slot &s = slots[locOf(req.getAt(), 0)];
    s.defined = true;
    s.value.clear();
    s.value[{req.getValue().getRank(), req.getValue().getIndex()}] = 1;
  }

  // Run the ready operation that comes first in global program order, until
  // every queue is empty or nothing can go on. A block whose head cannot
  // run is parked until the event it waits for (a signal on the channel, a
  // release, packets in the slot, an operation running) happens.
  parked.assign(nblocks, false);
  for (size_t b = 0; b < nblocks; ++b)
    consider(b);
  while (!candidates.empty()) {
    auto [order, b] = *candidates.begin();
    candidates.erase(candidates.begin());
    const Step &s = prog.blocks[b].steps[pc[b]];
    std::string key;
    if (!ready(b, s, key)) {
      parked[b] = true;
      waiters[key].push_back(b);
      continue;
    }
    if (failed(exec(b, s)))
      return failure();
  }
  if (failed(reportStuck()) || failed(checkEnd()))
    return failure();
  return checkPostcondition();
}

LogicalResult runMachine(const Program &program) {
  return Machine(program).run();
}

} // namespace verify
} // namespace ccl
