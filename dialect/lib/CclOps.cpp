//===- CclOps.cpp - ccl operations and verifiers ---------------------------===//

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace ccl;

#include "ccl/Dialect/CclInterfaces.cpp.inc"

AlgorithmOp ccl::getEnclosingAlgorithm(Operation *op) {
  return op ? op->getParentOfType<AlgorithmOp>() : AlgorithmOp();
}

//===----------------------------------------------------------------------===//
// AlgorithmOp
//===----------------------------------------------------------------------===//

int64_t AlgorithmOp::getBufferChunks(StringRef buffer) {
  if (buffer == "input" || buffer == "output")
    return getChunks();
  if (auto scratch = dyn_cast_or_null<ScratchOp>(
          mlir::SymbolTable::lookupSymbolIn(getOperation(), buffer)))
    return scratch.getSlots();
  return -1;
}

LogicalResult AlgorithmOp::verify() {
  StringRef p = getProtocol();
  if (p != "LL" && p != "Simple")
    return emitOpError("protocol must be \"LL\" or \"Simple\", not \"")
           << p << "\"";
  StringRef c = getCollective();
  if (c != "AllReduce" && c != "AllGather" && c != "ReduceScatter" &&
      c != "AllToAll" && c != "Broadcast" && c != "Reduce" && c != "Custom")
    return emitOpError("unknown collective \"") << c << "\"";
  return success();
}

LogicalResult AlgorithmOp::verifyRegions() {
  bool sawThreadBlock = false, sawInstruction = false;
  for (Operation &op : getBody().front()) {
    if (isa<ThreadBlockOp>(op))
      sawThreadBlock = true;
    else if (isa<InstructionOp>(op))
      sawInstruction = true;
    else if (!isa<ScratchOp, ChannelOp>(op))
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

LogicalResult ChannelOp::verify() {
  StringRef k = getKind();
  if (k != "memory" && k != "port" && k != "switch")
    return emitOpError("channel kind must be memory, port or switch, not \"")
           << k << "\"";
  int64_t n = getEnclosingAlgorithm(*this).getNranks();
  for (int64_t r : {getSrc(), getDst()})
    if (r < 0 || r >= n)
      return emitOpError("rank ") << r << " does not exist (nranks = " << n
                                  << ")";
  if (getSrc() == getDst())
    return emitOpError("connects rank ") << getSrc() << " to itself";
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
// Instructions
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

static LogicalResult verifyInstruction(InstructionOp op) {
  if (op.getThreadBlock() < 0)
    return op->emitOpError("thread block must be non-negative, not ")
           << op.getThreadBlock();
  if (failed(verifyRef(op, "destination", op.getWrittenRef())) ||
      failed(verifyRef(op, "source", op.getReadRef())))
    return failure();
  if (op.getWrittenRef().getCount() != op.getReadRef().getCount())
    return op->emitOpError("copies ")
           << op.getReadRef().getCount() << " chunk(s) into "
           << op.getWrittenRef().getCount() << " chunk(s)";
  if (op.getWrittenRef().overlaps(op.getReadRef()))
    return op->emitOpError("source and destination overlap: ")
           << op.getReadRef().str();
  return success();
}

int64_t PutPacketsOp::getExecRank() { return getSrc().getRank(); }
bool PutPacketsOp::accumulates() { return false; }
bool PutPacketsOp::waits() { return false; }

LogicalResult PutPacketsOp::verify() {
  if (failed(verifyInstruction(*this)))
    return failure();
  auto channel = dyn_cast_or_null<ChannelOp>(mlir::SymbolTable::lookupNearestSymbolFrom(
      *this, getChannelAttr()));
  if (!channel)
    return emitOpError("unknown channel ") << getChannelAttr();
  if (!getEnclosingAlgorithm(*this).isLL())
    return emitOpError("sends LL packets, so the algorithm needs protocol LL");
  if (channel.getKind() != "memory" && channel.getKind() != "port")
    return emitOpError("needs a memory or port channel, not a ")
           << channel.getKind() << " channel";
  if (getSrc().getRank() != channel.getSrc())
    return emitOpError("source ")
           << getSrc().str() << " is not on the channel's source rank "
           << channel.getSrc();
  if (getDst().getRank() != channel.getDst())
    return emitOpError("destination ")
           << getDst().str() << " is not on the channel's destination rank "
           << channel.getDst();
  if (!getDst().isScratch())
    return emitOpError("destination ")
           << getDst().str() << " must be a scratch buffer (packets carry "
           << "flags, so they cannot land in input or output)";
  if (getSrc().isScratch() && getEnclosingAlgorithm(*this).isLL())
    return emitOpError("source ") << getSrc().str()
                                  << " holds packets; forward them with "
                                     "an unpack first";
  return success();
}

int64_t CopyOp::getExecRank() { return getDst().getRank(); }
bool CopyOp::accumulates() { return false; }
bool CopyOp::waits() { return false; }

LogicalResult CopyOp::verify() {
  if (failed(verifyInstruction(*this)))
    return failure();
  if (getSrc().getRank() != getDst().getRank())
    return emitOpError("copies across ranks (")
           << getSrc().str() << " to " << getDst().str()
           << "); a cross-rank copy needs a channel";
  return success();
}

int64_t ReducePacketsOp::getExecRank() { return getDst().getRank(); }
bool ReducePacketsOp::accumulates() { return true; }
bool ReducePacketsOp::waits() { return true; }

LogicalResult ReducePacketsOp::verify() {
  if (failed(verifyInstruction(*this)))
    return failure();
  if (!getEnclosingAlgorithm(*this).isLL())
    return emitOpError("reads LL packets, so the algorithm needs protocol LL");
  if (!getSrc().isScratch())
    return emitOpError("source ") << getSrc().str()
                                  << " must be a scratch buffer holding packets";
  if (getSrc().getRank() != getDst().getRank())
    return emitOpError("reads packets of rank ")
           << getSrc().getRank() << " on rank " << getDst().getRank()
           << "; packets are read where they landed";
  if (getDst().isScratch() && getEnclosingAlgorithm(*this).isLL())
    return emitOpError("destination ") << getDst().str()
                                       << " must not be a packet buffer";
  return success();
}

#define GET_OP_CLASSES
#include "ccl/Dialect/CclOps.cpp.inc"
