//===- CclDialect.h - the ccl dialect ----------------------------*- C++ -*-===//
#ifndef CCL_DIALECT_CCLDIALECT_H
#define CCL_DIALECT_CCLDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "ccl/Dialect/CclDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ccl/Dialect/CclAttrs.h.inc"

#include "ccl/Dialect/CclInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ccl/Dialect/CclOps.h.inc"

namespace ccl {
/// The algorithm that encloses `op` (null if none).
AlgorithmOp getEnclosingAlgorithm(mlir::Operation *op);

/// The channels `op` signals, each once, in the order it signals them: a
/// `ccl.signal`'s channel; a put with `signal`: its own channel, then its
/// forward channels; a fused Simple operation with `fwd_signal`: its
/// forward channels. LL forwards (put_packets, reduce_packets) carry their
/// flags and signal nothing. The verifier, the tiling and the code
/// generator all count signals with this.
llvm::SmallVector<llvm::StringRef> signalledChannels(mlir::Operation *op);
} // namespace ccl

#endif // CCL_DIALECT_CCLDIALECT_H
