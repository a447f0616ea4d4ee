//===- Lowering.cpp - what the pieces of ccl-lower-to-llvm share ----------===//

#include "compiler/Conversion/CclToLLVM/Lowering.h"

using namespace mlir;

namespace ccl {

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

int64_t opId(Operation *op) {
  return getOpId(op).value_or(-1);
}

void emitSignal(OpBuilder &b, Location loc, Operation *op, const KernelEnv &env,
                StringRef name, bool relaxed) {
  callLib(b, loc, op, relaxed ? "__ccl_signal_relaxed" : "__ccl_signal",
          voidTy(b.getContext()), {env.ctx, i32(b, loc, env.channelIndex(name))});
}

} // namespace ccl
