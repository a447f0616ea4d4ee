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

#include <optional>

#include "ccl/Dialect/CclDialect.h.inc"

#include "ccl/Dialect/CclEnums.h.inc"

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

//===----------------------------------------------------------------------===//
// What the passes record on operations (the dialect's discardable
// attributes, CclDialect.td)
//===----------------------------------------------------------------------===//

/// `ccl.op_id`: the index of `op` in the plan's table of source locations,
/// given by --ccl-schedule; none before scheduling.
std::optional<int64_t> getOpId(mlir::Operation *op);
void setOpId(mlir::Operation *op, int64_t id);

/// `ccl.dag_id`: the position of `op` in the chunk DAG (--ccl-chunk-dag).
std::optional<int64_t> getDagId(mlir::Operation *op);
void setDagId(mlir::Operation *op, int64_t id);

/// The edges of the chunk DAG into an operation, by kind.
enum class DagEdge {
  ReadAfterWrite,  ///< `ccl.raw`: it reads what they wrote
  WriteAfterRead,  ///< `ccl.war`: it overwrites what they read
  WriteAfterWrite, ///< `ccl.waw`: it overwrites what they wrote
};
constexpr DagEdge kDagEdges[] = {DagEdge::ReadAfterWrite,
                                 DagEdge::WriteAfterRead,
                                 DagEdge::WriteAfterWrite};
/// The dag_ids of the operations `op` depends on by `kind` (empty: none).
llvm::ArrayRef<int64_t> getDagEdges(mlir::Operation *op, DagEdge kind);
/// Records them; an empty list removes the attribute.
void setDagEdges(mlir::Operation *op, DagEdge kind,
                 llvm::ArrayRef<int64_t> ids);
} // namespace ccl

#endif // CCL_DIALECT_CCLDIALECT_H
