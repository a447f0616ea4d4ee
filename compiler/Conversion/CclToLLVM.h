//===- CclToLLVM.h - kernel-level ccl to the LLVM dialect --------*- C++ -*-===//
#ifndef CCL_CONVERSION_CCLTOLLVM_H
#define CCL_CONVERSION_CCLTOLLVM_H

#include "compiler/Target/TargetInfo.h"

#include "mlir/IR/PatternMatch.h"

#include <string>

namespace ccl {

/// Patterns that rewrite instruction ops (inside a kernel built by
/// --ccl-lower-to-llvm) into calls to the device primitive library.
void populateCclToLLVMPatterns(mlir::RewritePatternSet &patterns);

/// Bytes per element of `dtype` ("float32", ...), 0 if unknown.
int dtypeSize(llvm::StringRef dtype);
/// "f32", "f16", "bf16".
llvm::StringRef dtypeSuffix(llvm::StringRef dtype);
/// Name of the kernel for an algorithm symbol (`<name>_n<N>`), dtype and op.
std::string kernelName(llvm::StringRef algoSymbol, llvm::StringRef dtype,
                       llvm::StringRef redop);

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_H
