//===- VerifyHelpers.cpp - footprints, locations, call order --------------===//
//
// The pieces of the verifier that Verify.cpp, ccl-lower-chunks and the
// machine share: chunk locations and their names, what an operation reads
// and writes, which operations are chunk level, how many calls prove a
// program, and what one call's order says about later calls (CallOrder).
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachineImpl.h"

#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;

namespace ccl {
namespace verify {

std::string Loc::str() const {
  return buffer + "[" + std::to_string(rank) + "][" + std::to_string(chunk) +
         "]";
}

Loc locOf(ChunkRefAttr ref, int64_t i) {
  return {ref.getBuffer().str(), ref.getRank(), ref.getIndex() + i};
}

ChunkGrid gridOf(AlgorithmOp algo, StringRef buffer) {
  if (buffer != "input" && buffer != "output")
    return {};
  int64_t n = algo.getNranks(), mult = 1;
  switch (algo.getCollective()) {
  case CollectiveKind::AllGather:
    mult = buffer == "output" ? n : 1;
    break;
  case CollectiveKind::ReduceScatter:
    mult = buffer == "input" ? n : 1;
    break;
  case CollectiveKind::AllToAll:
    mult = n;
    break;
  default: // AllReduce, Broadcast, Reduce and custom collectives
    break;
  }
  int64_t chunks = algo.getBufferChunks(buffer);
  int64_t g = std::gcd(mult, chunks);
  return {mult, chunks, mult / g, chunks / g};
}

int64_t chunkSize(ChunkGrid g, int64_t i, int64_t count) {
  auto at = [&](int64_t k) {
    return int64_t((__int128)k * g.mult * count / g.chunks);
  };
  return at(i + 1) - at(i);
}

std::optional<int64_t> sizesDiffer(ChunkGrid a, int64_t i, ChunkGrid b,
                                   int64_t j) {
  // Grids of different ratios differ at a large enough count.
  if (a.num != b.num || a.den != b.den) {
    for (int64_t count = 1;; count *= 2)
      if (chunkSize(a, i, count) != chunkSize(b, j, count))
        return count;
  }
  // Same ratio: adding den to count adds num to every chunk, so counts
  // below den decide; chunks den apart have the same boundaries.
  if ((i - j) % a.den == 0)
    return std::nullopt;
  for (int64_t count = 1; count < a.den; ++count)
    if (chunkSize(a, i, count) != chunkSize(b, j, count))
      return count;
  return std::nullopt;
}

std::string render(const Value &v, int call) {
  if (v.empty())
    return "nothing";
  std::string s;
  for (const auto &[key, n] : v) {
    if (!s.empty())
      s += " + ";
    if (n != 1)
      s += std::to_string(n) + " x ";
    s += "input[" + std::to_string(key.rank) + "][" +
         std::to_string(key.chunk) + "]";
    if (key.call != call)
      s += " of call " + std::to_string(key.call + 1);
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
void detail::addOnMembers(Operation *op, FlatSymbolRefAttr sym,
                          ChunkRefAttr ref, SmallVectorImpl<Loc> &out) {
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
            CopyPacketsOp, PackPacketsOp>([&](auto o) {
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
        detail::addOnMembers(op, o.getChannelAttr(), o.getSrc(), reads);
        if (o.getBroadcast())
          detail::addOnMembers(op, o.getChannelAttr(), o.getDst(), writes);
        else
          addRange(o.getDst(), writes);
      })
      .Case<MultimemBroadcastOp>([&](MultimemBroadcastOp o) {
        addRange(o.getSrc(), reads);
        detail::addOnMembers(op, o.getChannelAttr(), o.getDst(), writes);
      })
      .Default([](Operation *) {});
  // Fused forms: the base and the extra sources of a reduce, the forwarded
  // destinations.
  if (auto red = dyn_cast<ReduceOp>(op); red && red.getBaseAttr())
    addRange(red.getBaseAttr(), reads);
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

int callsToModel(const Program &program) {
  AlgorithmOp algo = program.algo;
  int rotation = 1;
  if (algo.isLL() && !algo.getBody().getOps<ScratchOp>().empty())
    rotation = 2; // LL scratch: two copies, by call parity
  // A credited channel's wait matches a signal `credit` signals back, which
  // is ceil(credit / signals per call) calls back.
  std::map<std::string, int64_t> signals;
  for (const BlockQueue &q : program.blocks)
    for (const Step &s : q.steps)
      if (s.barrier < 0)
        for (StringRef c : ccl::signalledChannels(s.op))
          ++signals[c.str()];
  for (auto ch : algo.getBody().getOps<ChannelOp>()) {
    int64_t credit = ch.getCreditOrZero(), n = signals[ch.getSymName().str()];
    if (credit > 0 && n > 0)
      rotation = std::max<int64_t>(rotation, (credit + n - 1) / n);
  }
  return rotation + 1;
}

bool CallOrder::ordered(Operation *first, Operation *second,
                        int distance) const {
  auto a = events.find(first), b = events.find(second);
  if (a == events.end() || b == events.end())
    return false;
  // Ranks whose call end `first` happens before ...
  llvm::BitVector reach(nranks);
  for (int64_t c = 0; c < nranks; ++c) {
    const std::vector<uint32_t> &end = ends[c];
    if (a->second.thread < end.size() && end[a->second.thread] >= a->second.clock)
      reach.set(c);
  }
  // ... then through the whole calls in between: rank c's next call starts
  // after its end, and some rank d's end of that call may follow that start.
  for (int k = 1; k < distance; ++k) {
    llvm::BitVector next(nranks);
    for (int64_t d = 0; d < nranks; ++d)
      for (int c : reach.set_bits())
        if (startThread[c] < ends[d].size() && ends[d][startThread[c]] >= 1) {
          next.set(d);
          break;
        }
    reach = next;
  }
  return reach.anyCommon(b->second.starts);
}


} // namespace verify
} // namespace ccl
