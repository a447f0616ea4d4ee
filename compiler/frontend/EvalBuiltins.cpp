//===- EvalBuiltins.cpp - the built-in functions --------------------------===//
//
// Calls of functions the program does not define: channel constructors
// (`memory`, `port`, `switch`), `semaphore`, `barrier`, integer helpers
// (`min`, `max`, `div`, `mod`), `len` and `group`. A table says, per
// function, how many positional arguments it takes and which keyword
// arguments; `call` checks them and hands the call to the function's
// handler.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;

namespace ccl {
namespace eval {

/// A call of a built-in function, its keyword arguments taken apart.
struct Evaluator::BuiltinCall {
  const Expr &e;
  std::vector<const Expr *> args; ///< the positional arguments
  int64_t id = 0;                 ///< `id = n` (channels), checked
  const Expr *credit = nullptr;   ///< `credit = n` (memory and port)
};

namespace {
constexpr size_t kAnyArity = ~size_t(0);
/// The keyword arguments a built-in function takes (a bit set).
enum Keyword : unsigned { kNoKeyword = 0, kId = 1, kCredit = 2 };
} // namespace

/// One built-in function.
struct Evaluator::Builtin {
  const char *name;
  /// The positional arguments it takes, and how the error for another
  /// number describes them. `kAnyArity`: any number.
  size_t arity;
  const char *signature;
  unsigned keywords;
  FailureOr<Value> (Evaluator::*handler)(const BuiltinCall &);
};

const Evaluator::Builtin *Evaluator::findBuiltin(StringRef name) {
  static const Builtin kBuiltins[] = {
      {"memory", 1, "one argument 'src -> dst'", kId | kCredit,
       &Evaluator::builtinChannel},
      {"port", 1, "one argument 'src -> dst'", kId | kCredit,
       &Evaluator::builtinChannel},
      {"switch", 1, "the ranks it connects ('ranks' or a range 'a..b')", kId,
       &Evaluator::builtinSwitch},
      {"semaphore", 1, "the rank it lives on", kNoKeyword,
       &Evaluator::builtinSemaphore},
      {"barrier", 2, "a rank and a range of thread blocks 'a..b'", kNoKeyword,
       &Evaluator::builtinBarrier},
      {"min", 2, "two integers", kNoKeyword, &Evaluator::builtinMin},
      {"max", 2, "two integers", kNoKeyword, &Evaluator::builtinMax},
      {"div", 2, "two integers", kNoKeyword, &Evaluator::builtinDivMod},
      {"mod", 2, "two integers", kNoKeyword, &Evaluator::builtinDivMod},
      {"len", 1, "one list or range", kNoKeyword, &Evaluator::builtinLen},
      {"group", kAnyArity, "", kNoKeyword, &Evaluator::builtinGroup},
  };
  const Builtin *it = llvm::find_if(
      kBuiltins, [&](const Builtin &b) { return name == b.name; });
  return it == std::end(kBuiltins) ? nullptr : it;
}

LogicalResult Evaluator::takes(const Expr &e, size_t given, size_t expected,
                               StringRef sig) {
  if (given == expected)
    return success();
  return error(e.loc) << "'" << e.name << "' takes " << sig;
}

FailureOr<Value> Evaluator::call(const Expr &e) {
  if (auto it = functions.find(e.name); it != functions.end())
    return callFunction(*it->second, e);

  const Builtin *builtin = findBuiltin(e.name);
  BuiltinCall c{e};
  const Expr *idExpr = nullptr;
  for (size_t i = 0; i < e.operands.size(); ++i) {
    const std::string &kw = e.argNames[i];
    if (kw.empty()) {
      c.args.push_back(e.operands[i].get());
      continue;
    }
    if (kw == "id" && builtin && (builtin->keywords & kId)) {
      idExpr = e.operands[i].get();
      continue;
    }
    if (kw == "credit" && builtin && (builtin->keywords & kCredit)) {
      c.credit = e.operands[i].get();
      continue;
    }
    return error(e.operands[i]->loc) << "'" << e.name
                                     << "' takes no keyword argument '" << kw
                                     << "'";
  }
  if (idExpr) {
    auto v = integer(*idExpr);
    if (failed(v))
      return failure();
    if (*v < 0 || *v >= 1024)
      return error(idExpr->loc) << "channel id must be in 0..1024, not " << *v;
    c.id = *v;
  }
  if (!builtin)
    return error(e.loc) << "unknown function '" << e.name << "'";
  if (builtin->arity != kAnyArity &&
      failed(takes(e, c.args.size(), builtin->arity, builtin->signature)))
    return failure();
  return (this->*builtin->handler)(c);
}

/// `memory(src -> dst)` and `port(src -> dst)`, with `id` and `credit`.
FailureOr<Value> Evaluator::builtinChannel(const BuiltinCall &c) {
  const Expr &e = c.e;
  const Expr &arg = *c.args[0];
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
  if (c.credit) {
    auto v = integer(*c.credit);
    if (failed(v))
      return failure();
    if (*v < 0 || *v > (int64_t(1) << 20))
      return error(c.credit->loc)
             << "channel credit must be in 0..1048576, not " << *v;
    auto key = std::make_tuple(e.name, *src, *dst, c.id);
    auto [it, inserted] = credits.try_emplace(key, *v, loc(c.credit->loc));
    if (!inserted && it->second.first != *v) {
      InFlightDiagnostic d = error(c.credit->loc)
                             << "channel " << e.name << "(" << *src << " -> "
                             << *dst << ") is given credit " << *v
                             << " here and credit " << it->second.first
                             << " elsewhere; a channel has one credit";
      d.attachNote(it->second.second) << "the other credit is given here";
      return failure();
    }
  }
  return Value(Channel{e.name, *src, *dst, c.id});
}

/// `switch(a..b)`: a multimem channel over ranks a..b-1.
FailureOr<Value> Evaluator::builtinSwitch(const BuiltinCall &c) {
  const Expr &arg = *c.args[0];
  auto v = expr(arg);
  if (failed(v))
    return failure();
  const Range *range = v->getIf<Range>();
  if (!range)
    return error(arg.loc) << "a switch channel connects a range of "
                             "ranks, not "
                          << v->kindName();
  if (range->lo < 0 || range->hi > nranks || range->hi - range->lo < 2)
    return error(arg.loc) << "a switch channel connects at least two existing "
                             "ranks; "
                          << range->lo << ".." << range->hi
                          << " does not (nranks = " << nranks << ")";
  Switch sw;
  for (int64_t r = range->lo; r < range->hi; ++r)
    sw.members.push_back(r);
  sw.symbol = llvm::formatv("sw_{0}_{1}", range->lo, range->hi - 1).str() +
              (c.id ? "_c" + std::to_string(c.id) : "");
  return Value(std::move(sw));
}

/// `semaphore(r)`: declares a new semaphore on rank r.
FailureOr<Value> Evaluator::builtinSemaphore(const BuiltinCall &c) {
  const Expr &e = c.e;
  auto r = rankOf(*c.args[0]);
  if (failed(r))
    return failure();
  if (failed(inBody(e)))
    return failure();
  Semaphore sem{llvm::formatv("sem_{0}_{1}", *r, semaphores++).str() +
                instanceSuffix()};
  if (!symbols.count(sem.symbol)) {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(
        &algo.getBody().front(),
        algo.declarationSlot(AlgorithmOp::Decl::Semaphore));
    symbols[sem.symbol] =
        SemaphoreOp::create(builder, loc(e.loc), sem.symbol, *r);
  }
  return Value(std::move(sem));
}

/// `barrier(r, a..b)`: thread blocks a..b-1 of rank r wait for each other.
FailureOr<Value> Evaluator::builtinBarrier(const BuiltinCall &c) {
  const Expr &e = c.e;
  auto r = rankOf(*c.args[0]);
  if (failed(r))
    return failure();
  auto v = expr(*c.args[1]);
  if (failed(v))
    return failure();
  const Range *range = v->getIf<Range>();
  if (!range || range->lo < 0 || range->hi - range->lo < 1)
    return error(c.args[1]->loc)
           << "a barrier joins a non-empty range of thread blocks 'a..b'";
  if (range->hi > 4096)
    return error(c.args[1]->loc) << "thread block " << range->hi - 1
                                 << " is beyond the limit of 4096 per rank";
  if (failed(inBody(e)) || failed(step(e.loc)))
    return failure();
  SmallVector<int64_t> tbs;
  for (int64_t t = range->lo; t < range->hi; ++t)
    tbs.push_back(t + instance * tbStride);
  if (instance == 0)
    maxTb = std::max(maxTb, range->hi - 1);
  TbBarrierOp::create(builder, loc(e.loc), *r, tbs);
  return Value();
}

FailureOr<std::pair<int64_t, int64_t>>
Evaluator::twoIntegers(const BuiltinCall &c) {
  auto a = integer(*c.args[0]);
  if (failed(a))
    return failure();
  auto b = integer(*c.args[1]);
  if (failed(b))
    return failure();
  return std::make_pair(*a, *b);
}

FailureOr<Value> Evaluator::builtinMin(const BuiltinCall &c) {
  auto ab = twoIntegers(c);
  if (failed(ab))
    return failure();
  return Value::integer(std::min(ab->first, ab->second));
}

FailureOr<Value> Evaluator::builtinMax(const BuiltinCall &c) {
  auto ab = twoIntegers(c);
  if (failed(ab))
    return failure();
  return Value::integer(std::max(ab->first, ab->second));
}

/// `div(a, b)` and `mod(a, b)`: floor division and its modulo.
FailureOr<Value> Evaluator::builtinDivMod(const BuiltinCall &c) {
  auto ab = twoIntegers(c);
  if (failed(ab))
    return failure();
  if (ab->second == 0)
    return error(c.args[1]->loc) << c.e.name << " by zero";
  auto [q, m] = floorDivMod(ab->first, ab->second);
  return Value::integer(c.e.name == "div" ? q : m);
}

/// `len(x)`: the elements of a list or range, the chunks of a chunk.
FailureOr<Value> Evaluator::builtinLen(const BuiltinCall &c) {
  auto v = expr(*c.args[0]);
  if (failed(v))
    return failure();
  if (const List *list = v->getIf<List>())
    return Value::integer(list->items->size());
  if (const Range *range = v->getIf<Range>())
    return Value::integer(std::max<int64_t>(0, range->hi - range->lo));
  if (const Chunk *chunk = v->getIf<Chunk>())
    return Value::integer(chunk->count);
  return error(c.args[0]->loc) << "'len' needs a list, range or chunk, not "
                               << v->kindName();
}

/// `group(a, b, ...)` or `group(list)`: adjacent chunks as one reference.
FailureOr<Value> Evaluator::builtinGroup(const BuiltinCall &c) {
  const Expr &e = c.e;
  std::vector<Value> parts;
  for (const Expr *arg : c.args) {
    auto v = expr(*arg);
    if (failed(v))
      return failure();
    if (const List *list = v->getIf<List>())
      llvm::append_range(parts, *list->items);
    else
      parts.push_back(*v);
  }
  if (parts.empty())
    return error(e.loc) << "'group' needs at least one chunk";
  std::optional<Chunk> out;
  for (const Value &part : parts) {
    const Chunk *p = part.getIf<Chunk>();
    if (!p)
      return error(e.loc) << "'group' joins chunks, not " << part.kindName();
    if (failed(use(*p, e)))
      return failure();
    if (!out) {
      out = *p;
      continue;
    }
    if (p->buffer != out->buffer || p->rank != out->rank ||
        p->first != out->first + out->count)
      return error(e.loc) << "'group' joins adjacent chunks of one buffer "
                             "on one rank; "
                          << show(*p) << " does not follow " << show(*out);
    out->count += p->count;
  }
  return Value(fresh(*out, e.loc));
}

} // namespace eval
} // namespace ccl
