//===- Lowering.h - what the pieces of ccl-lower-to-llvm share ---*- C++ -*-===//
//
// Helpers shared by the kernel builder and the patterns of
// --ccl-lower-to-llvm: calls into the device primitive library, constants,
// the op id an operation reports errors with, and the base class of the
// patterns, which finds the environment of the kernel an op is in.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_LOWERING_H
#define CCL_CONVERSION_CCLTOLLVM_LOWERING_H

#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"

#include "mlir/Transforms/DialectConversion.h"

namespace ccl {

/// Declares (once, at the start of the module that holds `anchor`) and
/// calls the device-library function `name`; returns its result, if any.
mlir::Value callLib(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Operation *anchor, llvm::StringRef name,
                    mlir::Type result, mlir::ValueRange args);

/// An i32 constant.
mlir::Value i32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

mlir::Type voidTy(mlir::MLIRContext *c);

/// The op id the plan maps to a source line (-1, i.e. "out of range", for
/// an operation the scheduler did not number).
int64_t opId(mlir::Operation *op);

/// Signals channel `name` (release; `relaxed`: the signal only counts).
void emitSignal(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                const KernelEnv &env, llvm::StringRef name,
                bool relaxed = false);

/// Base of the patterns that rewrite one ccl op of a kernel: finds the
/// kernel's environment, lets `lower` emit the calls, erases the op. Does
/// not match an op outside a kernel built by buildKernels.
template <typename OpT>
class LoweringBase : public mlir::OpConversionPattern<OpT> {
public:
  LoweringBase(const KernelEnvs &envs, mlir::MLIRContext *ctx)
      : mlir::OpConversionPattern<OpT>(ctx), envs(envs) {}

  virtual mlir::LogicalResult lower(OpT op, mlir::OpBuilder &b,
                                    const KernelEnv &env) const = 0;

  mlir::LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    const KernelEnv *env = envs.lookup(op);
    if (!env || mlir::failed(lower(op, rewriter, *env)))
      return mlir::failure();
    rewriter.eraseOp(op);
    return mlir::success();
  }

private:
  const KernelEnvs &envs;
};

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_LOWERING_H
