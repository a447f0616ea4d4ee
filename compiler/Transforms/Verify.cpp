//===- Verify.cpp - prove algorithms against their collective -------------===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "llvm/ADT/STLExtras.h"

#include <deque>
#include <map>
#include <set>
#include <tuple>

namespace ccl {
#define GEN_PASS_DEF_CCLVERIFY
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

/// One chunk of one buffer on one rank.
using Location3 = std::tuple<std::string, int64_t, int64_t>;
/// How often each (rank, chunk) of the input was folded into a value.
using Contributions = std::map<std::pair<int64_t, int64_t>, int64_t>;

struct Slot {
  bool defined = false;
  Contributions value;
  Operation *lastWriter = nullptr;
};

std::string render(const Location3 &l) {
  return std::get<0>(l) + "[" + std::to_string(std::get<1>(l)) + "][" +
         std::to_string(std::get<2>(l)) + "]";
}

std::string render(const Contributions &c) {
  if (c.empty())
    return "nothing";
  std::string s;
  for (const auto &[key, n] : c) {
    if (!s.empty())
      s += " + ";
    if (n != 1)
      s += std::to_string(n) + " x ";
    s += "input[" + std::to_string(key.first) + "][" +
         std::to_string(key.second) + "]";
  }
  return s;
}

ChunkRefAttr readRef(InstructionOp op) { return op.getReadRefs().front(); }
ChunkRefAttr writtenRef(InstructionOp op) { return op.getWrittenRefs().front(); }

/// Symbolic machine for one algorithm.
class Machine {
public:
  explicit Machine(AlgorithmOp algo) : algo(algo) {}
  LogicalResult run();

private:
  Location3 at(ChunkRefAttr ref, int64_t i) {
    return {ref.getBuffer().str(), ref.getRank(), ref.getIndex() + i};
  }
  LogicalResult checkRaces(ArrayRef<InstructionOp> ops);
  LogicalResult execute(InstructionOp op);
  bool ready(InstructionOp op);
  LogicalResult checkPostcondition();

  AlgorithmOp algo;
  std::map<Location3, Slot> slots;
  /// Scratch slots that received packets in this call, and who sent them.
  std::map<Location3, Operation *> sent;
};

LogicalResult Machine::checkRaces(ArrayRef<InstructionOp> ops) {
  struct Access {
    InstructionOp op;
    bool write;
  };
  std::map<Location3, std::vector<Access>> accesses;
  for (InstructionOp op : ops) {
    for (int64_t i = 0; i < readRef(op).getCount(); ++i)
      accesses[at(readRef(op), i)].push_back({op, false});
    for (int64_t i = 0; i < writtenRef(op).getCount(); ++i)
      accesses[at(writtenRef(op), i)].push_back({op, true});
  }
  for (const auto &[loc, list] : accesses) {
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t j = i + 1; j < list.size(); ++j) {
        const Access &a = list[i], &b = list[j];
        if (!a.write && !b.write)
          continue;
        InstructionOp x = a.op, y = b.op;
        if (x.getExecRank() == y.getExecRank() &&
            x.getThreadBlock() == y.getThreadBlock())
          continue; // program order
        // A packet send and the packet read of the same slot are ordered by
        // the packets' flags.
        auto isPut = [](InstructionOp o) { return isa<PutPacketsOp>(o); };
        auto isRead = [](InstructionOp o) { return isa<ReducePacketsOp>(o); };
        if ((isPut(x) && isRead(y) && a.write && !b.write) ||
            (isPut(y) && isRead(x) && b.write && !a.write))
          continue;
        if (a.write && b.write && isPut(x) && isPut(y)) {
          InFlightDiagnostic d =
              y->emitError("two sends write packets into ")
              << render(loc) << " in the same call (write-write conflict)";
          d.attachNote(x->getLoc()) << "the other send is here";
          return failure();
        }
        InFlightDiagnostic d =
            y->emitError("data race on ")
            << render(loc) << ": rank " << y.getExecRank() << " thread block "
            << y.getThreadBlock() << (b.write ? " writes" : " reads")
            << " it while rank " << x.getExecRank() << " thread block "
            << x.getThreadBlock() << (a.write ? " writes" : " reads")
            << " it, with nothing ordering the two";
        d.attachNote(x->getLoc()) << "the other access is here";
        return failure();
      }
  }
  return success();
}

bool Machine::ready(InstructionOp op) {
  if (!op.waits())
    return true;
  ChunkRefAttr src = readRef(op);
  for (int64_t i = 0; i < src.getCount(); ++i)
    if (!sent.count(at(src, i)))
      return false;
  return true;
}

LogicalResult Machine::execute(InstructionOp op) {
  ChunkRefAttr src = readRef(op), dst = writtenRef(op);
  for (int64_t i = 0; i < src.getCount(); ++i) {
    Location3 from = at(src, i), to = at(dst, i);
    Slot &in = slots[from];
    if (!in.defined)
      return op->emitError("reads ")
             << render(from) << " before anything wrote it";
    Contributions value = in.value;
    Slot &out = slots[to];
    if (op.accumulates()) {
      if (!out.defined)
        return op->emitError("reduces into ")
               << render(to) << " before anything wrote it";
      for (const auto &[k, n] : value)
        out.value[k] += n;
    } else {
      out.value = std::move(value);
      out.defined = true;
    }
    out.lastWriter = op;
    if (isa<PutPacketsOp>(op))
      sent[to] = op;
  }
  return success();
}

LogicalResult Machine::checkPostcondition() {
  StringRef coll = algo.getCollective();
  if (coll != "AllReduce")
    return algo.emitError("verification of ")
           << coll << " is not implemented yet; compile with --no-verify";
  const char *result = algo.getInplace() ? "input" : "output";
  int64_t n = algo.getNranks();
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < algo.getChunks(); ++c) {
      Location3 loc{result, r, c};
      Contributions want;
      for (int64_t p = 0; p < n; ++p)
        want[{p, c}] = 1;
      const Slot &s = slots[loc];
      if (s.defined && s.value == want)
        continue;
      std::string missing, extra;
      for (const auto &[k, cnt] : want) {
        auto it = s.value.find(k);
        if (it == s.value.end())
          missing += (missing.empty() ? "" : ", ") + render(Contributions{{k, 1}});
      }
      for (const auto &[k, cnt] : s.value) {
        auto it = want.find(k);
        int64_t over = cnt - (it == want.end() ? 0 : 1);
        if (over > 0)
          extra += (extra.empty() ? "" : ", ") + render(Contributions{{k, over}});
      }
      InFlightDiagnostic d = algo.emitError()
                             << "AllReduce postcondition fails with " << n
                             << " ranks: " << render(loc) << " (rank " << r
                             << ", chunk " << c << ") ";
      if (!s.defined) {
        d << "is never written, but must hold the sum of chunk " << c
          << " of every rank's input";
        return failure();
      }
      d << "holds " << render(s.value) << " but must hold the sum of chunk "
        << c << " of every rank's input";
      if (!missing.empty())
        d << " (missing: " << missing << ")";
      if (!extra.empty())
        d << " (counted more than once: " << extra << ")";
      if (s.lastWriter)
        d.attachNote(s.lastWriter->getLoc()) << "last written here";
      return failure();
    }
  return success();
}

LogicalResult Machine::run() {
  SmallVector<InstructionOp> ops;
  std::map<std::pair<int64_t, int64_t>, std::deque<InstructionOp>> queues;
  for (Operation &op : algo.getBody().front()) {
    if (!isa<PutPacketsOp, CopyOp, ReducePacketsOp>(op) &&
        (isa<InstructionOp>(op) || isa<TbBarrierOp>(op)))
      return op.emitError("verification of '")
             << op.getName() << "' is not implemented yet";
    if (isa<CopyOp>(op) && cast<CopyOp>(op).isCrossRank())
      return op.emitError("verification of cross-rank copy is not implemented yet");
    if (auto inst = dyn_cast<InstructionOp>(op)) {
      ops.push_back(inst);
      queues[{inst.getExecRank(), inst.getThreadBlock()}].push_back(inst);
    }
  }
  if (failed(checkRaces(ops)))
    return failure();

  // Precondition: every rank's input chunk holds its own contribution.
  for (int64_t r = 0; r < algo.getNranks(); ++r)
    for (int64_t c = 0; c < algo.getChunks(); ++c) {
      Slot &s = slots[{"input", r, c}];
      s.defined = true;
      s.value[{r, c}] = 1;
    }

  // Run every thread block as far as it can go until all are done or all
  // that remain are stuck waiting.
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto &[key, queue] : queues)
      while (!queue.empty() && ready(queue.front())) {
        if (failed(execute(queue.front())))
          return failure();
        queue.pop_front();
        progress = true;
      }
  }
  for (auto &[key, queue] : queues) {
    if (queue.empty())
      continue;
    InstructionOp stuck = queue.front();
    ChunkRefAttr src = readRef(stuck);
    Location3 missing = at(src, 0);
    for (int64_t i = 0; i < src.getCount(); ++i)
      if (!sent.count(at(src, i))) {
        missing = at(src, i);
        break;
      }
    bool anySender = llvm::any_of(ops, [&](InstructionOp o) {
      if (!isa<PutPacketsOp>(o))
        return false;
      for (int64_t i = 0; i < writtenRef(o).getCount(); ++i)
        if (at(writtenRef(o), i) == missing)
          return true;
      return false;
    });
    InFlightDiagnostic d = stuck->emitError()
                           << "rank " << key.first << " thread block "
                           << key.second << " would wait forever for packets in "
                           << render(missing) << ": ";
    if (!anySender) {
      d << "no operation sends them";
      return failure();
    }
    d << "the send is itself behind a wait that never completes (cyclic wait)";
    for (auto &[k2, q2] : queues)
      if (!q2.empty() && q2.front() != stuck)
        d.attachNote(q2.front()->getLoc())
            << "rank " << k2.first << " thread block " << k2.second
            << " is stuck here";
    return failure();
  }
  return checkPostcondition();
}

struct CclVerifyPass : public ccl::impl::CclVerifyBase<CclVerifyPass> {
  void runOnOperation() override {
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>()) {
      if (algo.getScheduled())
        continue; // kernel-level re-verification is not implemented yet
      if (failed(Machine(algo).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
