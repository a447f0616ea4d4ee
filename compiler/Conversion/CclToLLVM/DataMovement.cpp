//===- DataMovement.cpp - ccl ops that move data to library calls ---------===//
//
// Patterns of --ccl-lower-to-llvm for the operations that move data: put
// (a trigger for the proxy over a port channel), get, copy, reduce and read_reduce (Simple), put_packets, pack_packets, reduce_packets,
// unpack_packets and copy_packets (LL), with the forwards and signals
// fusion adds to them. Each chunk reference becomes a pointer into the
// kernel's input or output (__ccl_chunk_ptr) or into a scratch slot
// (__ccl_scratch_ptr), and the operation a call into the device library.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/Lowering.h"
#include "compiler/Conversion/CclToLLVM/Patterns.h"

#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace ccl;

namespace {

/// Pointer to, and element count of, a chunk range.
struct Resolved {
  Value ptr;
  /// input/output: the elements of the chunk range. Scratch: the capacity
  /// of the slot range (slots * ceil(count / chunks)), which is what an
  /// operation between two scratch ranges moves.
  Value elems;
  bool scratch = false;
};

FailureOr<Resolved> resolve(OpBuilder &b, Location loc, Operation *op,
                            const KernelEnv &env, ChunkRefAttr ref,
                            int64_t execRank) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value index = i32(b, loc, ref.getIndex());
  Value nchunks = i32(b, loc, env.tables->chunks);
  Value esize = env.esize32(b, loc);
  if (ref.isScratch()) {
    AlgorithmTables::Scratch buf = env.tables->scratch.lookup(ref.getBuffer());
    // Slots are laid out for the largest message, not this call's count.
    Value layoutCount = env.slotCount64(b, loc);
    Value ptr = callLib(
        b, loc, op, "__ccl_scratch_ptr", ptrTy,
        {env.ctx, i32(b, loc, buf.index), i32(b, loc, ref.getRank()), index,
         i32(b, loc, buf.slots), layoutCount, nchunks, esize, env.epoch,
         i32(b, loc, env.tables->ll ? 1 : 0)});
    Value elems = callLib(b, loc, op, "__ccl_scratch_elems", b.getI64Type(),
                          {env.count, nchunks, i32(b, loc, ref.getCount())});
    return Resolved{ptr, elems, true};
  }
  if (ref.getRank() != execRank)
    return op->emitOpError("reaching a peer's input/output is not supported; "
                           "stage through a scratch buffer (")
           << ref.str() << ")";
  Value base = ref.isInput() ? env.input : env.output;
  Value ptr = callLib(b, loc, op, "__ccl_chunk_ptr", ptrTy,
                      {base, env.count, esize, index, nchunks});
  Value elems = callLib(b, loc, op, "__ccl_chunk_elems", b.getI64Type(),
                        {env.count, index, i32(b, loc, ref.getCount()), nchunks});
  return Resolved{ptr, elems, false};
}

/// Elements an operation between `a` and `b` moves: the chunk range's, or
/// the slot capacity when both are scratch.
Value movedElems(const Resolved &a, const Resolved &b) {
  if (!a.scratch)
    return a.elems;
  if (!b.scratch)
    return b.elems;
  return a.elems;
}

Value bytes(OpBuilder &b, Location loc, const KernelEnv &env, Value elems) {
  return LLVM::MulOp::create(b, loc, elems, env.esize64(b, loc));
}

Value flagOf(OpBuilder &b, Location loc, const KernelEnv &env) {
  return LLVM::AddOp::create(b, loc, env.epoch, i32(b, loc, 1));
}

/// Calls the reduction `prefix`<dtype>_<op> of the device library, or in
/// a type-generic block `prefix`any with the kind before `args`.
void callReduce(OpBuilder &b, Location loc, Operation *op,
                const KernelEnv &env, StringRef prefix,
                ArrayRef<Value> args) {
  SmallVector<Value> all;
  if (env.kind)
    all.push_back(env.kind);
  all.append(args.begin(), args.end());
  callLib(b, loc, op, env.reduceName(prefix), voidTy(b.getContext()), all);
}

/// The fused forwards of `op` (fwd_dsts over fwd_channels, from the fusion
/// pass): sends the result [ptr, elems) to every forward destination, as
/// LL packets in an LL algorithm and as a memory-channel put otherwise.
/// `written` says the operation has just written the result (then the block
/// synchronises first: the send splits it over the threads differently).
/// Returns the forward channels, for the signals the caller adds.
FailureOr<SmallVector<StringRef>> emitForwards(OpBuilder &b, Location loc,
                                               Operation *op,
                                               const KernelEnv &env,
                                               Value ptr, Value elems,
                                               bool written) {
  SmallVector<StringRef> chans;
  auto dsts = op->getAttrOfType<ArrayAttr>("fwd_dsts");
  auto channels = op->getAttrOfType<ArrayAttr>("fwd_channels");
  if (!dsts || dsts.empty())
    return chans;
  int64_t rank = cast<InstructionOp>(op).getExecRank();
  if (written)
    callLib(b, loc, op, "__ccl_barrier", voidTy(b.getContext()), {});
  Value n = bytes(b, loc, env, elems);
  Value flag = env.tables->ll ? flagOf(b, loc, env) : Value();
  for (auto [d, c] : llvm::zip(dsts, channels)) {
    auto ref = cast<ChunkRefAttr>(d);
    auto fwd = resolve(b, loc, op, env, ref, rank);
    if (failed(fwd))
      return failure();
    if (env.tables->ll) {
      callLib(b, loc, op, "__ccl_put_packets", voidTy(b.getContext()),
              {fwd->ptr, ptr, n, flag});
      if (env.isPadded(ref.getBuffer()))
        callLib(b, loc, op, "__ccl_put_packets_pad", voidTy(b.getContext()),
                {fwd->ptr, n, bytes(b, loc, env, fwd->elems), flag});
    } else {
      callLib(b, loc, op, "__ccl_put", voidTy(b.getContext()),
              {fwd->ptr, ptr, n});
    }
    chans.push_back(cast<FlatSymbolRefAttr>(c).getValue());
  }
  return chans;
}

/// Forwards of an operation that computed its result in place, then (with
/// `signal` fused, fwd_signal) one signal per forward channel.
LogicalResult emitResultForwards(OpBuilder &b, Location loc, Operation *op,
                                 const KernelEnv &env, Value ptr,
                                 Value elems) {
  auto chans = emitForwards(b, loc, op, env, ptr, elems, /*written=*/true);
  if (failed(chans))
    return failure();
  if (op->hasAttr("fwd_signal"))
    for (StringRef c : llvm::SetVector<StringRef>(chans->begin(), chans->end()))
      emitSignal(b, loc, op, env, c);
  return success();
}

/// The one Simple-protocol forward of `op`, if it has exactly one: its
/// resolved destination and channel. The caller then computes and forwards
/// the result in one pass (__ccl_copy_fwd, __ccl_reduce_fwd_*) instead of
/// writing it and reading it back.
struct SingleForward {
  Resolved dst;
  StringRef channel;
};
FailureOr<std::optional<SingleForward>>
singleForward(OpBuilder &b, Location loc, Operation *op, const KernelEnv &env) {
  auto dsts = op->getAttrOfType<ArrayAttr>("fwd_dsts");
  auto channels = op->getAttrOfType<ArrayAttr>("fwd_channels");
  if (env.tables->ll || !dsts || dsts.size() != 1)
    return std::optional<SingleForward>();
  auto fwd = resolve(b, loc, op, env, cast<ChunkRefAttr>(dsts[0]),
                     cast<InstructionOp>(op).getExecRank());
  if (failed(fwd))
    return failure();
  return std::optional<SingleForward>(SingleForward{
      *fwd, cast<FlatSymbolRefAttr>(channels[0]).getValue()});
}

/// The signal of a one-pass forward (with `fwd_signal`).
void emitForwardSignal(OpBuilder &b, Location loc, Operation *op,
                       const KernelEnv &env, const SingleForward &fwd) {
  if (op->hasAttr("fwd_signal"))
    emitSignal(b, loc, op, env, fwd.channel);
}

/// dst = dst OP srcs[0] OP srcs[1] ...: the library's read-reduce takes up
/// to 8 sources; more sources take further calls, each folding the next 8
/// in, with a block barrier between them (the next group may split dst over
/// the threads differently).
void emitNaryReduce(OpBuilder &b, Location loc, Operation *op,
                    const KernelEnv &env, Value dst, ArrayRef<Value> srcs,
                    Value elems) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
  for (size_t first = 0; first < srcs.size(); first += 8) {
    size_t n = std::min<size_t>(8, srcs.size() - first);
    if (first)
      callLib(b, loc, op, "__ccl_barrier", voidTy(b.getContext()), {});
    SmallVector<Value> args{dst, i32(b, loc, n), elems};
    for (size_t k = 0; k < 8; ++k)
      args.push_back(k < n ? srcs[first + k] : null);
    callReduce(b, loc, op, env, "__ccl_read_reduce_", args);
  }
}

/// Operations that move data from `src` to `dst`: both chunk ranges are
/// resolved to pointers; `emit` adds the library call.
template <typename OpT>
struct InstructionLowering : public LoweringBase<OpT> {
  using LoweringBase<OpT>::LoweringBase;
  virtual LogicalResult emit(OpT op, OpBuilder &b, const KernelEnv &env,
                             const Resolved &dst, const Resolved &src) const = 0;
  LogicalResult lower(OpT op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    auto dst = resolve(b, loc, op, env, op.getDst(), op.getExecRank());
    auto src = resolve(b, loc, op, env, op.getSrc(), op.getExecRank());
    if (failed(dst) || failed(src))
      return failure();
    return emit(op, b, env, *dst, *src);
  }
};

/// The stores of put_packets and pack_packets: `src` as LL packets with
/// this call's flag at `dst` (a peer's slot or the rank's own). A
/// copy_packets forwards whole slot ranges of a padded buffer: the rest of
/// the range gets this call's (empty) packets.
static void storePackets(Operation *op, OpBuilder &b, const KernelEnv &env,
                         ChunkRefAttr dstRef, const Resolved &dst,
                         const Resolved &src) {
  Location loc = op->getLoc();
  Type voidT = voidTy(op->getContext());
  Value n = bytes(b, loc, env, src.elems);
  Value flag = flagOf(b, loc, env);
  callLib(b, loc, op, "__ccl_put_packets", voidT, {dst.ptr, src.ptr, n, flag});
  if (env.isPadded(dstRef.getBuffer()))
    callLib(b, loc, op, "__ccl_put_packets_pad", voidT,
            {dst.ptr, n, bytes(b, loc, env, dst.elems), flag});
}

struct PutPacketsLowering : public InstructionLowering<PutPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(PutPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    storePackets(op, b, env, op.getDst(), dst, src);
    // Multi-destination: the same source to every forward destination.
    return failure(failed(emitForwards(b, op.getLoc(), op, env, src.ptr,
                                       src.elems, /*written=*/false)));
  }
};

struct PackPacketsLowering : public InstructionLowering<PackPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(PackPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    // put_packets into the rank's own scratch: the same stores, to a local
    // pointer.
    storePackets(op, b, env, op.getDst(), dst, src);
    return success();
  }
};

struct CopyLowering : public InstructionLowering<CopyOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(CopyOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    Value elems = movedElems(src, dst);
    auto fwd = singleForward(b, loc, op, env);
    if (failed(fwd))
      return failure();
    if (*fwd) { // copy and forward in one pass
      callLib(b, loc, op, "__ccl_copy_fwd", voidTy(getContext()),
              {dst.ptr, (*fwd)->dst.ptr, src.ptr, bytes(b, loc, env, elems)});
      emitForwardSignal(b, loc, op, env, **fwd);
      return success();
    }
    callLib(b, loc, op, "__ccl_copy", voidTy(getContext()),
            {dst.ptr, src.ptr, bytes(b, loc, env, elems)});
    return emitResultForwards(b, loc, op, env, dst.ptr, elems);
  }
};

struct ReduceLowering : public InstructionLowering<ReduceOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(ReduceOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    Value elems = movedElems(dst, src);
    if (ChunkRefAttr baseRef = op.getBaseAttr()) {
      // dst = base OP src in one pass (a copy folded in), and the first
      // forward in the same pass.
      auto base = resolve(b, loc, op, env, baseRef, op.getExecRank());
      if (failed(base))
        return failure();
      auto fwd = singleForward(b, loc, op, env);
      if (failed(fwd))
        return failure();
      Value fwdPtr =
          *fwd ? (*fwd)->dst.ptr
               : LLVM::ZeroOp::create(b, loc,
                                      LLVM::LLVMPointerType::get(getContext()))
                     .getResult();
      callReduce(b, loc, op, env, "__ccl_reduce_base_",
                 {dst.ptr, base->ptr, src.ptr, fwdPtr, elems});
      if (*fwd) {
        emitForwardSignal(b, loc, op, env, **fwd);
        return success();
      }
      return emitResultForwards(b, loc, op, env, dst.ptr, elems);
    }
    if (!op.getMoreAttr()) {
      auto fwd = singleForward(b, loc, op, env);
      if (failed(fwd))
        return failure();
      if (*fwd) { // reduce and forward in one pass
        callReduce(b, loc, op, env, "__ccl_reduce_fwd_",
                   {dst.ptr, src.ptr, (*fwd)->dst.ptr, elems});
        emitForwardSignal(b, loc, op, env, **fwd);
        return success();
      }
      callReduce(b, loc, op, env, "__ccl_reduce_", {dst.ptr, src.ptr, elems});
    } else {
      // n-ary (fused) local reduce: all sources in one pass per 8.
      SmallVector<Value> srcs{src.ptr};
      for (Attribute a : op.getMoreAttr()) {
        auto more = resolve(b, loc, op, env, cast<ChunkRefAttr>(a),
                            op.getExecRank());
        if (failed(more))
          return failure();
        srcs.push_back(more->ptr);
      }
      emitNaryReduce(b, loc, op, env, dst.ptr, srcs, elems);
    }
    return emitResultForwards(b, loc, op, env, dst.ptr, elems);
  }
};

struct PutLowering : public InstructionLowering<PutOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(PutOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    Value elems = movedElems(src, dst);
    if (env.isPort(op.getChannel())) {
      // The rank's proxy copies (copy engine, or memcpy on the host) and
      // signals; the block only pushes the trigger (Legality: no forwards).
      int64_t flags = (op.getWithSignal() ? /*CCL_PORT_SIGNAL*/ 1 : 0) |
                      (op.getWithFlush() ? /*CCL_PORT_FLUSH*/ 2 : 0);
      callLib(b, loc, op, "__ccl_port_put", voidTy(getContext()),
              {env.ctx, i32(b, loc, env.channelIndex(op.getChannel())),
               dst.ptr, src.ptr, bytes(b, loc, env, elems), i32(b, loc, flags),
               i32(b, loc, opId(op))});
      return success();
    }
    callLib(b, loc, op, "__ccl_put", voidTy(getContext()),
            {dst.ptr, src.ptr, bytes(b, loc, env, elems)});
    // Multi-destination put (fused): the same source to every forward
    // destination; `signal` then covers every destination's channel.
    auto fwd = emitForwards(b, loc, op, env, src.ptr, elems,
                            /*written=*/false);
    if (failed(fwd))
      return failure();
    if (op.getWithSignal()) {
      llvm::SetVector<StringRef> chans;
      chans.insert(op.getChannel());
      chans.insert(fwd->begin(), fwd->end());
      for (StringRef c : chans)
        emitSignal(b, loc, op, env, c);
    }
    return success();
  }
};

struct GetLowering : public InstructionLowering<GetOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(GetOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op, "__ccl_get", voidTy(getContext()),
            {dst.ptr, src.ptr, bytes(b, loc, env, movedElems(dst, src))});
    return success();
  }
};

struct ReducePacketsLowering : public InstructionLowering<ReducePacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(ReducePacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    callReduce(b, loc, op, env, "__ccl_reduce_packets_",
               {env.ctx, dst.ptr, src.ptr, dst.elems, flagOf(b, loc, env),
                i32(b, loc, opId(op))});
    // Packet reduce-copy-send (fused): the result goes on as packets.
    return emitResultForwards(b, loc, op, env, dst.ptr, dst.elems);
  }
};

struct UnpackPacketsLowering : public InstructionLowering<UnpackPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(UnpackPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op, "__ccl_unpack_packets", voidTy(getContext()),
            {env.ctx, dst.ptr, src.ptr, bytes(b, loc, env, dst.elems),
             flagOf(b, loc, env), i32(b, loc, opId(op))});
    return emitResultForwards(b, loc, op, env, dst.ptr, dst.elems);
  }
};

struct CopyPacketsLowering : public InstructionLowering<CopyPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(CopyPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    // Both are scratch: the whole slot range (put_packets into a buffer a
    // copy_packets reads is padded to the range, see PutPacketsLowering).
    callLib(b, loc, op, "__ccl_copy_packets", voidTy(getContext()),
            {env.ctx, dst.ptr, src.ptr, bytes(b, loc, env, src.elems),
             flagOf(b, loc, env), i32(b, loc, opId(op))});
    return success();
  }
};

struct ReadReduceLowering : public LoweringBase<ReadReduceOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(ReadReduceOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    auto dst = resolve(b, loc, op, env, op.getDst(), op.getExecRank());
    if (failed(dst))
      return failure();
    SmallVector<Resolved> srcs;
    for (Attribute a : op.getSrcs()) {
      auto src = resolve(b, loc, op, env, cast<ChunkRefAttr>(a),
                         op.getExecRank());
      if (failed(src))
        return failure();
      srcs.push_back(*src);
    }
    SmallVector<Value> ptrs;
    for (const Resolved &r : srcs)
      ptrs.push_back(r.ptr);
    emitNaryReduce(b, loc, op, env, dst->ptr, ptrs,
                   movedElems(*dst, srcs.front()));
    return success();
  }
};

} // namespace

void ccl::populateDataMovementPatterns(const KernelEnvs &envs,
                                       RewritePatternSet &patterns) {
  patterns.add<PutLowering, GetLowering, CopyLowering, ReduceLowering,
               ReadReduceLowering, PutPacketsLowering, PackPacketsLowering,
               ReducePacketsLowering,
               UnpackPacketsLowering, CopyPacketsLowering>(
      envs, patterns.getContext());
}
