//===- Legality.cpp - what ccl-lower-to-llvm can lower --------------------===//

#include "compiler/Conversion/CclToLLVM/Legality.h"
#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/Lowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <map>

using namespace mlir;
using namespace ccl;

void Reporter::emit(
    Operation *op, const std::string &msg,
    const std::optional<std::pair<Location, std::string>> &note) {
  clean = false;
  if (!seen.insert({op->getLoc().getAsOpaquePointer(), msg}).second)
    return;
  auto diag = op->emitError(msg);
  if (note)
    diag.attachNote(note->first) << note->second;
}

CclToLLVMConversionTarget::CclToLLVMConversionTarget(MLIRContext &ctx)
    : ConversionTarget(ctx) {
  addLegalDialect<LLVM::LLVMDialect>();
  addIllegalDialect<CclDialect>();
}

namespace {

/// Channel an operation uses and which end of it (true: destination).
struct ChannelUse {
  StringRef channel;
  bool dstEnd;
};

SmallVector<ChannelUse> channelUses(Operation *op) {
  SmallVector<ChannelUse> uses;
  if (auto o = dyn_cast<PutOp>(op))
    uses.push_back({o.getChannel(), false});
  else if (auto o = dyn_cast<GetOp>(op))
    uses.push_back({o.getChannel(), false});
  else if (auto o = dyn_cast<SignalOp>(op))
    uses.push_back({o.getChannel(), false});
  else if (auto o = dyn_cast<FlushOp>(op))
    uses.push_back({o.getChannel(), false});
  else if (auto o = dyn_cast<PutPacketsOp>(op))
    uses.push_back({o.getChannel(), false});
  else if (auto o = dyn_cast<WaitOp>(op))
    uses.push_back({o.getChannel(), true});
  else if (auto o = dyn_cast<ReadReduceOp>(op))
    for (Attribute a : o.getChannels())
      uses.push_back({cast<FlatSymbolRefAttr>(a).getValue(), false});
  // Fused forwards send over their channels too.
  if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_channels"))
    for (Attribute a : fwd)
      uses.push_back({cast<FlatSymbolRefAttr>(a).getValue(), false});
  return uses;
}

} // namespace

void ccl::checkLowerable(AlgorithmOp algo, Reporter &rep) {
  auto fail = [&](Operation *op) -> Reporter::Msg { return rep.fail(op); };
  DenseMap<StringAttr, ChannelOp> channels;
  for (auto ch : algo.getBody().getOps<ChannelOp>())
    channels[ch.getSymNameAttr()] = ch;
  // First user (thread block, op) of each channel end.
  std::map<std::pair<std::string, bool>, std::pair<int64_t, Operation *>> owner;
  bool ll = algo.isLL();
  SmallVector<std::pair<Operation *, int64_t>> users; // lowerable ops, block

  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    for (Operation &raw : tb.getBody().front()) {
      Operation *op = &raw;
      if (auto bar = dyn_cast<TbBarrierOp>(op)) {
        if (!llvm::is_contained(bar.getTbs(), tb.getTb()))
          fail(op) << "multi-block barrier over thread blocks "
                   << SyncLayout::barrierKey(bar.getRankAttr().getInt(),
                                             bar.getTbs())
                   << " is in thread block " << tb.getTb()
                   << ", which does not take part in it";
        continue;
      }
      if (isa<MultimemReduceOp, MultimemBroadcastOp>(op)) {
        fail(op) << "multimem operations (switch channels, NVLink SHARP) are "
                    "not lowered: they are only allowed behind an explicit "
                    "opt-in and code generation for them does not exist";
        continue;
      }
      auto inst = dyn_cast<InstructionOp>(op);
      if (!inst)
        continue;
      if (inst.getGroupSize() != 1) {
        fail(op) << "thread-block groups are not lowered yet; place the "
                    "operation on one thread block";
        continue;
      }
      // Port channels: the proxy executes put (with signal and flush),
      // signal and flush; the destination waits as on a memory channel.
      // What a proxy cannot do is refused here (flush over a memory channel
      // is an op verifier error).
      bool bad = false;
      auto kindOf = [&](StringRef name) -> std::optional<ChannelKind> {
        ChannelOp ch =
            channels.lookup(StringAttr::get(op->getContext(), name));
        if (!ch)
          return std::nullopt;
        return ch.getKind();
      };
      if (isa<GetOp, PutPacketsOp, ReadReduceOp>(op)) {
        for (ChannelUse use : channelUses(op))
          if (kindOf(use.channel) == ChannelKind::Port) {
            fail(op) << op->getName().stripDialect()
                     << " over a port channel is not supported (@"
                     << use.channel
                     << " is a port channel): a proxy only puts and signals; "
                        "use a memory channel";
            bad = true;
            break;
          }
        if (bad)
          continue;
      }
      if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_channels")) {
        for (Attribute a : fwd) {
          StringRef name = cast<FlatSymbolRefAttr>(a).getValue();
          if (kindOf(name) == ChannelKind::Port) {
            fail(op) << "a fused forward over port channel @" << name
                     << " is not supported; forwards store from the "
                        "threads, over memory channels";
            bad = true;
            break;
          }
        }
        if (bad)
          continue;
      }
      if (auto copy = dyn_cast<CopyOp>(op); copy && copy.isCrossRank()) {
        fail(op) << "chunk-level cross-rank copy needs the chunk-lowering "
                    "pass (" << copy.getSrc().str() << " to "
                 << copy.getDst().str() << ")";
        continue;
      }
      if (auto red = dyn_cast<ReduceOp>(op); red && red.isCrossRank()) {
        fail(op) << "chunk-level cross-rank reduce needs the chunk-lowering "
                    "pass (" << red.getSrc().str() << " into "
                 << red.getDst().str() << ")";
        continue;
      }
      // Peers reach only scratch buffers (mapped at setup).
      SmallVector<ChunkRefAttr> remote;
      bad = false;
      if (auto put = dyn_cast<PutOp>(op))
        remote.push_back(put.getDst());
      else if (auto get = dyn_cast<GetOp>(op))
        remote.push_back(get.getSrc());
      else if (auto rr = dyn_cast<ReadReduceOp>(op))
        for (Attribute a : rr.getSrcs())
          remote.push_back(cast<ChunkRefAttr>(a));
      if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_dsts"))
        for (Attribute a : fwd)
          remote.push_back(cast<ChunkRefAttr>(a));
      for (ChunkRefAttr ref : remote)
        if (!ref.isScratch()) {
          fail(op) << "reaching a peer's input/output is not supported; "
                      "stage through a scratch buffer (" << ref.str() << ")";
          bad = true;
          break;
        }
      if (bad)
        continue;
      if (ll && isa<GetOp, ReadReduceOp>(op)) {
        bool touchesScratch = false;
        forEachChunkRef(op, [&](ChunkRefAttr r) { touchesScratch |= r.isScratch(); });
        if (touchesScratch) {
          fail(op) << "moves plain data out of a packet buffer in an LL "
                      "algorithm; use the packet operations";
          continue;
        }
      }
      users.push_back({op, static_cast<int64_t>(tb.getTb())});
    }
  }
  // Each channel end belongs to one thread block (semantics rule 5).
  // Checked in program order (op ids), so the error points at the later
  // operation.
  llvm::stable_sort(users, [](const auto &a, const auto &b) {
    return opId(a.first) < opId(b.first);
  });
  for (auto [op, tbIndex] : users) {
    for (ChannelUse use : channelUses(op)) {
      auto key = std::make_pair(use.channel.str(), use.dstEnd);
      auto [it, inserted] = owner.try_emplace(key, tbIndex, op);
      if (inserted || it->second.first == tbIndex)
        continue;
      ChannelOp ch = channels.lookup(StringAttr::get(op->getContext(),
                                                     use.channel));
      Reporter::Msg diag = fail(op);
      diag << "channel @" << use.channel << ": its "
           << (use.dstEnd ? "destination" : "source") << " end (rank "
           << (ch ? (use.dstEnd ? ch.getDst() : ch.getSrc()) : -1)
           << ") is used by thread blocks " << it->second.first << " and "
           << tbIndex
           << "; each channel end belongs to one thread block "
              "(docs/semantics.md, rule 5): use another channel "
              "(memory(a -> b, id = N)) for the second block";
      diag.attachNote(it->second.second->getLoc(),
                      "thread block " + std::to_string(it->second.first) +
                          " uses it here");
    }
  }
}

