//===- Verify.cpp - prove algorithms against their collective -------------===//
//
// The --ccl-verify pass. It reads the contract (ccl.require / ccl.ensure),
// builds one queue per (rank, thread block) from global program order or
// from the ccl.thread_block regions of a scheduled algorithm, makes the
// static checks (resources, channel ends, packet slots, intra-block
// barriers) and hands the program to the symbolic machine
// (VerifyMachine.cpp), which checks happens-before, deadlocks and the
// postcondition.
//
//===----------------------------------------------------------------------===//

#include "compiler/Support/Activity.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/VerifyMachine.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

#include <map>
#include <set>

namespace ccl {
#define GEN_PASS_DEF_CCLVERIFY
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;
using namespace ccl::verify;

namespace {

//===----------------------------------------------------------------------===//
// Contract
//===----------------------------------------------------------------------===//

/// An ensured chunk and its terms must have the same size at every count:
/// otherwise no program can meet the contract (a copy between them moves
/// one element too many or too few).
LogicalResult checkEnsuredSizes(AlgorithmOp algo, EnsureOp ens) {
  Loc at = locOf(ens.getAt(), 0);
  ChunkGrid grid = gridOf(algo, at.buffer), in = gridOf(algo, "input");
  if (!grid)
    return success();
  for (Attribute t : ens.getTerms()) {
    auto term = dyn_cast<ChunkRefAttr>(t);
    if (!term || term.getBuffer() != "input")
      continue;
    Loc from = locOf(term, 0);
    if (std::optional<int64_t> count =
            sizesDiffer(in, from.chunk, grid, at.chunk))
      return ens.emitError()
             << at.str() << " is to hold "
             << from.str() << ", a chunk of another size: with count = "
             << *count << " they hold " << chunkSize(in, from.chunk, *count)
             << " and " << chunkSize(grid, at.chunk, *count)
             << " elements (chunk i of a buffer of E elements in k chunks "
                "starts at floor(i * E / k))";
  }
  return success();
}

LogicalResult checkContract(AlgorithmOp algo) {
  std::map<Loc, Operation *> required, ensured;
  bool anyEnsure = false;
  for (Operation &op : algo.getBody().front()) {
    ChunkRefAttr at;
    std::map<Loc, Operation *> *seen = nullptr;
    const char *what = nullptr;
    if (auto req = dyn_cast<RequireOp>(op)) {
      at = req.getAt();
      seen = &required;
      what = "precondition";
    } else if (auto ens = dyn_cast<EnsureOp>(op)) {
      at = ens.getAt();
      seen = &ensured;
      what = "postcondition";
      anyEnsure = true;
    } else {
      continue;
    }
    if (auto ens = dyn_cast<EnsureOp>(op))
      if (failed(checkEnsuredSizes(algo, ens)))
        return failure();
    auto [it, inserted] = seen->try_emplace(locOf(at, 0), &op);
    if (!inserted) {
      InFlightDiagnostic d = op.emitError("second ")
                             << what << " for " << locOf(at, 0).str();
      d.attachNote(it->second->getLoc()) << "the first one is here";
      return failure();
    }
  }
  if (!anyEnsure)
    return algo.emitError("algorithm '")
           << algo.getName() << "' (" << algo.getNranks()
           << " ranks) has no postcondition: without 'ccl.ensure' there is "
              "nothing to prove it against";
  return success();
}

//===----------------------------------------------------------------------===//
// Building the queues
//===----------------------------------------------------------------------===//

/// Collects the queues. `order` is global program order: body order at the
/// global level, `op_id` in a scheduled algorithm (text order where an
/// instruction has none).
class ProgramBuilder {
public:
  explicit ProgramBuilder(AlgorithmOp algo) { prog.algo = algo; }

  LogicalResult build();
  Program &program() { return prog; }

private:
  int blockIndex(int64_t rank, int64_t tb);
  void addStep(int64_t rank, int64_t tb, Step s) {
    prog.blocks[blockIndex(rank, tb)].steps.push_back(std::move(s));
  }
  void computeDeps();

  Program prog;
  std::map<std::pair<int64_t, int64_t>, int> index;
};

int ProgramBuilder::blockIndex(int64_t rank, int64_t tb) {
  auto it = index.find({rank, tb});
  if (it != index.end())
    return it->second;
  BlockQueue q;
  q.rank = rank;
  q.tb = tb;
  prog.blocks.push_back(q);
  return index[{rank, tb}] = prog.blocks.size() - 1;
}

LogicalResult ProgramBuilder::build() {
  AlgorithmOp algo = prog.algo;
  // Create the blocks in (rank, tb) order so diagnostics are stable.
  std::set<std::pair<int64_t, int64_t>> keys;
  algo.walk([&](Operation *op) {
    if (auto inst = dyn_cast<InstructionOp>(op))
      keys.insert({inst.getExecRank(), inst.getThreadBlock()});
    else if (auto bar = dyn_cast<TbBarrierOp>(op))
      for (int64_t t : bar.getTbs())
        keys.insert({bar.getRankAttr().getInt(), t});
    else if (auto tb = dyn_cast<ThreadBlockOp>(op))
      keys.insert({tb.getRankAttr().getInt(), tb.getTbAttr().getInt()});
  });
  for (auto [rank, tb] : keys)
    blockIndex(rank, tb);

  int64_t pos = 0;
  if (!algo.getScheduled()) {
    for (Operation &op : algo.getBody().front()) {
      ++pos;
      if (auto bar = dyn_cast<TbBarrierOp>(op)) {
        BarrierInstance inst;
        inst.op = &op;
        inst.rank = bar.getRankAttr().getInt();
        inst.tbs.assign(bar.getTbs().begin(), bar.getTbs().end());
        for (int64_t t : inst.tbs)
          inst.present.push_back(blockIndex(inst.rank, t));
        prog.barriers.push_back(inst);
        for (int64_t t : inst.tbs) {
          Step s;
          s.op = &op;
          s.order = pos;
          s.barrier = prog.barriers.size() - 1;
          addStep(inst.rank, t, s);
        }
        continue;
      }
      auto inst = dyn_cast<InstructionOp>(op);
      if (!inst)
        continue;
      Step s;
      s.op = &op;
      s.order = pos;
      s.chunkLevel = isChunkLevel(&op);
      addStep(inst.getExecRank(), inst.getThreadBlock(), s);
    }
  } else {
    bool allIds = true;
    algo.walk([&](InstructionOp op) {
      if (!getOpId(op))
        allIds = false;
    });
    // (rank, tbs, k) -> the k-th barrier of that set.
    std::map<std::tuple<int64_t, std::vector<int64_t>, int64_t>, int> instances;
    for (ThreadBlockOp tbOp : algo.getBody().getOps<ThreadBlockOp>()) {
      int64_t rank = tbOp.getRankAttr().getInt(), tb = tbOp.getTbAttr().getInt();
      int b = blockIndex(rank, tb);
      std::map<std::vector<int64_t>, int64_t> seen;
      int64_t lastOrder = 0;
      for (Operation &op : tbOp.getBody().front()) {
        ++pos;
        if (auto bar = dyn_cast<TbBarrierOp>(op)) {
          std::vector<int64_t> tbs(bar.getTbs().begin(), bar.getTbs().end());
          int64_t k = seen[tbs]++;
          auto [it, inserted] =
              instances.try_emplace({rank, tbs, k}, prog.barriers.size());
          if (inserted) {
            BarrierInstance inst;
            inst.op = &op;
            inst.rank = rank;
            inst.tbs = tbs;
            prog.barriers.push_back(inst);
          }
          prog.barriers[it->second].present.push_back(b);
          Step s;
          s.op = &op;
          s.order = allIds ? lastOrder : pos;
          s.barrier = it->second;
          prog.blocks[b].steps.push_back(s);
          continue;
        }
        if (!isa<InstructionOp>(op))
          continue; // ccl.barrier: intra-block, checked separately
        Step s;
        s.op = &op;
        s.order = allIds ? *getOpId(&op) : pos;
        lastOrder = s.order;
        s.chunkLevel = isChunkLevel(&op);
        prog.blocks[b].steps.push_back(s);
      }
    }
  }
  computeDeps();
  return success();
}

/// For every chunk-level step, the earlier operations (global program order)
/// that conflict with it on some chunk.
void ProgramBuilder::computeDeps() {
  struct Ref {
    int block;
    size_t step;
  };
  std::vector<std::pair<int64_t, Ref>> all;
  for (size_t b = 0; b < prog.blocks.size(); ++b)
    for (size_t i = 0; i < prog.blocks[b].steps.size(); ++i)
      if (prog.blocks[b].steps[i].barrier < 0)
        all.push_back({prog.blocks[b].steps[i].order, {int(b), i}});
  llvm::stable_sort(all, [](const auto &x, const auto &y) {
    return x.first < y.first;
  });
  struct Touch {
    Operation *op;
    bool write;
  };
  std::map<Loc, std::vector<Touch>> touched;
  for (auto &[order, ref] : all) {
    Step &s = prog.blocks[ref.block].steps[ref.step];
    SmallVector<Loc> reads, writes;
    footprint(s.op, reads, writes);
    if (s.chunkLevel) {
      std::set<Operation *> deps;
      for (const Loc &l : reads)
        for (const Touch &t : touched[l])
          if (t.write && t.op != s.op)
            deps.insert(t.op);
      for (const Loc &l : writes)
        for (const Touch &t : touched[l])
          if (t.op != s.op)
            deps.insert(t.op);
      s.deps.assign(deps.begin(), deps.end());
      llvm::sort(s.deps, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
    }
    for (const Loc &l : reads)
      touched[l].push_back({s.op, false});
    for (const Loc &l : writes)
      touched[l].push_back({s.op, true});
  }
}

//===----------------------------------------------------------------------===//
// Static checks
//===----------------------------------------------------------------------===//

/// Thread blocks per rank must be co-resident: blocks spin on each other.
LogicalResult checkResources(AlgorithmOp algo, int64_t maxBlocks) {
  std::map<int64_t, std::pair<int64_t, Operation *>> highest;
  auto use = [&](int64_t rank, int64_t last, Operation *op) {
    auto &h = highest[rank];
    if (!h.second || last > h.first)
      h = {last, op};
  };
  algo.walk([&](Operation *op) {
    if (auto inst = dyn_cast<InstructionOp>(op))
      use(inst.getExecRank(),
          inst.getThreadBlock() + inst.getGroupSize() - 1, op);
    else if (auto bar = dyn_cast<TbBarrierOp>(op))
      use(bar.getRankAttr().getInt(), bar.getTbs().back(), op);
  });
  for (auto &[rank, h] : highest) {
    int64_t used = h.first + 1;
    if (used <= maxBlocks)
      continue;
    InFlightDiagnostic d = algo.emitError("rank ")
                           << rank << " uses " << used
                           << " thread blocks, more than max-blocks-per-rank = "
                           << maxBlocks
                           << " (the thread blocks of a kernel wait for each "
                              "other, so all of them must be resident at once)";
    d.attachNote(h.second->getLoc())
        << "thread block " << h.first << " of rank " << rank << " is used here";
    return failure();
  }
  return success();
}

/// The most operations one verification runs, and the most operations
/// times thread blocks (the width of its vector clocks). Memory and time
/// grow faster than either: the ring at 32 ranks with 16 tiles (64,000
/// operations on 1,024 blocks) took 19 s and 6 GB, at 64 ranks with 16 tiles
/// (259,072 on 4,096) it ran out of 22 GB (docs/compiler.md, "Limits").
constexpr int64_t kMaxVerifiedOps = int64_t(1) << 16;
constexpr int64_t kMaxVerifiedWork = int64_t(1) << 28;

/// Refuses an algorithm too large to verify, before the machine is built.
LogicalResult checkSize(AlgorithmOp algo) {
  int64_t ops = 0;
  std::set<std::pair<int64_t, int64_t>> blocks;
  algo.walk([&](InstructionOp inst) {
    ++ops;
    int64_t tb = inst.isPlaced() ? inst.getThreadBlock() : 0;
    for (int64_t g = 0; g < std::max<int64_t>(inst.getGroupSize(), 1); ++g)
      blocks.insert({inst.getExecRank(), tb + g});
  });
  int64_t width = std::max<int64_t>(blocks.size(), 1);
  if (ops <= kMaxVerifiedOps && ops * width <= kMaxVerifiedWork)
    return success();
  algo.emitError("too large to verify: ")
      << ops << " operations on " << width
      << " thread blocks, more than cclc verifies (at most " << kMaxVerifiedOps
      << " operations, and at most " << kMaxVerifiedWork
      << " operations times thread blocks); the size grows with the rank "
         "count and with cclc's --tiles and --instances: use fewer "
         "(docs/compiler.md, \"Limits\")";
  return failure();
}

/// The k-th wait matches the k-th signal (the k-th acquire the k-th release)
/// only when each end belongs to one thread block.
LogicalResult checkEnds(AlgorithmOp algo) {
  // (kind, symbol) -> first user and its block.
  std::map<std::pair<std::string, std::string>,
           std::pair<Operation *, std::pair<int64_t, int64_t>>>
      owner;
  auto claim = [&](StringRef kind, StringRef sym, InstructionOp op,
                   StringRef what) -> LogicalResult {
    std::pair<int64_t, int64_t> block{op.getExecRank(), op.getThreadBlock()};
    auto [it, inserted] =
        owner.try_emplace({kind.str(), sym.str()}, op.getOperation(), block);
    if (inserted || it->second.second == block)
      return success();
    InFlightDiagnostic d = op->emitError()
                           << what << " rank " << block.first
                           << " thread blocks " << it->second.second.second
                           << " and " << block.second << "; "
                           << (kind == "signal" || kind == "wait"
                                   ? "the k-th wait is matched with the k-th "
                                     "signal"
                                   : "the k-th acquire is matched with the "
                                     "k-th release")
                           << ", so each end must belong to one thread block";
    d.attachNote(it->second.first->getLoc()) << "the other thread block uses "
                                                "it here";
    return failure();
  };
  LogicalResult result = success();
  algo.walk([&](InstructionOp op) {
    if (failed(result))
      return;
    if (auto s = dyn_cast<SignalOp>(op.getOperation()))
      result = claim("signal", s.getChannel(), op,
                     ("channel @" + s.getChannel() + " is signalled by").str());
    else if (auto p = dyn_cast<PutOp>(op.getOperation())) {
      if (p.getWithSignal())
        result = claim("signal", p.getChannel(), op,
                       ("channel @" + p.getChannel() + " is signalled by").str());
    } else if (auto w = dyn_cast<WaitOp>(op.getOperation()))
      result = claim("wait", w.getChannel(), op,
                     ("channel @" + w.getChannel() + " is waited on by").str());
    else if (auto r = dyn_cast<ReleaseOp>(op.getOperation()))
      result = claim("release", r.getSemaphore(), op,
                     ("semaphore @" + r.getSemaphore() + " is released by").str());
    else if (auto a = dyn_cast<AcquireOp>(op.getOperation()))
      result = claim("acquire", a.getSemaphore(), op,
                     ("semaphore @" + a.getSemaphore() + " is acquired by").str());
  });
  return result;
}

/// One LL scratch slot takes the packets of one writer per call: the flag is
/// the same for the whole call, so a reader could not tell two apart.
LogicalResult checkPacketSlots(AlgorithmOp algo) {
  std::map<Loc, Operation *> writer;
  LogicalResult result = success();
  algo.walk([&](Operation *op) {
    if (failed(result) || !isa<PutPacketsOp, CopyPacketsOp, PackPacketsOp>(op))
      return;
    ChunkRefAttr dst = cast<InstructionOp>(op).getWrittenRefs().front();
    for (int64_t i = 0; i < dst.getCount(); ++i) {
      auto [it, inserted] = writer.try_emplace(locOf(dst, i), op);
      if (inserted)
        continue;
      InFlightDiagnostic d = op->emitError("two sends write packets into ")
                             << locOf(dst, i).str()
                             << " in the same call (write-write conflict)";
      d.attachNote(it->second->getLoc()) << "the other send is here";
      result = failure();
      return;
    }
  });
  return result;
}

/// Kernel level: the threads of a block split each operation differently,
/// so two operations of a block that touch the same chunk (one writing)
/// need a ccl.barrier (or a ccl.tb_barrier) between them. Except a packet
/// read of packets the block wrote into its own scratch (pack_packets,
/// copy_packets): it waits for each packet's flag, whichever thread wrote
/// it (the machine orders it by the packets' clock).
LogicalResult checkBlockBarriers(AlgorithmOp algo) {
  for (ThreadBlockOp tbOp : algo.getBody().getOps<ThreadBlockOp>()) {
    std::map<Loc, Operation *> reads, writes;
    for (Operation &op : tbOp.getBody().front()) {
      if (isa<BarrierOp, TbBarrierOp>(op)) {
        reads.clear();
        writes.clear();
        continue;
      }
      SmallVector<Loc> r, w;
      footprint(&op, r, w);
      Operation *other = nullptr;
      Loc where;
      for (const Loc &l : r)
        if (!other && writes.count(l) &&
            !(writesOwnPackets(writes[l]) && readsPackets(&op))) {
          other = writes[l];
          where = l;
        }
      for (const Loc &l : w)
        if (!other && (writes.count(l) || reads.count(l))) {
          other = writes.count(l) ? writes[l] : reads[l];
          where = l;
        }
      if (other) {
        InFlightDiagnostic d =
            op.emitError("rank ")
            << tbOp.getRankAttr().getInt() << " thread block "
            << tbOp.getTbAttr().getInt() << " touches " << where.str()
            << ", which the " << other->getName().stripDialect() << " at "
            << lineOf(other)
            << " of the same block also touches, with no ccl.barrier between "
               "them (the block's threads split the two operations "
               "differently)";
        d.attachNote(other->getLoc()) << "the earlier operation is here";
        return failure();
      }
      for (const Loc &l : r)
        reads[l] = &op;
      for (const Loc &l : w)
        writes[l] = &op;
    }
  }
  return success();
}

} // namespace

LogicalResult ccl::verify::buildProgram(AlgorithmOp algo, Program &program) {
  ProgramBuilder builder(algo);
  if (failed(builder.build()))
    return failure();
  program = std::move(builder.program());
  return success();
}

namespace {

/// Verifies `algo` as it is. When it fails on a limit (its size, thread
/// blocks per rank) rather than on its semantics, `*limit` is set.
LogicalResult verifyOneForm(AlgorithmOp algo, int64_t maxBlocks, int64_t calls,
                            bool *limit) {
  if (failed(checkSize(algo)) || failed(checkResources(algo, maxBlocks))) {
    *limit = true;
    return failure();
  }
  if (failed(checkContract(algo)) || failed(checkEnds(algo)) ||
      failed(checkPacketSlots(algo)))
    return failure();
  if (algo.getScheduled() && failed(checkBlockBarriers(algo)))
    return failure();
  ProgramBuilder builder(algo);
  if (failed(builder.build()))
    return failure();
  return runMachine(builder.program(), calls);
}

/// A copy of out-of-place `algo` (not in any block; the caller erases it)
/// whose every reference is where it lives in place (AlgorithmOp::
/// inPlaceRef): the same operations, run on aliased buffers. The contract moves
/// with it (`at`; the terms name input chunks at the start of the call,
/// wherever they live).
AlgorithmOp aliasedCopy(AlgorithmOp algo) {
  auto copy = cast<AlgorithmOp>(algo->clone());
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](ChunkRefAttr ref) -> std::optional<Attribute> {
    ChunkRefAttr moved = algo.inPlaceRef(ref);
    return moved == ref ? std::nullopt : std::optional<Attribute>(moved);
  });
  copy.walk([&](Operation *op) {
    if (auto req = dyn_cast<RequireOp>(op))
      req.setAtAttr(cast<ChunkRefAttr>(replacer.replace(req.getAt())));
    else if (auto ens = dyn_cast<EnsureOp>(op))
      ens.setAtAttr(cast<ChunkRefAttr>(replacer.replace(ens.getAt())));
    else if (op != copy.getOperation())
      replacer.replaceElementsIn(op);
  });
  copy.setInplace(true);
  copy.removeAlsoInplaceAttr();
  return copy;
}

/// Verifies `algo`; one that also serves in-place calls (`also_inplace`)
/// a second time, on its buffers aliased as in place. Errors of the second
/// say so.
LogicalResult verifyAlgorithm(AlgorithmOp algo, int64_t maxBlocks,
                              int64_t calls, bool *limit) {
  if (failed(verifyOneForm(algo, maxBlocks, calls, limit)))
    return failure();
  DictionaryAttr alias = algo.getAlsoInplaceAttr();
  if (!alias)
    return success();
  AlgorithmOp copy = aliasedCopy(algo);
  auto erase = llvm::make_scope_exit([&] { copy->erase(); });
  std::optional<Diagnostic> first;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(algo.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (!first)
        first.emplace(std::move(d));
      return success();
    });
    DeclarationIndex index(copy);
    result = verifyOneForm(copy, maxBlocks, calls, limit);
  }
  if (succeeded(result))
    return success();
  std::string buffers =
      (alias.getAs<StringAttr>("from").getValue() + " aliasing " +
       alias.getAs<StringAttr>("to").getValue())
          .str();
  if (!first) {
    emitError(algo.getLoc()) << "called in place (" << buffers
                             << "), the algorithm fails verification";
    return failure();
  }
  InFlightDiagnostic d =
      emitError(first->getLocation())
      << "called in place (" << buffers << ", as "
      << "'outofplace' with 'inplace' promises): " << first->str();
  for (Diagnostic &note : first->getNotes())
    d.attachNote(note.getLocation()) << note.str();
  return failure();
}

/// An error diagnostic with its notes, held back so that the failures of
/// one algorithm's rank counts can be reported once.
struct HeldError {
  Location loc;
  std::string message;
  std::vector<std::pair<Location, std::string>> notes;
  /// A limit of the target or of cclc (thread blocks per rank, size), not
  /// an error of the program or of the compiler.
  bool limit = false;
};

/// "2", "2 and 3", "2, 3 and 8".
std::string listOf(ArrayRef<int64_t> v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += i + 1 == v.size() ? " and " : ", ";
    s += std::to_string(v[i]);
  }
  return s;
}

struct CclVerifyPass : public ccl::impl::CclVerifyBase<CclVerifyPass> {
  using CclVerifyBase::CclVerifyBase;

  void runOnOperation() override {
    // The rank counts of an algorithm, in module order.
    std::vector<std::string> names;
    std::map<std::string, std::vector<AlgorithmOp>> variants;
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>()) {
      auto &v = variants[algo.getName().str()];
      if (v.empty())
        names.push_back(algo.getName().str());
      v.push_back(algo);
    }
    bool ok = true;
    for (const std::string &name : names)
      ok &= succeeded(verifyVariants(variants[name]));
    if (!ok)
      signalPassFailure();
  }

  /// Verifies every rank count of one algorithm and reports each failure
  /// once, with the rank counts that fail at the same operation.
  LogicalResult verifyVariants(ArrayRef<AlgorithmOp> algos) {
    MLIRContext *ctx = &getContext();
    // Failing rank counts and their first error, grouped by where it is.
    std::vector<std::pair<std::vector<int64_t>, HeldError>> groups;
    for (AlgorithmOp algo : algos) {
      ActivityScope activity(
          (getArgument() + " of " + algo.getName() + " at " +
           llvm::Twine(algo.getNranks()) + " ranks" +
           (compiled ? " (compiled form)" : ""))
              .str());
      std::optional<HeldError> held;
      {
        ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
          if (d.getSeverity() != DiagnosticSeverity::Error)
            return failure(); // not ours to hold
          if (!held) {
            held = HeldError{d.getLocation(), d.str(), {}};
            for (Diagnostic &note : d.getNotes())
              held->notes.push_back({note.getLocation(), note.str()});
          }
          return success();
        });
        DeclarationIndex index(algo);
        // Options multiply a compiled form's thread blocks and operations
        // (--instances, --tiles): its limits are the user's to meet.
        bool limit = false;
        if (succeeded(verifyAlgorithm(algo, maxBlocksPerRank, calls, &limit)))
          continue;
        if (held)
          held->limit = limit;
      }
      if (!held)
        held = HeldError{algo.getLoc(), "verification failed", {}};
      auto it = llvm::find_if(groups, [&](const auto &g) {
        return g.second.loc == held->loc;
      });
      if (it == groups.end())
        groups.push_back({{int64_t(algo.getNranks())}, *held});
      else
        it->first.push_back(algo.getNranks());
    }
    for (auto &[nranks, err] : groups) {
      InFlightDiagnostic d = emitError(err.loc);
      if (compiled && err.limit)
        d << "the compiled form of algorithm '"
          << AlgorithmOp(algos.front()).getName()
          << "' does not fit (cclc's --instances and --tiles multiply its "
             "thread blocks and operations): ";
      else if (compiled)
        d << "internal compiler error: the compiled form of algorithm '"
          << AlgorithmOp(algos.front()).getName()
          << "' fails verification although the program verified; this is a "
             "bug in cclc, not in the program (please report it): ";
      d << "with " << listOf(nranks)
        << (nranks.size() == 1 && nranks[0] == 1 ? " rank" : " ranks");
      if (nranks.size() > 1)
        d << " (the details are for " << nranks.front() << ")";
      d << ": " << err.message;
      for (auto &[loc, text] : err.notes)
        d.attachNote(loc) << text;
    }
    return success(groups.empty());
  }
};

} // namespace
