//===- VerifyReport.cpp - the diagnostics of --ccl-verify -----------------===//
//
// How the machine of VerifyMachine.cpp reports a failure: races (within a
// call and between consecutive calls: an LL sender two calls ahead is one),
// undefined reads, signals and semaphores that do not balance within a
// call, waits that never complete, and postconditions. Every report names ranks, thread blocks, calls (when
// more than one is involved) and source lines, with a counterexample: the
// last steps each involved thread block ran.
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachineImpl.h"

using namespace mlir;

namespace ccl {
namespace verify {
namespace detail {

std::string Machine::who(int b) const {
  return "rank " + std::to_string(prog.blocks[b].rank) + " thread block " +
         std::to_string(prog.blocks[b].tb);
}

std::string Machine::who(const Access &a) const {
  if (a.block < 0)
    return "the caller of rank " + std::to_string(a.callerRank);
  return who(a.block);
}

void Machine::trace(InFlightDiagnostic &d, Operation *at,
                    ArrayRef<int> blocks) {
  std::string text = "counterexample, the last steps of the thread blocks "
                     "involved:";
  std::set<int> seen;
  bool anyLater = false;
  for (int b : blocks)
    if (b >= 0)
      for (auto &[op, call] : history[b])
        anyLater |= call > 0;
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
    for (auto &[op, call] : history[b]) {
      text += firstOp ? "" : ", ";
      firstOp = false;
      text += name(op) + " (" + lineOf(op);
      if (anyLater)
        text += ", " + callName(call);
      text += ")";
    }
  }
  d.attachNote(at->getLoc()) << text;
}

/// What an access did to the chunk, for the messages.
static const char *verb(const Access &a, bool writes) {
  if (a.block < 0)
    return writes ? "refills it" : "reads the result in it";
  return writes ? "writes it" : "reads it";
}

LogicalResult Machine::raceError(const Slot &s, const Access &earlier,
                                 const Access &later, bool earlierWrites,
                                 bool laterWrites) {
  Operation *op = later.block < 0 ? earlier.op : later.op;
  std::string loc = s.loc.str();
  bool acrossCalls = earlier.call != later.call;
  std::string what = isa<MultimemBroadcastOp>(earlier.op)
                         ? "multimem_broadcast"
                         : name(earlier.op);
  // The end of a rank's call: the caller reads results a put may still be
  // writing.
  if (later.block < 0 && !laterWrites) {
    InFlightDiagnostic d =
        op->emitError()
        << "when " << callName(later.call) << " returns on rank "
        << later.callerRank << ", " << loc << " may still be written by the "
        << what << " by " << who(earlier) << " at " << lineOf(earlier.op)
        << (acrossCalls ? " in " + callName(earlier.call) : std::string())
        << ": nothing orders that " << what << " before the end of rank "
        << later.callerRank << "'s call"
        << (acrossCalls ? " (rank " + std::to_string(prog.blocks[earlier.block].rank) +
                              " starts " + callName(earlier.call) +
                              " as soon as its own thread blocks finish " +
                              callName(earlier.call - 1) + ")"
                        : std::string(" (a signal after it and a wait on "
                                      "rank " +
                                      std::to_string(later.callerRank) +
                                      " would order it)"));
    d.attachNote(earlier.op->getLoc()) << "the " << what << " is here";
    trace(d, op, {earlier.block});
    return failure();
  }
  if (earlierWrites && !laterWrites && earlier.delivery) {
    InFlightDiagnostic d = op->emitError();
    if (!acrossCalls) {
      d << who(later) << " reads " << loc << " before the data is visible: the "
        << what << " by " << who(earlier) << " at " << lineOf(earlier.op)
        << " that writes it is not ordered before this read (a signal after "
           "it and a matching wait before the read would order it)";
      if (later.call > 0)
        d << " (in " << callName(later.call) << ")";
    } else {
      d << who(later) << " reads " << loc << " in " << callName(later.call)
        << ", but the " << what << " by " << who(earlier) << " at "
        << lineOf(earlier.op) << " in " << callName(earlier.call)
        << " may already have overwritten it: nothing orders this read "
        << (earlier.call > later.call ? "before that call's " : "after that ")
        << what << " (rank " << prog.blocks[earlier.block].rank
        << " starts each call as soon as its own thread blocks finish the "
           "previous one)";
    }
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
  InFlightDiagnostic d = op->emitError();
  if (!acrossCalls) {
    d << head << loc << ": " << who(later) << " " << verb(later, laterWrites)
      << " while " << who(earlier)
      << (earlierWrites ? " writes" : " may still read") << " it at "
      << lineOf(earlier.op) << ", with nothing ordering the two";
    if (later.call > 0)
      d << " (in " << callName(later.call) << ")";
  } else {
    const Access &older = earlier.call < later.call ? earlier : later;
    const Access &newer = earlier.call < later.call ? later : earlier;
    bool olderWrites = &older == &earlier ? earlierWrites : laterWrites;
    bool newerWrites = &newer == &earlier ? earlierWrites : laterWrites;
    std::string olderAt = older.block >= 0 ? " at " + lineOf(older.op) : "";
    d << head << loc << " between calls: ";
    if (newer.block < 0) {
      d << who(older) << (olderWrites ? " writes" : " reads") << " it in "
        << callName(older.call) << olderAt << " while the caller of rank "
        << newer.callerRank << " reuses it for " << callName(newer.call)
        << ": rank " << newer.callerRank << " returns from "
        << callName(older.call) << " without waiting for that "
        << name(older.op) << " (a signal after it and a wait on rank "
        << newer.callerRank << " before its call ends would order them)";
    } else {
      int64_t rank = prog.blocks[newer.block].rank;
      d << who(newer) << (newerWrites ? " writes" : " reads") << " it in "
        << callName(newer.call) << " while " << who(older)
        << (olderWrites ? " may still write" : " may still read") << " it in "
        << callName(older.call) << olderAt << ": rank " << rank
        << " starts " << callName(newer.call)
        << " as soon as its own thread blocks finish "
        << callName(newer.call - 1) << ", and nothing makes it wait for "
        << who(older) << " (acknowledge the use through a credited channel "
        << "that rank " << rank << " waits on before it reuses " << loc
        << ", or use another slot)";
      if (s.half >= 0 && newer.call - older.call == 2)
        d << "; LL scratch alternates between two copies, so "
          << callName(newer.call) << " reuses the copy of "
          << callName(older.call);
    }
  }
  d.attachNote(earlier.op->getLoc()) << "the other access is here";
  trace(d, op, {earlier.block, later.block});
  return failure();
}

LogicalResult Machine::undefinedRead(const Slot &s, const Access &a,
                                     bool target) {
  InFlightDiagnostic d = a.op->emitError();
  auto it = someWriter.find(s.loc);
  if (it == someWriter.end() || it->second == a.op) {
    d << (target ? "reduces into " : "reads ") << s.loc.str()
      << " before anything wrote it";
    if (a.call > 0)
      d << " (in " << callName(a.call) << ")";
    return failure();
  }
  Operation *w = it->second;
  bool remote = isa<PutOp, PutPacketsOp, MultimemBroadcastOp>(w) ||
                w->hasAttr("fwd_dsts");
  d << who(a) << (target ? " reduces into " : " reads ") << s.loc.str()
    << ", which the " << name(w) << " at " << lineOf(w)
    << " writes, but this operation is not ordered after that " << name(w);
  if (remote)
    d << " (a signal after the " << name(w)
      << " and a matching wait before this operation would order it)";
  if (a.call > 0)
    d << " (in " << callName(a.call) << ")";
  d.attachNote(w->getLoc()) << "the write is here";
  return failure();
}

/// The first operation of `order` (global program order) that `pred`
/// accepts, or null.
static Operation *firstOf(ArrayRef<const Step *> order,
                          function_ref<bool(Operation *)> pred) {
  for (const Step *s : order)
    if (pred(s->op))
      return s->op;
  return nullptr;
}

/// Signals and semaphores keep their counts from call to call (the runtime
/// never resets them), so every call must consume what it produces.
LogicalResult Machine::sizeMismatch(const Slot &s, const Access &a,
                                    const Term &t, int64_t count) {
  ChunkGrid grid = s.loc.buffer == "input" ? inputGrid : outputGrid;
  Loc from{"input", t.rank, t.chunk};
  InFlightDiagnostic d =
      a.op->emitError()
      << "moves " << from.str() << " into " << s.loc.str()
      << ", a chunk of another size: with count = " << count << " they hold "
      << chunkSize(inputGrid, t.chunk, count) << " and "
      << chunkSize(grid, s.loc.chunk, count)
      << " elements (chunk i of a buffer of E elements in k chunks starts at "
         "floor(i * E / k)); a value can only move into a chunk of its "
         "own size";
  trace(d, a.op, {a.block});
  return failure();
}

LogicalResult Machine::checkBalance() {
  std::vector<const Step *> order;
  for (const BlockQueue &q : prog.blocks)
    for (const Step &s : q.steps)
      if (s.barrier < 0)
        order.push_back(&s);
  llvm::stable_sort(order, [](const Step *a, const Step *b) {
    return a->order < b->order;
  });
  for (const ChannelState &ch : channels) {
    size_t sig = signalsPerCall[ch.name], waits = waitsPerCall[ch.name];
    if (sig <= waits)
      continue;
    size_t k = 0;
    for (const Step *s : order)
      for (StringRef c : signalledChannels(s->op))
        if (c == ch.name && ++k == waits + 1) {
          InFlightDiagnostic d =
              s->op->emitError("signal #")
              << k << " on channel @" << ch.name
              << " has no matching wait: a later call would see a stale "
                 "signal (signal counters are never reset, so the next "
                 "call's wait #1 on @"
              << ch.name << " would match this signal instead of its own)";
          if (Operation *w = firstOf(order, [&](Operation *op) {
                auto wait = dyn_cast<WaitOp>(op);
                return wait && wait.getChannel() == ch.name;
              }))
            d.attachNote(w->getLoc())
                << "in call 2 this wait (#1 of the call) would take signal #"
                << k << " of call 1 and go on before its own call's signal";
          return failure();
        }
  }
  for (const SemaphoreState &sem : semaphores) {
    size_t rel = releasesPerCall[sem.name], acq = acquiresPerCall[sem.name];
    if (rel <= acq)
      continue;
    size_t k = 0;
    for (const Step *s : order)
      if (auto r = dyn_cast<ReleaseOp>(s->op))
        if (r.getSemaphore() == sem.name && ++k == acq + 1) {
          InFlightDiagnostic d =
              s->op->emitError("release #")
              << k << " of semaphore @" << sem.name
              << " has no matching acquire in its call: semaphores keep "
                 "their count from call to call (they are never reset), so "
                 "the next call's acquire #1 would return at once, before "
                 "that call's own release";
          if (Operation *first = firstOf(order, [&](Operation *op) {
                auto a = dyn_cast<AcquireOp>(op);
                return a && a.getSemaphore() == sem.name;
              }))
            d.attachNote(first->getLoc())
                << "in call 2 this acquire (#1 of the call) would take "
                   "release #"
                << k << " of call 1";
          return failure();
        }
  }
  return success();
}

static std::string ordinal(size_t k) { return "#" + std::to_string(k); }

LogicalResult Machine::reportStuck() {
  struct Stuck {
    int block;
    const Step *step;
    bool missing;
    std::string why;
  };
  std::vector<Stuck> stuck;
  for (size_t b = 0; b < prog.blocks.size(); ++b) {
    // Blocks at their rank's call boundary wait for the rest of the rank.
    if (callOf[b] >= calls || pc[b] >= prog.blocks[b].steps.size())
      continue;
    int call = callOf[b];
    const Step &s = prog.blocks[b].steps[pc[b]];
    Stuck st{int(b), &s, false, ""};
    if (call > 0)
      st.why = "in " + callName(call) + " ";
    Operation *op = s.op;
    if (s.barrier >= 0) {
      const BarrierInstance &inst = prog.barriers[s.barrier];
      st.why += "at the thread-block barrier";
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
                 return !executed[instance(d, call)];
               })) {
      Operation *dep = *llvm::find_if(
          s.deps, [&](Operation *d) { return !executed[instance(d, call)]; });
      st.why += "before this chunk-level " + name(op) +
                ": it must run after the " + name(dep) + " at " +
                lineOf(dep) +
                ", which is itself behind a wait that never completes "
                "(cyclic wait)";
    } else if (auto w = dyn_cast<WaitOp>(op)) {
      std::string ch = w.getChannel().str();
      const ChannelState &state = channels[channelId(ch)];
      size_t perCall = waitsPerCall[ch];
      size_t k = state.waits - size_t(call) * perCall + 1;
      st.why += "for signal " + ordinal(k) + " on channel @" + ch;
      size_t total = signalsPerCall[ch];
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
      const SemaphoreState &state = semaphores[semaphoreIds.lookup(sem)];
      size_t k = state.acquires - size_t(call) * acquiresPerCall[sem] + 1;
      st.why += "on semaphore @" + sem + " (acquire " + ordinal(k) + ")";
      size_t total = releasesPerCall[sem];
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
    } else if (isa<ReducePacketsOp, UnpackPacketsOp, CopyPacketsOp>(op)) {
      ChunkRefAttr src = cast<InstructionOp>(op).getReadRefs().front();
      Loc missing = locOf(src, 0);
      for (int64_t i = 0; i < src.getCount(); ++i) {
        const Slot &sl = slots[slotId(locOf(src, i), call)];
        if (!sl.packetWriter || sl.packetCall != call) {
          missing = locOf(src, i);
          break;
        }
      }
      st.why += "for packets in " + missing.str();
      if (!packetSenders.count(missing)) {
        st.missing = true;
        st.why += ": no operation sends them";
      } else {
        st.why += ": the send is itself behind a wait that never completes "
                  "(cyclic wait)";
      }
    } else {
      st.why += "for the previous call's operations or for a peer to start "
                "this call (cyclic wait)";
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
  // Signals no wait consumed (beyond a credited channel's credit) would
  // be seen by the next call. checkBalance reports the usual cause first.
  for (const ChannelState &ch : channels) {
    int64_t consumed = std::max<int64_t>(0, int64_t(ch.waits) - ch.credit);
    if (int64_t(ch.signals.size()) - consumed <= ch.credit)
      continue;
    size_t k = consumed + ch.credit;
    return ch.signalOps[k].first->emitError("signal ")
           << ordinal(k + 1) << " on channel @" << ch.name
           << " has no matching wait: a later call would see a stale signal";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Contract
//===----------------------------------------------------------------------===//

LogicalResult Machine::checkSameBits(EnsureOp ensure, int64_t rank, int call,
                                     const Slot &s, const Value &want) {
  int64_t terms = 0;
  for (const auto &[k, n] : want)
    terms += n;
  if (!sameBits || analysis || terms < 2)
    return success();
  if (rankOrderFold) {
    // The left fold of the terms in rank order, its shape and its text.
    std::vector<std::string> shapes, texts;
    for (const auto &[t, n] : want)
      for (int64_t i = 0; i < n; ++i) {
        std::string leaf = render(Value{{t, 1}}, call);
        std::string sh = "x" + std::to_string(t.rank);
        if (shapes.empty()) {
          shapes.push_back(sh);
          texts.push_back(leaf);
          continue;
        }
        std::string a = shapes.back(), b = sh;
        if (b < a)
          std::swap(a, b);
        shapes.push_back("(" + a + " + " + b + ")");
        texts.push_back((shapes.size() > 2 ? "(" + texts.back() + ")"
                                           : texts.back()) +
                        " + " + leaf);
      }
    if (exprs.shape(s.value.expr) != shapes.back()) {
      InFlightDiagnostic d =
          algo.emitError()
          << algo.getCollectiveName() << " is not deterministic";
      if (call > 0)
        d << " in " << callName(call);
      d << ": " << s.loc.str() << " on rank " << rank << " computes "
        << exprs.render(s.value.expr, call) << ", not the left fold in rank "
        << "order " << texts.back()
        << " that bits(deterministic) promises (add the inputs in rank "
           "order, rank 0's first, or declare 'bits(rank_consistent)')";
      // The first step that is not a step of the fold.
      std::set<std::string> prefixes(shapes.begin(), shapes.end());
      std::vector<int32_t> inner;
      exprs.innerNodes(s.value.expr, inner);
      for (int32_t n : inner)
        if (!prefixes.count(exprs.shape(n))) {
          if (exprs.opOf(n))
            d.attachNote(exprs.opOf(n)->getLoc())
                << "it computes " << exprs.render(n, call)
                << " here, which the fold in rank order never does";
          break;
        }
      return failure();
    }
  }
  if (sizeInvariant) {
    std::string sh = exprs.shape(s.value.expr);
    auto [it, first] = shapes.try_emplace(
        {call, rank, s.loc.buffer},
        Reduced{rank, s.loc, s.value.expr, ensure.getOperation()}, sh);
    const auto &[other, otherShape] = it->second;
    if (!first && (otherShape != sh || sh.find('?') != std::string::npos)) {
      InFlightDiagnostic d =
          algo.emitError()
          << algo.getCollectiveName()
          << " is not size-invariant: " << other.at.str() << " computes "
          << exprs.render(other.expr, call) << " but " << s.loc.str()
          << " computes " << exprs.render(s.value.expr, call)
          << "; an element moves between these chunks when the count "
             "changes, and its bits with it (reduce every chunk in one "
             "order, or declare 'bits(rank_consistent)')";
      d.attachNote(other.ensure->getLoc()) << "the chunks' postconditions";
      return failure();
    }
  }
  auto [it, first] = reduced.try_emplace(
      {call, std::map<Term, int64_t>(want)},
      Reduced{rank, s.loc, s.value.expr, ensure.getOperation()});
  const Reduced &other = it->second;
  if (first || other.rank == rank ||
      (other.expr >= 0 && other.expr == s.value.expr))
    return success();
  // Where the orders part: the first step (operands before the step) of
  // each expression that the other never takes.
  auto firstOwn = [&](int32_t e, int32_t than) -> int32_t {
    std::vector<int32_t> mine, theirs;
    exprs.innerNodes(e, mine);
    exprs.innerNodes(than, theirs);
    std::set<int32_t> known(theirs.begin(), theirs.end());
    for (int32_t n : mine)
      if (!known.count(n))
        return n;
    return -1;
  };
  InFlightDiagnostic d =
      algo.emitError() << algo.getCollectiveName()
                       << " gives ranks different bits";
  if (call > 0)
    d << " in " << callName(call);
  d << ": " << other.at.str() << " and " << s.loc.str() << " both hold "
    << render(want, call) << ", but rank " << other.rank << " computes "
    << exprs.render(other.expr, call) << " and rank " << rank << " computes "
    << exprs.render(s.value.expr, call)
    << " (floating-point reductions round at every step, so the order "
       "decides the bits; add in one order on every rank, for example rank "
       "0's chunk first, or declare 'bits(any)' to allow it)";
  for (auto [r, mine, theirs] :
       {std::make_tuple(other.rank, other.expr, s.value.expr),
        std::make_tuple(rank, s.value.expr, other.expr)}) {
    int32_t n = firstOwn(mine, theirs);
    if (n >= 0 && exprs.opOf(n))
      d.attachNote(exprs.opOf(n)->getLoc())
          << "rank " << r << " computes " << exprs.render(n, call)
          << " here, which rank " << (r == rank ? other.rank : rank)
          << " never does";
  }
  return failure();
}

/// Rank `rank` returned from call `call`: the caller reads the locations the
/// postcondition names, which must hold their sums of that call's inputs,
/// and must not be written any more by anything of this call.
LogicalResult Machine::checkPostcondition(int64_t rank, int call,
                                          const Access &caller,
                                          const VClock &vc) {
  for (EnsureOp ensure : ensuresOf[rank]) {
    Loc at = locOf(ensure.getAt(), 0);
    Slot &s = slots[slotId(at, call)];
    Value want;
    for (Attribute t : ensure.getTerms()) {
      auto ref = cast<ChunkRefAttr>(t);
      want[{call, ref.getRank(), ref.getIndex()}] += 1;
    }
    if (s.lastWrite && !hb(*s.lastWrite, vc))
      return raceError(s, *s.lastWrite, caller, true, false);
    if (s.defined && s.value == want) {
      s.reads.push_back(caller);
      if (failed(checkSameBits(ensure, rank, call, s, want)))
        return failure();
      continue;
    }
    // A write of this call that has not happened when the rank returns.
    auto writers = writersOf.find(at);
    if (writers != writersOf.end())
      for (Operation *w : writers->second)
        if (!executed[instance(w, call)]) {
          InFlightDiagnostic d =
              w->emitError()
              << "when " << callName(call) << " returns on rank " << rank
              << ", " << at.str() << " is not written yet: nothing orders the "
              << name(w) << " at " << lineOf(w)
              << " that writes it before the end of rank " << rank
              << "'s call (a signal after it and a wait on rank " << rank
              << " would)";
          d.attachNote(ensure.getLoc()) << "the postcondition is stated here";
          return failure();
        }
    // Reported at the algorithm (the user's file); the contract line, which
    // may be in the built-in prelude, is a note.
    InFlightDiagnostic d = algo.emitError()
                           << algo.getCollectiveName() << " postcondition fails";
    if (call > 0)
      d << " after " << callName(call)
        << " (calls issued back to back, without synchronisation)";
    d << ": " << at.str() << " (rank " << at.rank << ", chunk " << at.chunk
      << ") ";
    if (!s.defined) {
      d << "is never written, but must hold " << render(want, call);
      d.attachNote(ensure.getLoc()) << "the postcondition is stated here";
      return failure();
    }
    d << "holds " << render(s.value, call) << " but must hold "
      << render(want, call);
    std::string missing, twice, extra;
    for (const auto &[k, cnt] : want) {
      auto it = s.value.find(k);
      int64_t have = it == s.value.end() ? 0 : it->second;
      if (have < cnt)
        missing += (missing.empty() ? "" : ", ") +
                   render(Value{{k, cnt - have}}, call);
    }
    for (const auto &[k, cnt] : s.value) {
      auto it = want.find(k);
      int64_t need = it == want.end() ? 0 : it->second;
      if (cnt <= need)
        continue;
      std::string &list = need ? twice : extra;
      list += (list.empty() ? "" : ", ") + render(Value{{k, cnt - need}}, call);
    }
    if (!missing.empty())
      d << " (missing: " << missing << ")";
    if (!twice.empty())
      d << " (counted more than once: " << twice << ")";
    if (!extra.empty())
      d << " (not part of it: " << extra << ")";
    if (s.lastWrite && s.lastWrite->block >= 0)
      d.attachNote(s.lastWrite->op->getLoc()) << "last written here";
    d.attachNote(ensure.getLoc()) << "the postcondition is stated here";
    return failure();
  }
  return success();
}

} // namespace detail
} // namespace verify
} // namespace ccl
