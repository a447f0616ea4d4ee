//===- Evaluate.cpp - compile-time evaluation into the ccl dialect ---------===//
//
// Runs the program's compile-time language (let, for, if, functions, integer
// and rank arithmetic) for one rank count at a time and emits the data
// movement it describes as global-level `ccl` operations, each located at
// the source expression that produced it. The collective an algorithm
// implements is evaluated the same way into its contract (`ccl.require`,
// `ccl.ensure`); the built-in collectives are themselves written in the
// language (stdlib/collectives.ccl, compiled in as the prelude).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Frontend.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <deque>
#include <map>
#include <optional>
#include <tuple>

extern const char ccl_prelude_source[];

using namespace mlir;
using namespace ccl;
using ast::Expr;
using ast::Stmt;

std::unique_ptr<ast::File> ccl::parseSource(MLIRContext *ctx, StringRef source,
                                            StringRef path) {
  std::vector<ast::Diagnostic> diags;
  auto file = ast::parse(source.str(), path.str(), diags);
  for (const auto &d : diags)
    emitError(FileLineColLoc::get(ctx, path, d.loc.line, d.loc.col))
        << d.message;
  return diags.empty() ? std::move(file) : nullptr;
}

namespace {

constexpr const char *kPreludePath = "stdlib/collectives.ccl";
constexpr int64_t kIntLimit = int64_t(1) << 40;
constexpr size_t kMaxCallDepth = 64;

/// A compile-time value.
struct Value {
  enum Kind {
    None, Int, Bool, Range, Pair, Channel, Switch, Semaphore, Buffer, OnRank,
    Chunk, Sum, List
  };
  Kind kind = None;
  /// Int, Bool: a. Range: [a, b). Pair: a -> b. OnRank: rank a.
  /// Chunk: rank a, first chunk b (in the buffer that holds it). Semaphore:
  /// rank a.
  int64_t a = 0, b = 0;
  int64_t count = 1; ///< Chunk: number of chunks.
  /// Buffer, OnRank, Chunk: buffer. Channel: "memory" or "port". Switch,
  /// Semaphore: symbol.
  std::string name;
  int64_t src = 0, dst = 0, id = 0; ///< Channel
  /// Channel: signals it holds before the first call (`credit = n`), -1
  /// when the constructor does not say.
  int64_t credit = -1;
  /// OnRank: first chunk of the buffer as the program names it inside the
  /// buffer that holds it (in-place aliasing), its chunk count, and that
  /// name (for messages).
  int64_t offset = 0, limit = 0;
  std::string shown;
  /// Chunk: when the reference was made (freshness rule) and where.
  uint64_t stamp = 0;
  ast::Loc madeAt;
  const ast::File *madeIn = nullptr;
  /// Sum: input chunks (rank, index), each counted once per entry.
  std::vector<std::pair<int64_t, int64_t>> terms;
  /// List: the elements. Switch: member ranks in `members`.
  std::shared_ptr<std::vector<Value>> items;
  std::vector<int64_t> members;

  static Value integer(int64_t v) {
    Value x;
    x.kind = Int;
    x.a = v;
    return x;
  }
  static Value boolean(bool v) {
    Value x;
    x.kind = Bool;
    x.a = v;
    return x;
  }
  static Value range(int64_t lo, int64_t hi) {
    Value x;
    x.kind = Range;
    x.a = lo;
    x.b = hi;
    return x;
  }
};

const char *kindName(Value::Kind k) {
  switch (k) {
  case Value::None: return "nothing";
  case Value::Int: return "an integer";
  case Value::Bool: return "a boolean";
  case Value::Range: return "a range";
  case Value::Pair: return "a rank pair";
  case Value::Channel: return "a channel";
  case Value::Switch: return "a switch channel";
  case Value::Semaphore: return "a semaphore";
  case Value::Buffer: return "a buffer";
  case Value::OnRank: return "a buffer on one rank";
  case Value::Chunk: return "a chunk";
  case Value::Sum: return "a sum of chunks";
  case Value::List: return "a list";
  }
  return "a value";
}

std::string show(const Value &v) {
  std::string s = v.name + "[" + std::to_string(v.a) + "][" +
                  std::to_string(v.b);
  if (v.count != 1)
    s += ".." + std::to_string(v.b + v.count);
  return s + "]";
}

/// Floor division and the matching modulo (result has the divisor's sign).
std::pair<int64_t, int64_t> floorDivMod(int64_t a, int64_t b) {
  int64_t q = a / b, m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) {
    --q;
    m += b;
  }
  return {q, m};
}

/// In-place layout: buffer `from` of rank r is buffer `to` of rank r from
/// chunk offsets[r] on.
struct Alias {
  std::string from, to;
  std::vector<int64_t> offsets;
};

struct Contract {
  struct Entry {
    Value at;
    std::vector<std::pair<int64_t, int64_t>> terms;
    Location loc;
  };
  std::vector<Entry> requires_, ensures;
  bool explicitRequire = false;
};

class Evaluator {
public:
  Evaluator(MLIRContext *ctx, const FrontendOptions &options)
      : ctx(ctx), options(options), builder(ctx) {}

  LogicalResult run(const ast::File &main, ModuleOp module);

private:
  enum class Mode { Clause, Contract, Body };

  //----- locations and diagnostics -----------------------------------------//
  Location fileLoc(const ast::File *f, ast::Loc l) {
    return FileLineColLoc::get(ctx, f ? f->path : "<unknown>", l.line, l.col);
  }
  Location loc(ast::Loc l) {
    Location here = fileLoc(curFile, l);
    return callers.empty() ? here : CallSiteLoc::get(here, callers.back());
  }
  InFlightDiagnostic error(ast::Loc l) { return emitError(loc(l)); }

  //----- declarations ------------------------------------------------------//
  LogicalResult load(const ast::File &file, bool isMain,
                     llvm::StringSet<> &seen);
  LogicalResult algorithm(const ast::Algorithm &a, int64_t nranks,
                          ModuleOp module);

  //----- statements and expressions ----------------------------------------//
  LogicalResult stmts(const std::vector<std::unique_ptr<Stmt>> &body);
  LogicalResult stmt(const Stmt &s);
  LogicalResult forStmt(const Stmt &s);
  LogicalResult contractStmt(const Stmt &s);
  FailureOr<Value> expr(const Expr &e);
  FailureOr<Value> call(const Expr &e);
  FailureOr<Value> callFunction(const ast::Function &f, const Expr &e);
  FailureOr<Value> method(const Expr &e);
  FailureOr<Value> index(const Expr &e);
  FailureOr<Value> binary(const Expr &e);
  FailureOr<int64_t> integer(const Expr &e);
  FailureOr<int64_t> rankOf(const Expr &e);
  FailureOr<Value> chunkArg(const Expr &e, StringRef what);
  LogicalResult step(ast::Loc l);

  //----- the collective ----------------------------------------------------//
  /// Evaluates in collective `c`'s file with `chunks` bound to `factor`;
  /// both are restored when the scope ends, on every path.
  struct CollectiveScope {
    Evaluator &ev;
    const ast::File *file;
    Value chunks;
    CollectiveScope(Evaluator &ev, const ast::Collective &c, int64_t factor)
        : ev(ev), file(ev.curFile), chunks(ev.scopes.front()["chunks"]) {
      ev.curFile = c.file;
      ev.scopes.front()["chunks"] = Value::integer(factor);
    }
    ~CollectiveScope() {
      ev.curFile = file;
      ev.scopes.front()["chunks"] = chunks;
    }
  };
  LogicalResult sizes(const ast::Collective &c, int64_t factor, int64_t &in,
                      int64_t &out);
  FailureOr<std::optional<Alias>> alias(const ast::Collective &c,
                                        int64_t factor, int64_t in,
                                        int64_t out);
  LogicalResult contract(const ast::Collective &c, Contract &result);
  void emitContract(const Contract &contract);

  //----- operations --------------------------------------------------------//
  struct Placement {
    IntegerAttr tb, group;
  };
  FailureOr<Placement> placement(const Expr *tbExpr);
  LogicalResult inBody(const Expr &e);
  LogicalResult use(const Value &chunk, const Expr &where);
  Value wrote(const Value &chunk, ast::Loc where);
  Value fresh(Value v, ast::Loc where);
  ChunkRefAttr ref(const Value &v, int64_t piece, int64_t count);
  template <typename F> void pieces(int64_t count, F f);
  FlatSymbolRefAttr channelSymbol(const Value &ch, Location l);
  FlatSymbolRefAttr switchSymbol(const Value &sw, Location l);
  std::string instanceSuffix() const {
    return instances > 1 ? "_i" + std::to_string(instance) : "";
  }

  /// Looks `name` up through the scopes, innermost first.
  Value *lookup(StringRef name) {
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
  bool isPredefined(StringRef name, Value *slot) {
    if (!slot)
      return false;
    auto it = scopes.front().find(name.str());
    return it != scopes.front().end() && &it->second == slot;
  }
  int64_t bufferChunks(StringRef buffer) {
    if (buffer == "input")
      return inChunks;
    if (buffer == "output")
      return outChunks;
    auto it = scratchSlots.find(buffer);
    return it == scratchSlots.end() ? -1 : it->second;
  }

  MLIRContext *ctx;
  const FrontendOptions &options;
  OpBuilder builder;

  std::vector<std::unique_ptr<ast::File>> owned; ///< imports and prelude
  llvm::StringMap<const ast::Function *> functions;
  llvm::StringMap<const ast::Collective *> collectives;
  llvm::StringSet<> builtinCollectives;
  std::vector<const ast::Algorithm *> algorithms;

  // State of the algorithm being evaluated.
  const ast::File *curFile = nullptr;
  std::vector<Location> callers;
  Mode mode = Mode::Clause;
  AlgorithmOp algo;
  int64_t nranks = 0, chunks = 1, inChunks = 1, outChunks = 1;
  int64_t instances = 1, instance = 0, tbStride = 0, maxTb = -1;
  std::optional<Alias> aliasing;
  int64_t steps = 0;
  /// A deque: references to a scope (the globals of `algorithm()`) stay
  /// valid while inner scopes are pushed.
  std::deque<std::map<std::string, Value>> scopes;
  llvm::StringMap<int64_t> scratchSlots;
  llvm::StringMap<Operation *> symbols;
  /// Channel (kind, src, dst, id) -> the credit a constructor gave it, and
  /// where.
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>,
           std::pair<int64_t, Location>>
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

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::load(const ast::File &file, bool isMain,
                              llvm::StringSet<> &seen) {
  for (const auto &imp : file.imports) {
    llvm::SmallString<256> path;
    bool found = false;
    std::vector<std::string> dirs;
    dirs.push_back(llvm::sys::path::parent_path(file.path).str());
    for (const auto &d : options.includeDirs)
      dirs.push_back(d);
    for (const auto &dir : dirs) {
      path = dir;
      llvm::sys::path::append(path, imp.path);
      if (llvm::sys::fs::exists(path)) {
        found = true;
        break;
      }
    }
    if (!found)
      return emitError(fileLoc(&file, imp.loc))
             << "cannot find imported file '" << imp.path
             << "' (searched next to " << file.path
             << (options.includeDirs.empty() ? "" : " and in the -I directories")
             << ")";
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      real = path;
    if (!seen.insert(real).second)
      continue; // imported already (or an import cycle): nothing new
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return emitError(fileLoc(&file, imp.loc))
             << "cannot read imported file '" << path
             << "': " << buffer.getError().message();
    auto parsed = parseSource(ctx, (*buffer)->getBuffer(), path);
    if (!parsed)
      return failure();
    owned.push_back(std::move(parsed));
    const ast::File &imported = *owned.back();
    if (failed(load(imported, /*isMain=*/false, seen)))
      return failure();
  }
  static const char *const kBuiltinFunctions[] = {
      "memory", "port", "switch", "semaphore", "barrier", "min",
      "max",    "div",  "mod",    "len",       "group"};
  for (const auto &f : file.functions) {
    if (llvm::is_contained(kBuiltinFunctions, f->name))
      return emitError(fileLoc(&file, f->loc))
             << "'" << f->name << "' is a built-in function; give yours "
                "another name";
    auto [it, inserted] = functions.try_emplace(f->name, f.get());
    if (!inserted) {
      InFlightDiagnostic d = emitError(fileLoc(&file, f->loc))
                             << "function '" << f->name << "' is defined twice";
      d.attachNote(fileLoc(it->second->file, it->second->loc))
          << "the other definition is here";
      return failure();
    }
  }
  for (const auto &c : file.collectives) {
    if (builtinCollectives.count(c->name) && c->file != owned.front().get())
      return emitError(fileLoc(&file, c->loc))
             << "collective '" << c->name
             << "' is built in; give yours another name";
    auto [it, inserted] = collectives.try_emplace(c->name, c.get());
    if (!inserted) {
      InFlightDiagnostic d = emitError(fileLoc(&file, c->loc))
                             << "collective '" << c->name
                             << "' is defined twice";
      d.attachNote(fileLoc(it->second->file, it->second->loc))
          << "the other definition is here";
      return failure();
    }
  }
  if (isMain) {
    llvm::StringMap<const ast::Algorithm *> names;
    for (const auto &a : file.algorithms) {
      auto [it, inserted] = names.try_emplace(a->name, a.get());
      if (!inserted) {
        InFlightDiagnostic d = emitError(fileLoc(&file, a->loc))
                               << "algorithm '" << a->name
                               << "' is defined twice";
        d.attachNote(fileLoc(&file, it->second->loc))
            << "the other definition is here";
        return failure();
      }
      algorithms.push_back(a.get());
    }
  }
  return success();
}

LogicalResult Evaluator::run(const ast::File &main, ModuleOp module) {
  // The prelude: the built-in collectives.
  auto prelude = parseSource(ctx, ccl_prelude_source, kPreludePath);
  if (!prelude)
    return failure();
  for (const auto &c : prelude->collectives)
    builtinCollectives.insert(c->name);
  owned.push_back(std::move(prelude));
  llvm::StringSet<> seen;
  if (failed(load(*owned.front(), false, seen)))
    return failure();
  llvm::SmallString<256> mainPath;
  if (llvm::sys::fs::real_path(main.path, mainPath))
    mainPath = main.path;
  seen.insert(mainPath);
  if (failed(load(main, /*isMain=*/true, seen)))
    return failure();
  for (const ast::Algorithm *a : algorithms)
    for (int64_t n : options.nranks)
      if (failed(algorithm(*a, n, module)))
        return failure();
  return success();
}

LogicalResult Evaluator::algorithm(const ast::Algorithm &a, int64_t n,
                                   ModuleOp module) {
  curFile = a.file;
  callers.clear();
  mode = Mode::Clause;
  nranks = n;
  chunks = 1;
  instances = 1;
  instance = 0;
  tbStride = 0;
  maxTb = -1;
  aliasing.reset();
  steps = 0;
  scopes.clear();
  scratchSlots.clear();
  symbols.clear();
  credits.clear();
  semaphores = 0;
  writes.clear();
  returning = false;

  scopes.emplace_back();
  auto &globals = scopes.back();
  globals["nranks"] = Value::integer(n);
  globals["ranks"] = Value::range(0, n);
  globals["true"] = Value::boolean(true);
  globals["false"] = Value::boolean(false);
  globals["chunks"] = Value::integer(1); // until a chunks(...) clause
  for (const char *buf : {"input", "output"}) {
    Value b;
    b.kind = Value::Buffer;
    b.name = buf;
    globals[buf] = b;
  }
  static const char *const kBuiltins[] = {"nranks", "ranks", "input", "output",
                                          "chunks", "true", "false"};
  for (const auto &d : options.defines) {
    if (llvm::is_contained(kBuiltins, d.getKey()))
      return error(a.loc) << "-D " << d.getKey()
                          << " would redefine a built-in name"
                          << (d.getKey() == "nranks" ? "; use --nranks" : "");
    globals[d.getKey().str()] = Value::integer(d.getValue());
  }

  // The collective and its arguments.
  auto collIt = collectives.find(a.collective);
  if (collIt == collectives.end()) {
    InFlightDiagnostic d = error(a.collectiveLoc)
                           << "unknown collective '" << a.collective
                           << "'; expected AllReduce, AllGather, ReduceScatter, "
                              "AllToAll, Broadcast, Reduce";
    for (const auto &c : collectives)
      if (!builtinCollectives.count(c.getKey()))
        d << ", " << c.getKey();
    d << " (or declare it with 'collective " << a.collective << " ...')";
    return failure();
  }
  const ast::Collective &coll = *collIt->second;
  bool inplace = false;
  std::map<std::string, const ast::Arg *> given;
  for (const ast::Arg &arg : a.args) {
    if (arg.name.empty()) {
      if (arg.value->kind != Expr::Ident || arg.value->name != "inplace")
        return error(arg.value->loc)
               << "unknown collective variant; expected 'inplace' or a "
                  "parameter 'name = value'";
      inplace = true;
      continue;
    }
    bool known = llvm::any_of(coll.params, [&](const ast::Arg &p) {
      return p.name == arg.name;
    });
    if (!known) {
      InFlightDiagnostic d = error(arg.loc) << "collective '" << coll.name
                                            << "' has no parameter '"
                                            << arg.name << "'";
      if (!coll.params.empty()) {
        d << "; its parameters are";
        for (const auto &p : coll.params)
          d << " " << p.name;
      }
      return failure();
    }
    given[arg.name] = &arg;
  }

  // Clauses, left to right.
  std::string protocol = "Simple";
  for (const auto &c : a.clauses) {
    if (c.rhs)
      return error(c.loc) << "'" << c.name << "(...)' takes one value";
    if (c.name == "protocol") {
      if (c.value->kind != Expr::Ident ||
          (c.value->name != "LL" && c.value->name != "Simple"))
        return error(c.value->loc) << "protocol must be LL or Simple";
      protocol = c.value->name;
      continue;
    }
    if (c.name == "chunks" || c.name == "instances" || c.name == "parallel") {
      auto v = integer(*c.value);
      if (failed(v))
        return failure();
      if (*v < 1)
        return error(c.value->loc)
               << c.name << " must be at least 1, not " << *v;
      if (*v > (int64_t(1) << 20))
        return error(c.value->loc) << c.name << "(" << *v << ") is too large";
      if (c.name == "chunks") {
        chunks = *v;
        globals["chunks"] = Value::integer(chunks);
      } else {
        instances = *v;
      }
      continue;
    }
    return error(c.loc) << "unknown clause '" << c.name
                        << "'; expected chunks, protocol, instances or "
                           "parallel";
  }

  // Collective parameters: an argument, else -D, else the default.
  SmallVector<NamedAttribute> paramAttrs;
  for (const ast::Arg &p : coll.params) {
    if (p.name.empty())
      return emitError(fileLoc(coll.file, p.loc))
             << "a collective parameter needs a default: 'name = value'";
    Value v;
    if (auto it = given.find(p.name); it != given.end()) {
      auto r = expr(*it->second->value);
      if (failed(r))
        return failure();
      v = *r;
    } else if (options.defines.count(p.name)) {
      v = Value::integer(options.defines.lookup(p.name));
    } else {
      const ast::File *saved = curFile;
      curFile = coll.file;
      auto r = expr(*p.value);
      curFile = saved;
      if (failed(r))
        return failure();
      v = *r;
    }
    if (v.kind != Value::Int)
      return error(a.loc) << "parameter '" << p.name
                          << "' must be an integer, not " << kindName(v.kind);
    globals[p.name] = v;
    paramAttrs.push_back(
        builder.getNamedAttr(p.name, builder.getI64IntegerAttr(v.a)));
  }

  // Buffer sizes and in-place layout, in the program's view (per instance).
  if (failed(sizes(coll, chunks, inChunks, outChunks)))
    return failure();
  if (inplace) {
    auto al = alias(coll, chunks, inChunks, outChunks);
    if (failed(al))
      return failure();
    if (!*al)
      return error(a.collectiveLoc)
             << "collective '" << coll.name
             << "' has no in-place form (its declaration has no "
                "'inplace(...)' clause)";
    aliasing = **al;
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto optI64 = [&](int64_t v, int64_t dflt) -> IntegerAttr {
    return v == dflt ? IntegerAttr() : builder.getI64IntegerAttr(v);
  };
  // A built-in collective is one of the dialect's kinds; any other is
  // custom and keeps its declared name.
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(coll.name);
  bool builtin = kind && *kind != CollectiveKind::Custom;
  algo = AlgorithmOp::create(
      builder, fileLoc(curFile, a.loc),
      builder.getStringAttr(a.name + "_n" + std::to_string(n)),
      builder.getStringAttr(a.name),
      CollectiveKindAttr::get(ctx, builtin ? *kind : CollectiveKind::Custom),
      builtin ? StringAttr() : builder.getStringAttr(coll.name),
      builder.getBoolAttr(inplace), builder.getI64IntegerAttr(n),
      builder.getI64IntegerAttr(chunks * instances),
      ProtocolAttr::get(ctx, *symbolizeProtocol(protocol)),
      /*scheduled=*/nullptr,
      optI64(inChunks * instances, chunks * instances),
      optI64(outChunks * instances, chunks * instances),
      optI64(instances, 1), /*params=*/nullptr);
  if (!paramAttrs.empty())
    algo.setParamsAttr(builder.getDictionaryAttr(paramAttrs));
  algo.getBody().emplaceBlock();
  builder.setInsertionPointToEnd(&algo.getBody().front());

  // The contract, over the whole (refined) buffers.
  Contract con;
  if (failed(contract(coll, con)))
    return failure();

  // The program, once per instance.
  mode = Mode::Body;
  curFile = a.file;
  for (instance = 0; instance < instances; ++instance) {
    writes.clear();
    semaphores = 0;
    scopes.resize(1);
    if (instance == 1)
      tbStride = maxTb + 1;
    if (failed(stmts(a.body)))
      return failure();
  }
  instance = 0;
  emitContract(con);
  return success();
}

//===----------------------------------------------------------------------===//
// The collective: sizes, in-place layout, contract
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::sizes(const ast::Collective &c, int64_t factor,
                               int64_t &in, int64_t &out) {
  in = out = factor;
  CollectiveScope scope(*this, c, factor);
  for (const auto &cl : c.clauses) {
    if (cl.name == "inplace")
      continue;
    if (cl.name != "input" && cl.name != "output")
      return error(cl.loc) << "unknown collective clause '" << cl.name
                           << "'; expected input, output or inplace";
    if (cl.rhs)
      return error(cl.loc) << "'" << cl.name << "(...)' takes one value";
    auto v = integer(*cl.value);
    if (failed(v))
      return failure();
    if (*v < 1)
      return error(cl.value->loc) << "'" << cl.name
                                  << "' needs at least one chunk, not " << *v;
    (cl.name == "input" ? in : out) = *v;
  }
  return success();
}

FailureOr<std::optional<Alias>> Evaluator::alias(const ast::Collective &c,
                                                 int64_t factor, int64_t in,
                                                 int64_t out) {
  const ast::Clause *clause = nullptr;
  for (const auto &cl : c.clauses)
    if (cl.name == "inplace")
      clause = &cl;
  if (!clause)
    return std::optional<Alias>();
  CollectiveScope scope(*this, c, factor);
  // inplace(A[r] = B[r][OFFSET])
  const Expr *lhs = clause->value.get(), *rhs = clause->rhs.get();
  auto bad = [&]() {
    return error(clause->loc)
           << "expected 'inplace(A[r] = B[r][OFFSET])' with A and B the "
              "buffers input and output";
  };
  if (!rhs || lhs->kind != Expr::Index || rhs->kind != Expr::Index)
    return bad();
  const Expr &lhsBuf = *lhs->operands[0], &lhsVar = *lhs->operands[1];
  const Expr &rhsOnRank = *rhs->operands[0];
  if (lhsBuf.kind != Expr::Ident || lhsVar.kind != Expr::Ident ||
      rhsOnRank.kind != Expr::Index ||
      rhsOnRank.operands[0]->kind != Expr::Ident ||
      rhsOnRank.operands[1]->kind != Expr::Ident ||
      rhsOnRank.operands[1]->name != lhsVar.name)
    return bad();
  Alias al;
  al.from = lhsBuf.name;
  al.to = rhsOnRank.operands[0]->name;
  if (!((al.from == "input" && al.to == "output") ||
        (al.from == "output" && al.to == "input")))
    return bad();
  int64_t fromChunks = al.from == "input" ? in : out;
  int64_t toChunks = al.to == "input" ? in : out;
  for (int64_t r = 0; r < nranks; ++r) {
    scopes.emplace_back();
    scopes.back()[lhsVar.name] = Value::integer(r);
    auto off = integer(*rhs->operands[1]);
    scopes.pop_back();
    if (failed(off))
      return failure();
    if (*off < 0 || *off + fromChunks > toChunks)
      return error(rhs->operands[1]->loc)
             << "in place, " << al.from << " of rank " << r
             << " would be chunks " << *off << ".." << *off + fromChunks
             << " of " << al.to << ", which has " << toChunks << " chunks";
    al.offsets.push_back(*off);
  }
  return std::optional<Alias>(al);
}

LogicalResult Evaluator::contract(const ast::Collective &c, Contract &result) {
  mode = Mode::Contract;
  // The contract covers the whole buffers: all instances side by side.
  int64_t fullChunks = chunks * instances;
  scopes.resize(1);
  CollectiveScope scope(*this, c, fullChunks);
  int64_t in, out;
  if (failed(sizes(c, fullChunks, in, out)))
    return failure();
  std::optional<Alias> fullAlias;
  if (aliasing) {
    auto al = alias(c, fullChunks, in, out);
    if (failed(al))
      return failure();
    fullAlias = **al;
  }
  auto restore = llvm::make_scope_exit(
      [this, savedIn = inChunks, savedOut = outChunks] {
        inChunks = savedIn;
        outChunks = savedOut;
        collecting = nullptr;
      });
  inChunks = in;
  outChunks = out;
  collecting = &result;
  LogicalResult r = stmts(c.body);
  if (failed(r))
    return failure();
  if (result.ensures.empty())
    return emitError(fileLoc(c.file, c.loc))
           << "collective '" << c.name << "' ensures nothing for " << nranks
           << " ranks; a contract needs at least one 'ensure'";
  if (!result.explicitRequire)
    for (int64_t r = 0; r < nranks; ++r)
      for (int64_t i = 0; i < in; ++i) {
        Value v;
        v.kind = Value::Chunk;
        v.name = "input";
        v.a = r;
        v.b = i;
        result.requires_.push_back({v, {{r, i}}, fileLoc(c.file, c.loc)});
      }
  // Locations through the in-place layout.
  if (fullAlias)
    for (auto *list : {&result.requires_, &result.ensures})
      for (auto &e : *list)
        if (e.at.name == fullAlias->from) {
          e.at.name = fullAlias->to;
          e.at.b += fullAlias->offsets[e.at.a];
        }
  return success();
}

void Evaluator::emitContract(const Contract &con) {
  Block &body = algo.getBody().front();
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(&body,
                            algo.declarationSlot(AlgorithmOp::Decl::All));
  auto chunk = [&](StringRef buf, int64_t r, int64_t i) {
    return ChunkRefAttr::get(ctx, buf, r, i, 1);
  };
  for (const auto &e : con.requires_)
    RequireOp::create(builder, e.loc, chunk(e.at.name, e.at.a, e.at.b),
                      chunk("input", e.terms[0].first, e.terms[0].second));
  builder.setInsertionPointToEnd(&body);
  for (const auto &e : con.ensures) {
    SmallVector<Attribute> terms;
    for (auto [r, i] : e.terms)
      terms.push_back(chunk("input", r, i));
    EnsureOp::create(builder, e.loc, chunk(e.at.name, e.at.a, e.at.b),
                     builder.getArrayAttr(terms));
  }
}

LogicalResult Evaluator::contractStmt(const Stmt &s) {
  StringRef what = s.kind == Stmt::Ensure ? "ensure" : "require";
  if (mode != Mode::Contract)
    return error(s.loc) << "'" << what
                        << "' belongs in a collective declaration, not in an "
                           "algorithm";
  if (s.kind == Stmt::Require) {
    auto v = chunkArg(*s.expr, "'require'");
    if (failed(v))
      return failure();
    if (v->name != "input")
      return error(s.expr->loc)
             << "'require' names input chunks that hold data at the start, "
                "not "
             << show(*v);
    collecting->explicitRequire = true;
    for (int64_t i = 0; i < v->count; ++i) {
      Value at = *v;
      at.b += i;
      at.count = 1;
      collecting->requires_.push_back({at, {{v->a, v->b + i}}, loc(s.loc)});
    }
    return success();
  }
  const Expr &e = *s.expr;
  if (e.kind != Expr::Binary || e.name != "==")
    return error(e.loc) << "expected 'ensure CHUNK == VALUE', where VALUE "
                           "is an input chunk or a sum of input chunks";
  auto at = chunkArg(*e.operands[0], "the left side of 'ensure'");
  if (failed(at))
    return failure();
  auto v = expr(*e.operands[1]);
  if (failed(v))
    return failure();
  if (v->kind == Value::Chunk) {
    if (v->name != "input")
      return error(e.operands[1]->loc)
             << "the right side of 'ensure' combines input chunks, not "
             << show(*v);
    if (v->count != at->count)
      return error(e.loc) << show(*at) << " has " << at->count
                          << " chunk(s) but " << show(*v) << " has "
                          << v->count;
    for (int64_t i = 0; i < at->count; ++i) {
      Value one = *at;
      one.b += i;
      one.count = 1;
      collecting->ensures.push_back({one, {{v->a, v->b + i}}, loc(s.loc)});
    }
    return success();
  }
  if (v->kind != Value::Sum)
    return error(e.operands[1]->loc)
           << "the right side of 'ensure' must be an input chunk or a sum of "
              "input chunks, not "
           << kindName(v->kind);
  if (at->count != 1)
    return error(e.operands[0]->loc)
           << "a sum is ensured for one chunk at a time, not " << show(*at);
  collecting->ensures.push_back({*at, v->terms, loc(s.loc)});
  return success();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::step(ast::Loc l) {
  if (++steps <= options.maxSteps)
    return success();
  return error(l) << "evaluation did not finish within " << options.maxSteps
                  << " steps (a loop that does not terminate, or a program "
                     "too large for "
                  << nranks << " ranks)";
}

LogicalResult Evaluator::stmts(const std::vector<std::unique_ptr<Stmt>> &body) {
  scopes.emplace_back();
  for (const auto &s : body) {
    if (failed(stmt(*s))) {
      scopes.pop_back();
      return failure();
    }
    if (returning)
      break;
  }
  scopes.pop_back();
  return success();
}

LogicalResult Evaluator::stmt(const Stmt &s) {
  if (failed(step(s.loc)))
    return failure();
  switch (s.kind) {
  case Stmt::Scratch: {
    if (mode != Mode::Body)
      return error(s.loc) << "scratch buffers belong in an algorithm";
    if (scopes.size() != 2 || !callers.empty())
      return error(s.loc) << "scratch buffers must be declared at the top "
                             "level of the algorithm";
    if (lookup(s.name) && !scratchSlots.count(s.name))
      return error(s.nameLoc) << "'" << s.name << "' is already defined";
    auto slots = integer(*s.expr);
    if (failed(slots))
      return failure();
    if (*slots < 1)
      return error(s.expr->loc)
             << "scratch buffer '" << s.name
             << "' needs at least one slot, not " << *slots;
    if (*slots > (int64_t(1) << 20))
      return error(s.expr->loc) << "scratch buffer '" << s.name << "' with "
                                << *slots << " slots is too large";
    if (instance > 0)
      return success(); // declared by instance 0
    if (scratchSlots.count(s.name))
      return error(s.nameLoc) << "scratch buffer '" << s.name
                              << "' is declared twice";
    Value b;
    b.kind = Value::Buffer;
    b.name = s.name;
    scopes.front()[s.name] = b;
    scratchSlots[s.name] = *slots;
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(&algo.getBody().front(),
                              algo.declarationSlot(AlgorithmOp::Decl::Scratch));
    ScratchOp::create(builder, loc(s.nameLoc), s.name, *slots * instances);
    return success();
  }
  case Stmt::Let: {
    if (isPredefined(s.name, lookup(s.name)))
      return error(s.nameLoc) << "'" << s.name
                              << "' is predefined; choose another name";
    auto v = expr(*s.expr);
    if (failed(v))
      return failure();
    scopes.back()[s.name] = *v;
    return success();
  }
  case Stmt::Assign: {
    Value *slot = lookup(s.name);
    if (!slot)
      return error(s.nameLoc) << "unknown identifier '" << s.name
                              << "' (declare it with 'let' first)";
    if (isPredefined(s.name, slot))
      return error(s.nameLoc) << "'" << s.name
                              << "' is predefined and cannot be assigned";
    auto v = expr(*s.expr);
    if (failed(v))
      return failure();
    *lookup(s.name) = *v;
    return success();
  }
  case Stmt::For:
    return forStmt(s);
  case Stmt::If: {
    auto c = expr(*s.expr);
    if (failed(c))
      return failure();
    if (c->kind != Value::Bool)
      return error(s.expr->loc)
             << "'if' needs a condition, not " << kindName(c->kind);
    return stmts(c->a ? s.body : s.elseBody);
  }
  case Stmt::Return: {
    if (callers.empty())
      return error(s.loc) << "'return' outside a function";
    Value v;
    if (s.expr) {
      auto r = expr(*s.expr);
      if (failed(r))
        return failure();
      v = *r;
    }
    returned = v;
    returning = true;
    return success();
  }
  case Stmt::Ensure:
  case Stmt::Require:
    return contractStmt(s);
  case Stmt::ExprStmt: {
    auto v = expr(*s.expr);
    return failure(failed(v));
  }
  }
  return success();
}

LogicalResult Evaluator::forStmt(const Stmt &s) {
  if (isPredefined(s.name, lookup(s.name)))
    return error(s.nameLoc) << "'" << s.name
                            << "' is predefined; choose another loop variable";
  auto range = expr(*s.expr);
  if (failed(range))
    return failure();
  std::vector<Value> items;
  if (range->kind == Value::Range) {
    // Iterated lazily below.
  } else if (range->kind == Value::List) {
    items = *range->items;
  } else {
    return error(s.expr->loc) << "a for loop iterates over a range ('a..b' "
                                 "or 'ranks') or a list, not "
                              << kindName(range->kind);
  }
  int64_t n = range->kind == Value::Range ? std::max<int64_t>(0, range->b - range->a)
                                          : int64_t(items.size());
  for (int64_t k = 0; k < n; ++k) {
    if (failed(step(s.loc)))
      return failure();
    scopes.emplace_back();
    scopes.back()[s.name] = range->kind == Value::Range
                                ? Value::integer(range->a + k)
                                : items[k];
    bool take = true;
    if (s.filter) {
      auto c = expr(*s.filter);
      if (failed(c)) {
        scopes.pop_back();
        return failure();
      }
      if (c->kind != Value::Bool) {
        scopes.pop_back();
        return error(s.filter->loc)
               << "loop filter must be a condition, not " << kindName(c->kind);
      }
      take = c->a;
    }
    LogicalResult r = take ? stmts(s.body) : success();
    scopes.pop_back();
    if (failed(r))
      return failure();
    if (returning)
      break;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<int64_t> Evaluator::integer(const Expr &e) {
  auto v = expr(e);
  if (failed(v))
    return failure();
  if (v->kind != Value::Int)
    return error(e.loc) << "expected an integer, found " << kindName(v->kind);
  return v->a;
}

FailureOr<int64_t> Evaluator::rankOf(const Expr &e) {
  auto r = integer(e);
  if (failed(r))
    return failure();
  if (*r < 0 || *r >= nranks)
    return error(e.loc) << "rank " << *r << " does not exist (nranks = "
                        << nranks << ")";
  return *r;
}

FailureOr<Value> Evaluator::expr(const Expr &e) {
  switch (e.kind) {
  case Expr::Int:
    if (e.intValue > kIntLimit)
      return error(e.loc) << "integer literal too large";
    return Value::integer(e.intValue);
  case Expr::Ident: {
    if (Value *v = lookup(e.name))
      return *v;
    if (e.name == "LL" || e.name == "Simple")
      return error(e.loc) << "'" << e.name
                          << "' is a protocol and only valid in protocol(...)";
    if (functions.count(e.name))
      return error(e.loc) << "'" << e.name
                          << "' is a function; call it with '" << e.name
                          << "(...)'";
    return error(e.loc) << "unknown identifier '" << e.name << "'";
  }
  case Expr::Call:
    return call(e);
  case Expr::Method:
    return method(e);
  case Expr::Index:
    return index(e);
  case Expr::Unary: {
    auto v = expr(*e.operands[0]);
    if (failed(v))
      return failure();
    if (e.name == "-") {
      if (v->kind != Value::Int)
        return error(e.loc) << "'-' needs an integer, not " << kindName(v->kind);
      return Value::integer(-v->a);
    }
    if (v->kind != Value::Bool)
      return error(e.loc) << "'!' needs a condition, not " << kindName(v->kind);
    return Value::boolean(!v->a);
  }
  case Expr::Binary:
    return binary(e);
  }
  return failure();
}

FailureOr<Value> Evaluator::binary(const Expr &e) {
  auto l = expr(*e.operands[0]);
  if (failed(l))
    return failure();
  if (e.name == "&&" || e.name == "||") {
    if (l->kind != Value::Bool)
      return error(e.operands[0]->loc)
             << "'" << e.name << "' needs conditions, not " << kindName(l->kind);
    if ((e.name == "&&") != static_cast<bool>(l->a))
      return *l; // short circuit
    auto r = expr(*e.operands[1]);
    if (failed(r))
      return failure();
    if (r->kind != Value::Bool)
      return error(e.operands[1]->loc)
             << "'" << e.name << "' needs conditions, not " << kindName(r->kind);
    return *r;
  }
  auto r = expr(*e.operands[1]);
  if (failed(r))
    return failure();
  if (e.name == "->") {
    for (const Value *v : {&*l, &*r})
      if (v->kind != Value::Int)
        return error(e.loc) << "'->' connects two ranks, not "
                            << kindName(v->kind);
    Value p;
    p.kind = Value::Pair;
    p.a = l->a;
    p.b = r->a;
    return p;
  }
  // Sums of chunks (in a collective's contract).
  bool lc = l->kind == Value::Chunk || l->kind == Value::Sum;
  bool rc = r->kind == Value::Chunk || r->kind == Value::Sum;
  if (e.name == "+" && (lc || rc)) {
    if (!lc || !rc)
      return error(e.loc) << "'+' adds two integers or two chunks, not "
                          << kindName(l->kind) << " and " << kindName(r->kind);
    if (mode != Mode::Contract)
      return error(e.loc) << "a sum of chunks only describes a result in a "
                             "collective's 'ensure'; reduce chunks with "
                             ".reduce(...)";
    Value sum;
    sum.kind = Value::Sum;
    for (const Value *v : {&*l, &*r}) {
      if (v->kind == Value::Sum) {
        llvm::append_range(sum.terms, v->terms);
        continue;
      }
      if (v->name != "input" || v->count != 1)
        return error(e.loc) << "a sum adds single chunks of input, not "
                            << show(*v);
      sum.terms.push_back({v->a, v->b});
    }
    return sum;
  }
  if (l->kind != Value::Int || r->kind != Value::Int) {
    if ((e.name == "==" || e.name == "!=") && l->kind == Value::Bool &&
        r->kind == Value::Bool)
      return Value::boolean((l->a == r->a) == (e.name == "=="));
    const Expr &bad = l->kind != Value::Int ? *e.operands[0] : *e.operands[1];
    return error(bad.loc) << "'" << e.name << "' needs integers, not "
                          << kindName(l->kind != Value::Int ? l->kind : r->kind);
  }
  int64_t a = l->a, b = r->a;
  // `wrapped` is set when the 64-bit operation itself overflowed (operands
  // are within 2^40, but a product of two is not within 2^63).
  auto checked = [&](bool wrapped, int64_t v) -> FailureOr<Value> {
    if (wrapped || v > kIntLimit || v < -kIntLimit)
      return error(e.loc) << "integer overflow in '" << e.name << "'";
    return Value::integer(v);
  };
  if (e.name == "+" || e.name == "-" || e.name == "*") {
    int64_t v = 0;
    bool wrapped = e.name == "+"   ? __builtin_add_overflow(a, b, &v)
                   : e.name == "-" ? __builtin_sub_overflow(a, b, &v)
                                   : __builtin_mul_overflow(a, b, &v);
    return checked(wrapped, v);
  }
  if (e.name == "/" || e.name == "%") {
    if (b == 0)
      return error(e.loc) << (e.name == "/" ? "division" : "modulo")
                          << " by zero";
    auto [q, m] = floorDivMod(a, b);
    return Value::integer(e.name == "/" ? q : m);
  }
  if (e.name == "..") return Value::range(a, b);
  if (e.name == "<") return Value::boolean(a < b);
  if (e.name == "<=") return Value::boolean(a <= b);
  if (e.name == ">") return Value::boolean(a > b);
  if (e.name == ">=") return Value::boolean(a >= b);
  if (e.name == "==") return Value::boolean(a == b);
  assert(e.name == "!=" && "the grammar has no other binary operator");
  return Value::boolean(a != b);
}

FailureOr<Value> Evaluator::index(const Expr &e) {
  auto base = expr(*e.operands[0]);
  if (failed(base))
    return failure();
  const Expr &idx = *e.operands[1];
  if (base->kind == Value::Buffer) {
    auto r = integer(idx);
    if (failed(r))
      return failure();
    if (*r < 0 || *r >= nranks)
      return error(idx.loc) << "rank " << *r << " does not exist (nranks = "
                            << nranks << ")";
    Value v = *base;
    v.kind = Value::OnRank;
    v.a = *r;
    v.limit = bufferChunks(v.name);
    v.offset = 0;
    v.shown = v.name;
    if (mode == Mode::Body && aliasing && v.name == aliasing->from) {
      v.name = aliasing->to;
      v.offset = aliasing->offsets[*r];
    }
    return v;
  }
  if (base->kind == Value::OnRank) {
    auto c = expr(idx);
    if (failed(c))
      return failure();
    int64_t lo, hi;
    if (c->kind == Value::Int) {
      lo = c->a;
      hi = c->a + 1;
    } else if (c->kind == Value::Range) {
      lo = c->a;
      hi = c->b;
      if (hi <= lo)
        return error(idx.loc) << "the chunk range " << lo << ".." << hi
                              << " is empty";
    } else {
      return error(idx.loc) << "a chunk index is an integer or a range, not "
                            << kindName(c->kind);
    }
    const std::string &shown = base->shown;
    int64_t n = base->limit;
    if (lo < 0 || hi > n)
      return error(idx.loc) << "chunk " << (lo < 0 ? lo : hi - 1) << " of '"
                            << shown << "' does not exist ('" << shown
                            << "' has " << n << " chunk" << (n == 1 ? "" : "s")
                            << ")";
    Value v = *base;
    v.kind = Value::Chunk;
    v.b = base->offset + lo;
    v.count = hi - lo;
    return fresh(v, e.loc);
  }
  if (base->kind == Value::List) {
    auto i = integer(idx);
    if (failed(i))
      return failure();
    int64_t n = base->items->size();
    if (*i < 0 || *i >= n)
      return error(idx.loc) << "index " << *i << " is out of range (the list "
                            << "has " << n << " element" << (n == 1 ? "" : "s")
                            << ")";
    return (*base->items)[*i];
  }
  return error(e.loc) << "cannot index " << kindName(base->kind);
}

//===----------------------------------------------------------------------===//
// Calls: built-in functions and user functions
//===----------------------------------------------------------------------===//

FailureOr<Value> Evaluator::callFunction(const ast::Function &f,
                                         const Expr &e) {
  for (const auto &kw : e.argNames)
    if (!kw.empty())
      return error(e.loc) << "function '" << f.name
                          << "' takes positional arguments only";
  if (e.operands.size() != f.params.size())
    return error(e.loc) << "function '" << f.name << "' takes "
                        << f.params.size() << " argument"
                        << (f.params.size() == 1 ? "" : "s") << ", not "
                        << e.operands.size();
  if (callers.size() >= kMaxCallDepth)
    return error(e.loc) << "function calls nest deeper than " << kMaxCallDepth
                        << " (recursion without an end?)";
  std::map<std::string, Value> frame;
  for (size_t i = 0; i < f.params.size(); ++i) {
    auto v = expr(*e.operands[i]);
    if (failed(v))
      return failure();
    frame[f.params[i]] = *v;
  }
  // The body sees the algorithm's globals and its parameters only.
  std::deque<std::map<std::string, Value>> saved;
  saved.swap(scopes);
  scopes.push_back(saved.front());
  scopes.push_back(std::move(frame));
  callers.push_back(loc(e.loc));
  const ast::File *savedFile = curFile;
  curFile = f.file;
  LogicalResult r = stmts(f.body);
  curFile = savedFile;
  callers.pop_back();
  // Globals may have gained scratch buffers; keep them.
  saved.front() = scopes.front();
  scopes.swap(saved);
  Value result = returned;
  returning = false;
  returned = Value();
  if (failed(r))
    return failure();
  return result;
}

FailureOr<Value> Evaluator::call(const Expr &e) {
  if (auto it = functions.find(e.name); it != functions.end())
    return callFunction(*it->second, e);

  // Keyword arguments: `id` of channel constructors, `credit` of memory
  // and port channels.
  const Expr *idExpr = nullptr, *creditExpr = nullptr;
  std::vector<const Expr *> args;
  for (size_t i = 0; i < e.operands.size(); ++i) {
    const std::string &kw = e.argNames[i];
    if (kw.empty()) {
      args.push_back(e.operands[i].get());
      continue;
    }
    if (kw == "id" && (e.name == "memory" || e.name == "port" ||
                       e.name == "switch")) {
      idExpr = e.operands[i].get();
      continue;
    }
    if (kw == "credit" && (e.name == "memory" || e.name == "port")) {
      creditExpr = e.operands[i].get();
      continue;
    }
    return error(e.operands[i]->loc) << "'" << e.name
                                     << "' takes no keyword argument '" << kw
                                     << "'";
  }
  int64_t id = 0;
  if (idExpr) {
    auto v = integer(*idExpr);
    if (failed(v))
      return failure();
    if (*v < 0 || *v >= 1024)
      return error(idExpr->loc) << "channel id must be in 0..1024, not " << *v;
    id = *v;
  }
  auto nargs = [&](size_t n, StringRef sig) -> LogicalResult {
    if (args.size() == n)
      return success();
    return error(e.loc) << "'" << e.name << "' takes " << sig;
  };

  if (e.name == "memory" || e.name == "port") {
    if (failed(nargs(1, "one argument 'src -> dst'")))
      return failure();
    const Expr &arg = *args[0];
    if (arg.kind != Expr::Binary || arg.name != "->")
      return error(arg.loc) << "'" << e.name
                            << "' takes a rank pair 'src -> dst'";
    auto src = rankOf(*arg.operands[0]);
    if (failed(src))
      return failure();
    auto dst = rankOf(*arg.operands[1]);
    if (failed(dst))
      return failure();
    if (*src == *dst)
      return error(arg.loc) << "a channel connects two different ranks, "
                               "but both ends are rank "
                            << *src;
    Value ch;
    ch.kind = Value::Channel;
    ch.name = e.name;
    ch.src = *src;
    ch.dst = *dst;
    ch.id = id;
    if (creditExpr) {
      auto v = integer(*creditExpr);
      if (failed(v))
        return failure();
      if (*v < 0 || *v > (int64_t(1) << 20))
        return error(creditExpr->loc)
               << "channel credit must be in 0..1048576, not " << *v;
      auto key = std::make_tuple(e.name, *src, *dst, id);
      auto [it, inserted] =
          credits.try_emplace(key, *v, loc(creditExpr->loc));
      if (!inserted && it->second.first != *v) {
        InFlightDiagnostic d = error(creditExpr->loc)
                               << "channel " << e.name << "(" << *src
                               << " -> " << *dst << ") is given credit " << *v
                               << " here and credit " << it->second.first
                               << " elsewhere; a channel has one credit";
        d.attachNote(it->second.second) << "the other credit is given here";
        return failure();
      }
      ch.credit = *v;
    }
    return ch;
  }
  if (e.name == "switch") {
    if (failed(nargs(1, "the ranks it connects ('ranks' or a range 'a..b')")))
      return failure();
    auto v = expr(*args[0]);
    if (failed(v))
      return failure();
    if (v->kind != Value::Range)
      return error(args[0]->loc) << "a switch channel connects a range of "
                                    "ranks, not "
                                 << kindName(v->kind);
    if (v->a < 0 || v->b > nranks || v->b - v->a < 2)
      return error(args[0]->loc)
             << "a switch channel connects at least two existing ranks; "
             << v->a << ".." << v->b << " does not (nranks = " << nranks << ")";
    Value sw;
    sw.kind = Value::Switch;
    for (int64_t r = v->a; r < v->b; ++r)
      sw.members.push_back(r);
    sw.name = llvm::formatv("sw_{0}_{1}", v->a, v->b - 1).str() +
              (id ? "_c" + std::to_string(id) : "");
    return sw;
  }
  if (e.name == "semaphore") {
    if (failed(nargs(1, "the rank it lives on")))
      return failure();
    auto r = rankOf(*args[0]);
    if (failed(r))
      return failure();
    if (failed(inBody(e)))
      return failure();
    Value s;
    s.kind = Value::Semaphore;
    s.a = *r;
    s.name = llvm::formatv("sem_{0}_{1}", *r, semaphores++).str() +
             instanceSuffix();
    if (!symbols.count(s.name)) {
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPoint(
          &algo.getBody().front(),
          algo.declarationSlot(AlgorithmOp::Decl::Semaphore));
      symbols[s.name] = SemaphoreOp::create(builder, loc(e.loc), s.name, *r);
    }
    return s;
  }
  if (e.name == "barrier") {
    if (failed(nargs(2, "a rank and a range of thread blocks 'a..b'")))
      return failure();
    auto r = rankOf(*args[0]);
    if (failed(r))
      return failure();
    auto v = expr(*args[1]);
    if (failed(v))
      return failure();
    if (v->kind != Value::Range || v->a < 0 || v->b - v->a < 1)
      return error(args[1]->loc)
             << "a barrier joins a non-empty range of thread blocks 'a..b'";
    if (v->b > 4096)
      return error(args[1]->loc) << "thread block " << v->b - 1
                                 << " is beyond the limit of 4096 per rank";
    if (failed(inBody(e)) || failed(step(e.loc)))
      return failure();
    SmallVector<int64_t> tbs;
    for (int64_t t = v->a; t < v->b; ++t)
      tbs.push_back(t + instance * tbStride);
    if (instance == 0)
      maxTb = std::max(maxTb, v->b - 1);
    TbBarrierOp::create(builder, loc(e.loc), *r, tbs);
    return Value();
  }
  if (e.name == "min" || e.name == "max" || e.name == "div" ||
      e.name == "mod") {
    if (failed(nargs(2, "two integers")))
      return failure();
    auto a = integer(*args[0]);
    if (failed(a))
      return failure();
    auto b = integer(*args[1]);
    if (failed(b))
      return failure();
    if (e.name == "min") return Value::integer(std::min(*a, *b));
    if (e.name == "max") return Value::integer(std::max(*a, *b));
    if (*b == 0)
      return error(args[1]->loc) << e.name << " by zero";
    auto [q, m] = floorDivMod(*a, *b);
    return Value::integer(e.name == "div" ? q : m);
  }
  if (e.name == "len") {
    if (failed(nargs(1, "one list or range")))
      return failure();
    auto v = expr(*args[0]);
    if (failed(v))
      return failure();
    if (v->kind == Value::List)
      return Value::integer(v->items->size());
    if (v->kind == Value::Range)
      return Value::integer(std::max<int64_t>(0, v->b - v->a));
    if (v->kind == Value::Chunk)
      return Value::integer(v->count);
    return error(args[0]->loc) << "'len' needs a list, range or chunk, not "
                               << kindName(v->kind);
  }
  if (e.name == "group") {
    // group(a, b, ...) or group(list): adjacent chunks as one reference.
    std::vector<Value> parts;
    for (const Expr *arg : args) {
      auto v = expr(*arg);
      if (failed(v))
        return failure();
      if (v->kind == Value::List)
        llvm::append_range(parts, *v->items);
      else
        parts.push_back(*v);
    }
    if (parts.empty())
      return error(e.loc) << "'group' needs at least one chunk";
    Value out = parts[0];
    for (size_t i = 0; i < parts.size(); ++i) {
      const Value &p = parts[i];
      if (p.kind != Value::Chunk)
        return error(e.loc) << "'group' joins chunks, not " << kindName(p.kind);
      if (failed(use(p, e)))
        return failure();
      if (i == 0)
        continue;
      if (p.name != out.name || p.a != out.a || p.b != out.b + out.count)
        return error(e.loc) << "'group' joins adjacent chunks of one buffer "
                               "on one rank; "
                            << show(p) << " does not follow " << show(out);
      out.count += p.count;
    }
    return fresh(out, e.loc);
  }
  return error(e.loc) << "unknown function '" << e.name << "'";
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::inBody(const Expr &e) {
  if (mode == Mode::Body)
    return success();
  return error(e.loc) << "'" << e.name
                      << "' moves data, which a "
                      << (mode == Mode::Contract ? "collective's contract"
                                                 : "clause")
                      << " cannot do";
}

Value Evaluator::fresh(Value v, ast::Loc where) {
  v.stamp = clock;
  v.madeAt = where;
  v.madeIn = curFile;
  return v;
}

LogicalResult Evaluator::use(const Value &v, const Expr &where) {
  if (mode != Mode::Body)
    return success();
  for (int64_t i = 0; i < v.count; ++i) {
    auto it = writes.find({v.name, v.a, v.b + i});
    if (it == writes.end() || it->second.stamp <= v.stamp)
      continue;
    InFlightDiagnostic d =
        error(where.loc)
        << "stale reference to " << show(v)
        << ": the chunk was overwritten after the reference was made; use "
           "the reference the overwriting operation returned";
    d.attachNote(fileLoc(it->second.file, it->second.loc))
        << "overwritten here";
    d.attachNote(fileLoc(v.madeIn, v.madeAt)) << "reference made here";
    return failure();
  }
  return success();
}

Value Evaluator::wrote(const Value &v, ast::Loc where) {
  ++clock;
  for (int64_t i = 0; i < v.count; ++i)
    writes[{v.name, v.a, v.b + i}] = {clock, where, curFile};
  return fresh(v, where);
}

ChunkRefAttr Evaluator::ref(const Value &v, int64_t piece, int64_t count) {
  int64_t idx = v.b + piece;
  if (instances > 1)
    idx = idx * instances + instance;
  return ChunkRefAttr::get(ctx, v.name, v.a, idx, count);
}

/// Calls f(piece, count) for the parts an operation on `count` chunks is
/// emitted as: one op when the program runs once, one per chunk when
/// instances interleave the chunks.
template <typename F> void Evaluator::pieces(int64_t count, F f) {
  if (instances == 1) {
    f(0, count);
    return;
  }
  for (int64_t m = 0; m < count; ++m)
    f(m, 1);
}

FlatSymbolRefAttr Evaluator::channelSymbol(const Value &ch, Location l) {
  std::string name =
      llvm::formatv("{0}_{1}_{2}", ch.name == "memory" ? "mem" : ch.name,
                    ch.src, ch.dst)
          .str() +
      (ch.id ? "_c" + std::to_string(ch.id) : "") + instanceSuffix();
  if (!symbols.count(name)) {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(&algo.getBody().front(),
                              algo.declarationSlot(AlgorithmOp::Decl::Channel));
    auto it = credits.find(std::make_tuple(ch.name, ch.src, ch.dst, ch.id));
    IntegerAttr credit;
    if (it != credits.end() && it->second.first > 0)
      credit = builder.getI64IntegerAttr(it->second.first);
    symbols[name] =
        ChannelOp::create(builder, l, name, *symbolizeChannelKind(ch.name),
                          ch.src, ch.dst, credit);
  }
  return FlatSymbolRefAttr::get(ctx, name);
}

FlatSymbolRefAttr Evaluator::switchSymbol(const Value &sw, Location l) {
  std::string name = sw.name + instanceSuffix();
  if (!symbols.count(name)) {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(
        &algo.getBody().front(),
        algo.declarationSlot(AlgorithmOp::Decl::SwitchChannel));
    symbols[name] = SwitchChannelOp::create(builder, l, name, sw.members);
  }
  return FlatSymbolRefAttr::get(ctx, name);
}

FailureOr<Evaluator::Placement> Evaluator::placement(const Expr *tbExpr) {
  Placement p;
  if (!tbExpr)
    return p;
  auto v = expr(*tbExpr);
  if (failed(v))
    return failure();
  int64_t first, count = 1;
  if (v->kind == Value::Int) {
    first = v->a;
  } else if (v->kind == Value::Range) {
    first = v->a;
    count = v->b - v->a;
    if (count < 1)
      return error(tbExpr->loc) << "the thread-block group " << v->a << ".."
                                << v->b << " is empty";
  } else {
    return error(tbExpr->loc) << "tb is a thread block or a range of thread "
                                 "blocks 'a..b', not "
                              << kindName(v->kind);
  }
  if (first < 0)
    return error(tbExpr->loc) << "thread block must be non-negative, not "
                              << first;
  if (first + count > 4096)
    return error(tbExpr->loc) << "thread block " << first + count - 1
                              << " is beyond the limit of 4096 per rank";
  if (instance == 0)
    maxTb = std::max(maxTb, first + count - 1);
  p.tb = builder.getI64IntegerAttr(first + instance * tbStride);
  if (count > 1)
    p.group = builder.getI64IntegerAttr(count);
  return p;
}

FailureOr<Value> Evaluator::chunkArg(const Expr &e, StringRef what) {
  auto v = expr(e);
  if (failed(v))
    return failure();
  if (v->kind != Value::Chunk)
    return error(e.loc) << what << " must be a chunk such as input[r][c], not "
                        << kindName(v->kind);
  return v;
}

FailureOr<Value> Evaluator::method(const Expr &e) {
  // Split positional and keyword arguments.
  std::vector<const Expr *> positional;
  const Expr *tbExpr = nullptr, *relaxedExpr = nullptr;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const std::string &kw = e.argNames[i - 1];
    if (kw.empty()) {
      positional.push_back(e.operands[i].get());
      continue;
    }
    if (kw == "tb") {
      tbExpr = e.operands[i].get();
      continue;
    }
    if (kw == "relaxed" && (e.name == "signal" || e.name == "wait")) {
      relaxedExpr = e.operands[i].get();
      continue;
    }
    return error(e.operands[i]->loc)
           << "unknown keyword argument '" << kw << "' of '" << e.name
           << "'; expected 'tb'"
           << ((e.name == "signal" || e.name == "wait") ? " or 'relaxed'" : "");
  }
  auto recv = expr(*e.operands[0]);
  if (failed(recv))
    return failure();
  auto expectArgs = [&](size_t n, StringRef sig) -> LogicalResult {
    if (positional.size() == n)
      return success();
    return error(e.loc) << "'" << e.name << "' takes " << sig;
  };

  // `split` is not an operation: no placement, allowed anywhere.
  if (recv->kind == Value::Chunk && e.name == "split") {
    if (tbExpr)
      return error(tbExpr->loc) << "'split' takes no 'tb'";
    if (failed(expectArgs(1, "the number of parts")))
      return failure();
    auto k = integer(*positional[0]);
    if (failed(k))
      return failure();
    if (*k < 1 || recv->count % *k != 0)
      return error(positional[0]->loc)
             << "cannot split " << show(*recv) << " (" << recv->count
             << " chunk" << (recv->count == 1 ? "" : "s") << ") into " << *k
             << " equal parts";
    if (failed(use(*recv, e)))
      return failure();
    Value list;
    list.kind = Value::List;
    list.items = std::make_shared<std::vector<Value>>();
    int64_t each = recv->count / *k;
    for (int64_t i = 0; i < *k; ++i) {
      Value part = *recv;
      part.b += i * each;
      part.count = each;
      list.items->push_back(part);
    }
    return list;
  }

  if (failed(inBody(e)) || failed(step(e.loc)))
    return failure();
  auto place = placement(tbExpr);
  if (failed(place))
    return failure();
  IntegerAttr tb = place->tb, group = place->group;
  Location l = loc(e.loc);
  auto unit = [&](bool on) { return on ? builder.getUnitAttr() : UnitAttr(); };

  // Two chunk operands (dst, src) checked against a channel's ends.
  auto endpoints = [&](const Value &ch, bool getDir)
      -> FailureOr<std::pair<Value, Value>> {
    if (failed(expectArgs(2, "a destination and a source chunk")))
      return failure();
    auto dst = chunkArg(*positional[0], "the destination");
    if (failed(dst))
      return failure();
    auto src = chunkArg(*positional[1], "the source");
    if (failed(src) || failed(use(*src, *positional[1])))
      return failure();
    int64_t srcRank = getDir ? ch.dst : ch.src, dstRank = getDir ? ch.src : ch.dst;
    if (src->a != srcRank)
      return error(positional[1]->loc)
             << "the source " << show(*src) << " is on rank " << src->a
             << ", but " << e.name << " on channel " << ch.src << " -> "
             << ch.dst << " reads rank " << srcRank;
    if (dst->a != dstRank)
      return error(positional[0]->loc)
             << "the destination " << show(*dst) << " is on rank " << dst->a
             << ", but " << e.name << " on channel " << ch.src << " -> "
             << ch.dst << " writes rank " << dstRank;
    if (dst->count != src->count)
      return error(e.loc) << "'" << e.name << "' moves " << src->count
                          << " chunk(s) into " << dst->count << " chunk(s)";
    return std::make_pair(*dst, *src);
  };

  if (recv->kind == Value::Channel) {
    const Value &ch = *recv;
    if (e.name == "put" || e.name == "put_with_signal" ||
        e.name == "put_with_signal_and_flush" || e.name == "put_packets") {
      auto ends = endpoints(ch, /*getDir=*/false);
      if (failed(ends))
        return failure();
      auto [dst, src] = *ends;
      if (e.name == "put_packets") {
        if (!scratchSlots.count(dst.name))
          return error(positional[0]->loc)
                 << "packets must land in a scratch buffer, not '" << dst.name
                 << "'";
      }
      if (e.name == "put_with_signal_and_flush" && ch.name != "port")
        return error(e.loc) << "'put_with_signal_and_flush' needs a port "
                               "channel; memory-channel puts need no flush";
      FlatSymbolRefAttr sym = channelSymbol(ch, l);
      bool withSignal = e.name != "put" && e.name != "put_packets";
      bool withFlush = e.name == "put_with_signal_and_flush";
      // Split into pieces (instances), only the last piece signals.
      pieces(dst.count, [&](int64_t m, int64_t n) {
        bool last = m + n == dst.count;
        if (e.name == "put_packets")
          PutPacketsOp::create(builder, l, sym, tb, group, ref(dst, m, n),
                               ref(src, m, n), nullptr, nullptr);
        else
          PutOp::create(builder, l, sym, tb, group, ref(dst, m, n),
                        ref(src, m, n), unit(withSignal && last),
                        unit(withFlush && last), nullptr, nullptr);
      });
      return wrote(dst, e.loc);
    }
    if (e.name == "get") {
      auto ends = endpoints(ch, /*getDir=*/true);
      if (failed(ends))
        return failure();
      auto [dst, src] = *ends;
      FlatSymbolRefAttr sym = channelSymbol(ch, l);
      pieces(dst.count, [&](int64_t m, int64_t n) {
        GetOp::create(builder, l, sym, tb, group, ref(dst, m, n),
                      ref(src, m, n));
      });
      return wrote(dst, e.loc);
    }
    if (e.name == "signal" || e.name == "wait" || e.name == "flush") {
      if (failed(expectArgs(0, "no positional arguments")))
        return failure();
      bool relaxed = false;
      if (relaxedExpr) {
        auto v = expr(*relaxedExpr);
        if (failed(v))
          return failure();
        if (v->kind != Value::Bool)
          return error(relaxedExpr->loc)
                 << "relaxed must be true or false, not " << kindName(v->kind);
        relaxed = v->a;
      }
      if (e.name == "flush" && ch.name != "port")
        return error(e.loc) << "'flush' needs a port channel; memory-channel "
                               "puts need no flush";
      FlatSymbolRefAttr sym = channelSymbol(ch, l);
      if (e.name == "signal")
        SignalOp::create(builder, l, sym, tb, group, unit(relaxed));
      else if (e.name == "wait")
        WaitOp::create(builder, l, sym, tb, group, unit(relaxed));
      else
        FlushOp::create(builder, l, sym, tb, group);
      return Value();
    }
    return error(e.loc) << "unknown channel operation '" << e.name
                        << "'; expected put, put_with_signal, "
                           "put_with_signal_and_flush, put_packets, get, "
                           "signal, wait or flush";
  }

  if (recv->kind == Value::Switch) {
    if (e.name != "reduce" && e.name != "broadcast")
      return error(e.loc) << "unknown switch channel operation '" << e.name
                          << "'; expected reduce or broadcast";
    if (failed(expectArgs(2, "a destination and a source chunk")))
      return failure();
    auto dst = chunkArg(*positional[0], "the destination");
    if (failed(dst))
      return failure();
    auto src = chunkArg(*positional[1], "the source");
    if (failed(src) || failed(use(*src, *positional[1])))
      return failure();
    if (dst->a != src->a)
      return error(e.loc) << "'" << e.name << "' runs on one rank: write "
                          << "both chunks with its rank (" << show(*dst)
                          << ", " << show(*src) << ")";
    if (!llvm::is_contained(recv->members, dst->a))
      return error(e.loc) << "rank " << dst->a
                          << " is not connected to this switch channel";
    if (dst->count != src->count)
      return error(e.loc) << "'" << e.name << "' moves " << src->count
                          << " chunk(s) into " << dst->count << " chunk(s)";
    FlatSymbolRefAttr sym = switchSymbol(*recv, l);
    pieces(dst->count, [&](int64_t m, int64_t n) {
      if (e.name == "reduce")
        MultimemReduceOp::create(builder, l, sym, tb, group, ref(*dst, m, n),
                                 ref(*src, m, n), nullptr);
      else
        MultimemBroadcastOp::create(builder, l, sym, tb, group,
                                    ref(*dst, m, n), ref(*src, m, n));
    });
    if (e.name == "broadcast") {
      for (int64_t r : recv->members) {
        Value on = *dst;
        on.a = r;
        (void)wrote(on, e.loc);
      }
      return fresh(*dst, e.loc);
    }
    return wrote(*dst, e.loc);
  }

  if (recv->kind == Value::Semaphore) {
    if (e.name != "release" && e.name != "acquire")
      return error(e.loc) << "unknown semaphore operation '" << e.name
                          << "'; expected release or acquire";
    if (failed(expectArgs(0, "no positional arguments")))
      return failure();
    auto sym = FlatSymbolRefAttr::get(ctx, recv->name);
    if (e.name == "release")
      ReleaseOp::create(builder, l, sym, tb, group);
    else
      AcquireOp::create(builder, l, sym, tb, group);
    return Value();
  }

  if (recv->kind != Value::Chunk)
    return error(e.loc) << "'" << e.name
                        << "' needs a chunk, a channel or a semaphore, not "
                        << kindName(recv->kind);

  if (e.name == "copy") {
    // src.copy(dst): the receiver is the source.
    if (failed(expectArgs(1, "one destination chunk")))
      return failure();
    auto dst = chunkArg(*positional[0], "the destination");
    if (failed(dst) || failed(use(*recv, e)))
      return failure();
    if (dst->count != recv->count)
      return error(e.loc) << "'copy' moves " << recv->count
                          << " chunk(s) into " << dst->count << " chunk(s)";
    pieces(dst->count, [&](int64_t m, int64_t n) {
      CopyOp::create(builder, l, tb, group, ref(*dst, m, n),
                     ref(*recv, m, n), nullptr, nullptr, nullptr);
    });
    return wrote(*dst, e.loc);
  }
  if (e.name == "reduce" || e.name == "reduce_packets" ||
      e.name == "unpack_packets" || e.name == "copy_packets") {
    // dst.op(src): the receiver is the destination.
    if (failed(expectArgs(1, "one source chunk")))
      return failure();
    auto src = chunkArg(*positional[0], "the source");
    if (failed(src) || failed(use(*src, *positional[0])))
      return failure();
    if (e.name == "reduce" && failed(use(*recv, e)))
      return failure();
    if (e.name == "reduce_packets" && failed(use(*recv, e)))
      return failure();
    if (src->count != recv->count)
      return error(e.loc) << "'" << e.name << "' combines " << src->count
                          << " chunk(s) into " << recv->count << " chunk(s)";
    if (e.name != "reduce") {
      if (!scratchSlots.count(src->name))
        return error(positional[0]->loc)
               << "packets are received in a scratch buffer, not '"
               << src->name << "'";
      if (src->a != recv->a)
        return error(positional[0]->loc)
               << "packets are read on the rank they landed on: the source is "
                  "on rank "
               << src->a << ", the destination on rank " << recv->a;
    }
    pieces(recv->count, [&](int64_t m, int64_t n) {
      ChunkRefAttr d = ref(*recv, m, n), s = ref(*src, m, n);
      if (e.name == "reduce")
        ReduceOp::create(builder, l, tb, group, d, s, nullptr, nullptr,
                         nullptr, nullptr);
      else if (e.name == "reduce_packets")
        ReducePacketsOp::create(builder, l, tb, group, d, s, nullptr, nullptr,
                                nullptr);
      else if (e.name == "unpack_packets")
        UnpackPacketsOp::create(builder, l, tb, group, d, s, nullptr, nullptr,
                                nullptr);
      else
        CopyPacketsOp::create(builder, l, tb, group, d, s);
    });
    return wrote(*recv, e.loc);
  }
  if (e.name == "read_reduce") {
    if (positional.empty())
      return error(e.loc) << "'read_reduce' takes one or more source chunks "
                             "on peer ranks";
    if (failed(use(*recv, e)))
      return failure();
    std::vector<Value> srcs;
    for (const Expr *p : positional) {
      auto s = chunkArg(*p, "a source");
      if (failed(s) || failed(use(*s, *p)))
        return failure();
      if (s->a == recv->a)
        return error(p->loc) << "read_reduce reads peers; " << show(*s)
                             << " is on the destination's own rank "
                             << recv->a << " (use reduce)";
      if (s->count != recv->count)
        return error(p->loc) << show(*s) << " has " << s->count
                             << " chunk(s), the destination " << recv->count;
      srcs.push_back(*s);
    }
    SmallVector<Attribute> chans;
    for (const Value &s : srcs) {
      Value ch;
      ch.kind = Value::Channel;
      ch.name = "memory";
      ch.src = recv->a;
      ch.dst = s.a;
      chans.push_back(channelSymbol(ch, l));
    }
    pieces(recv->count, [&](int64_t m, int64_t n) {
      SmallVector<Attribute> refs;
      for (const Value &s : srcs)
        refs.push_back(ref(s, m, n));
      ReadReduceOp::create(builder, l, tb, group, ref(*recv, m, n),
                           builder.getArrayAttr(refs),
                           builder.getArrayAttr(chans));
    });
    return wrote(*recv, e.loc);
  }
  return error(e.loc) << "unknown chunk operation '" << e.name
                      << "'; expected copy, reduce, read_reduce, "
                         "reduce_packets, unpack_packets, copy_packets or "
                         "split";
}

} // namespace

OwningOpRef<ModuleOp> ccl::evaluate(MLIRContext *ctx, const ast::File &file,
                                    const FrontendOptions &options) {
  ctx->getOrLoadDialect<CclDialect>();
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(ctx, file.path, 1, 1));
  Evaluator ev(ctx, options);
  if (failed(ev.run(file, *module)))
    return nullptr;
  // The evaluator checks what the program can get wrong; the op verifiers
  // catch the rest at the operation's source line.
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}
