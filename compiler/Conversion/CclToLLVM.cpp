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
#include "llvm/ADT/StringSwitch.h"

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

namespace {

/// Everything a pattern needs to know about the kernel it is inside. Read
/// from the enclosing function's arguments and `ccl.*` attributes.
struct KernelEnv {
  Value ctx, input, output, count, epoch;
  int64_t esize = 0, nchunks = 1;
  bool ll = false;
  StringRef dtype, redop;
  DictionaryAttr scratch; // name -> [index, slots]

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
    env.epoch = entry.front().getResult(0); // __ccl_begin
    env.esize = func->getAttrOfType<IntegerAttr>("ccl.esize").getInt();
    env.nchunks = func->getAttrOfType<IntegerAttr>("ccl.chunks").getInt();
    env.ll = func->hasAttr("ccl.ll");
    env.dtype = func->getAttrOfType<StringAttr>("ccl.dtype").getValue();
    env.redop = func->getAttrOfType<StringAttr>("ccl.redop").getValue();
    env.scratch = func->getAttrOfType<DictionaryAttr>("ccl.scratch");
    return env;
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

/// Pointer to, and element count of, a chunk range.
struct Resolved {
  Value ptr;
  Value elems; // null for scratch (the slot's element count is the peer's)
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
    Value ptr = callLib(
        b, loc, op, "__ccl_scratch_ptr", ptrTy,
        {env.ctx, i32(b, loc, bufIndex), i32(b, loc, ref.getRank()), index,
         i32(b, loc, slots), env.count, nchunks, esize, env.epoch,
         i32(b, loc, env.ll ? 1 : 0)});
    return Resolved{ptr, nullptr};
  }
  if (ref.getRank() != execRank)
    return op->emitOpError("accesses ")
           << ref.str() << " of another rank directly; only scratch buffers "
           << "are reachable from peers in this version";
  Value base = ref.isInput() ? env.input : env.output;
  Value ptr = callLib(b, loc, op, "__ccl_chunk_ptr", ptrTy,
                      {base, env.count, esize, index, nchunks});
  Value elems = callLib(b, loc, op, "__ccl_chunk_elems", b.getI64Type(),
                        {env.count, index, i32(b, loc, ref.getCount()), nchunks});
  return Resolved{ptr, elems};
}

Value bytes(OpBuilder &b, Location loc, const KernelEnv &env, Value elems) {
  Value es = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                      b.getI64IntegerAttr(env.esize));
  return LLVM::MulOp::create(b, loc, elems, es);
}

Value flagOf(OpBuilder &b, Location loc, const KernelEnv &env) {
  return LLVM::AddOp::create(b, loc, env.epoch, i32(b, loc, 1));
}

int64_t opId(Operation *op) {
  auto id = op->getAttrOfType<IntegerAttr>("op_id");
  return id ? id.getInt() : -1;
}

/// Shared part of the instruction patterns: the kernel environment and both
/// chunk ranges resolved to pointers; `emit` adds the library call.
template <typename OpT>
struct InstructionLowering : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  virtual LogicalResult emit(OpT op, OpBuilder &b, const KernelEnv &env,
                             const Resolved &dst, const Resolved &src) const = 0;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto env = KernelEnv::get(op);
    if (failed(env))
      return failure();
    Location loc = op.getLoc();
    auto dst = resolve(rewriter, loc, op, *env, op.getDst(), op.getExecRank());
    auto src = resolve(rewriter, loc, op, *env, op.getSrc(), op.getExecRank());
    if (failed(dst) || failed(src) || failed(emit(op, rewriter, *env, *dst, *src)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct PutPacketsLowering : public InstructionLowering<PutPacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(PutPacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    callLib(b, loc, op, "__ccl_put_packets", LLVM::LLVMVoidType::get(getContext()),
            {dst.ptr, src.ptr, bytes(b, loc, env, src.elems), flagOf(b, loc, env)});
    return success();
  }
};

struct CopyLowering : public InstructionLowering<CopyOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(CopyOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    if (op.getSrc().isScratch() && op.getDst().isScratch())
      return op.emitOpError("copy between two scratch buffers is not "
                            "implemented yet");
    if (env.ll && (op.getSrc().isScratch() || op.getDst().isScratch()))
      return op.emitOpError("plain copy to or from a packet buffer; use "
                            "put_packets or an unpack");
    Location loc = op.getLoc();
    Value elems = src.elems ? src.elems : dst.elems;
    callLib(b, loc, op, "__ccl_copy", LLVM::LLVMVoidType::get(getContext()),
            {dst.ptr, src.ptr, bytes(b, loc, env, elems)});
    return success();
  }
};

struct ReducePacketsLowering : public InstructionLowering<ReducePacketsOp> {
  using InstructionLowering::InstructionLowering;
  LogicalResult emit(ReducePacketsOp op, OpBuilder &b, const KernelEnv &env,
                     const Resolved &dst, const Resolved &src) const override {
    Location loc = op.getLoc();
    std::string fn = ("__ccl_reduce_packets_" + dtypeSuffix(env.dtype) + "_" +
                      env.redop).str();
    callLib(b, loc, op, fn, LLVM::LLVMVoidType::get(getContext()),
            {env.ctx, dst.ptr, src.ptr, dst.elems, flagOf(b, loc, env),
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

/// Number of thread blocks per rank: one more than the largest index used.
int64_t numBlocks(AlgorithmOp algo) {
  int64_t n = 1;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
    n = std::max<int64_t>(n, tb.getTb() + 1);
  return n;
}

/// Builds the kernel skeleton for one (algorithm, dtype, op) and moves a
/// copy of every thread block's operations into its switch case.
void buildKernel(OpBuilder &b, AlgorithmOp algo, const TargetInfo &target,
                 StringRef dtype, StringRef redop) {
  MLIRContext *ctx = b.getContext();
  Location loc = algo.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  SmallVector<Type> args{ptrTy, ptrTy, ptrTy, b.getI64Type()};
  if (target.blockIdIsParameter())
    args.push_back(b.getI32Type());
  auto func = LLVM::LLVMFuncOp::create(
      b, loc, kernelName(algo.getSymName(), dtype, redop),
      LLVM::LLVMFunctionType::get(voidTy, args));
  target.markKernel(func);
  func->setAttr("ccl.esize", b.getI64IntegerAttr(dtypeSize(dtype)));
  func->setAttr("ccl.chunks", b.getI64IntegerAttr(algo.getChunks()));
  func->setAttr("ccl.dtype", b.getStringAttr(dtype));
  func->setAttr("ccl.redop", b.getStringAttr(redop));
  if (algo.isLL())
    func->setAttr("ccl.ll", b.getUnitAttr());
  SmallVector<NamedAttribute> scratch;
  int64_t bufIndex = 0;
  for (auto s : algo.getBody().getOps<ScratchOp>())
    scratch.push_back(b.getNamedAttr(
        s.getSymName(), b.getI64ArrayAttr({bufIndex++, s.getSlots()})));
  func->setAttr("ccl.scratch", b.getDictionaryAttr(scratch));

  OpBuilder::InsertionGuard g(b);
  Block *entry = func.addEntryBlock(b);
  Block *exit = new Block();
  func.getBody().push_back(exit);

  b.setInsertionPointToStart(entry);
  Value epoch = callLib(b, loc, func, "__ccl_begin", b.getI32Type(),
                        {entry->getArgument(0)});
  (void)epoch;
  Value rank = LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                    entry->getArgument(0), /*alignment=*/4);
  Value block = target.blockIdIsParameter() ? entry->getArgument(4)
                                            : target.emitBlockId(b, loc);
  // The host has no block-index register; spin-wait error records read the
  // index the kernel was called with.
  if (target.blockIdIsParameter())
    callLib(b, loc, func, "__ccl_host_set_block", voidTy, {block});
  int64_t nblocks = numBlocks(algo);
  Value sel = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, rank, i32(b, loc, nblocks)), block);

  SmallVector<int32_t> caseValues;
  SmallVector<Block *> caseBlocks;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    Block *bb = new Block();
    func.getBody().getBlocks().insert(Region::iterator(exit), bb);
    OpBuilder cb = OpBuilder::atBlockEnd(bb);
    for (Operation &op : tb.getBody().front())
      cb.clone(op);
    LLVM::BrOp::create(cb, loc, exit);
    caseValues.push_back(static_cast<int32_t>(tb.getRank() * nblocks + tb.getTb()));
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
    for (AlgorithmOp algo : algos) {
      if (!algo.getScheduled()) {
        algo.emitError("must be scheduled (--ccl-schedule) before lowering");
        return signalPassFailure();
      }
      for (const std::string &d : dts)
        for (const std::string &o : ops)
          buildKernel(b, algo, *target, d, o);
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
               BarrierLowering>(patterns.getContext());
}
