//===- VerifyMachine.h - symbolic machine of --ccl-verify --------*- C++ -*-===//
//
// The state and the execution engine that `--ccl-verify` (Verify.cpp) runs
// an algorithm on: every chunk slot holds a multiset of input chunks, every
// (rank, thread block) runs its queue of operations in program order, and
// vector clocks decide which accesses happen before which. See the
// "Verification" section of docs/semantics.md for the rules.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TRANSFORMS_VERIFYMACHINE_H
#define CCL_TRANSFORMS_VERIFYMACHINE_H

#include "ccl/Dialect/CclDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ccl {
namespace verify {

/// One chunk of one buffer on one rank.
struct Loc {
  std::string buffer;
  int64_t rank = 0;
  int64_t chunk = 0;

  bool operator<(const Loc &o) const {
    return std::tie(buffer, rank, chunk) < std::tie(o.buffer, o.rank, o.chunk);
  }
  bool operator==(const Loc &o) const {
    return buffer == o.buffer && rank == o.rank && chunk == o.chunk;
  }
  /// `output[1][0]`: buffer, rank, chunk.
  std::string str() const;
};

/// Chunk `i` of a chunk range.
Loc locOf(ChunkRefAttr ref, int64_t i);

/// A symbolic value: how often each input chunk (rank, chunk) was folded in.
using Value = std::map<std::pair<int64_t, int64_t>, int64_t>;

/// `input[0][0] + 2 x input[1][0]`, or `nothing`.
std::string render(const Value &v);

/// The chunks an operation reads and writes, one entry per chunk (the
/// written chunks of an accumulating operation are also read). A
/// multimem operation touches the chunk on every member of its switch
/// channel. Synchronisation operations touch nothing.
void footprint(mlir::Operation *op, llvm::SmallVectorImpl<Loc> &reads,
               llvm::SmallVectorImpl<Loc> &writes);

/// True for a chunk-level `ccl.copy` / `ccl.reduce`: across ranks, or not
/// placed on a thread block. It carries implicit synchronisation.
bool isChunkLevel(mlir::Operation *op);

/// `line N` of an operation's source location (`line ?` when unknown).
std::string lineOf(mlir::Operation *op);

/// One entry of a thread block's queue: an instruction, or its arrival at a
/// thread-block barrier.
struct Step {
  mlir::Operation *op = nullptr;
  /// Position in global program order (scheduled IR: `op_id`).
  int64_t order = 0;
  /// Index into Program::barriers for a `ccl.tb_barrier`, else -1.
  int barrier = -1;
  bool chunkLevel = false;
  /// Chunk level: the earlier operations (global program order) that touch
  /// one of its chunks, at least one of the two writing.
  std::vector<mlir::Operation *> deps;
};

/// The queue of one (rank, thread block).
struct BlockQueue {
  int64_t rank = 0;
  int64_t tb = 0;
  std::vector<Step> steps;
};

/// One execution of a `ccl.tb_barrier` that the listed blocks join.
struct BarrierInstance {
  mlir::Operation *op = nullptr;
  int64_t rank = 0;
  /// The thread blocks it names.
  std::vector<int64_t> tbs;
  /// Indices into Program::blocks of the blocks whose queue has it.
  std::vector<int> present;
};

/// An algorithm as the machine sees it.
struct Program {
  AlgorithmOp algo;
  /// Blocks sorted by (rank, thread block).
  std::vector<BlockQueue> blocks;
  std::vector<BarrierInstance> barriers;
};

/// Runs `program` symbolically from the `ccl.require` state: checks
/// undefined reads, happens-before (races, data not yet visible, port
/// sources overwritten before a flush), waits that never complete, signals
/// left over and unflushed port puts, then compares the final state with
/// every `ccl.ensure`. Emits the first failure and returns failure.
mlir::LogicalResult runMachine(const Program &program);

} // namespace verify
} // namespace ccl

#endif // CCL_TRANSFORMS_VERIFYMACHINE_H
