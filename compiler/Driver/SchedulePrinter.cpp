//===- SchedulePrinter.cpp - readable schedules (cclc --emit=sched) ------===//

#include "compiler/Driver/SchedulePrinter.h"

#include "compiler/Conversion/CclToLLVM.h"

#include "ccl/Dialect/CclDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace ccl;

namespace {

std::string chunk(ChunkRefAttr r) {
  std::string s = llvm::formatv("{0}[{1}][{2}", r.getBuffer(), r.getRank(),
                                r.getIndex())
                      .str();
  if (r.getCount() != 1)
    s += ".." + std::to_string(r.getIndex() + r.getCount());
  return s + "]";
}

std::string where(Location loc) {
  auto l = loc->findInstanceOf<FileLineColLoc>();
  if (!l)
    return "";
  return llvm::formatv("{0}:{1}:{2}", llvm::sys::path::filename(l.getFilename()),
                       l.getLine(), l.getColumn())
      .str();
}

/// One operation: "kind  channel  operands".
std::string describe(Operation *op) {
  std::string kind = op->getName().stripDialect().str();
  std::string text;
  auto sym = [&](StringRef name) -> std::string {
    auto s = op->getAttrOfType<FlatSymbolRefAttr>(name);
    return s ? s.getValue().str() + " " : "";
  };
  if (auto bar = dyn_cast<TbBarrierOp>(op)) {
    std::string tbs;
    for (int64_t t : bar.getTbs())
      tbs += (tbs.empty() ? "" : ",") + std::to_string(t);
    return llvm::formatv("{0,-15} blocks {1}", "tb_barrier", tbs).str();
  }
  if (isa<BarrierOp>(op))
    return "barrier";
  auto inst = cast<InstructionOp>(op);
  text = sym("channel") + sym("semaphore");
  auto written = inst.getWrittenRefs();
  auto read = inst.getReadRefs();
  if (auto mb = dyn_cast<MultimemBroadcastOp>(op)) {
    text += chunk(mb.getDst()) + " on every member <- " + chunk(mb.getSrc());
  } else if (auto mr = dyn_cast<MultimemReduceOp>(op)) {
    text += chunk(mr.getDst()) + " <- reduce of " + chunk(mr.getSrc()) +
            " on every member";
  } else if (!written.empty()) {
    text += chunk(written.front()) + (inst.accumulates() ? " += " : " <- ");
    SmallVector<std::string> srcs;
    for (ChunkRefAttr r : read)
      srcs.push_back(chunk(r));
    text += llvm::join(srcs, " + ");
    if (auto rr = dyn_cast<ReadReduceOp>(op)) {
      SmallVector<std::string> chans;
      for (Attribute a : rr.getChannels())
        chans.push_back(cast<FlatSymbolRefAttr>(a).getValue().str());
      text += " via " + llvm::join(chans, ", ");
    }
  }
  if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_dsts")) {
    auto chans = op->getAttrOfType<ArrayAttr>("fwd_channels");
    for (auto [d, c] : llvm::zip(fwd, chans))
      text += ", then " + chunk(cast<ChunkRefAttr>(d)) + " via " +
              cast<FlatSymbolRefAttr>(c).getValue().str();
    if (op->hasAttr("fwd_signal"))
      text += ", signal";
  }
  if (auto mr = dyn_cast<MultimemReduceOp>(op); mr && mr.getBroadcast())
    text += ", stored on every member";
  if (auto put = dyn_cast<PutOp>(op)) {
    if (put.getWithSignal())
      text += ", signal";
    if (put.getWithFlush())
      text += ", flush";
  }
  if (op->hasAttr("relaxed"))
    text += "(relaxed)";
  if (auto g = op->getAttrOfType<IntegerAttr>("group"))
    text += llvm::formatv(" [group of {0} blocks]", g.getInt()).str();
  return llvm::formatv("{0,-15} {1}", kind, text).str();
}

} // namespace

void ccl::printSchedule(ModuleOp module, llvm::raw_ostream &os,
                        bool perRankKernels) {
  for (AlgorithmOp algo : module.getOps<AlgorithmOp>()) {
    os << "algorithm " << algo.getSymName() << ": " << algo.getCollectiveName()
       << (algo.getInplace() ? " (in place)" : "") << ", "
       << algo.getNranks() << " ranks, " << algo.getChunks() << " chunks, "
       << stringifyProtocol(algo.getProtocol());
    if (auto inst = algo.getInstancesAttr())
      os << ", " << inst.getInt() << " instances";
    os << "\n";
    for (auto s : algo.getBody().getOps<ScratchOp>())
      os << "  scratch " << s.getSymName() << ": " << s.getSlots()
         << " slots\n";
    for (auto c : algo.getBody().getOps<ChannelOp>()) {
      os << "  channel " << c.getSymName() << ": "
         << stringifyChannelKind(c.getKind()) << " "
         << c.getSrc() << " -> " << c.getDst();
      if (c.getCreditOrZero())
        os << ", credit " << c.getCreditOrZero();
      os << "\n";
    }
    for (auto c : algo.getBody().getOps<SwitchChannelOp>()) {
      os << "  switch channel " << c.getSymName() << ": ranks";
      for (int64_t r : c.getRanks())
        os << " " << r;
      os << "\n";
    }
    for (auto s : algo.getBody().getOps<SemaphoreOp>())
      os << "  semaphore " << s.getSymName() << " on rank "
         << s.getRankAttr().getInt() << "\n";
    if (!algo.getScheduled()) {
      os << "  (not scheduled)\n";
      continue;
    }
    BlockPrograms programs = BlockPrograms::of(algo);
    os << "  block programs: " << programs.count << " for "
       << llvm::count_if(programs.programOf, [](int32_t p) { return p >= 0; })
       << " thread blocks, "
       << (perRankKernels ? "one kernel per rank on GPUs (--kernels=per-rank)"
           : programs.rankParametric ? "one kernel for all ranks"
                                     : "one kernel per rank on GPUs")
       << "\n";
    int64_t lastRank = -1;
    for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
      int64_t rank = tb.getRankAttr().getInt();
      if (rank != lastRank) {
        os << "rank " << rank << "\n";
        lastRank = rank;
      }
      os << "  thread block " << tb.getTbAttr().getInt() << " (program "
         << programs.programOf[rank * programs.nblocks + tb.getTb()] << ")\n";
      for (Operation &op : tb.getBody().front()) {
        std::optional<int64_t> id = getOpId(&op);
        std::string idText = id ? "#" + std::to_string(*id) : "";
        std::string line = describe(&op);
        os << llvm::formatv("    {0,5}  {1,-70} {2}", idText, line,
                            where(op.getLoc()))
                  .str()
                  .substr(0)
           << "\n";
      }
    }
  }
}
