//===- LowerChunksLanes.h - thread blocks of unplaced chunk ops -*- C++ -*-===//
//
// Internal to ccl-lower-chunks (LowerChunks.cpp, LowerChunksLanes.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TRANSFORMS_LOWERCHUNKSLANES_H
#define CCL_TRANSFORMS_LOWERCHUNKSLANES_H

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <map>

namespace ccl {
namespace lower_chunks {

/// Whether `reduce dst from src` may read `base` instead of dst (a local
/// copy dst = base folded in, ccl-fuse): not when src is, in place, dst
/// (the reduce would read the copy's result), nor when base partly
/// overlaps dst in place.
bool canFoldBase(AlgorithmOp algo, ChunkRefAttr dst, ChunkRefAttr src,
                 ChunkRefAttr base);

/// True when the chunk DAG (--ccl-chunk-dag) numbered every operation.
bool hasDag(llvm::ArrayRef<mlir::Operation *> ops);

/// Calls `fn` with the dag_id of every operation `op` depends on.
void forEachDagDep(mlir::Operation *op, llvm::function_ref<void(int64_t)> fn);

/// Splits the unplaced copies and reduces into lanes: operations that
/// touch a common chunk (transitively) share a lane, operations of
/// different lanes are independent (their order is that of the chunks
/// they touch, docs/semantics.md rule 9). Each lane gets its own thread
/// block (modulo maxBlocks) after the blocks the program placed itself.
/// Any other unplaced operation (a signal, wait, put, acquire, ... without
/// `tb`) orders what follows it on its block, not only what touches its
/// chunks: it stays on block 0, where the verifier of the global level
/// runs it, in program order. The blocks go to `block`. Returns the
/// number of lanes.
int64_t assignLanes(AlgorithmOp algo, llvm::ArrayRef<mlir::Operation *> ops,
                    int64_t maxBlocks,
                    std::map<mlir::Operation *, int64_t> &block);

/// When several lanes share a thread block (more lanes than max-blocks),
/// program order would run one lane's whole chain before the next lane
/// starts on that block. Instead, order the operations by priority:
/// depth in the chunk DAG (longest chain of dependencies before the
/// operation), then reverse depth (longest chain after it, the critical
/// path first), then program order. Every dependency goes from a smaller
/// depth to a larger one, so this is a valid program order with the same
/// meaning; the transfers are lowered in it, so every wait still follows
/// its send and the result is deadlock free. `ops` are the unplaced
/// operations, numbered by the chunk DAG; only a program made of them
/// alone, contiguous, is reordered.
void orderByPriority(AlgorithmOp algo, llvm::ArrayRef<mlir::Operation *> ops);

} // namespace lower_chunks
} // namespace ccl

#endif // CCL_TRANSFORMS_LOWERCHUNKSLANES_H
