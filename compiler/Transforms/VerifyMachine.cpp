//===- VerifyMachine.cpp - symbolic execution with happens-before ---------===//
//
// The engine of --ccl-verify. Values are multisets of input chunks; every
// (rank, thread block) is a thread of a vector-clock machine. Remote writes
// of puts and multimem broadcasts run on extra "delivery" threads, one per
// (thread block, channel), which a later non-relaxed signal of that block
// joins, so a read on the destination is ordered after the put only through
// signal + wait (or the flags of LL packets).
//
// Several calls run back to back. A rank's call boundary is one more thread
// per rank: when every block of the rank has finished call k, the boundary
// joins them and the puts they issued, checks the rank's postcondition for
// call k (the caller reads its results), refills its input for call k+1
// (the caller writes it) and releases the blocks into call k+1. Nothing
// else connects consecutive calls, so a slot that call k+1 reuses before a
// peer is done with it in call k is an unordered pair of accesses, like any
// race. Signal, semaphore and barrier counters carry over from call to call
// (they are never reset); LL scratch alternates between two copies by call
// parity, as the runtime does.
//
// The operations live in VerifyOps.cpp, the diagnostics in
// VerifyReport.cpp, the helpers other passes share in VerifyHelpers.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachineImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace ccl {
namespace verify {

namespace detail {

//===----------------------------------------------------------------------===//
// Setting up
//===----------------------------------------------------------------------===//

Machine::Machine(const Program &p, int calls, CallOrder *analysis)
    : prog(p), algo(p.algo), inputGrid(gridOf(p.algo, "input")),
      outputGrid(gridOf(p.algo, "output")),
      calls(calls > 0 ? calls : callsToModel(p)), analysis(analysis),
      nranks(AlgorithmOp(p.algo).getNranks()),
      sameBits(AlgorithmOp(p.algo).requiresRankConsistency()),
      sizeInvariant(AlgorithmOp(p.algo).requiresSizeInvariance()),
      rankOrderFold(AlgorithmOp(p.algo).requiresRankOrderFold()) {}

unsigned Machine::bufferId(StringRef name) {
  auto [it, inserted] = bufferIds.try_emplace(name, bufferIds.size());
  return it->second;
}

unsigned Machine::slotId(const Loc &l, int call) {
  int half = -1;
  if (algo.isLL() && l.buffer != "input" && l.buffer != "output")
    half = call % 2; // LL scratch: the copy of this call's parity
  auto key = std::make_tuple(bufferId(l.buffer), l.rank, l.chunk, half);
  auto [it, inserted] = slotIds.try_emplace(key, slots.size());
  if (inserted) {
    Slot s;
    s.loc = l;
    s.half = half;
    slots.push_back(std::move(s));
  }
  return it->second;
}

bool Machine::isPort(FlatSymbolRefAttr sym) {
  auto it = channelIds.find(sym.getValue());
  return it != channelIds.end() && portChannel[it->second];
}

void Machine::prepare() {
  size_t nb = prog.blocks.size();
  int64_t maxOrder = 0;
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps) {
      maxOrder = std::max(maxOrder, s.order);
      if (opIds.try_emplace(s.op, ops.size()).second)
        ops.push_back(s.op);
    }
  stride = maxOrder + 1;

  for (Operation &op : algo.getBody().front()) {
    if (auto ch = dyn_cast<ChannelOp>(op)) {
      channelIds[ch.getSymName()] = channels.size();
      channels.push_back({ch.getSymName().str(), ch.getCreditOrZero(), {}, {}, 0});
      portChannel.push_back(ch.getKind() == ChannelKind::Port);
    } else if (auto sw = dyn_cast<SwitchChannelOp>(op)) {
      channelIds[sw.getSymName()] = channels.size();
      channels.push_back({sw.getSymName().str(), 0, {}, {}, 0});
      portChannel.push_back(false);
    } else if (auto sem = dyn_cast<SemaphoreOp>(op)) {
      semaphoreIds[sem.getSymName()] = semaphores.size();
      semaphores.push_back({sem.getSymName().str(), {}, {}, 0});
    }
  }

  size_t instances = ops.size() * calls;
  executed.assign(instances, false);
  done.assign(instances, VClock());
  needDone.assign(ops.size(), false);

  // Threads: blocks, then the call boundary of every rank.
  clocks.resize(nb);
  pc.assign(nb, 0);
  callOf.assign(nb, 0);
  history.resize(nb);
  parked.assign(nb, false);
  rankBlocks.resize(nranks);
  for (size_t b = 0; b < nb; ++b)
    if (!prog.blocks[b].steps.empty())
      rankBlocks[prog.blocks[b].rank].push_back(b);
  arrived.assign(nranks, 0);
  rankCall.assign(nranks, 0);
  boundaryThread.resize(nranks);
  boundaryClock.resize(nranks);
  for (int64_t r = 0; r < nranks; ++r) {
    boundaryThread[r] = nb + r;
    boundaryClock[r].tick(boundaryThread[r]); // the start of call 1
  }
  nextThread = nb + nranks;
  for (size_t b = 0; b < nb; ++b)
    clocks[b] = boundaryClock[prog.blocks[b].rank];

  // The contract, per rank, and the user buffers the program touches.
  requiresOf.resize(nranks);
  ensuresOf.resize(nranks);
  userLocs.resize(nranks);
  std::vector<std::set<Loc>> user(nranks);
  auto addUser = [&](const Loc &l) {
    if ((l.buffer == "input" || l.buffer == "output") && l.rank >= 0 &&
        l.rank < nranks)
      user[l.rank].insert(l);
  };
  for (RequireOp req : algo.getBody().getOps<RequireOp>()) {
    requiresOf[req.getAt().getRank()].push_back(req);
    addUser(locOf(req.getAt(), 0));
  }
  for (EnsureOp ens : algo.getBody().getOps<EnsureOp>()) {
    ensuresOf[ens.getAt().getRank()].push_back(ens);
    addUser(locOf(ens.getAt(), 0));
  }

  // What the program could ever do, for the messages and the static checks.
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps) {
      if (s.barrier >= 0)
        continue;
      for (Operation *dep : s.deps)
        needDone[opIndex(dep)] = true;
      SmallVector<Loc> reads, writes;
      footprint(s.op, reads, writes);
      for (const Loc &l : reads)
        addUser(l);
      for (const Loc &l : writes) {
        addUser(l);
        someWriter.try_emplace(l, s.op);
        writersOf[l].push_back(s.op);
        if (isa<PutPacketsOp, CopyPacketsOp, PackPacketsOp>(s.op))
          packetSenders.try_emplace(l, s.op);
      }
      for (StringRef c : ccl::signalledChannels(s.op))
        ++signalsPerCall[c.str()];
      if (auto w = dyn_cast<WaitOp>(s.op))
        ++waitsPerCall[w.getChannel().str()];
      if (auto rel = dyn_cast<ReleaseOp>(s.op))
        ++releasesPerCall[rel.getSemaphore().str()];
      if (auto acq = dyn_cast<AcquireOp>(s.op))
        ++acquiresPerCall[acq.getSemaphore().str()];
    }
  for (int64_t r = 0; r < nranks; ++r)
    userLocs[r].assign(user[r].begin(), user[r].end());

  crossDeps.resize(ops.size());
  startDeps.resize(ops.size());
  boundaryDeps.resize(nranks);
  computeCrossCallDeps();

  // Precondition of call 1: the initial contents.
  for (RequireOp req : algo.getBody().getOps<RequireOp>()) {
    Slot &s = slots[slotId(locOf(req.getAt(), 0), 0)];
    s.defined = true;
    Term t{0, req.getValue().getRank(), req.getValue().getIndex()};
    s.value = Value{{t, 1}};
    s.value.expr = exprs.leaf(t);
  }
}

/// Chunk-level operations (global level) carry implicit synchronisation
/// across calls too: the compiler orders each one after the operations of
/// the previous call that touch its chunks, and before the operations of
/// the next call that do (docs/semantics.md, "Sequences of calls"). Their
/// conflicts across calls are the compiler's to order, not the program's,
/// and the kernel-level verification proves that it did.
void Machine::computeCrossCallDeps() {
  bool any = false;
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps)
      any |= s.chunkLevel;
  if (!any)
    return;
  std::vector<bool> chunkLevel(ops.size(), false);
  std::map<Loc, std::map<unsigned, bool>> touches; // loc -> op -> writes
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps) {
      if (s.barrier >= 0)
        continue;
      unsigned id = opIndex(s.op);
      chunkLevel[id] = s.chunkLevel;
      SmallVector<Loc> reads, writes;
      footprint(s.op, reads, writes);
      for (const Loc &l : reads)
        touches[l].try_emplace(id, false);
      for (const Loc &l : writes)
        touches[l][id] = true;
    }
  std::vector<std::set<unsigned>> deps(ops.size());
  std::vector<std::set<int64_t>> starts(ops.size());
  std::vector<std::set<unsigned>> ends(nranks);
  for (auto &[loc, users] : touches) {
    bool user = loc.buffer == "input" || loc.buffer == "output";
    for (auto [a, aw] : users) {
      if (!chunkLevel[a])
        continue;
      if (user) {
        starts[a].insert(loc.rank);
        ends[loc.rank].insert(a);
      }
      for (auto [b, bw] : users)
        if (aw || bw) {
          deps[a].insert(b); // a after the previous call's b
          deps[b].insert(a); // b after the previous call's a
        }
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    crossDeps[i].assign(deps[i].begin(), deps[i].end());
    startDeps[i].assign(starts[i].begin(), starts[i].end());
    for (unsigned d : deps[i])
      needDone[d] = true;
  }
  for (int64_t r = 0; r < nranks; ++r) {
    boundaryDeps[r].assign(ends[r].begin(), ends[r].end());
    for (unsigned d : boundaryDeps[r])
      needDone[d] = true;
  }
}

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
  a.call = callOf[b];
  return a;
}

size_t Machine::deliveryThread(int b, unsigned channel, bool isSwitch) {
  auto [it, inserted] = deliveries.try_emplace({b, channel}, nextThread);
  if (inserted) {
    ++nextThread;
    if (isSwitch)
      switchDeliveries[b].push_back(it->second);
  }
  return it->second;
}

/// Starts the remote write of a put/broadcast issued by block `b`: after
/// everything `b` did so far and after the earlier deliveries of the same
/// (block, channel). Fills `a` with the delivery's epoch.
const VClock &Machine::deliver(int b, unsigned channel, bool isSwitch,
                               Access &a, Operation *op) {
  size_t t = deliveryThread(b, channel, isSwitch);
  uint32_t k = ++deliveryCount[t];
  lastDelivery = clocks[b];
  lastDelivery.raise(t, k);
  a.op = op;
  a.thread = t;
  a.clock = k;
  a.block = b;
  a.call = callOf[b];
  a.delivery = true;
  opDeliveries.push_back({t, k});
  return lastDelivery;
}

void Machine::joinDeliveries(VClock &vc, int b) const {
  for (auto it = deliveries.lower_bound({b, 0u});
       it != deliveries.end() && it->first.first == b; ++it)
    vc.raise(it->second, deliveryCount.at(it->second));
}

void Machine::signal(int b, StringRef channel, bool relaxed, Operation *op) {
  unsigned id = channelId(channel);
  ChannelState &ch = channels[id];
  ch.signalOps.push_back({op, callOf[b]});
  if (relaxed) {
    ch.signals.push_back(std::nullopt);
  } else {
    VClock vc = clocks[b];
    auto it = deliveries.find({b, id});
    if (it != deliveries.end())
      vc.raise(it->second, deliveryCount[it->second]);
    for (size_t t : switchDeliveries[b])
      vc.raise(t, deliveryCount[t]);
    ch.signals.push_back(std::move(vc));
  }
  wake(WaitOn::Signal, id);
}

void Machine::flush(int b, StringRef channel, const Access &a) {
  auto it = pendingPort.find({b, channelId(channel)});
  if (it == pendingPort.end())
    return;
  for (auto &[slot, put] : it->second)
    for (Access &r : slots[slot].reads)
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

FailureOr<Value> Machine::read(Slot &s, const Access &a, const VClock &vc,
                               bool target) {
  if (s.lastWrite && !hb(*s.lastWrite, vc)) {
    (void)raceError(s, *s.lastWrite, a, true, false);
    return failure();
  }
  if (!s.defined) {
    (void)undefinedRead(s, a, target);
    return failure();
  }
  s.reads.push_back(a);
  return s.value;
}

LogicalResult Machine::write(Slot &s, const Access &a, const VClock &vc,
                             Value v, bool accumulate) {
  if (s.lastWrite && !hb(*s.lastWrite, vc))
    return raceError(s, *s.lastWrite, a, true, true);
  for (const Access &r : s.reads) {
    if (r.pendingPort && r.op != a.op) {
      auto ch = cast<PutOp>(r.op).getChannel();
      InFlightDiagnostic d =
          a.op->emitError()
          << "overwrites " << s.loc.str() << " while the port-channel put at "
          << lineOf(r.op) << " may still read it: " << who(r.block)
          << " has not flushed @" << ch << " since that put";
      d.attachNote(r.op->getLoc()) << "the put is here";
      trace(d, a.op, {r.block, a.block});
      return failure();
    }
    if (!r.pendingPort && !hb(r, vc))
      return raceError(s, r, a, false, true);
  }
  // A chunk of input or output holds only values of its own size: a copy
  // between chunks that differ in size moves the source's elements, one
  // too many or too few for the destination (chunk boundaries are floor(i
  // * elements / chunks)).
  ChunkGrid grid = s.loc.buffer == "input"    ? inputGrid
                   : s.loc.buffer == "output" ? outputGrid
                                              : ChunkGrid();
  if (grid && !analysis)
    for (const auto &[k, n] : v)
      if (std::optional<int64_t> count =
              sizesDiffer(inputGrid, k.chunk, grid, s.loc.chunk))
        return sizeMismatch(s, a, k, *count);
  if (accumulate) {
    for (const auto &[k, n] : v)
      s.value[k] += n;
    s.value.expr = exprs.combine(s.value.expr, v.expr, a.op);
  } else {
    s.value = std::move(v);
  }
  s.defined = true;
  s.lastWrite = a;
  s.reads.clear();
  return success();
}

void Machine::writePackets(Slot &s, Operation *op, int call, const VClock &vc) {
  s.packetWriter = op;
  s.packetCall = call;
  s.packetClock = vc;
  wake(WaitOn::Packets, &s - slots.data());
}

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

void Machine::consider(int b) {
  if (callOf[b] < calls && pc[b] < prog.blocks[b].steps.size())
    candidates.insert({orderOf(b), b});
}

void Machine::park(int waiter, std::pair<WaitOn, uint64_t> key) {
  if (waiter >= 0)
    parked[waiter] = true;
  waiters[key].push_back(waiter);
}

void Machine::wake(WaitOn kind, uint64_t id) {
  auto it = waiters.find({kind, id});
  if (it == waiters.end())
    return;
  std::vector<int> list = std::move(it->second);
  waiters.erase(it);
  for (int w : list) {
    if (w < 0) {
      // A rank's call boundary waiting for an operation; a failure there
      // (a postcondition, a race with the caller) stops the run.
      if (failed(tryBoundary(-1 - w)))
        failedInWake = true;
      continue;
    }
    if (parked[w]) {
      parked[w] = false;
      consider(w);
    }
  }
}

bool Machine::ready(int b, const Step &s,
                    std::pair<WaitOn, uint64_t> &blockedOn) {
  int call = callOf[b];
  if (s.barrier >= 0) {
    blockedOn = {WaitOn::Barrier, uint64_t(s.barrier)};
    const BarrierInstance &inst = prog.barriers[s.barrier];
    if (inst.present.size() != inst.tbs.size())
      return false;
    for (int p : inst.present) {
      const BlockQueue &q = prog.blocks[p];
      if (callOf[p] != call || pc[p] >= q.steps.size() ||
          q.steps[pc[p]].barrier != s.barrier)
        return false;
    }
    return true;
  }
  unsigned id = opIndex(s.op);
  if (s.chunkLevel)
    for (Operation *dep : s.deps)
      if (!executed[instance(dep, call)]) {
        blockedOn = {WaitOn::Op, instance(dep, call)};
        return false;
      }
  if (call > 0) {
    for (unsigned dep : crossDeps[id])
      if (!executed[size_t(dep) * calls + call - 1]) {
        blockedOn = {WaitOn::Op, size_t(dep) * calls + call - 1};
        return false;
      }
    for (int64_t q : startDeps[id])
      if (rankCall[q] < call) {
        blockedOn = {WaitOn::Boundary, uint64_t(q)};
        return false;
      }
  }
  Operation *op = s.op;
  if (auto w = dyn_cast<WaitOp>(op)) {
    unsigned c = channelId(w.getChannel());
    blockedOn = {WaitOn::Signal, c};
    ChannelState &ch = channels[c];
    int64_t match = int64_t(ch.waits) - ch.credit;
    if (match < 0)
      return true;
    if (int64_t(ch.signals.size()) <= match)
      return false;
    // Without credit every call consumes its own signals: a wait whose
    // match is a later call's signal has none of its own call (it would
    // wait forever, or take the next call's signal: both wrong).
    return ch.credit > 0 || ch.signalOps[match].second == call;
  }
  if (auto acq = dyn_cast<AcquireOp>(op)) {
    unsigned sem = semaphoreIds.lookup(acq.getSemaphore());
    blockedOn = {WaitOn::Semaphore, sem};
    SemaphoreState &state = semaphores[sem];
    return state.releases.size() > state.acquires &&
           state.releaseCalls[state.acquires] == call;
  }
  if (isa<ReducePacketsOp, UnpackPacketsOp, CopyPacketsOp>(op)) {
    ChunkRefAttr src = cast<InstructionOp>(op).getReadRefs().front();
    for (int64_t i = 0; i < src.getCount(); ++i) {
      unsigned slot = slotId(locOf(src, i), call);
      if (!slots[slot].packetWriter || slots[slot].packetCall != call) {
        blockedOn = {WaitOn::Packets, slot};
        return false;
      }
    }
  }
  return true;
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
    history[p].push_back({prog.blocks[p].steps[pc[p]].op, callOf[p]});
    if (history[p].size() > 3)
      history[p].pop_front();
    parked[p] = false;
    candidates.erase({orderOf(p), p});
  }
  waiters.erase({WaitOn::Barrier, uint64_t(s.barrier)});
  for (int p : inst.present)
    advance(p);
  // A barrier can end the blocks' call.
  return tryBoundary(inst.rank);
}

void Machine::recordEvent(int b, Operation *op) {
  if (!analysis)
    return;
  CallOrder::Event e;
  e.thread = b;
  e.clock = clocks[b].get(b);
  e.starts.resize(nranks);
  for (int64_t r = 0; r < nranks; ++r)
    if (clocks[b].get(boundaryThread[r]) >= 1)
      e.starts.set(r);
  analysis->events[op] = std::move(e);
}

/// Moves block `b` past its current step; at the end of its queue it
/// arrives at its rank's call boundary.
void Machine::advance(int b) {
  ++pc[b];
  if (pc[b] < prog.blocks[b].steps.size()) {
    consider(b);
    return;
  }
  ++arrived[prog.blocks[b].rank];
}

LogicalResult Machine::exec(int b, const Step &s) {
  if (s.barrier >= 0)
    return execBarrier(s);
  int call = callOf[b];
  unsigned id = opIndex(s.op);
  if (s.chunkLevel)
    for (Operation *dep : s.deps)
      clocks[b].join(done[instance(dep, call)]);
  if (call > 0) {
    for (unsigned dep : crossDeps[id])
      clocks[b].join(done[size_t(dep) * calls + call - 1]);
    for (int64_t q : startDeps[id])
      clocks[b].join(boundaryClock[q]);
  }
  opDeliveries.clear();
  if (failed(execOp(b, s.op)) || failed(execForwards(b, s.op)))
    return failure();
  size_t inst = instance(s.op, call);
  executed[inst] = true;
  if (needDone[id]) {
    VClock vc = clocks[b];
    for (auto [t, k] : opDeliveries)
      vc.raise(t, k);
    done[inst] = std::move(vc);
  }
  recordEvent(b, s.op);
  history[b].push_back({s.op, call});
  if (history[b].size() > 3)
    history[b].pop_front();
  advance(b);
  wake(WaitOn::Op, inst);
  if (pc[b] >= prog.blocks[b].steps.size())
    return tryBoundary(prog.blocks[b].rank);
  return success();
}

LogicalResult Machine::tryBoundary(int64_t rank) {
  if (rankCall[rank] >= calls || arrived[rank] < int(rankBlocks[rank].size()))
    return success();
  int call = rankCall[rank];
  for (unsigned dep : boundaryDeps[rank])
    if (!executed[size_t(dep) * calls + call]) {
      park(-1 - int(rank), {WaitOn::Op, size_t(dep) * calls + call});
      return success();
    }
  return execBoundary(rank);
}

/// Rank `rank` finished call c: its kernel ends (its blocks' work and the
/// puts they issued are complete), the caller reads the results and
/// refills the input, and the blocks start call c+1.
LogicalResult Machine::execBoundary(int64_t rank) {
  int call = rankCall[rank];
  // A port put's source is still being read after the kernel ends.
  // (The maps are ordered by block first: each block's entries are a range.)
  for (int b : rankBlocks[rank])
    for (auto it = pendingPort.lower_bound({b, 0u});
         it != pendingPort.end() && it->first.first == b; ++it)
      if (auto &list = it->second; !list.empty()) {
        if (analysis)
          return failure();
        auto put = cast<PutOp>(list.front().second);
        return put.emitError("the port-channel put of ")
               << slots[list.front().first].loc.str() << " on @"
               << put.getChannel()
               << " is never flushed: the kernel may end while the proxy "
                  "still reads its source";
      }
  VClock &j = boundaryClock[rank];
  for (int b : rankBlocks[rank]) {
    j.join(clocks[b]);
    joinDeliveries(j, b);
  }
  for (unsigned dep : boundaryDeps[rank])
    j.join(done[size_t(dep) * calls + call]);
  if (analysis)
    analysis->ends[rank] = j.raw();
  size_t bt = boundaryThread[rank];
  j.tick(bt);
  Access caller;
  caller.op = algo.getOperation();
  caller.thread = bt;
  caller.clock = j.get(bt);
  caller.callerRank = rank;
  caller.call = call;
  if (!analysis && failed(checkPostcondition(rank, call, caller, j)))
    return failure();
  ++rankCall[rank];
  if (rankCall[rank] < calls) {
    // The caller refills the rank's buffers for the next call: the input
    // anew, everything else of input and output undefined.
    j.tick(bt);
    caller.clock = j.get(bt);
    caller.call = call + 1;
    std::set<Loc> required;
    for (RequireOp req : requiresOf[rank]) {
      Loc at = locOf(req.getAt(), 0);
      required.insert(at);
      Term t{call + 1, req.getValue().getRank(), req.getValue().getIndex()};
      Value v{{t, 1}};
      v.expr = exprs.leaf(t);
      if (failed(write(slots[slotId(at, call + 1)], caller, j, v, false)))
        return failure();
    }
    for (const Loc &l : userLocs[rank]) {
      if (required.count(l))
        continue;
      Slot &s = slots[slotId(l, call + 1)];
      if (failed(write(s, caller, j, Value(), false)))
        return failure();
      s.defined = false;
    }
    for (int b : rankBlocks[rank]) {
      clocks[b] = j;
      callOf[b] = call + 1;
      pc[b] = 0;
      consider(b);
    }
  } else {
    for (int b : rankBlocks[rank])
      callOf[b] = calls;
  }
  arrived[rank] = 0;
  wake(WaitOn::Boundary, rank);
  // A rank with no operations goes straight on to its next call's end.
  if (rankBlocks[rank].empty())
    return tryBoundary(rank);
  return success();
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

LogicalResult Machine::run() {
  prepare();
  if (!analysis && failed(checkBalance()))
    return failure();

  // Run the ready operation that comes first in global program order (of
  // the earliest call), until every queue is empty or nothing can go on. A
  // block whose head cannot run is parked until the event it waits for (a
  // signal on the channel, a release, packets in the slot, an operation
  // running, a rank starting its next call) happens.
  // A rank with no operations returns from each call as soon as the
  // chunk-level operations that touch its buffers are done (at once when
  // there are none).
  for (int64_t r = 0; r < nranks; ++r)
    if (rankBlocks[r].empty() && failed(tryBoundary(r)))
      return failure();
  for (size_t b = 0; b < prog.blocks.size(); ++b)
    consider(b);
  while (!candidates.empty()) {
    auto [order, b] = *candidates.begin();
    candidates.erase(candidates.begin());
    const Step &s = prog.blocks[b].steps[pc[b]];
    std::pair<WaitOn, uint64_t> key;
    if (!ready(b, s, key)) {
      park(b, key);
      continue;
    }
    if (failed(exec(b, s)) || failedInWake)
      return failure();
  }
  if (analysis) {
    for (int64_t r = 0; r < nranks; ++r)
      if (rankCall[r] < calls && !rankBlocks[r].empty())
        return failure();
    return success();
  }
  if (failed(reportStuck()) || failed(checkEnd()))
    return failure();
  return success();
}

} // namespace detail

LogicalResult runMachine(const Program &program, int calls) {
  return detail::Machine(program, calls, nullptr).run();
}

std::optional<CallOrder> analyzeCallOrder(const Program &program) {
  AlgorithmOp algo = program.algo;
  CallOrder order;
  order.nranks = algo.getNranks();
  order.ends.resize(order.nranks);
  for (int64_t r = 0; r < order.nranks; ++r)
    order.startThread.push_back(program.blocks.size() + r);
  ScopedDiagnosticHandler quiet(algo.getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(detail::Machine(program, 1, &order).run()))
    return std::nullopt;
  return order;
}

} // namespace verify
} // namespace ccl
