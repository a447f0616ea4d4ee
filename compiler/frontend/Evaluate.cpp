//===- Evaluate.cpp - compile-time evaluation into the ccl dialect ---------===//
//
// Runs the program's compile-time language (let, for, if, integer and rank
// arithmetic) for one rank count at a time and emits the data movement it
// describes as global-level `ccl` operations, each located at the source
// expression that produced it.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Frontend.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

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

/// A compile-time value.
struct Value {
  enum Kind { None, Int, Bool, Range, Pair, Channel, Buffer, OnRank, Chunk };
  Kind kind = None;
  int64_t a = 0, b = 0;   // Int: a. Bool: a. Range: [a, b). Pair: a -> b.
                          // OnRank: rank a. Chunk: rank a, index b.
  int64_t count = 1;      // Chunk: number of chunks.
  std::string name;       // Buffer/OnRank/Chunk: buffer. Channel: kind.
  int64_t src = 0, dst = 0; // Channel.

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
};

const char *kindName(Value::Kind k) {
  switch (k) {
  case Value::None: return "nothing";
  case Value::Int: return "an integer";
  case Value::Bool: return "a boolean";
  case Value::Range: return "a range";
  case Value::Pair: return "a rank pair";
  case Value::Channel: return "a channel";
  case Value::Buffer: return "a buffer";
  case Value::OnRank: return "a buffer on one rank";
  case Value::Chunk: return "a chunk";
  }
  return "a value";
}

class Evaluator {
public:
  Evaluator(MLIRContext *ctx, const ast::File &file,
            const FrontendOptions &options)
      : ctx(ctx), file(file), options(options), builder(ctx) {}

  LogicalResult run(ModuleOp module);

private:
  Location loc(ast::Loc l) {
    return FileLineColLoc::get(ctx, file.path, l.line, l.col);
  }
  InFlightDiagnostic error(ast::Loc l) { return emitError(loc(l)); }

  LogicalResult algorithm(const ast::Algorithm &a, int64_t nranks,
                          ModuleOp module);
  LogicalResult stmts(const std::vector<std::unique_ptr<Stmt>> &body);
  LogicalResult stmt(const Stmt &s);
  FailureOr<Value> expr(const Expr &e);
  FailureOr<Value> call(const Expr &e);
  FailureOr<Value> method(const Expr &e);
  FailureOr<Value> index(const Expr &e);
  FailureOr<Value> binary(const Expr &e);
  FailureOr<int64_t> integer(const Expr &e);
  FailureOr<int64_t> rankOf(const Expr &e);
  FailureOr<Value> chunkArg(const Expr &e, StringRef what);
  LogicalResult step(ast::Loc l);

  /// Looks `name` up through the scopes, innermost first.
  Value *lookup(StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->find(name.str());
      if (found != it->end())
        return &found->second;
    }
    return nullptr;
  }

  ChunkRefAttr ref(const Value &v) {
    return ChunkRefAttr::get(ctx, v.name, v.a, v.b, v.count);
  }
  FlatSymbolRefAttr channelSymbol(const Value &ch, Location l);

  MLIRContext *ctx;
  const ast::File &file;
  const FrontendOptions &options;
  OpBuilder builder;
  AlgorithmOp algo;
  int64_t nranks = 0, chunks = 1;
  int64_t steps = 0;
  std::vector<std::map<std::string, Value>> scopes;
  llvm::StringMap<int64_t> scratchSlots;
  llvm::StringMap<Operation *> channels;
};

LogicalResult Evaluator::step(ast::Loc l) {
  if (++steps <= options.maxSteps)
    return success();
  return error(l) << "evaluation did not finish within " << options.maxSteps
                  << " steps (a loop that does not terminate, or a program "
                     "too large for "
                  << nranks << " ranks)";
}

LogicalResult Evaluator::run(ModuleOp module) {
  llvm::StringSet<> names;
  for (const auto &a : file.algorithms) {
    if (!names.insert(a->name).second)
      return error(a->loc) << "algorithm '" << a->name << "' is defined twice";
    for (int64_t n : options.nranks)
      if (failed(algorithm(*a, n, module)))
        return failure();
  }
  return success();
}

LogicalResult Evaluator::algorithm(const ast::Algorithm &a, int64_t n,
                                   ModuleOp module) {
  static const char *const kCollectives[] = {
      "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "Broadcast",
      "Reduce"};
  if (!llvm::is_contained(kCollectives, a.collective))
    return error(a.collectiveLoc)
           << "unknown collective '" << a.collective
           << "'; expected AllReduce, AllGather, ReduceScatter, AllToAll, "
              "Broadcast or Reduce";
  bool inplace = false;
  if (!a.variant.empty()) {
    if (a.variant != "inplace")
      return error(a.variantLoc) << "unknown collective variant '" << a.variant
                                 << "'; expected 'inplace'";
    inplace = true;
  }

  nranks = n;
  chunks = 1;
  steps = 0;
  scopes.clear();
  scratchSlots.clear();
  channels.clear();
  scopes.emplace_back();
  auto &globals = scopes.back();
  globals["nranks"] = Value::integer(n);
  Value ranks;
  ranks.kind = Value::Range;
  ranks.a = 0;
  ranks.b = n;
  globals["ranks"] = ranks;
  globals["chunks"] = Value::integer(1); // until a chunks(...) clause
  for (const char *buf : {"input", "output"}) {
    Value b;
    b.kind = Value::Buffer;
    b.name = buf;
    globals[buf] = b;
  }
  for (const auto &d : options.defines) {
    static const char *const kBuiltins[] = {"nranks", "ranks", "input",
                                            "output", "chunks"};
    if (llvm::is_contained(kBuiltins, d.getKey()))
      return error(a.loc) << "-D " << d.getKey()
                          << " would redefine a built-in name"
                          << (d.getKey() == "nranks" ? "; use --nranks" : "");
    globals[d.getKey().str()] = Value::integer(d.getValue());
  }

  std::string protocol = "Simple";
  for (const auto &c : a.clauses) {
    if (c.name == "protocol") {
      if (c.value->kind != Expr::Ident ||
          (c.value->name != "LL" && c.value->name != "Simple"))
        return error(c.value->loc) << "protocol must be LL or Simple";
      protocol = c.value->name;
      continue;
    }
    if (c.name == "chunks") {
      auto v = integer(*c.value);
      if (failed(v))
        return failure();
      if (*v < 1)
        return error(c.value->loc)
               << "chunks must be at least 1, not " << *v;
      chunks = *v;
      globals["chunks"] = Value::integer(chunks);
      continue;
    }
    if (c.name == "instances" || c.name == "parallel")
      return error(c.loc) << "'" << c.name << "' is not implemented yet";
    return error(c.loc) << "unknown clause '" << c.name
                        << "'; expected chunks or protocol";
  }

  builder.setInsertionPointToEnd(module.getBody());
  algo = AlgorithmOp::create(
      builder, loc(a.loc), builder.getStringAttr(a.name + "_n" + std::to_string(n)),
      builder.getStringAttr(a.name), builder.getStringAttr(a.collective),
      builder.getBoolAttr(inplace), builder.getI64IntegerAttr(n),
      builder.getI64IntegerAttr(chunks), builder.getStringAttr(protocol),
      /*scheduled=*/nullptr, nullptr, nullptr, nullptr);
  algo.getBody().emplaceBlock();
  builder.setInsertionPointToEnd(&algo.getBody().front());
  if (failed(stmts(a.body)))
    return failure();
  return success();
}

LogicalResult Evaluator::stmts(const std::vector<std::unique_ptr<Stmt>> &body) {
  scopes.emplace_back();
  for (const auto &s : body)
    if (failed(stmt(*s))) {
      scopes.pop_back();
      return failure();
    }
  scopes.pop_back();
  return success();
}

LogicalResult Evaluator::stmt(const Stmt &s) {
  if (failed(step(s.loc)))
    return failure();
  switch (s.kind) {
  case Stmt::Scratch: {
    if (scopes.size() != 2)
      return error(s.loc) << "scratch buffers must be declared at the top "
                             "level of the algorithm";
    if (lookup(s.name))
      return error(s.nameLoc) << "'" << s.name << "' is already defined";
    auto slots = integer(*s.expr);
    if (failed(slots))
      return failure();
    if (*slots < 1)
      return error(s.expr->loc)
             << "scratch buffer '" << s.name
             << "' needs at least one slot, not " << *slots;
    Value b;
    b.kind = Value::Buffer;
    b.name = s.name;
    scopes.front()[s.name] = b;
    scratchSlots[s.name] = *slots;
    OpBuilder::InsertionGuard g(builder);
    Block &block = algo.getBody().front();
    auto it = block.begin();
    while (it != block.end() && isa<ScratchOp>(*it))
      ++it;
    builder.setInsertionPoint(&block, it);
    ScratchOp::create(builder, loc(s.nameLoc), s.name, *slots);
    return success();
  }
  case Stmt::Let: {
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
    auto v = expr(*s.expr);
    if (failed(v))
      return failure();
    *lookup(s.name) = *v;
    return success();
  }
  case Stmt::For: {
    auto range = expr(*s.expr);
    if (failed(range))
      return failure();
    if (range->kind != Value::Range)
      return error(s.expr->loc) << "a for loop iterates over a range "
                                   "('a..b' or 'ranks'), not "
                                << kindName(range->kind);
    for (int64_t i = range->a; i < range->b; ++i) {
      if (failed(step(s.loc)))
        return failure();
      scopes.emplace_back();
      scopes.back()[s.name] = Value::integer(i);
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
    }
    return success();
  }
  case Stmt::If: {
    auto c = expr(*s.expr);
    if (failed(c))
      return failure();
    if (c->kind != Value::Bool)
      return error(s.expr->loc)
             << "'if' needs a condition, not " << kindName(c->kind);
    return stmts(c->a ? s.body : s.elseBody);
  }
  case Stmt::ExprStmt: {
    auto v = expr(*s.expr);
    return failure(failed(v));
  }
  }
  return success();
}

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
    if (e.intValue > (int64_t(1) << 40))
      return error(e.loc) << "integer literal too large";
    return Value::integer(e.intValue);
  case Expr::Ident: {
    if (Value *v = lookup(e.name))
      return *v;
    if (e.name == "LL" || e.name == "Simple")
      return error(e.loc) << "'" << e.name
                          << "' is a protocol and only valid in protocol(...)";
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
  if (l->kind != Value::Int || r->kind != Value::Int) {
    if ((e.name == "==" || e.name == "!=") && l->kind == Value::Bool &&
        r->kind == Value::Bool)
      return Value::boolean((l->a == r->a) == (e.name == "=="));
    const Expr &bad = l->kind != Value::Int ? *e.operands[0] : *e.operands[1];
    return error(bad.loc) << "'" << e.name << "' needs integers, not "
                          << kindName(l->kind != Value::Int ? l->kind : r->kind);
  }
  int64_t a = l->a, b = r->a;
  constexpr int64_t lim = int64_t(1) << 40;
  auto checked = [&](int64_t v) -> FailureOr<Value> {
    if (v > lim || v < -lim)
      return error(e.loc) << "integer overflow in '" << e.name << "'";
    return Value::integer(v);
  };
  if (e.name == "+") return checked(a + b);
  if (e.name == "-") return checked(a - b);
  if (e.name == "*") return checked(a * b);
  if (e.name == "/" || e.name == "%") {
    if (b == 0)
      return error(e.loc) << (e.name == "/" ? "division" : "modulo")
                          << " by zero";
    // Floor semantics, so (r - 1) % nranks stays a valid rank.
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
      --q;
      m += b;
    }
    return Value::integer(e.name == "/" ? q : m);
  }
  if (e.name == "..") {
    Value v;
    v.kind = Value::Range;
    v.a = a;
    v.b = b;
    return v;
  }
  if (e.name == "<") return Value::boolean(a < b);
  if (e.name == "<=") return Value::boolean(a <= b);
  if (e.name == ">") return Value::boolean(a > b);
  if (e.name == ">=") return Value::boolean(a >= b);
  if (e.name == "==") return Value::boolean(a == b);
  if (e.name == "!=") return Value::boolean(a != b);
  return error(e.loc) << "unknown operator '" << e.name << "'";
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
    return v;
  }
  if (base->kind == Value::OnRank) {
    auto c = integer(idx);
    if (failed(c))
      return failure();
    int64_t n = base->name == "input" || base->name == "output"
                    ? chunks
                    : scratchSlots.lookup(base->name);
    if (*c < 0 || *c >= n)
      return error(idx.loc) << "chunk " << *c << " of '" << base->name
                            << "' does not exist ('" << base->name << "' has "
                            << n << " chunk" << (n == 1 ? "" : "s") << ")";
    Value v = *base;
    v.kind = Value::Chunk;
    v.b = *c;
    v.count = 1;
    return v;
  }
  return error(e.loc) << "cannot index " << kindName(base->kind);
}

FlatSymbolRefAttr Evaluator::channelSymbol(const Value &ch, Location l) {
  std::string name = llvm::formatv("{0}_{1}_{2}", ch.name == "memory" ? "mem" : ch.name,
                                   ch.src, ch.dst);
  if (!channels.count(name)) {
    OpBuilder::InsertionGuard g(builder);
    Block &body = algo.getBody().front();
    // Channels go after the scratch declarations, before any instruction.
    auto it = body.begin();
    while (it != body.end() && isa<ScratchOp, ChannelOp>(*it))
      ++it;
    builder.setInsertionPoint(&body, it);
    channels[name] = ChannelOp::create(builder, l, name, ch.name, ch.src, ch.dst);
  }
  return FlatSymbolRefAttr::get(ctx, name);
}

FailureOr<Value> Evaluator::call(const Expr &e) {
  for (const auto &kw : e.argNames)
    if (!kw.empty())
      return error(e.loc) << "'" << e.name << "' takes no keyword arguments";
  if (e.name == "memory" || e.name == "port" || e.name == "switch") {
    if (e.operands.size() != 1)
      return error(e.loc) << "'" << e.name << "' takes one argument 'a -> b'";
    const Expr &arg = *e.operands[0];
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
    if (e.name != "memory")
      return error(e.loc) << e.name << " channels are not implemented yet";
    Value ch;
    ch.kind = Value::Channel;
    ch.name = e.name;
    ch.src = *src;
    ch.dst = *dst;
    return ch;
  }
  if (e.name == "min" || e.name == "max" || e.name == "div" ||
      e.name == "mod") {
    if (e.operands.size() != 2)
      return error(e.loc) << "'" << e.name << "' takes two integers";
    auto a = integer(*e.operands[0]);
    if (failed(a))
      return failure();
    auto b = integer(*e.operands[1]);
    if (failed(b))
      return failure();
    if (e.name == "min") return Value::integer(std::min(*a, *b));
    if (e.name == "max") return Value::integer(std::max(*a, *b));
    if (*b == 0)
      return error(e.operands[1]->loc) << e.name << " by zero";
    int64_t q = *a / *b, m = *a % *b;
    if (m != 0 && ((m < 0) != (*b < 0))) {
      --q;
      m += *b;
    }
    return Value::integer(e.name == "div" ? q : m);
  }
  return error(e.loc) << "unknown function '" << e.name << "'";
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
  // Split positional and keyword arguments; `tb` is the only keyword.
  std::vector<const Expr *> positional;
  const Expr *tbExpr = nullptr;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const std::string &kw = e.argNames[i - 1];
    if (kw.empty()) {
      positional.push_back(e.operands[i].get());
      continue;
    }
    if (kw != "tb")
      return error(e.operands[i]->loc)
             << "unknown keyword argument '" << kw << "'; expected 'tb'";
    tbExpr = e.operands[i].get();
  }
  int64_t tb = 0;
  if (tbExpr) {
    auto v = integer(*tbExpr);
    if (failed(v))
      return failure();
    if (*v < 0)
      return error(tbExpr->loc) << "thread block must be non-negative, not "
                                << *v;
    tb = *v;
  }
  auto recv = expr(*e.operands[0]);
  if (failed(recv))
    return failure();
  auto expectArgs = [&](size_t n, StringRef sig) -> LogicalResult {
    if (positional.size() == n)
      return success();
    return error(e.loc) << "'" << e.name << "' takes " << sig;
  };
  if (failed(step(e.loc)))
    return failure();
  Location l = loc(e.loc);

  if (recv->kind == Value::Channel) {
    if (e.name != "put_packets")
      return error(e.loc) << "unknown channel operation '" << e.name
                          << "'; the supported one is put_packets";
    if (failed(expectArgs(2, "a destination and a source chunk")))
      return failure();
    auto dst = chunkArg(*positional[0], "the destination");
    if (failed(dst))
      return failure();
    auto src = chunkArg(*positional[1], "the source");
    if (failed(src))
      return failure();
    if (src->a != recv->src)
      return error(positional[1]->loc)
             << "the source " << ref(*src).str() << " is on rank " << src->a
             << ", but the channel sends from rank " << recv->src;
    if (dst->a != recv->dst)
      return error(positional[0]->loc)
             << "the destination " << ref(*dst).str() << " is on rank " << dst->a
             << ", but the channel goes to rank " << recv->dst;
    if (!scratchSlots.count(dst->name))
      return error(positional[0]->loc)
             << "packets must land in a scratch buffer, not '" << dst->name
             << "'";
    PutPacketsOp::create(builder, l, channelSymbol(*recv, l),
                         builder.getI64IntegerAttr(tb), nullptr, ref(*dst),
                         ref(*src));
    return Value();
  }

  if (recv->kind != Value::Chunk)
    return error(e.loc) << "'" << e.name << "' needs a chunk or a channel, not "
                        << kindName(recv->kind);

  if (e.name == "copy") {
    if (failed(expectArgs(1, "one destination chunk")))
      return failure();
    auto dst = chunkArg(*positional[0], "the destination");
    if (failed(dst))
      return failure();
    if (dst->a != recv->a)
      return error(e.loc) << "copy from rank " << recv->a << " to rank "
                          << dst->a
                          << " crosses ranks; chunk-level cross-rank copy "
                             "is not implemented yet (use a channel)";
    CopyOp::create(builder, l, builder.getI64IntegerAttr(tb), nullptr, ref(*dst), ref(*recv));
    return *dst;
  }
  if (e.name == "reduce_packets") {
    if (failed(expectArgs(1, "one source chunk of packets")))
      return failure();
    auto src = chunkArg(*positional[0], "the source");
    if (failed(src))
      return failure();
    if (!scratchSlots.count(src->name))
      return error(positional[0]->loc)
             << "packets are received in a scratch buffer, not '" << src->name
             << "'";
    if (src->a != recv->a)
      return error(positional[0]->loc)
             << "packets are read on the rank they landed on: the source is "
                "on rank "
             << src->a << ", the destination on rank " << recv->a;
    ReducePacketsOp::create(builder, l, builder.getI64IntegerAttr(tb), nullptr, ref(*recv), ref(*src));
    return *recv;
  }
  if (e.name == "reduce")
    return error(e.loc)
           << "chunk-level reduce is not implemented yet; use a channel and "
              "reduce_packets";
  return error(e.loc) << "unknown chunk operation '" << e.name
                      << "'; expected copy or reduce_packets";
}

} // namespace

OwningOpRef<ModuleOp> ccl::evaluate(MLIRContext *ctx, const ast::File &file,
                                    const FrontendOptions &options) {
  ctx->getOrLoadDialect<CclDialect>();
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(ctx, file.path, 1, 1));
  Evaluator ev(ctx, file, options);
  if (failed(ev.run(*module)))
    return nullptr;
  return module;
}
