//===- Patterns.h - the rewrite patterns of ccl-lower-to-llvm ----*- C++ -*-===//
//
// The patterns that rewrite the ccl ops inside the kernels the kernel
// builder made (KernelBuilder.h) into calls to the device primitive
// library, by group. Each pattern reads the kernel's facts from `envs`,
// which must outlive the conversion.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_PATTERNS_H
#define CCL_CONVERSION_CCLTOLLVM_PATTERNS_H

#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"

#include "mlir/IR/PatternMatch.h"

namespace ccl {

/// put, get, copy, reduce, read_reduce and the LL packet operations
/// (DataMovement.cpp).
void populateDataMovementPatterns(const KernelEnvs &envs,
                                  mlir::RewritePatternSet &patterns);

/// signal, wait, release, acquire, tb_barrier and barrier
/// (Synchronization.cpp).
void populateSynchronizationPatterns(const KernelEnvs &envs,
                                     mlir::RewritePatternSet &patterns);

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_PATTERNS_H
