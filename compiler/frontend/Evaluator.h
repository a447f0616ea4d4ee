//===- Evaluator.h - the compile-time evaluator of .ccl ---------*- C++ -*-===//
//
// Internal to the frontend library (not a public header): the values of the
// compile-time language and the Evaluator that computes them and emits
// global-level `ccl` operations. Its member functions live in
//
//   Evaluate.cpp       the entry points (parseSource, evaluate, run)
//   EvalDecls.cpp      files, imports, declarations, one algorithm's setup
//   EvalContracts.cpp  the collective: buffer sizes, in-place layout,
//                      contract
//   EvalStmts.cpp      statements and calls of the program's functions
//   EvalExprs.cpp      values' names, expressions, indexing
//   EvalBuiltins.cpp   the built-in functions, driven by a table
//   EvalOps.cpp        the methods of chunks, channels, switches, semaphores
//   EvalChunks.cpp     what operations share: freshness of chunk references,
//                      chunk attributes, channel symbols, thread blocks
//
//===----------------------------------------------------------------------===//
#ifndef CCL_FRONTEND_EVALUATOR_H
#define CCL_FRONTEND_EVALUATOR_H

#include "compiler/frontend/Frontend.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ccl {
namespace eval {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

// One struct per kind of compile-time value. `kName` is how diagnostics name
// the kind ("expected an integer, found a list").

/// The result of an operation or function that returns nothing.
struct Nothing {
  static constexpr const char *kName = "nothing";
};
struct Int {
  static constexpr const char *kName = "an integer";
  int64_t value;
};
struct Bool {
  static constexpr const char *kName = "a boolean";
  bool value;
};
/// `lo..hi`: the integers lo, ..., hi - 1.
struct Range {
  static constexpr const char *kName = "a range";
  int64_t lo, hi;
};
/// `src -> dst`.
struct Pair {
  static constexpr const char *kName = "a rank pair";
  int64_t src, dst;
};
/// `memory(src -> dst, id = n)` or `port(...)`.
struct Channel {
  static constexpr const char *kName = "a channel";
  std::string kind; ///< "memory" or "port"
  int64_t src, dst, id;
};
/// `switch(a..b)`.
struct Switch {
  static constexpr const char *kName = "a switch channel";
  std::string symbol; ///< its name without the instance suffix
  std::vector<int64_t> members;
};
/// `semaphore(r)`: the `ccl.semaphore` it declared.
struct Semaphore {
  static constexpr const char *kName = "a semaphore";
  std::string symbol;
};
/// `input`, `output` or a scratch buffer, on no rank yet.
struct Buffer {
  static constexpr const char *kName = "a buffer";
  std::string name;
};
/// `buffer[r]`. In place, the buffer the program names may live inside the
/// other one: `buffer` is where its chunks are, from chunk `offset` on.
struct OnRank {
  static constexpr const char *kName = "a buffer on one rank";
  std::string buffer;
  int64_t rank;
  int64_t offset;
  int64_t chunks;    ///< chunk count of the buffer as the program names it
  std::string shown; ///< that name, for messages
};
/// `buffer[r][i]` or `buffer[r][i..j]`: `count` chunks from `first` on, in
/// the buffer that holds them. A reference is stale once any of its chunks
/// is overwritten after it was made (`stamp`, `madeAt`, `madeIn`).
struct Chunk {
  static constexpr const char *kName = "a chunk";
  std::string buffer;
  int64_t rank, first, count = 1;
  uint64_t stamp = 0;
  ast::Loc madeAt;
  const ast::File *madeIn = nullptr;
};
/// A sum of input chunks (rank, index), each counted once per entry; only
/// in a collective's `ensure`.
struct Sum {
  static constexpr const char *kName = "a sum of chunks";
  std::vector<std::pair<int64_t, int64_t>> terms;
};
struct Value;
/// What `chunk.split(k)` returns.
struct List {
  static constexpr const char *kName = "a list";
  std::shared_ptr<const std::vector<Value>> items;
};

/// A compile-time value: exactly one of the kinds above.
struct Value {
  std::variant<Nothing, Int, Bool, Range, Pair, Channel, Switch, Semaphore,
               Buffer, OnRank, Chunk, Sum, List>
      data;

  Value() = default;
  template <typename Kind, typename = std::enable_if_t<
                               !std::is_same_v<std::decay_t<Kind>, Value>>>
  explicit Value(Kind kind) : data(std::move(kind)) {}
  static Value integer(int64_t v) { return Value(Int{v}); }
  static Value boolean(bool v) { return Value(Bool{v}); }

  /// The value as `Kind`, or null when it is of another kind.
  template <typename Kind> const Kind *getIf() const {
    return std::get_if<Kind>(&data);
  }
  template <typename Kind> bool is() const {
    return std::holds_alternative<Kind>(data);
  }
  /// "an integer", "a chunk", ... for diagnostics.
  const char *kindName() const;
};

/// `buffer[rank][first]` or `buffer[rank][first..end]`, for messages.
std::string show(const Chunk &c);

/// Floor division and the matching modulo (result has the divisor's sign).
std::pair<int64_t, int64_t> floorDivMod(int64_t a, int64_t b);

/// In-place layout: buffer `from` of rank r is buffer `to` of rank r from
/// chunk offsets[r] on.
struct Alias {
  std::string from, to;
  std::vector<int64_t> offsets;
};

/// A collective's contract for one rank count: what each chunk holds at the
/// start (`requires_`) and must hold at the end (`ensures`), in input chunks.
struct Contract {
  struct Entry {
    Chunk at;
    std::vector<std::pair<int64_t, int64_t>> terms;
    mlir::Location loc;
  };
  std::vector<Entry> requires_, ensures;
  bool explicitRequire = false;
};

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

/// Evaluates a program for every rank count of the options into a module.
/// One Evaluator serves one `ccl::evaluate` call.
class Evaluator {
public:
  Evaluator(mlir::MLIRContext *ctx, const FrontendOptions &options)
      : ctx(ctx), options(options), builder(ctx),
        stepLimit(options.maxSteps) {}

  mlir::LogicalResult run(const ast::File &main, mlir::ModuleOp module);

private:
  /// What is being evaluated: an algorithm's clauses, the contract of its
  /// collective, or its body (the only place operations may appear).
  enum class Mode { Clause, Contract, Body };

  //----- locations and diagnostics -----------------------------------------//
  mlir::Location fileLoc(const ast::File *f, ast::Loc l) {
    return mlir::FileLineColLoc::get(ctx, f ? f->path : "<unknown>", l.line,
                                     l.col);
  }
  mlir::Location loc(ast::Loc l) {
    mlir::Location here = fileLoc(curFile, l);
    return callers.empty() ? here
                           : mlir::CallSiteLoc::get(here, callers.back());
  }
  mlir::InFlightDiagnostic error(ast::Loc l) { return mlir::emitError(loc(l)); }
  /// Fails with "'NAME' takes SIG" unless `given` is `expected` (for
  /// built-ins and methods; in EvalBuiltins.cpp).
  mlir::LogicalResult takes(const ast::Expr &e, size_t given, size_t expected,
                            llvm::StringRef sig);

  //----- declarations (EvalDecls.cpp) --------------------------------------//
  mlir::LogicalResult load(const ast::File &file, bool isMain,
                           llvm::StringSet<> &seen);
  mlir::LogicalResult algorithm(const ast::Algorithm &a, int64_t nranks,
                                mlir::ModuleOp module);
  mlir::LogicalResult beginAlgorithm(const ast::Algorithm &a, int64_t n);
  mlir::FailureOr<const ast::Collective *>
  collectiveOf(const ast::Algorithm &a, bool &inplace, bool &outofplace,
               std::map<std::string, const ast::Arg *> &given);
  mlir::LogicalResult clauses(const ast::Algorithm &a, std::string &protocol,
                              std::optional<ChannelKind> &channelKind,
                              std::optional<Bits> &bits);
  mlir::LogicalResult
  parameters(const ast::Algorithm &a, const ast::Collective &coll,
             const std::map<std::string, const ast::Arg *> &given,
             llvm::SmallVectorImpl<mlir::NamedAttribute> &attrs);

  //----- selection tables (EvalSelect.cpp) ---------------------------------//
  mlir::LogicalResult selections(const ast::File &main, mlir::ModuleOp module);
  /// An algorithm of the main file, else of an imported file (the first one
  /// loaded), else null.
  const ast::Algorithm *findAlgorithm(llvm::StringRef name) const;
  const ast::Algorithm *findMainAlgorithm(llvm::StringRef name) const;

  //----- the collective (EvalContracts.cpp) --------------------------------//
  struct CollectiveScope;
  mlir::LogicalResult sizes(const ast::Collective &c, int64_t factor,
                            int64_t &in, int64_t &out);
  mlir::FailureOr<std::optional<Alias>> alias(const ast::Collective &c,
                                              int64_t factor, int64_t in,
                                              int64_t out);
  mlir::LogicalResult contract(const ast::Collective &c, Contract &result);
  void emitContract(const Contract &contract);
  mlir::LogicalResult contractStmt(const ast::Stmt &s);

  //----- statements (EvalStmts.cpp) ----------------------------------------//
  mlir::LogicalResult step(ast::Loc l);
  mlir::LogicalResult stmts(const std::vector<std::unique_ptr<ast::Stmt>> &b);
  mlir::LogicalResult stmt(const ast::Stmt &s);
  mlir::LogicalResult scratchStmt(const ast::Stmt &s);
  mlir::LogicalResult forStmt(const ast::Stmt &s);
  mlir::FailureOr<Value> callFunction(const ast::Function &f,
                                      const ast::Expr &e);

  //----- expressions (EvalExprs.cpp) ---------------------------------------//
  mlir::FailureOr<Value> expr(const ast::Expr &e);
  mlir::FailureOr<Value> identifier(const ast::Expr &e);
  mlir::FailureOr<Value> unary(const ast::Expr &e);
  mlir::FailureOr<Value> binary(const ast::Expr &e);
  mlir::FailureOr<Value> sum(const ast::Expr &e, const Value &l,
                             const Value &r);
  mlir::FailureOr<Value> arithmetic(const ast::Expr &e, int64_t a, int64_t b);
  mlir::FailureOr<Value> index(const ast::Expr &e);
  mlir::FailureOr<int64_t> integer(const ast::Expr &e);
  /// The boolean `e` evaluates to; fails with `need` and the kind's name
  /// when it is not one.
  mlir::FailureOr<bool> condition(const ast::Expr &e, llvm::StringRef need);
  mlir::FailureOr<int64_t> rankOf(const ast::Expr &e);
  mlir::FailureOr<Chunk> chunkArg(const ast::Expr &e, llvm::StringRef what);

  //----- built-in functions (EvalBuiltins.cpp) -----------------------------//
  struct Builtin;
  struct BuiltinCall;
  static const Builtin *findBuiltin(llvm::StringRef name);
  mlir::FailureOr<Value> call(const ast::Expr &e);
  mlir::FailureOr<Value> builtinChannel(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinSwitch(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinSemaphore(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinBarrier(const BuiltinCall &c);
  mlir::FailureOr<std::pair<int64_t, int64_t>>
  twoIntegers(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinMin(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinMax(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinDivMod(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinLen(const BuiltinCall &c);
  mlir::FailureOr<Value> builtinGroup(const BuiltinCall &c);

  //----- operations (EvalOps.cpp) ------------------------------------------//
  struct MethodCall;
  mlir::FailureOr<Value> method(const ast::Expr &e);
  mlir::FailureOr<Value> split(const MethodCall &m, const Chunk &c);
  /// Fails with "unknown RECEIVER operation 'NAME'; expected EXPECTED".
  mlir::LogicalResult unknownMethod(const ast::Expr &e,
                                    llvm::StringRef receiver,
                                    llvm::StringRef expected);
  /// Fails with "'NAME' moves N chunk(s) into M chunk(s)" unless the counts
  /// match.
  mlir::LogicalResult moves(const ast::Expr &e, const Chunk &dst,
                            const Chunk &src);
  mlir::FailureOr<std::pair<Chunk, Chunk>> twoChunks(const MethodCall &m);
  mlir::FailureOr<std::pair<Chunk, Chunk>>
  channelEnds(const MethodCall &m, const Channel &ch, bool getDir);
  mlir::FailureOr<Value> channelOp(const MethodCall &m, const Channel &ch);
  mlir::FailureOr<Value> switchOp(const MethodCall &m, const Switch &sw);
  mlir::FailureOr<Value> semaphoreOp(const MethodCall &m,
                                     const Semaphore &sem);
  mlir::FailureOr<Value> chunkOp(const MethodCall &m, const Chunk &c);
  mlir::FailureOr<Value> combineOp(const MethodCall &m, const Chunk &dst);
  mlir::FailureOr<Value> readReduce(const MethodCall &m, const Chunk &dst);

  //----- what operations share (EvalChunks.cpp) ----------------------------//
  struct Placement {
    mlir::IntegerAttr tb, group;
  };
  mlir::FailureOr<Placement> placement(const ast::Expr *tbExpr);
  mlir::LogicalResult inBody(const ast::Expr &e);
  mlir::LogicalResult use(const Chunk &chunk, const ast::Expr &where);
  Chunk wrote(const Chunk &chunk, ast::Loc where);
  Chunk fresh(Chunk c, ast::Loc where);
  ChunkRefAttr ref(const Chunk &c, int64_t piece, int64_t count);
  /// Calls f(piece, count) for the parts an operation on `count` chunks is
  /// emitted as: one op when the program runs once, one per chunk when
  /// instances interleave the chunks.
  template <typename F> void pieces(int64_t count, F f) {
    if (instances == 1) {
      f(0, count);
      return;
    }
    for (int64_t m = 0; m < count; ++m)
      f(m, 1);
  }
  mlir::FlatSymbolRefAttr channelSymbol(const Channel &ch, mlir::Location l);
  mlir::FlatSymbolRefAttr switchSymbol(const Switch &sw, mlir::Location l);
  std::string instanceSuffix() const {
    return instances > 1 ? "_i" + std::to_string(instance) : "";
  }

  //----- names -------------------------------------------------------------//
  /// Looks `name` up through the scopes, innermost first.
  Value *lookup(llvm::StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->find(name.str());
      if (found != it->end())
        return &found->second;
    }
    return nullptr;
  }
  /// True when `slot` (the binding `name` resolves to) is one of the
  /// algorithm's predefined names: built-ins, -D and collective parameters,
  /// scratch buffers. A function's own parameters are not.
  bool isPredefined(llvm::StringRef name, Value *slot) {
    if (!slot)
      return false;
    auto it = scopes.front().find(name.str());
    return it != scopes.front().end() && &it->second == slot;
  }
  int64_t bufferChunks(llvm::StringRef buffer) {
    if (buffer == "input")
      return inChunks;
    if (buffer == "output")
      return outChunks;
    auto it = scratchSlots.find(buffer);
    return it == scratchSlots.end() ? -1 : it->second;
  }

  mlir::MLIRContext *ctx;
  const FrontendOptions &options;
  mlir::OpBuilder builder;

  std::vector<std::unique_ptr<ast::File>> owned; ///< imports and prelude
  llvm::StringMap<const ast::Function *> functions;
  llvm::StringMap<const ast::Collective *> collectives;
  llvm::StringSet<> builtinCollectives;
  std::vector<const ast::Algorithm *> algorithms;
  /// Algorithms of imported files, by name and in load order (compiled
  /// when the main file has selection tables: it is then a bundle).
  llvm::StringMap<const ast::Algorithm *> importedAlgorithms;
  std::vector<const ast::Algorithm *> importedInOrder;

  // State of the algorithm being evaluated.
  const ast::File *curFile = nullptr;
  std::vector<mlir::Location> callers;
  Mode mode = Mode::Clause;
  AlgorithmOp algo;
  int64_t nranks = 0, chunks = 1, inChunks = 1, outChunks = 1;
  int64_t instances = 1, instance = 0, tbStride = 0, maxTb = -1;
  /// The `tiles(k)` clause (1 without one); ccl-replicate applies it.
  int64_t tiles = 1;
  std::optional<Alias> aliasing;
  int64_t steps = 0, stepLimit = 0;
  /// A deque: references to a scope (the globals of `algorithm()`) stay
  /// valid while inner scopes are pushed.
  std::deque<std::map<std::string, Value>> scopes;
  llvm::StringMap<int64_t> scratchSlots;
  llvm::StringMap<mlir::Operation *> symbols;
  /// Channel (kind, src, dst, id) -> the credit a constructor gave it, and
  /// where.
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>,
           std::pair<int64_t, mlir::Location>>
      credits;
  int64_t semaphores = 0;
  /// Freshness: per chunk slot, the stamp and place of its last write.
  struct Write {
    uint64_t stamp;
    ast::Loc loc;
    const ast::File *file;
  };
  std::map<std::tuple<std::string, int64_t, int64_t>, Write> writes;
  uint64_t clock = 0;
  // Functions: `return` unwinding.
  bool returning = false;
  Value returned;
  // Contract being collected.
  Contract *collecting = nullptr;
};

} // namespace eval
} // namespace ccl

#endif // CCL_FRONTEND_EVALUATOR_H
