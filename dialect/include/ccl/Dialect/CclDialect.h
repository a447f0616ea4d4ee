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
} // namespace ccl

#endif // CCL_DIALECT_CCLDIALECT_H
