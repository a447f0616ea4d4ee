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

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>

#include "ccl/Dialect/CclDialect.h.inc"

#include "ccl/Dialect/CclEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ccl/Dialect/CclAttrs.h.inc"

#include "ccl/Dialect/CclInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ccl/Dialect/CclOps.h.inc"

namespace ccl {
/// The most tiles per chunk, from the program's `tiles(k)` clause and
/// `cclc --tiles` together: tiles are unrolled in the block programs, so the
/// operations to verify and compile grow with them (the ring at 8 ranks:
/// 21 s with 64 tiles, over 200 s and 4 GB with 256).
constexpr int64_t kMaxTiles = 64;

/// The algorithm that encloses `op` (null if none).
AlgorithmOp getEnclosingAlgorithm(mlir::Operation *op);

/// A scratch, channel, switch channel or semaphore declaration.
bool isDeclarationOp(mlir::Operation &op);

/// While one lives, AlgorithmOp::lookupDeclaration of its algorithm is a
/// hash lookup instead of a scan of the declarations (an algorithm at 64
/// ranks declares thousands of channels, and every wait, flush and channel
/// check looks one up). Built once from the declarations. Declarations
/// added while it lives must be inserted where AlgorithmOp::declarationSlot
/// said (every creator does): the index takes them in from there at the
/// next lookup of a name it lacks, and a name that is not declared costs no
/// scan (LowerChunks probes thousands of names before it adds a channel).
/// Declarations must not be erased or renamed while one lives for their
/// algorithm. Indices nest and are per thread.
class DeclarationIndex {
public:
  explicit DeclarationIndex(AlgorithmOp algo);
  ~DeclarationIndex();
  DeclarationIndex(const DeclarationIndex &) = delete;
  DeclarationIndex &operator=(const DeclarationIndex &) = delete;

  /// The index in force for `algo` on this thread, or null.
  static DeclarationIndex *active(mlir::Operation *algo);
  mlir::Operation *lookup(llvm::StringRef name);

  /// The verifier of an algorithm installs an index on entry (before its
  /// operations are verified) and drops it on exit; a new index or a new
  /// algorithm's verification replaces one left behind by a failure.
  static void beginVerification(AlgorithmOp algo);
  static void endVerification();

  /// AlgorithmOp::declarationSlot: the last declaration of the kinds up to
  /// `kind` (an AlgorithmOp::Decl) it found, or null.
  mlir::Operation *slotHint(unsigned kind) const {
    return kind < kDeclKinds ? hints[kind] : nullptr;
  }
  void setSlotHint(unsigned kind, mlir::Operation *op) {
    if (kind < kDeclKinds)
      hints[kind] = op;
  }
  /// AlgorithmOp::declarationSlot: a declaration may be added right after
  /// `anchor` (null: at the start of the body).
  void expectAfter(mlir::Operation *anchor);

private:
  /// AlgorithmOp::Decl's values, `All` included.
  static constexpr unsigned kDeclKinds =
      static_cast<unsigned>(AlgorithmOp::Decl::All) + 1;
  mlir::Operation *hints[kDeclKinds] = {};
  mlir::Operation *algo;
  llvm::StringMap<mlir::Operation *> byName;
  /// Where declarations may have been added since the last lookup.
  llvm::SmallVector<mlir::Operation *, 2> anchors;
  DeclarationIndex *outer = nullptr;
};

/// The channels `op` signals, each once, in the order it signals them: a
/// `ccl.signal`'s channel; a put with `signal`: its own channel, then its
/// forward channels; a fused Simple operation with `fwd_signal`: its
/// forward channels. LL forwards (put_packets, reduce_packets) carry their
/// flags and signal nothing. The verifier, the tiling and the code
/// generator all count signals with this.
llvm::SmallVector<llvm::StringRef> signalledChannels(mlir::Operation *op);

/// Removes the synchronisation fused into `op` (a put's signal and flush,
/// a forward's signal: signalledChannels): an operation split into pieces
/// (a range of chunks cut by tiles, a range of scratch slots) keeps it on
/// its last piece only, so the pieces signal as often as the operation.
void dropFusedSync(mlir::Operation *op);

/// An LL packet read (reduce_packets, unpack_packets, copy_packets): it
/// waits for each packet's flag, whichever thread or rank wrote it.
bool readsPackets(mlir::Operation *op);

/// A write of LL packets into the executing rank's own scratch
/// (pack_packets, copy_packets). A packet read of them on the same thread
/// block needs no ccl.barrier: the flags order it.
bool writesOwnPackets(mlir::Operation *op);

/// Calls `fn` for each attribute of `op`: its inherent attributes in the
/// operation's own order, read from its properties one by one (an absent
/// one is passed as a null attribute), then its discardable ones. Unlike
/// Operation::getAttrs it builds no dictionary attribute, which the context
/// would keep for good: the passes that read every operation's attributes
/// use this.
void forEachAttr(mlir::Operation *op,
                 llvm::function_ref<void(mlir::StringAttr, mlir::Attribute)> fn);

/// Calls `fn` for each chunk reference among `op`'s attributes, alone or in
/// an array attribute.
void forEachChunkRef(mlir::Operation *op,
                     llvm::function_ref<void(ChunkRefAttr)> fn);

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
