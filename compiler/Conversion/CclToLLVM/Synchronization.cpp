//===- Synchronization.cpp - ccl synchronisation ops to library calls -----===//
//
// Patterns of --ccl-lower-to-llvm for the operations that order thread
// blocks and ranks: signal and wait on channels (and, over port channels,
// the proxy's signal and flush), release and acquire of
// semaphores, multi-block and block barriers. Channels, semaphores and
// multi-block barriers become their indices in the plan's tables (the
// kernel environment's).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM/Lowering.h"
#include "compiler/Conversion/CclToLLVM/Patterns.h"

using namespace mlir;
using namespace ccl;

namespace {

/// FN(ctx, channel index, op id): a request to the proxy (signal, flush).
void emitPortCall(OpBuilder &b, Operation *op, const KernelEnv &env,
                  StringRef fn, StringRef channel) {
  Location loc = op->getLoc();
  callLib(b, loc, op, fn, voidTy(b.getContext()),
          {env.ctx, i32(b, loc, env.channelIndex(channel)),
           i32(b, loc, opId(op))});
}

struct SignalLowering : public LoweringBase<SignalOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(SignalOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    if (env.isPort(op.getChannel())) {
      emitPortCall(b, op, env, "__ccl_port_signal", op.getChannel());
      return success();
    }
    emitSignal(b, op.getLoc(), op, env, op.getChannel(), op.getRelaxed());
    return success();
  }
};

/// Over a port channel only (Legality): waits for the proxy.
struct FlushLowering : public LoweringBase<FlushOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(FlushOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    emitPortCall(b, op, env, "__ccl_port_flush", op.getChannel());
    return success();
  }
};

struct WaitLowering : public LoweringBase<WaitOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(WaitOp op, OpBuilder &b,
                      const KernelEnv &env) const override {
    Location loc = op.getLoc();
    // How many waits on the channel the block made before this one in the
    // call (numbered by the kernel builder).
    auto ordinal = env.waitOrdinals.find(op);
    if (ordinal == env.waitOrdinals.end())
      return failure();
    callLib(b, loc, op, op.getRelaxed() ? "__ccl_wait_relaxed" : "__ccl_wait",
            voidTy(getContext()),
            {env.ctx, i32(b, loc, env.channelIndex(op.getChannel())),
             i32(b, loc, ordinal->second), i32(b, loc, opId(op))});
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
    const AlgorithmTables::Barrier *bar =
        env.barrier(op.getRankAttr().getInt(), op.getTbs());
    if (!bar)
      return failure();
    callLib(b, loc, op, "__ccl_tb_barrier", voidTy(getContext()),
            {env.ctx, i32(b, loc, bar->index), i32(b, loc, bar->nblocks),
             i32(b, loc, opId(op))});
    return success();
  }
};

struct BarrierLowering : public LoweringBase<BarrierOp> {
  using LoweringBase::LoweringBase;
  LogicalResult lower(BarrierOp op, OpBuilder &b,
                      const KernelEnv &) const override {
    callLib(b, op.getLoc(), op, "__ccl_barrier", voidTy(getContext()), {});
    return success();
  }
};

} // namespace

void ccl::populateSynchronizationPatterns(const KernelEnvs &envs,
                                          RewritePatternSet &patterns) {
  patterns.add<SignalLowering, WaitLowering, FlushLowering, ReleaseLowering,
               AcquireLowering, TbBarrierLowering, BarrierLowering>(envs,
                                                   patterns.getContext());
}
