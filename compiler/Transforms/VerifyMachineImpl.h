//===- VerifyMachineImpl.h - the machine's state (private) -------*- C++ -*-===//
//
// The symbolic machine of --ccl-verify, shared by VerifyMachine.cpp (state,
// operations, scheduling, call boundaries) and VerifyReport.cpp (the
// diagnostics). Not part of the pass's interface: see VerifyMachine.h.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TRANSFORMS_VERIFYMACHINEIMPL_H
#define CCL_TRANSFORMS_VERIFYMACHINEIMPL_H

#include "compiler/Transforms/VerifyMachine.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <deque>
#include <map>
#include <optional>
#include <set>

namespace ccl {
namespace verify {
namespace detail {

/// A vector clock: one component per thread of the machine.
class VClock {
public:
  uint32_t get(size_t i) const { return i < c.size() ? c[i] : 0; }
  void tick(size_t i) {
    if (i >= c.size())
      c.resize(i + 1, 0);
    ++c[i];
  }
  /// Component i becomes at least v.
  void raise(size_t i, uint32_t v) {
    if (i >= c.size())
      c.resize(i + 1, 0);
    c[i] = std::max(c[i], v);
  }
  void join(const VClock &o) {
    if (o.c.size() > c.size())
      c.resize(o.c.size(), 0);
    for (size_t i = 0; i < o.c.size(); ++i)
      c[i] = std::max(c[i], o.c[i]);
  }
  const std::vector<uint32_t> &raw() const { return c; }

private:
  std::vector<uint32_t> c;
};

/// One access to a chunk, stamped with the epoch (thread, clock) of the event
/// that made it.
struct Access {
  mlir::Operation *op = nullptr;
  size_t thread = 0;
  uint32_t clock = 0;
  /// The thread block that issued it (index into Program::blocks); -1 for
  /// the caller at a call boundary.
  int block = -1;
  /// The rank of the caller (block -1).
  int64_t callerRank = 0;
  /// The call (0-based) it belongs to.
  int call = 0;
  /// The remote write of a put or a multimem broadcast.
  bool delivery = false;
  /// The source read of a port-channel put that no flush completed yet.
  bool pendingPort = false;
  /// The channel of a pending port read.
  unsigned channel = 0;
};

struct Slot {
  /// The chunk, for messages.
  Loc loc;
  /// LL scratch: which of the two copies (call parity); -1 otherwise.
  int half = -1;
  bool defined = false;
  Value value;
  /// The last write; none while the slot holds its initial contents.
  std::optional<Access> lastWrite;
  /// Reads since the last write.
  std::vector<Access> reads;
  /// LL packets: who wrote them, in which call, and the writer's clock.
  mlir::Operation *packetWriter = nullptr;
  int packetCall = -1;
  VClock packetClock;
};

struct ChannelState {
  std::string name;
  /// Signals before the first call (ccl.channel ... credit n).
  int64_t credit = 0;
  /// Per signal issued so far (over all calls): the released clock (none
  /// when relaxed), the operation and its call.
  std::vector<std::optional<VClock>> signals;
  std::vector<std::pair<mlir::Operation *, int>> signalOps;
  size_t waits = 0;
};

struct SemaphoreState {
  std::string name;
  std::vector<VClock> releases;
  std::vector<int> releaseCalls;
  size_t acquires = 0;
};

/// Reduction expressions (docs/semantics.md, "Rank-consistent results"),
/// interned: a leaf is one input chunk of one call, an inner node one
/// rounded step of the operator on two expressions. The operands of a node
/// are unordered (the operators are commutative), so two nodes over the
/// same operands in either order are one node; association matters. An
/// opaque node is an evaluation whose order nobody knows (a multimem
/// reduce, done by the switch): equal only to itself.
class Exprs {
public:
  int32_t leaf(const Term &t);
  /// One step `a op b` (the operand order as the operation had it, for
  /// messages); -1 when either is unknown.
  int32_t combine(int32_t a, int32_t b, mlir::Operation *op);
  int32_t opaque(mlir::Operation *op, const Value &terms);
  /// `(input[0][0] + input[1][0]) + input[2][0]`; terms of calls other than
  /// `call` say which call they come from.
  std::string render(int32_t e, int call) const;
  /// `e` with every leaf's chunk erased (`((x0 + x1) + x2)`, operands in a
  /// canonical order): the shape over the ranks, equal for two chunks
  /// exactly when their elements are computed alike.
  std::string shape(int32_t e) const;
  /// The inner nodes of `e`, operands before the node (post-order).
  void innerNodes(int32_t e, std::vector<int32_t> &out) const;
  /// The operation that first formed inner node `e`.
  mlir::Operation *opOf(int32_t e) const { return nodes[e].op; }

private:
  struct Node {
    int32_t a = -1, b = -1;
    Term leaf;
    mlir::Operation *op = nullptr;
    bool opaque = false;
    Value terms; ///< opaque nodes: what they reduce
  };
  std::vector<Node> nodes;
  std::map<Term, int32_t> leaves;
  std::map<std::pair<int32_t, int32_t>, int32_t> pairs;
};

/// `ref` on every member of switch channel `sym` (just `ref` when `sym` is
/// not a switch channel).
void addOnMembers(mlir::Operation *op, mlir::FlatSymbolRefAttr sym,
                  ChunkRefAttr ref, llvm::SmallVectorImpl<Loc> &out);

/// What a parked block (or rank boundary) waits for.
enum class WaitOn : uint8_t { Signal, Semaphore, Packets, Op, Barrier, Boundary };

class Machine {
public:
  Machine(const Program &p, int calls, CallOrder *analysis);
  mlir::LogicalResult run();

private:
  friend struct Report;

  // Structure and interning.
  unsigned opIndex(mlir::Operation *op) const { return opIds.lookup(op); }
  size_t instance(mlir::Operation *op, int call) const {
    return size_t(opIndex(op)) * calls + call;
  }
  unsigned bufferId(llvm::StringRef name);
  unsigned slotId(const Loc &l, int call);
  Slot &slotAt(ChunkRefAttr ref, int64_t i, int call) {
    return slots[slotId(locOf(ref, i), call)];
  }
  unsigned channelId(llvm::StringRef name) const {
    return channelIds.lookup(name);
  }
  bool isPort(mlir::FlatSymbolRefAttr sym);
  void prepare();
  void computeCrossCallDeps();

  // Scheduling.
  int64_t orderOf(int b) const {
    return int64_t(callOf[b]) * stride + prog.blocks[b].steps[pc[b]].order;
  }
  void consider(int b);
  bool ready(int b, const Step &s, std::pair<WaitOn, uint64_t> &blockedOn);
  void park(int waiter, std::pair<WaitOn, uint64_t> key);
  void wake(WaitOn kind, uint64_t id);
  mlir::LogicalResult exec(int b, const Step &s);
  mlir::LogicalResult execOp(int b, mlir::Operation *op);
  mlir::LogicalResult execForwards(int b, mlir::Operation *op);
  mlir::LogicalResult execBarrier(const Step &s);
  void advance(int b);
  mlir::LogicalResult tryBoundary(int64_t rank);
  mlir::LogicalResult execBoundary(int64_t rank);

  // Events and accesses.
  Access event(int b, mlir::Operation *op);
  size_t deliveryThread(int b, unsigned channel, bool isSwitch);
  const VClock &deliver(int b, unsigned channel, bool isSwitch, Access &a,
                        mlir::Operation *op);
  /// Joins the clocks of all of block b's deliveries so far into `vc`
  /// (which is at least b's clock).
  void joinDeliveries(VClock &vc, int b) const;
  bool hb(const Access &a, const VClock &vc) const {
    return vc.get(a.thread) >= a.clock;
  }
  mlir::FailureOr<Value> read(Slot &s, const Access &a, const VClock &vc,
                              bool target = false);
  mlir::LogicalResult write(Slot &s, const Access &a, const VClock &vc,
                            Value v, bool accumulate);
  mlir::FailureOr<Value> readRange(ChunkRefAttr ref, int64_t i,
                                   const Access &a) {
    return read(slotAt(ref, i, a.call), a, clocks[a.block]);
  }
  void writePackets(Slot &s, mlir::Operation *op, int call, const VClock &vc);
  void signal(int b, llvm::StringRef channel, bool relaxed,
              mlir::Operation *op);
  void flush(int b, llvm::StringRef channel, const Access &a);
  void signalAll(int b, mlir::Operation *op);
  void recordEvent(int b, mlir::Operation *op);

  // Diagnostics (VerifyReport.cpp).
  std::string who(int b) const;
  std::string who(const Access &a) const;
  std::string callName(int call) const {
    return "call " + std::to_string(call + 1);
  }
  std::string name(mlir::Operation *op) const {
    return op->getName().stripDialect().str();
  }
  void trace(mlir::InFlightDiagnostic &d, mlir::Operation *at,
             llvm::ArrayRef<int> blocks);
  mlir::LogicalResult raceError(const Slot &s, const Access &earlier,
                                const Access &later, bool earlierWrites,
                                bool laterWrites);
  mlir::LogicalResult undefinedRead(const Slot &s, const Access &a,
                                    bool target);
  mlir::LogicalResult sizeMismatch(const Slot &s, const Access &a,
                                   const Term &t, int64_t count);
  mlir::LogicalResult checkBalance();
  mlir::LogicalResult reportStuck();
  mlir::LogicalResult checkEnd();
  mlir::LogicalResult checkPostcondition(int64_t rank, int call,
                                         const Access &caller,
                                         const VClock &vc);
  /// Rank consistency: the reduced value `s` that `ensure` asks of `rank`
  /// in `call` has the expression every other rank's ensure of the same
  /// terms got.
  mlir::LogicalResult checkSameBits(EnsureOp ensure, int64_t rank, int call,
                                    const Slot &s, const Value &want);

  const Program &prog;
  AlgorithmOp algo;
  /// The grids of `input` and `output`: a value moves only into a chunk
  /// of its own size.
  ChunkGrid inputGrid, outputGrid;
  int calls;
  /// Analysis mode (analyzeCallOrder): record events, emit nothing.
  CallOrder *analysis;
  int64_t nranks;
  /// Global program order of call c, step s: c * stride + s.order.
  int64_t stride = 1;

  /// Reduction expressions, and whether every rank receiving a reduced
  /// element must get the same one (AlgorithmOp::requiresRankConsistency).
  Exprs exprs;
  bool sameBits = false, sizeInvariant = false, rankOrderFold = false;
  /// Per call and ensured terms: the first rank whose call ended, its
  /// chunk, expression and ensure.
  struct Reduced {
    int64_t rank;
    Loc at;
    int32_t expr;
    mlir::Operation *ensure;
  };
  std::map<std::pair<int, std::map<Term, int64_t>>, Reduced> reduced;
  /// Size invariance, per call, rank and buffer: the first reduced chunk
  /// and its shape.
  std::map<std::tuple<int, int64_t, std::string>, std::pair<Reduced, std::string>>
      shapes;

  // Interning.
  llvm::DenseMap<mlir::Operation *, unsigned> opIds;
  llvm::StringMap<unsigned> bufferIds;
  std::map<std::tuple<unsigned, int64_t, int64_t, int>, unsigned> slotIds;
  std::vector<Slot> slots;
  llvm::StringMap<unsigned> channelIds, semaphoreIds;
  std::vector<ChannelState> channels;
  std::vector<SemaphoreState> semaphores;
  std::vector<bool> portChannel;

  // Threads: blocks first, then one call-boundary thread per rank, then
  // the deliveries.
  std::vector<VClock> clocks;
  std::vector<size_t> pc;
  std::vector<int> callOf;
  std::vector<std::deque<std::pair<mlir::Operation *, int>>> history;
  std::vector<size_t> boundaryThread;
  /// Delivery threads: (block, channel) -> thread, and the deliveries
  /// each has made. A delivery thread's clock is never stored: the clock of
  /// its k-th delivery is its block's clock when the block issued it with
  /// component k for the thread (the delivery before it on the same thread
  /// was issued earlier by the same block), and every use of it (the next
  /// delivery, the block's signal, its call's end, the op's `done`) joins
  /// the block's clock of that moment or later. A clock per delivery
  /// thread, one component per thread, made memory grow as the square of
  /// the channels (the ring at 32 ranks with 16 tiles: 16k channels, 1.9
  /// GB of delivery clocks).
  std::map<std::pair<int, unsigned>, size_t> deliveries;
  std::map<size_t, uint32_t> deliveryCount;
  /// The clock of the delivery deliver() made last.
  VClock lastDelivery;
  std::map<int, std::vector<size_t>> switchDeliveries;
  size_t nextThread = 0;

  /// Port puts whose source reads wait for a flush: (block, channel) ->
  /// slots (and the put) of pending reads.
  std::map<std::pair<int, unsigned>,
           std::vector<std::pair<unsigned, mlir::Operation *>>>
      pendingPort;

  // Per operation instance (op index * calls + call).
  std::vector<bool> executed;
  std::vector<VClock> done;
  std::vector<bool> needDone;
  /// The deliveries of the op being executed, (thread, count), for its
  /// `done` clock.
  std::vector<std::pair<size_t, uint32_t>> opDeliveries;

  // Call boundaries, per rank.
  std::vector<std::vector<int>> rankBlocks;
  std::vector<int> arrived;
  /// The call each rank is in (calls when it finished the last one).
  std::vector<int> rankCall;
  std::vector<VClock> boundaryClock;
  std::vector<std::vector<RequireOp>> requiresOf;
  std::vector<std::vector<EnsureOp>> ensuresOf;
  /// input/output locations of each rank the program touches.
  std::vector<std::vector<Loc>> userLocs;
  /// Chunk-level operations across calls (global level): the operations
  /// whose previous-call instance must have run first; the chunk-level
  /// operations of the same call a rank's call end waits for; the ranks
  /// whose call must have started (input refilled) first.
  std::vector<std::vector<unsigned>> crossDeps;
  std::vector<std::vector<unsigned>> boundaryDeps;
  std::vector<std::vector<int64_t>> startDeps;
  std::vector<mlir::Operation *> ops; ///< by index

  // For the messages.
  std::map<Loc, mlir::Operation *> someWriter;
  std::map<Loc, std::vector<mlir::Operation *>> writersOf;
  std::map<Loc, mlir::Operation *> packetSenders;
  std::map<std::string, size_t> signalsPerCall, waitsPerCall,
      releasesPerCall, acquiresPerCall;

  /// Scheduling: blocks whose head may run, ordered by the head's global
  /// order, and blocks (or, as -1 - rank, rank boundaries) parked until an
  /// event they wait for happens.
  std::set<std::pair<int64_t, int>> candidates;
  /// A call boundary run from wake() failed (its error is emitted).
  bool failedInWake = false;
  std::vector<bool> parked;
  std::map<std::pair<WaitOn, uint64_t>, std::vector<int>> waiters;
};

} // namespace detail
} // namespace verify
} // namespace ccl

#endif // CCL_TRANSFORMS_VERIFYMACHINEIMPL_H
