//===- VerifyMachine.h - symbolic machine of --ccl-verify --------*- C++ -*-===//
//
// The state and the execution engine that `--ccl-verify` (Verify.cpp) runs
// an algorithm on: every chunk slot holds a multiset of input chunks, every
// (rank, thread block) runs its queue of operations in program order, and
// vector clocks decide which accesses happen before which. The machine runs
// several consecutive calls of the algorithm back to back, the way a
// training loop or a CUDA graph issues them: a rank starts call k+1 as soon
// as its own thread blocks have finished call k, whatever its peers are
// doing. See the "Verification" and "Sequences of calls" sections of
// docs/semantics.md for the rules.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TRANSFORMS_VERIFYMACHINE_H
#define CCL_TRANSFORMS_VERIFYMACHINE_H

#include "ccl/Dialect/CclDialect.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
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

/// One input chunk of one call: `input[rank][chunk]` as the caller passed it
/// to call `call` (0-based).
struct Term {
  int call = 0;
  int64_t rank = 0;
  int64_t chunk = 0;
  bool operator<(const Term &o) const {
    return std::tie(call, rank, chunk) < std::tie(o.call, o.rank, o.chunk);
  }
  bool operator==(const Term &o) const {
    return call == o.call && rank == o.rank && chunk == o.chunk;
  }
};

/// A symbolic value: how often each input chunk was folded in, and the
/// reduction expression that computed it (`expr`, an index into the
/// machine's interned expressions; -1 when none was tracked), which says
/// in which order and association (docs/semantics.md, "Rank-consistent
/// results").
struct Value : std::map<Term, int64_t> {
  using std::map<Term, int64_t>::map;
  int32_t expr = -1;
};

/// How `input` or `output` of an algorithm is laid out for a call of
/// `count` elements (docs/runtime.md, "In place and out of place"): `mult *
/// count` elements in `chunks` chunks, chunk i starting at element
/// floor(i * mult * count / chunks). Scratch buffers have no grid (a slot
/// holds the largest chunk): chunks == 0.
struct ChunkGrid {
  int64_t mult = 0, chunks = 0;
  /// mult / chunks in lowest terms: a chunk grows by num elements per den
  /// elements of count.
  int64_t num = 0, den = 1;
  explicit operator bool() const { return chunks > 0; }
};
ChunkGrid gridOf(AlgorithmOp algo, llvm::StringRef buffer);

/// A count at which chunk `i` of `a` and chunk `j` of `b` hold different
/// numbers of elements, if there is one (exact: the sizes repeat with the
/// grids' period).
std::optional<int64_t> sizesDiffer(ChunkGrid a, int64_t i, ChunkGrid b,
                                   int64_t j);

/// Elements of chunk `i` of `g` at `count`.
int64_t chunkSize(ChunkGrid g, int64_t i, int64_t count);

/// `input[0][0] + 2 x input[1][0]`, or `nothing`. Terms of a call other
/// than `call` say which call they come from (`input[0][0] of call 1`).
std::string render(const Value &v, int call = 0);

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

/// An algorithm as the machine sees it: the queues of one call.
struct Program {
  AlgorithmOp algo;
  /// Blocks sorted by (rank, thread block).
  std::vector<BlockQueue> blocks;
  std::vector<BarrierInstance> barriers;
};

/// The queues of one call of `algo`: global program order at the global
/// level, the `ccl.thread_block` regions of a scheduled algorithm.
mlir::LogicalResult buildProgram(AlgorithmOp algo, Program &program);

/// How many consecutive calls prove `program` for any number of calls: one
/// more than the number of calls after which a location is reused (LL
/// scratch alternates between two copies, so 3; everything else 2), and
/// at least one more than the calls a credited channel looks back.
int callsToModel(const Program &program);

/// Runs `calls` consecutive calls of `program` symbolically (0: as many as
/// callsToModel says). Each rank's calls run back to back: its next call
/// starts when all its thread blocks finished the previous one (and the
/// puts they issued landed), with nothing waiting for the other ranks.
/// Checks undefined reads, happens-before within and across calls (races,
/// data not yet visible, port sources overwritten before a flush, a slot
/// reused by a later call before an earlier call is done with it, results
/// still being written when a rank's call returns), waits that never
/// complete, per-call balance of signals and semaphores, unflushed port
/// puts, and every `ccl.ensure` at the end of every call on its rank.
/// Emits the first failure and returns failure.
mlir::LogicalResult runMachine(const Program &program, int calls = 0);

/// What one call orders, for reasoning about consecutive calls without
/// running them: for every operation, which ranks' starts of the call
/// happen before it, and which ranks' ends of the call it happens before.
/// Calls are connected only through those boundaries (a rank starts its
/// next call when its own blocks are done), so these decide whether an
/// operation of one call happens before an operation some calls later.
struct CallOrder {
  /// True when `first` of call e happens before `second` of call
  /// e + `distance` (distance >= 1), for every e.
  bool ordered(mlir::Operation *first, mlir::Operation *second,
               int distance) const;

  struct Event {
    size_t thread = 0;
    uint32_t clock = 0;
    /// Ranks whose call start happens before the operation.
    llvm::BitVector starts;
  };
  int64_t nranks = 0;
  /// Thread of rank r's call boundary.
  std::vector<size_t> startThread;
  /// Clock of the end of rank r's call: its blocks and their deliveries.
  std::vector<std::vector<uint32_t>> ends;
  /// The last event of every operation on its thread block.
  llvm::DenseMap<mlir::Operation *, Event> events;
};

/// Runs one call of `program` without emitting diagnostics and returns
/// what it orders; none when the call itself fails verification.
std::optional<CallOrder> analyzeCallOrder(const Program &program);

} // namespace verify
} // namespace ccl

#endif // CCL_TRANSFORMS_VERIFYMACHINE_H
