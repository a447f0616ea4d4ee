//===- CclOps.cpp - ccl operations and verifiers ---------------------------===//

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace ccl;

#include "ccl/Dialect/CclInterfaces.cpp.inc"

AlgorithmOp ccl::getEnclosingAlgorithm(Operation *op) {
  return op ? op->getParentOfType<AlgorithmOp>() : AlgorithmOp();
}

bool ccl::readsPackets(Operation *op) {
  return isa<ReducePacketsOp, UnpackPacketsOp, CopyPacketsOp>(op);
}

bool ccl::writesOwnPackets(Operation *op) {
  return isa<PackPacketsOp, CopyPacketsOp>(op);
}

void ccl::dropFusedSync(Operation *op) {
  for (StringRef name : {"with_signal", "with_flush", "fwd_signal"})
    op->removeAttr(name);
}

SmallVector<StringRef> ccl::signalledChannels(Operation *op) {
  llvm::SetVector<StringRef> chans;
  if (auto sig = dyn_cast<SignalOp>(op))
    chans.insert(sig.getChannel());
  bool withSignal = op->hasAttr("fwd_signal");
  if (auto put = dyn_cast<PutOp>(op); put && put.getWithSignal()) {
    chans.insert(put.getChannel());
    withSignal = true;
  }
  if (isa<PutPacketsOp, ReducePacketsOp>(op))
    withSignal = false;
  if (auto fwd = op->getAttrOfType<ArrayAttr>("fwd_channels"); fwd && withSignal)
    for (Attribute a : fwd)
      chans.insert(cast<FlatSymbolRefAttr>(a).getValue());
  return chans.takeVector();
}

//===----------------------------------------------------------------------===//
// AlgorithmOp
//===----------------------------------------------------------------------===//

int64_t AlgorithmOp::getBufferChunks(StringRef buffer) {
  if (buffer == "input")
    return getInputChunks() ? int64_t(*getInputChunks()) : int64_t(getChunks());
  if (buffer == "output")
    return getOutputChunks() ? int64_t(*getOutputChunks()) : int64_t(getChunks());
  if (auto scratch = dyn_cast_or_null<ScratchOp>(lookupDeclaration(buffer)))
    return scratch.getSlots();
  return -1;
}

ChunkRefAttr AlgorithmOp::inPlaceRef(ChunkRefAttr ref) {
  DictionaryAttr alias = getAlsoInplaceAttr();
  if (!alias)
    return ref;
  auto from = alias.getAs<StringAttr>("from");
  auto to = alias.getAs<StringAttr>("to");
  auto offsets = alias.getAs<DenseI64ArrayAttr>("offsets");
  if (!from || !to || !offsets || ref.getBuffer() != from.getValue() ||
      ref.getRank() < 0 || ref.getRank() >= (int64_t)offsets.size())
    return ref;
  return ChunkRefAttr::get(getContext(), to.getValue(), ref.getRank(),
                           ref.getIndex() + offsets[ref.getRank()],
                           ref.getCount());
}

/// `also_inplace`: {from, to: "input" / "output", one each; offsets: one
/// chunk offset per rank, within `to`}.
static LogicalResult verifyAlsoInplace(AlgorithmOp op, DictionaryAttr d) {
  auto from = d.getAs<StringAttr>("from");
  auto to = d.getAs<StringAttr>("to");
  auto offsets = d.getAs<DenseI64ArrayAttr>("offsets");
  if (!from || !to || !offsets || d.size() != 3)
    return op.emitOpError("also_inplace needs exactly 'from' and 'to' "
                          "(strings) and 'offsets' (array<i64>)");
  auto isUser = [](StringAttr s) {
    return s.getValue() == "input" || s.getValue() == "output";
  };
  if (!isUser(from) || !isUser(to) || from == to)
    return op.emitOpError("also_inplace aliases 'input' and 'output', not '")
           << from.getValue() << "' and '" << to.getValue() << "'";
  if (op.getInplace())
    return op.emitOpError("is the in-place form already; also_inplace "
                          "belongs on an out-of-place algorithm");
  if ((int64_t)offsets.size() != op.getNranks())
    return op.emitOpError("also_inplace has ")
           << offsets.size() << " offsets for " << op.getNranks() << " ranks";
  int64_t fromChunks = op.getBufferChunks(from.getValue());
  int64_t toChunks = op.getBufferChunks(to.getValue());
  for (auto [r, off] : llvm::enumerate(offsets.asArrayRef()))
    if (off < 0 || off + fromChunks > toChunks)
      return op.emitOpError("also_inplace puts ")
             << from.getValue() << " of rank " << r << " at chunks " << off
             << ".." << off + fromChunks << " of " << to.getValue()
             << ", which has " << toChunks << " chunks";
  return success();
}

LogicalResult AlgorithmOp::verify() {
  if (DictionaryAttr d = getAlsoInplaceAttr())
    if (failed(verifyAlsoInplace(*this, d)))
      return failure();
  // The operations are verified next (before verifyRegions); their channel
  // and semaphore checks look declarations up.
  DeclarationIndex::beginVerification(*this);
  bool custom = getCollective() == CollectiveKind::Custom;
  if (custom && getCollectiveName().empty())
    return emitOpError("needs the name of the collective it implements");
  if (!custom && getCustomCollective())
    return emitOpError("implements the built-in ")
           << stringifyCollectiveKind(getCollective())
           << ", so it has no custom_collective";
  return success();
}

LogicalResult AlgorithmOp::verifyRegions() {
  // Its operations are verified.
  DeclarationIndex::endVerification();
  bool sawThreadBlock = false, sawInstruction = false, sawOther = false;
  for (Operation &op : getBody().front()) {
    if (isDeclarationOp(op)) {
      if (sawOther)
        return op.emitOpError("must come before the algorithm's operations "
                              "and contract (declarations first)");
      continue;
    }
    sawOther = true;
    if (isa<ThreadBlockOp>(op))
      sawThreadBlock = true;
    else if (isa<InstructionOp>(op))
      sawInstruction = true;
    else if (isa<TbBarrierOp>(op))
      sawInstruction = true;
    else if (!isa<ScratchOp, ChannelOp, SwitchChannelOp, SemaphoreOp,
                  RequireOp, EnsureOp>(op))
      return op.emitOpError("is not allowed directly inside 'ccl.algorithm'");
  }
  if (getScheduled() && sawInstruction)
    return emitOpError("is scheduled, so its operations must be inside "
                       "'ccl.thread_block' regions");
  if (!getScheduled() && sawThreadBlock)
    return emitOpError("holds 'ccl.thread_block' regions but is not marked "
                       "'scheduled'");
  return success();
}

//===----------------------------------------------------------------------===//
// ChannelOp, ThreadBlockOp
//===----------------------------------------------------------------------===//

/// A channel's kind as the bare keyword (`memory`, `port`).
static ParseResult parseChannelKind(OpAsmParser &parser,
                                    ChannelKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  if (word == "switch")
    return parser.emitError(loc, "a switch channel connects a rank set; "
                                 "declare it with 'ccl.switch_channel'");
  std::optional<ChannelKind> k = symbolizeChannelKind(word);
  if (!k)
    return parser.emitError(loc, "channel kind must be memory or port, not \"")
           << word << "\"";
  kind = ChannelKindAttr::get(parser.getContext(), *k);
  return success();
}

static void printChannelKind(OpAsmPrinter &printer, ChannelOp,
                             ChannelKindAttr kind) {
  printer << stringifyChannelKind(kind.getValue());
}

LogicalResult ChannelOp::verify() {
  int64_t n = getEnclosingAlgorithm(*this).getNranks();
  for (int64_t r : {getSrc(), getDst()})
    if (r < 0 || r >= n)
      return emitOpError("rank ") << r << " does not exist (nranks = " << n
                                  << ")";
  if (getSrc() == getDst())
    return emitOpError("connects rank ") << getSrc() << " to itself";
  return success();
}

static LogicalResult verifyRank(Operation *op, int64_t r) {
  int64_t n = getEnclosingAlgorithm(op).getNranks();
  if (r < 0 || r >= n)
    return op->emitOpError("rank ") << r << " does not exist (nranks = " << n
                                    << ")";
  return success();
}

LogicalResult SwitchChannelOp::verify() {
  ArrayRef<int64_t> ranks = getRanks();
  if (ranks.size() < 2)
    return emitOpError("needs at least two ranks");
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (failed(verifyRank(*this, ranks[i])))
      return failure();
    if (i && ranks[i] <= ranks[i - 1])
      return emitOpError("ranks must be distinct and ascending");
  }
  return success();
}

LogicalResult SemaphoreOp::verify() {
  return verifyRank(*this, getRankAttr().getInt());
}

LogicalResult TbBarrierOp::verify() {
  if (!getEnclosingAlgorithm(*this))
    return emitOpError("must be inside a 'ccl.algorithm'");
  if (failed(verifyRank(*this, getRankAttr().getInt())))
    return failure();
  ArrayRef<int64_t> tbs = getTbs();
  if (tbs.empty())
    return emitOpError("needs at least one thread block");
  for (size_t i = 0; i < tbs.size(); ++i) {
    if (tbs[i] < 0)
      return emitOpError("thread block must be non-negative, not ") << tbs[i];
    if (i && tbs[i] <= tbs[i - 1])
      return emitOpError("thread blocks must be distinct and ascending");
  }
  return success();
}

LogicalResult ThreadBlockOp::verify() {
  int64_t n = getEnclosingAlgorithm(*this).getNranks();
  // Read the attributes signed: the generated getters return uint64_t.
  int64_t rank = getRankAttr().getInt(), tb = getTbAttr().getInt();
  if (rank < 0 || rank >= n)
    return emitOpError("rank ") << rank << " does not exist (nranks = " << n
                                << ")";
  if (tb < 0)
    return emitOpError("thread block must be non-negative");
  for (Operation &op : getBody().front()) {
    if (auto bar = dyn_cast<TbBarrierOp>(op)) {
      if (bar.getRankAttr().getInt() != rank ||
          !llvm::is_contained(bar.getTbs(), tb))
        return op.emitOpError("does not include rank ")
               << rank << " thread block " << tb
               << ", whose instruction list it is in";
      continue;
    }
    auto inst = dyn_cast<InstructionOp>(op);
    if (!inst) {
      if (!isa<BarrierOp>(op))
        return op.emitOpError("is not allowed inside 'ccl.thread_block'");
      continue;
    }
    if (inst.getExecRank() != rank || inst.getThreadBlock() != tb)
      return op.emitOpError("runs on rank ")
             << inst.getExecRank() << " thread block " << inst.getThreadBlock()
             << " but is inside the thread block of rank " << rank
             << " thread block " << tb;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Contract and instructions
//===----------------------------------------------------------------------===//

/// Checks that `ref` names an existing buffer, rank and chunk range of the
/// enclosing algorithm.
static LogicalResult verifyRef(Operation *op, StringRef role,
                               ChunkRefAttr ref) {
  AlgorithmOp algo = getEnclosingAlgorithm(op);
  if (!algo)
    return op->emitOpError("must be inside a 'ccl.algorithm'");
  int64_t chunks = algo.getBufferChunks(ref.getBuffer());
  if (chunks < 0)
    return op->emitOpError() << role << " refers to unknown buffer '"
                             << ref.getBuffer() << "'";
  if (ref.getRank() >= algo.getNranks())
    return op->emitOpError() << role << " " << ref.str() << ": rank "
                             << ref.getRank() << " does not exist (nranks = "
                             << algo.getNranks() << ")";
  if (ref.getIndex() + ref.getCount() > chunks)
    return op->emitOpError() << role << " " << ref.str()
                             << " is out of range: buffer '" << ref.getBuffer()
                             << "' has " << chunks << " chunk"
                             << (chunks == 1 ? "" : "s");
  return success();
}

static LogicalResult verifyContractRef(Operation *op, StringRef role,
                                       ChunkRefAttr ref, bool mustBeInput) {
  if (failed(verifyRef(op, role, ref)))
    return failure();
  if (ref.getCount() != 1)
    return op->emitOpError() << role << " " << ref.str()
                             << " must be a single chunk";
  if (mustBeInput && !ref.isInput())
    return op->emitOpError() << role << " " << ref.str()
                             << " must be a chunk of 'input'";
  return success();
}

LogicalResult RequireOp::verify() {
  if (failed(verifyContractRef(*this, "location", getAt(), false)) ||
      failed(verifyContractRef(*this, "value", getValue(), true)))
    return failure();
  return success();
}

LogicalResult EnsureOp::verify() {
  if (failed(verifyContractRef(*this, "location", getAt(), false)))
    return failure();
  if (getTerms().empty())
    return emitOpError("needs at least one input chunk");
  for (Attribute t : getTerms())
    if (failed(verifyContractRef(*this, "term", cast<ChunkRefAttr>(t), true)))
      return failure();
  return success();
}

template <typename T>
static T lookup(Operation *op, FlatSymbolRefAttr sym) {
  AlgorithmOp algo = getEnclosingAlgorithm(op);
  return algo ? dyn_cast_or_null<T>(algo.lookupDeclaration(sym.getValue()))
              : T();
}

/// The channel an operation names; emits an error when it is missing or is
/// not a memory/port channel.
static ChannelOp channelOf(Operation *op, FlatSymbolRefAttr sym) {
  return lookup<ChannelOp>(op, sym);
}

static LogicalResult verifyPlacement(InstructionOp op) {
  auto tb = op->getAttrOfType<IntegerAttr>("tb");
  auto group = op->getAttrOfType<IntegerAttr>("group");
  if (tb && tb.getInt() < 0)
    return op->emitOpError("thread block must be non-negative, not ")
           << tb.getInt();
  if (group && !tb)
    return op->emitOpError("a thread-block group needs its first block 'tb'");
  if (group && group.getInt() < 1)
    return op->emitOpError("a thread-block group needs at least one block, not ")
           << group.getInt();
  return success();
}

/// Common checks of an operation moving `src` into `dst`.
static LogicalResult verifyMove(InstructionOp op, ChunkRefAttr dst,
                                ChunkRefAttr src) {
  if (failed(verifyPlacement(op)) ||
      failed(verifyRef(op, "destination", dst)) ||
      failed(verifyRef(op, "source", src)))
    return failure();
  if (dst.getCount() != src.getCount())
    return op->emitOpError("copies ")
           << src.getCount() << " chunk(s) into " << dst.getCount()
           << " chunk(s)";
  if (dst.overlaps(src))
    return op->emitOpError("source and destination overlap: ") << src.str();
  return success();
}

/// Looks up the memory or port channel of `op`, checking its kind.
static FailureOr<ChannelOp> verifyChannel(Operation *op, FlatSymbolRefAttr sym,
                                          bool portOnly = false) {
  ChannelOp ch = channelOf(op, sym);
  if (!ch) {
    if (lookup<SwitchChannelOp>(op, sym))
      return op->emitOpError("needs a memory or port channel, not switch channel ")
             << sym;
    return op->emitOpError("unknown channel ") << sym;
  }
  if (portOnly && ch.getKind() != ChannelKind::Port)
    return op->emitOpError("needs a port channel, not a ")
           << stringifyChannelKind(ch.getKind()) << " channel";
  return ch;
}

static bool isLL(Operation *op) { return getEnclosingAlgorithm(op).isLL(); }

/// Rank a channel-level operation runs on: the channel's source, or its
/// destination for `wait`. 0 when the channel is missing (the verifier
/// reports it).
static int64_t channelRank(Operation *op, FlatSymbolRefAttr sym, bool dstEnd) {
  ChannelOp ch = channelOf(op, sym);
  if (!ch)
    return 0;
  return dstEnd ? ch.getDst() : ch.getSrc();
}


/// The destination followed by the fused forwarding destinations.
template <typename OpT>
static SmallVector<ChunkRefAttr, 2> withForwards(OpT op) {
  SmallVector<ChunkRefAttr, 2> refs{op.getDst()};
  if (auto fwd = op.getFwdDstsAttr())
    for (Attribute a : fwd)
      refs.push_back(cast<ChunkRefAttr>(a));
  return refs;
}

/// Checks fused forwarding: as many channels as destinations, each
/// destination on the far end of its memory/port channel, the operation's
/// rank at the near end, and as many chunks as the result.
template <typename OpT>
static LogicalResult verifyForwards(OpT op) {
  ArrayAttr dsts = op.getFwdDstsAttr(), chans = op.getFwdChannelsAttr();
  if (!dsts && !chans)
    return success();
  if (!dsts || !chans || dsts.size() != chans.size() || dsts.empty())
    return op.emitOpError("forwards to ")
           << (dsts ? dsts.size() : 0) << " destination(s) over "
           << (chans ? chans.size() : 0) << " channel(s)";
  int64_t rank = cast<InstructionOp>(op.getOperation()).getExecRank();
  for (auto [d, c] : llvm::zip(dsts, chans)) {
    auto dst = cast<ChunkRefAttr>(d);
    if (failed(verifyRef(op, "forward destination", dst)))
      return failure();
    auto ch = verifyChannel(op, cast<FlatSymbolRefAttr>(c));
    if (failed(ch))
      return failure();
    if (ch->getSrc() != rank || ch->getDst() != dst.getRank())
      return op.emitOpError("forwards ")
             << dst.str() << " over channel " << c << " ("
             << ch->getSrc() << " -> " << ch->getDst()
             << ") from rank " << rank;
    if (dst.getCount() != op.getDst().getCount())
      return op.emitOpError("forwards ")
             << op.getDst().getCount() << " chunk(s) into " << dst.getCount()
             << " chunk(s)";
  }
  return success();
}

//----- put / get -----------------------------------------------------------//

int64_t PutOp::getExecRank() { return getSrc().getRank(); }
SmallVector<ChunkRefAttr, 2> PutOp::getWrittenRefs() { return withForwards(*this); }

LogicalResult PutOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  auto ch = verifyChannel(*this, getChannelAttr(), /*portOnly=*/getWithFlush());
  if (failed(ch))
    return failure();
  if (getSrc().getRank() != ch->getSrc())
    return emitOpError("source ") << getSrc().str()
                                  << " is not on the channel's source rank "
                                  << ch->getSrc();
  if (getDst().getRank() != ch->getDst())
    return emitOpError("destination ")
           << getDst().str() << " is not on the channel's destination rank "
           << ch->getDst();
  if (isLL(*this) && (getDst().isScratch() || getSrc().isScratch()))
    return emitOpError("moves plain data into or out of a packet buffer in "
                       "an LL algorithm; use put_packets");
  return verifyForwards(*this);
}

int64_t GetOp::getExecRank() { return getDst().getRank(); }

LogicalResult GetOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  auto ch = verifyChannel(*this, getChannelAttr());
  if (failed(ch))
    return failure();
  if (getDst().getRank() != ch->getSrc())
    return emitOpError("destination ")
           << getDst().str() << " is not on the channel's source rank "
           << ch->getSrc() << " (get reads the peer into the local end)";
  if (getSrc().getRank() != ch->getDst())
    return emitOpError("source ") << getSrc().str()
                                  << " is not on the channel's destination rank "
                                  << ch->getDst();
  return success();
}

//----- signal / wait / flush -----------------------------------------------//

int64_t SignalOp::getExecRank() {
  return channelRank(*this, getChannelAttr(), false);
}
SmallVector<ChunkRefAttr, 2> SignalOp::getWrittenRefs() { return {}; }
SmallVector<ChunkRefAttr, 2> SignalOp::getReadRefs() { return {}; }
LogicalResult SignalOp::verify() {
  if (failed(verifyPlacement(*this)) ||
      failed(verifyChannel(*this, getChannelAttr())))
    return failure();
  return success();
}

int64_t WaitOp::getExecRank() { return channelRank(*this, getChannelAttr(), true); }
SmallVector<ChunkRefAttr, 2> WaitOp::getWrittenRefs() { return {}; }
SmallVector<ChunkRefAttr, 2> WaitOp::getReadRefs() { return {}; }
bool WaitOp::waits() { return true; }
LogicalResult WaitOp::verify() {
  if (failed(verifyPlacement(*this)) ||
      failed(verifyChannel(*this, getChannelAttr())))
    return failure();
  return success();
}

int64_t FlushOp::getExecRank() {
  return channelRank(*this, getChannelAttr(), false);
}
SmallVector<ChunkRefAttr, 2> FlushOp::getWrittenRefs() { return {}; }
SmallVector<ChunkRefAttr, 2> FlushOp::getReadRefs() { return {}; }
bool FlushOp::waits() { return true; }
LogicalResult FlushOp::verify() {
  if (failed(verifyPlacement(*this)) ||
      failed(verifyChannel(*this, getChannelAttr(), /*portOnly=*/true)))
    return failure();
  return success();
}

//----- packets -------------------------------------------------------------//

/// Checks of an operation that stores plain `src` as LL packets into
/// `dst` (put_packets, pack_packets): packets land in scratch only, and a
/// source that holds packets already is refused with `hint`.
static LogicalResult verifyPacketStore(Operation *op, ChunkRefAttr dst,
                                       ChunkRefAttr src, StringRef hint) {
  if (!dst.isScratch())
    return op->emitOpError("destination ")
           << dst.str() << " must be a scratch buffer (packets carry "
           << "flags, so they cannot land in input or output)";
  if (src.isScratch())
    return op->emitOpError("source ") << src.str() << " holds packets"
                                      << hint;
  return success();
}

int64_t PutPacketsOp::getExecRank() { return getSrc().getRank(); }
SmallVector<ChunkRefAttr, 2> PutPacketsOp::getWrittenRefs() {
  return withForwards(*this);
}

LogicalResult PutPacketsOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  auto channel = verifyChannel(*this, getChannelAttr());
  if (failed(channel))
    return failure();
  if (!isLL(*this))
    return emitOpError("sends LL packets, so the algorithm needs protocol LL");
  if (getSrc().getRank() != channel->getSrc())
    return emitOpError("source ")
           << getSrc().str() << " is not on the channel's source rank "
           << channel->getSrc();
  if (getDst().getRank() != channel->getDst())
    return emitOpError("destination ")
           << getDst().str() << " is not on the channel's destination rank "
           << channel->getDst();
  if (failed(verifyPacketStore(*this, getDst(), getSrc(),
                               "; forward them with an unpack first")))
    return failure();
  return verifyForwards(*this);
}

/// Checks of an operation that reads packets that landed in `src`.
static LogicalResult verifyPacketRead(InstructionOp op, ChunkRefAttr dst,
                                      ChunkRefAttr src, StringRef what) {
  if (failed(verifyMove(op, dst, src)))
    return failure();
  if (!isLL(op))
    return op->emitOpError("reads LL packets, so the algorithm needs protocol LL");
  if (!src.isScratch())
    return op->emitOpError("source ")
           << src.str() << " must be a scratch buffer holding packets";
  if (src.getRank() != dst.getRank())
    return op->emitOpError("reads packets of rank ")
           << src.getRank() << " on rank " << dst.getRank()
           << "; packets are read where they landed";
  (void)what;
  return success();
}

int64_t ReducePacketsOp::getExecRank() { return getDst().getRank(); }
SmallVector<ChunkRefAttr, 2> ReducePacketsOp::getWrittenRefs() {
  return withForwards(*this);
}
bool ReducePacketsOp::accumulates() { return true; }
bool ReducePacketsOp::waits() { return true; }
LogicalResult ReducePacketsOp::verify() {
  if (failed(verifyPacketRead(*this, getDst(), getSrc(), "reduce")))
    return failure();
  if (getDst().isScratch())
    return emitOpError("destination ") << getDst().str()
                                       << " must not be a packet buffer";
  return verifyForwards(*this);
}

int64_t UnpackPacketsOp::getExecRank() { return getDst().getRank(); }
SmallVector<ChunkRefAttr, 2> UnpackPacketsOp::getWrittenRefs() {
  return withForwards(*this);
}
bool UnpackPacketsOp::waits() { return true; }
LogicalResult UnpackPacketsOp::verify() {
  if (failed(verifyPacketRead(*this, getDst(), getSrc(), "unpack")))
    return failure();
  if (getDst().isScratch())
    return emitOpError("destination ") << getDst().str()
                                       << " must not be a packet buffer";
  return verifyForwards(*this);
}

int64_t CopyPacketsOp::getExecRank() { return getDst().getRank(); }
bool CopyPacketsOp::waits() { return true; }
LogicalResult CopyPacketsOp::verify() {
  if (failed(verifyPacketRead(*this, getDst(), getSrc(), "copy")))
    return failure();
  if (!getDst().isScratch())
    return emitOpError("destination ")
           << getDst().str() << " must be a scratch buffer (it keeps packets)";
  return success();
}

int64_t PackPacketsOp::getExecRank() { return getSrc().getRank(); }
LogicalResult PackPacketsOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  if (!isLL(*this))
    return emitOpError("writes LL packets, so the algorithm needs protocol LL");
  if (getDst().getRank() != getSrc().getRank())
    return emitOpError("packs on one rank: the source ")
           << getSrc().str() << " and the destination " << getDst().str()
           << " are on different ranks (send packets to a peer with "
              "put_packets)";
  return verifyPacketStore(*this, getDst(), getSrc(),
                           " already (copy them with copy_packets)");
}

//----- copy / reduce / read_reduce -----------------------------------------//

int64_t CopyOp::getExecRank() { return getDst().getRank(); }
SmallVector<ChunkRefAttr, 2> CopyOp::getWrittenRefs() { return withForwards(*this); }
LogicalResult CopyOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  if (isLL(*this) && (getDst().isScratch() || getSrc().isScratch()))
    return emitOpError("copies plain data into or out of a packet buffer in "
                       "an LL algorithm; use the packet operations");
  if (getFwdDstsAttr() && isCrossRank())
    return emitOpError("a chunk-level copy cannot forward");
  return verifyForwards(*this);
}

int64_t ReduceOp::getExecRank() { return getDst().getRank(); }
bool ReduceOp::accumulates() { return !getBaseAttr(); }
SmallVector<ChunkRefAttr, 2> ReduceOp::getWrittenRefs() { return withForwards(*this); }
SmallVector<ChunkRefAttr, 2> ReduceOp::getReadRefs() {
  SmallVector<ChunkRefAttr, 2> refs;
  if (ChunkRefAttr base = getBaseAttr())
    refs.push_back(base);
  refs.push_back(getSrc());
  if (auto more = getMoreAttr())
    for (Attribute a : more)
      refs.push_back(cast<ChunkRefAttr>(a));
  return refs;
}
LogicalResult ReduceOp::verify() {
  if (failed(verifyMove(*this, getDst(), getSrc())))
    return failure();
  if (isLL(*this) && (getDst().isScratch() || getSrc().isScratch()))
    return emitOpError("reduces plain data with a packet buffer in an LL "
                       "algorithm; use reduce_packets");
  if (auto more = getMoreAttr()) {
    if (isCrossRank())
      return emitOpError("a chunk-level reduce has one source");
    for (Attribute a : more) {
      auto r = cast<ChunkRefAttr>(a);
      if (failed(verifyMove(*this, getDst(), r)))
        return failure();
      if (r.getRank() != getDst().getRank())
        return emitOpError("n-ary source ")
               << r.str() << " is not on the destination's rank "
               << getDst().getRank();
    }
  }
  if (getFwdDstsAttr() && isCrossRank())
    return emitOpError("a chunk-level reduce cannot forward");
  if (ChunkRefAttr base = getBaseAttr()) {
    if (isCrossRank())
      return emitOpError("a chunk-level reduce has no base");
    if (getMoreAttr())
      return emitOpError("a reduce with a base has one source");
    if (failed(verifyMove(*this, getDst(), base)))
      return failure();
    if (base.getRank() != getDst().getRank())
      return emitOpError("base ")
             << base.str() << " is not on the destination's rank "
             << getDst().getRank();
  }
  return verifyForwards(*this);
}

int64_t ReadReduceOp::getExecRank() { return getDst().getRank(); }
bool ReadReduceOp::accumulates() { return true; }
SmallVector<ChunkRefAttr, 2> ReadReduceOp::getReadRefs() {
  SmallVector<ChunkRefAttr, 2> refs;
  for (Attribute a : getSrcs())
    refs.push_back(cast<ChunkRefAttr>(a));
  return refs;
}
LogicalResult ReadReduceOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one source");
  if (getSrcs().size() != getChannels().size())
    return emitOpError("has ") << getSrcs().size() << " sources but "
                               << getChannels().size() << " channels";
  for (auto [srcAttr, chAttr] : llvm::zip(getSrcs(), getChannels())) {
    auto src = cast<ChunkRefAttr>(srcAttr);
    if (failed(verifyMove(*this, getDst(), src)))
      return failure();
    auto ch = verifyChannel(*this, cast<FlatSymbolRefAttr>(chAttr));
    if (failed(ch))
      return failure();
    if (ch->getKind() != ChannelKind::Memory)
      return emitOpError("reads peers through memory channels, not ")
             << stringifyChannelKind(ch->getKind()) << " channel " << chAttr;
    if (ch->getSrc() != getDst().getRank() || ch->getDst() != src.getRank())
      return emitOpError("source ")
             << src.str() << " is read through channel " << chAttr
             << ", which goes " << ch->getSrc() << " -> " << ch->getDst()
             << " instead of " << getDst().getRank() << " -> "
             << src.getRank();
  }
  return success();
}

//----- multimem ------------------------------------------------------------//

/// The switch channel of a multimem operation, checking that `rank` is a
/// member.
static FailureOr<SwitchChannelOp> verifySwitch(Operation *op,
                                               FlatSymbolRefAttr sym,
                                               int64_t rank) {
  auto sw = lookup<SwitchChannelOp>(op, sym);
  if (!sw)
    return op->emitOpError("needs a switch channel; ") << sym << " is not one";
  if (!llvm::is_contained(sw.getRanks(), rank))
    return op->emitOpError("runs on rank ")
           << rank << ", which is not a member of switch channel " << sym;
  return sw;
}

static SmallVector<ChunkRefAttr, 2> onMembers(Operation *op,
                                              FlatSymbolRefAttr sym,
                                              ChunkRefAttr ref) {
  SmallVector<ChunkRefAttr, 2> refs;
  auto sw = lookup<SwitchChannelOp>(op, sym);
  if (!sw)
    return {ref};
  for (int64_t r : sw.getRanks())
    refs.push_back(ChunkRefAttr::get(op->getContext(), ref.getBuffer(), r,
                                     ref.getIndex(), ref.getCount()));
  return refs;
}

int64_t MultimemReduceOp::getExecRank() { return getDst().getRank(); }
SmallVector<ChunkRefAttr, 2> MultimemReduceOp::getWrittenRefs() {
  if (getBroadcast())
    return onMembers(*this, getChannelAttr(), getDst());
  return {getDst()};
}
SmallVector<ChunkRefAttr, 2> MultimemReduceOp::getReadRefs() {
  return onMembers(*this, getChannelAttr(), getSrc());
}
LogicalResult MultimemReduceOp::verify() {
  if (failed(verifyPlacement(*this)) ||
      failed(verifyRef(*this, "destination", getDst())) ||
      failed(verifyRef(*this, "source", getSrc())) ||
      failed(verifySwitch(*this, getChannelAttr(), getDst().getRank())))
    return failure();
  if (getSrc().getRank() != getDst().getRank())
    return emitOpError("source ") << getSrc().str()
                                  << " must be written with the destination's rank "
                                  << getDst().getRank();
  if (getSrc().getCount() != getDst().getCount())
    return emitOpError("reduces ") << getSrc().getCount() << " chunk(s) into "
                                   << getDst().getCount() << " chunk(s)";
  return success();
}

int64_t MultimemBroadcastOp::getExecRank() { return getSrc().getRank(); }
SmallVector<ChunkRefAttr, 2> MultimemBroadcastOp::getWrittenRefs() {
  return onMembers(*this, getChannelAttr(), getDst());
}
LogicalResult MultimemBroadcastOp::verify() {
  if (failed(verifyPlacement(*this)) ||
      failed(verifyRef(*this, "destination", getDst())) ||
      failed(verifyRef(*this, "source", getSrc())) ||
      failed(verifySwitch(*this, getChannelAttr(), getSrc().getRank())))
    return failure();
  if (getSrc().getRank() != getDst().getRank())
    return emitOpError("destination ")
           << getDst().str() << " must be written with the source's rank "
           << getSrc().getRank();
  if (getSrc().getCount() != getDst().getCount())
    return emitOpError("broadcasts ") << getSrc().getCount()
                                      << " chunk(s) into " << getDst().getCount()
                                      << " chunk(s)";
  if (getSrc().getBuffer() == getDst().getBuffer() &&
      getSrc().getIndex() < getDst().getIndex() + getDst().getCount() &&
      getDst().getIndex() < getSrc().getIndex() + getSrc().getCount() &&
      getSrc().getIndex() != getDst().getIndex())
    return emitOpError("source and destination overlap: ") << getSrc().str();
  return success();
}

//----- semaphores ----------------------------------------------------------//

static int64_t semaphoreRank(Operation *op, FlatSymbolRefAttr sym) {
  auto sem = lookup<SemaphoreOp>(op, sym);
  return sem ? sem.getRankAttr().getInt() : 0;
}
static LogicalResult verifySemaphoreUse(InstructionOp op,
                                        FlatSymbolRefAttr sym) {
  if (failed(verifyPlacement(op)))
    return failure();
  if (!lookup<SemaphoreOp>(op, sym))
    return op->emitOpError("unknown semaphore ") << sym;
  return success();
}

int64_t ReleaseOp::getExecRank() { return semaphoreRank(*this, getSemaphoreAttr()); }
SmallVector<ChunkRefAttr, 2> ReleaseOp::getWrittenRefs() { return {}; }
SmallVector<ChunkRefAttr, 2> ReleaseOp::getReadRefs() { return {}; }
LogicalResult ReleaseOp::verify() {
  return verifySemaphoreUse(*this, getSemaphoreAttr());
}

int64_t AcquireOp::getExecRank() { return semaphoreRank(*this, getSemaphoreAttr()); }
SmallVector<ChunkRefAttr, 2> AcquireOp::getWrittenRefs() { return {}; }
SmallVector<ChunkRefAttr, 2> AcquireOp::getReadRefs() { return {}; }
bool AcquireOp::waits() { return true; }
LogicalResult AcquireOp::verify() {
  return verifySemaphoreUse(*this, getSemaphoreAttr());
}

#define GET_OP_CLASSES
#include "ccl/Dialect/CclOps.cpp.inc"
