//===- CclToLLVM.cpp - kernel-level ccl to LLVM dialect kernels ------------===//
//
// Each scheduled algorithm becomes one kernel per (dtype, reduction op):
//
//   kernel(ctx, input, output, count [, block])
//     epoch = __ccl_begin(ctx)
//     switch (ctx->rank * nblocks + block)   // straight-line code per case
//       case r * nblocks + t: <thread block t of rank r>
//     __ccl_end(ctx)
//
// The instruction ops are first moved into the cases, then rewritten by the
// patterns of populateCclToLLVMPatterns into calls to the device library.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"
#include "ccl/plan.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <map>
#include <optional>
#include <set>

namespace ccl {
#define GEN_PASS_DEF_CCLLOWERTOLLVM
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

int ccl::dtypeSize(StringRef dtype) {
  return llvm::StringSwitch<int>(dtype)
      .Case("float32", 4)
      .Case("float16", 2)
      .Case("bfloat16", 2)
      .Default(0);
}

StringRef ccl::dtypeSuffix(StringRef dtype) {
  return llvm::StringSwitch<StringRef>(dtype)
      .Case("float32", "f32")
      .Case("float16", "f16")
      .Case("bfloat16", "bf16")
      .Default("");
}

std::string ccl::kernelName(StringRef algoSymbol, StringRef dtype,
                            StringRef redop) {
  return ("ccl_" + algoSymbol + "_" + dtypeSuffix(dtype) + "_" + redop).str();
}

//===----------------------------------------------------------------------===//
// SyncLayout
//===----------------------------------------------------------------------===//

std::string SyncLayout::barrierKey(int64_t rank, ArrayRef<int64_t> tbs) {
  std::string key = std::to_string(rank) + ":";
  for (size_t i = 0; i < tbs.size(); ++i)
    key += (i ? "," : "") + std::to_string(tbs[i]);
  return key;
}

SyncLayout SyncLayout::of(AlgorithmOp algo) {
  SyncLayout l;
  for (auto ch : algo.getBody().getOps<ChannelOp>())
    l.channels.push_back({ch.getSymName().str(), ch.getSrc(), ch.getDst(),
                          ch.getKind() == "port", ch.getCreditOrZero()});
  for (auto sem : algo.getBody().getOps<SemaphoreOp>())
    l.semaphores.push_back({sem.getSymName().str(), sem.getRankAttr().getInt()});
  std::set<std::string> seen;
  algo.walk([&](TbBarrierOp bar) {
    int64_t rank = bar.getRankAttr().getInt();
    if (seen.insert(barrierKey(rank, bar.getTbs())).second)
      l.barriers.push_back(
          {rank, std::vector<int64_t>(bar.getTbs().begin(), bar.getTbs().end())});
  });
  return l;
}

namespace {

/// Everything a pattern needs to know about the kernel it is inside. Read
/// from the enclosing function's arguments and `ccl.*` attributes.
struct KernelEnv {
  Value ctx, input, output, count, epoch;
  int64_t esize = 0, nchunks = 1;
  /// The count scratch is laid out for (the largest message's).
  int64_t slotCount = 1;
  bool ll = false;
  StringRef dtype, redop;
  DictionaryAttr scratch;    // name -> [index, slots]
  DictionaryAttr channels;   // name -> index
  DictionaryAttr semaphores; // name -> index
  DictionaryAttr barriers;   // SyncLayout::barrierKey -> [index, nblocks]
  ArrayAttr padded;          // scratch buffers whose put_packets are padded

  static FailureOr<KernelEnv> get(Operation *op) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!func || !func->hasAttr("ccl.esize"))
      return failure();
    KernelEnv env;
    Block &entry = func.getBody().front();
    env.ctx = entry.getArgument(0);
    env.input = entry.getArgument(1);
    env.output = entry.getArgument(2);
    env.count = entry.getArgument(3);
    for (Operation &op : entry)
      if (auto call = dyn_cast<LLVM::CallOp>(op);
          call && call.getCallee() == "__ccl_begin")
        env.epoch = call.getResult();
    env.esize = func->getAttrOfType<IntegerAttr>("ccl.esize").getInt();
    env.nchunks = func->getAttrOfType<IntegerAttr>("ccl.chunks").getInt();
    env.slotCount = func->getAttrOfType<IntegerAttr>("ccl.slot_count").getInt();
    env.ll = func->hasAttr("ccl.ll");
    env.dtype = func->getAttrOfType<StringAttr>("ccl.dtype").getValue();
    env.redop = func->getAttrOfType<StringAttr>("ccl.redop").getValue();
    env.scratch = func->getAttrOfType<DictionaryAttr>("ccl.scratch");
    env.channels = func->getAttrOfType<DictionaryAttr>("ccl.channels");
    env.semaphores = func->getAttrOfType<DictionaryAttr>("ccl.semaphores");
    env.barriers = func->getAttrOfType<DictionaryAttr>("ccl.barriers");
    env.padded = func->getAttrOfType<ArrayAttr>("ccl.padded");
    return env;
  }

  int64_t channelIndex(StringRef name) const {
    return cast<IntegerAttr>(channels.get(name)).getInt();
  }
  int64_t semaphoreIndex(StringRef name) const {
    return cast<IntegerAttr>(semaphores.get(name)).getInt();
  }
  bool isPadded(StringRef buffer) const {
    return llvm::any_of(padded, [&](Attribute a) {
      return cast<StringAttr>(a).getValue() == buffer;
    });
  }
};

/// Declares (once) and calls a device-library function.
Value callLib(OpBuilder &b, Location loc, Operation *anchor, StringRef name,
              Type result, ValueRange args) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!func) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> argTypes(args.getTypes());
    func = LLVM::LLVMFuncOp::create(
        b, loc, name, LLVM::LLVMFunctionType::get(result, argTypes));
  }
  auto call = LLVM::CallOp::create(b, loc, func, args);
  return call.getNumResults() ? call.getResult() : Value();
}

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Type voidTy(MLIRContext *c) { return LLVM::LLVMVoidType::get(c); }

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
  Value nchunks = i32(b, loc, env.nchunks);
  Value esize = i32(b, loc, env.esize);
  if (ref.isScratch()) {
    auto entry = env.scratch.getAs<ArrayAttr>(ref.getBuffer());
    int64_t bufIndex = cast<IntegerAttr>(entry[0]).getInt();
    int64_t slots = cast<IntegerAttr>(entry[1]).getInt();
    // Slots are laid out for the largest message, not this call's count.
    Value layoutCount = LLVM::ConstantOp::create(
        b, loc, b.getI64Type(), b.getI64IntegerAttr(env.slotCount));
    Value ptr = callLib(
        b, loc, op, "__ccl_scratch_ptr", ptrTy,
        {env.ctx, i32(b, loc, bufIndex), i32(b, loc, ref.getRank()), index,
         i32(b, loc, slots), layoutCount, nchunks, esize, env.epoch,
         i32(b, loc, env.ll ? 1 : 0)});
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
  Value es = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                      b.getI64IntegerAttr(env.esize));
  return LLVM::MulOp::create(b, loc, elems, es);
}

Value flagOf(OpBuilder &b, Location loc, const KernelEnv &env) {
  return LLVM::AddOp::create(b, loc, env.epoch, i32(b, loc, 1));
}

/// The op id the plan maps to a source line (-1, i.e. "out of range", for
/// an operation the scheduler did not number).
int64_t opId(Operation *op) {
  auto id = op->getAttrOfType<IntegerAttr>("op_id");
  return id ? id.getInt() : -1;
}

std::string reduceFn(StringRef prefix, const KernelEnv &env) {
  return (prefix + dtypeSuffix(env.dtype) + "_" + env.redop).str();
}

/// Signals channel `name` (release).
void emitSignal(OpBuilder &b, Location loc, Operation *op,
                const KernelEnv &env, StringRef name) {
  callLib(b, loc, op, "__ccl_signal", voidTy(b.getContext()),
          {env.ctx, i32(b, loc, env.channelIndex(name))});
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
  Value flag = env.ll ? flagOf(b, loc, env) : Value();
  for (auto [d, c] : llvm::zip(dsts, channels)) {
    auto ref = cast<ChunkRefAttr>(d);
    auto fwd = resolve(b, loc, op, env, ref, rank);
    if (failed(fwd))
      return failure();
    if (env.ll) {
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
  if (env.ll || !dsts || dsts.size() != 1)
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
    callLib(b, loc, op, reduceFn("__ccl_read_reduce_", env),
            voidTy(b.getContext()), args);
  }
}

/// Base of every instruction pattern: finds the kernel environment, lets
/// `lower` emit the calls, erases the op.
template <typename OpT>
struct LoweringBase : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  virtual LogicalResult lower(OpT op, OpBuilder &b,
                              const KernelEnv &env) const = 0;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto env = KernelEnv::get(op);
    if (failed(env) || failed(lower(op, rewriter, *env)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

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

struct PutPacketsLowering : public InstructionLowering<PutPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(PutPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    Value n = bytes(b, loc, env, src.elems);
    Value flag = flagOf(b, loc, env);
    callLib(b, loc, op, "__ccl_put_packets", voidTy(getContext()),
            {dst.ptr, src.ptr, n, flag});
    // A copy_packets forwards whole slot ranges of this buffer: fill the
    // rest of the range with this call's (empty) packets.
    if (env.isPadded(op.getDst().getBuffer()))
      callLib(b, loc, op, "__ccl_put_packets_pad", voidTy(getContext()),
              {dst.ptr, n, bytes(b, loc, env, dst.elems), flag});
    // Multi-destination: the same source to every forward destination.
    return failure(failed(emitForwards(b, loc, op, env, src.ptr, src.elems,
                                       /*written=*/false)));
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
    if (!op.getMoreAttr()) {
      auto fwd = singleForward(b, loc, op, env);
      if (failed(fwd))
        return failure();
      if (*fwd) { // reduce and forward in one pass
        callLib(b, loc, op, reduceFn("__ccl_reduce_fwd_", env),
                voidTy(getContext()),
                {dst.ptr, src.ptr, (*fwd)->dst.ptr, elems});
        emitForwardSignal(b, loc, op, env, **fwd);
        return success();
      }
      callLib(b, loc, op, reduceFn("__ccl_reduce_", env), voidTy(getContext()),
              {dst.ptr, src.ptr, elems});
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
    callLib(b, loc, op, reduceFn("__ccl_reduce_packets_", env),
            voidTy(getContext()),
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

struct SignalLowering : public LoweringBase<SignalOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(SignalOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op,
            op.getRelaxed() ? "__ccl_signal_relaxed" : "__ccl_signal",
            voidTy(getContext()),
            {env.ctx, i32(b, loc, env.channelIndex(op.getChannel()))});
    return success();
  }
};

struct WaitLowering : public LoweringBase<WaitOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(WaitOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    // ccl.ordinal: how many waits on the channel the block made before this
    // one in the call (numbered by buildKernel).
    auto ordinal = op->getAttrOfType<IntegerAttr>("ccl.ordinal");
    if (!ordinal)
      return failure();
    callLib(b, loc, op, op.getRelaxed() ? "__ccl_wait_relaxed" : "__ccl_wait",
            voidTy(getContext()),
            {env.ctx, i32(b, loc, env.channelIndex(op.getChannel())),
             i32(b, loc, ordinal.getInt()), i32(b, loc, opId(op))});
    return success();
  }
};

struct ReleaseLowering : public LoweringBase<ReleaseOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(ReleaseOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op, "__ccl_release", voidTy(getContext()),
            {env.ctx, i32(b, loc, env.semaphoreIndex(op.getSemaphore()))});
    return success();
  }
};

struct AcquireLowering : public LoweringBase<AcquireOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(AcquireOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op, "__ccl_acquire", voidTy(getContext()),
            {env.ctx, i32(b, loc, env.semaphoreIndex(op.getSemaphore())),
             i32(b, loc, opId(op))});
    return success();
  }
};

struct TbBarrierLowering : public LoweringBase<TbBarrierOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(TbBarrierOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    auto entry = env.barriers.getAs<ArrayAttr>(
        SyncLayout::barrierKey(op.getRankAttr().getInt(), op.getTbs()));
    if (!entry)
      return failure();
    callLib(b, loc, op, "__ccl_tb_barrier", voidTy(getContext()),
            {env.ctx, i32(b, loc, cast<IntegerAttr>(entry[0]).getInt()),
             i32(b, loc, cast<IntegerAttr>(entry[1]).getInt()),
             i32(b, loc, opId(op))});
    return success();
  }
};

struct BarrierLowering : public OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callLib(rewriter, op.getLoc(), op, "__ccl_barrier",
            LLVM::LLVMVoidType::get(getContext()), {});
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// What the lowering supports
//===----------------------------------------------------------------------===//

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

/// Collects the lowering's errors. An algorithm exists once per rank count,
/// so the same source line would fail once per variant: each (location,
/// message) is reported once.
class Reporter {
public:
  class Msg {
  public:
    Msg(Reporter &r, Operation *op) : r(r), op(op), os(text) {}
    Msg(const Msg &) = delete;
    ~Msg() { r.emit(op, os.str(), note); }
    template <typename T> Msg &operator<<(const T &v) {
      os << v;
      return *this;
    }
    void attachNote(Location loc, std::string text) {
      note = {loc, std::move(text)};
    }

  private:
    Reporter &r;
    Operation *op;
    std::string text;
    llvm::raw_string_ostream os;
    std::optional<std::pair<Location, std::string>> note;
  };
  Msg fail(Operation *op) { return Msg(*this, op); }
  bool ok() const { return clean; }

private:
  void emit(Operation *op, const std::string &msg,
            const std::optional<std::pair<Location, std::string>> &note) {
    clean = false;
    if (!seen.insert({op->getLoc().getAsOpaquePointer(), msg}).second)
      return;
    auto diag = op->emitError(msg);
    if (note)
      diag.attachNote(note->first) << note->second;
  }
  bool clean = true;
  std::set<std::pair<const void *, std::string>> seen;
};

/// Reports, at the operation's source line, what the lowering does not
/// support, and channel ends shared by thread blocks.
void checkLowerable(AlgorithmOp algo, Reporter &rep) {
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
      if (isa<FlushOp>(op)) {
        fail(op) << "flush needs a port channel; port channels are not "
                    "lowered yet";
        continue;
      }
      bool bad = false;
      for (ChannelUse use : channelUses(op)) {
        ChannelOp ch = channels.lookup(StringAttr::get(op->getContext(),
                                                       use.channel));
        if (ch && ch.getKind() == "port") {
          fail(op) << "port channels are not lowered yet (@" << use.channel
                   << " is a port channel)";
          bad = true;
        }
      }
      if (bad)
        continue;
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
        bool touchesScratch = llvm::any_of(op->getAttrs(), [](NamedAttribute a) {
          if (auto r = dyn_cast<ChunkRefAttr>(a.getValue()))
            return r.isScratch();
          if (auto arr = dyn_cast<ArrayAttr>(a.getValue()))
            return llvm::any_of(arr, [](Attribute e) {
              auto r = dyn_cast<ChunkRefAttr>(e);
              return r && r.isScratch();
            });
          return false;
        });
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

/// Number of thread blocks per rank: one more than the largest index used.
int64_t numBlocks(AlgorithmOp algo) {
  int64_t n = 1;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
    n = std::max<int64_t>(n, tb.getTb() + 1);
  return n;
}

/// Builds the kernel skeleton for one (algorithm, dtype, op) and moves a
/// copy of every thread block's operations into its switch case.
/// Builds the kernel of `algo` for one dtype and operator: every rank's
/// thread blocks behind a switch on (rank, block), or with `onlyRank` one
/// rank's (a per-rank kernel, named NAME_rR, switching on the block).
void buildKernel(OpBuilder &b, AlgorithmOp algo, const TargetInfo &target,
                 StringRef dtype, StringRef redop, uint64_t maxBytes,
                 std::optional<int64_t> onlyRank) {
  MLIRContext *ctx = b.getContext();
  Location loc = algo.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  SmallVector<Type> args{ptrTy, ptrTy, ptrTy, b.getI64Type()};
  if (target.blockIdIsParameter())
    args.push_back(b.getI32Type());
  std::string name = kernelName(algo.getSymName(), dtype, redop);
  if (onlyRank)
    name += "_r" + std::to_string(*onlyRank);
  auto func = LLVM::LLVMFuncOp::create(
      b, loc, name, LLVM::LLVMFunctionType::get(voidTy, args));
  target.markKernel(func);
  func->setAttr("ccl.esize", b.getI64IntegerAttr(dtypeSize(dtype)));
  func->setAttr("ccl.chunks", b.getI64IntegerAttr(algo.getChunks()));
  func->setAttr("ccl.slot_count",
                b.getI64IntegerAttr(std::max<uint64_t>(
                    1, maxBytes / std::max(1, dtypeSize(dtype)))));
  func->setAttr("ccl.dtype", b.getStringAttr(dtype));
  func->setAttr("ccl.redop", b.getStringAttr(redop));
  if (algo.isLL())
    func->setAttr("ccl.ll", b.getUnitAttr());
  SmallVector<NamedAttribute> scratch;
  int64_t bufIndex = 0;
  for (auto s : algo.getBody().getOps<ScratchOp>())
    scratch.push_back(b.getNamedAttr(
        s.getSymName(), b.getI64ArrayAttr({bufIndex++, static_cast<int64_t>(s.getSlots())})));
  func->setAttr("ccl.scratch", b.getDictionaryAttr(scratch));
  SyncLayout layout = SyncLayout::of(algo);
  SmallVector<NamedAttribute> chans, sems, bars;
  llvm::StringMap<int64_t> chanIndex;
  for (auto [i, c] : llvm::enumerate(layout.channels)) {
    chans.push_back(b.getNamedAttr(c.name, b.getI64IntegerAttr(i)));
    chanIndex[c.name] = i;
  }
  for (auto [i, s] : llvm::enumerate(layout.semaphores))
    sems.push_back(b.getNamedAttr(s.name, b.getI64IntegerAttr(i)));
  for (auto [i, bar] : llvm::enumerate(layout.barriers))
    bars.push_back(b.getNamedAttr(
        SyncLayout::barrierKey(bar.rank, bar.tbs),
        b.getI64ArrayAttr({(int64_t)i, (int64_t)bar.tbs.size()})));
  func->setAttr("ccl.channels", b.getDictionaryAttr(chans));
  func->setAttr("ccl.semaphores", b.getDictionaryAttr(sems));
  func->setAttr("ccl.barriers", b.getDictionaryAttr(bars));
  // Scratch buffers a copy_packets reads: their put_packets fill whole
  // slot ranges.
  llvm::SetVector<StringRef> padded;
  algo.walk([&](CopyPacketsOp op) { padded.insert(op.getSrc().getBuffer()); });
  SmallVector<Attribute> paddedAttrs;
  for (StringRef name : padded)
    paddedAttrs.push_back(b.getStringAttr(name));
  func->setAttr("ccl.padded", b.getArrayAttr(paddedAttrs));

  OpBuilder::InsertionGuard g(b);
  Block *entry = func.addEntryBlock(b);
  Block *exit = new Block();
  func.getBody().push_back(exit);

  b.setInsertionPointToStart(entry);
  Value block = target.blockIdIsParameter() ? entry->getArgument(4)
                                            : target.emitBlockId(b, loc);
  // The host has no block-index register; spin-wait error records (and the
  // start delay of __ccl_begin) read the index the kernel was called with.
  if (target.blockIdIsParameter())
    callLib(b, loc, func, "__ccl_host_set_block", voidTy, {block});
  Value epoch = callLib(b, loc, func, "__ccl_begin", b.getI32Type(),
                        {entry->getArgument(0)});
  (void)epoch;
  int64_t nblocks = numBlocks(algo);
  Value sel = block;
  if (!onlyRank) { // ctx->rank * nblocks + block
    Value rank = LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                      entry->getArgument(0), /*alignment=*/4);
    sel = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, rank, i32(b, loc, nblocks)),
        block);
  }

  SmallVector<int32_t> caseValues;
  SmallVector<Block *> caseBlocks;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    if (onlyRank && tb.getRank() != *onlyRank)
      continue;
    Block *bb = new Block();
    func.getBody().getBlocks().insert(Region::iterator(exit), bb);
    OpBuilder cb = OpBuilder::atBlockEnd(bb);
    // Waits are numbered per channel: the k-th wait of the block on a
    // channel in this call expects consumed + k + 1 signals; at the end of
    // the case the block's count is added to consumed.
    llvm::MapVector<int64_t, int64_t> waits; // channel -> waits
    for (Operation &op : tb.getBody().front()) {
      Operation *copy = cb.clone(op);
      if (auto w = dyn_cast<WaitOp>(copy)) {
        int64_t &n = waits[chanIndex.lookup(w.getChannel())];
        w->setAttr("ccl.ordinal", cb.getI64IntegerAttr(n++));
      }
    }
    for (auto [chan, n] : waits)
      callLib(cb, loc, func, "__ccl_wait_commit", voidTy,
              {entry->getArgument(0), i32(cb, loc, chan), i32(cb, loc, n)});
    LLVM::BrOp::create(cb, loc, exit);
    caseValues.push_back(static_cast<int32_t>(
        onlyRank ? tb.getTb() : tb.getRank() * nblocks + tb.getTb()));
    caseBlocks.push_back(bb);
  }
  SmallVector<ValueRange> caseOperands(caseBlocks.size(), ValueRange{});
  LLVM::SwitchOp::create(b, loc, sel, exit, ValueRange{}, caseValues,
                         caseBlocks, caseOperands);

  b.setInsertionPointToStart(exit);
  callLib(b, loc, func, "__ccl_end", voidTy, {entry->getArgument(0)});
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

struct CclLowerToLLVMPass
    : public ccl::impl::CclLowerToLLVMBase<CclLowerToLLVMPass> {
  using CclLowerToLLVMBase::CclLowerToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target = createTargetInfo(this->target);
    if (!target) {
      module.emitError("unknown target '") << this->target << "'";
      return signalPassFailure();
    }
    SmallVector<std::string> dts(dtypes.begin(), dtypes.end());
    SmallVector<std::string> ops(redops.begin(), redops.end());
    if (dts.empty())
      dts = {"float32"};
    if (ops.empty())
      ops = {"sum"};
    for (const std::string &d : dts)
      if (!dtypeSize(d)) {
        module.emitError("unknown dtype '") << d << "'";
        return signalPassFailure();
      }
    for (const std::string &o : ops)
      if (o != "sum" && o != "prod" && o != "max" && o != "min") {
        module.emitError("unknown reduction operator '") << o << "'";
        return signalPassFailure();
      }

    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    SmallVector<AlgorithmOp> algos(module.getOps<AlgorithmOp>());
    Reporter rep;
    for (AlgorithmOp algo : algos) {
      if (!algo.getScheduled()) {
        algo.emitError("must be scheduled (--ccl-schedule) before lowering");
        return signalPassFailure();
      }
      checkLowerable(algo, rep);
      splitSlotRanges(algo);
    }
    if (!rep.ok())
      return signalPassFailure();
    // GPU targets get one kernel per rank (each GPU loads only its own
    // blocks' code, and ptxas's time grows much faster than linearly with
    // one kernel's size); the host target, whose kernels are called per
    // block through the plan's function pointers, one for all ranks.
    bool perRank = !target->blockIdIsParameter();
    for (AlgorithmOp algo : algos) {
      for (const std::string &d : dts)
        for (const std::string &o : ops) {
          if (!perRank) {
            buildKernel(b, algo, *target, d, o, maxBytes, std::nullopt);
            continue;
          }
          for (int64_t r = 0; r < algo.getNranks(); ++r)
            buildKernel(b, algo, *target, d, o, maxBytes, r);
        }
    }
    for (AlgorithmOp algo : algos)
      algo.erase();

    ConversionTarget conv(getContext());
    conv.addLegalDialect<LLVM::LLVMDialect>();
    conv.addIllegalDialect<CclDialect>();
    RewritePatternSet patterns(&getContext());
    populateCclToLLVMPatterns(patterns);
    if (failed(applyPartialConversion(module, conv, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void ccl::populateCclToLLVMPatterns(RewritePatternSet &patterns) {
  patterns.add<PutPacketsLowering, CopyLowering, ReducePacketsLowering,
               UnpackPacketsLowering, CopyPacketsLowering, ReduceLowering,
               PutLowering, GetLowering, ReadReduceLowering, SignalLowering,
               WaitLowering, ReleaseLowering, AcquireLowering,
               TbBarrierLowering, BarrierLowering>(patterns.getContext());
}
