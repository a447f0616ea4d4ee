//===- EvalExprs.cpp - values and expressions -----------------------------===//
//
// What every kind of value is called in messages, and the evaluation of
// expressions: literals, names, unary and binary operators (integer
// arithmetic bounded by 2^40, comparisons, conditions, rank pairs, sums of
// chunks in a contract) and indexing (a buffer by rank, a buffer on a rank
// by chunk or chunk range, a list by position).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;

namespace ccl {
namespace eval {

namespace {
constexpr int64_t kIntLimit = int64_t(1) << 40;

/// A chunk or a sum of chunks: what `+` adds in a contract.
bool isChunkOrSum(const Value &v) { return v.is<Chunk>() || v.is<Sum>(); }
} // namespace

const char *Value::kindName() const {
  return std::visit(
      [](const auto &kind) { return std::decay_t<decltype(kind)>::kName; },
      data);
}

std::string show(const Chunk &c) {
  std::string s = c.buffer + "[" + std::to_string(c.rank) + "][" +
                  std::to_string(c.first);
  if (c.count != 1)
    s += ".." + std::to_string(c.first + c.count);
  return s + "]";
}

std::pair<int64_t, int64_t> floorDivMod(int64_t a, int64_t b) {
  int64_t q = a / b, m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) {
    --q;
    m += b;
  }
  return {q, m};
}

FailureOr<int64_t> Evaluator::integer(const Expr &e) {
  auto v = expr(e);
  if (failed(v))
    return failure();
  const Int *i = v->getIf<Int>();
  if (!i)
    return error(e.loc) << "expected an integer, found " << v->kindName();
  return i->value;
}

FailureOr<bool> Evaluator::condition(const Expr &e, StringRef need) {
  auto v = expr(e);
  if (failed(v))
    return failure();
  const Bool *b = v->getIf<Bool>();
  if (!b) {
    error(e.loc) << need << v->kindName();
    return failure();
  }
  return b->value;
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

FailureOr<Chunk> Evaluator::chunkArg(const Expr &e, StringRef what) {
  auto v = expr(e);
  if (failed(v))
    return failure();
  const Chunk *c = v->getIf<Chunk>();
  if (!c)
    return error(e.loc) << what << " must be a chunk such as input[r][c], not "
                        << v->kindName();
  return *c;
}

FailureOr<Value> Evaluator::expr(const Expr &e) {
  switch (e.kind) {
  case Expr::Int:
    if (e.intValue > kIntLimit)
      return error(e.loc) << "integer literal too large";
    return Value::integer(e.intValue);
  case Expr::Ident:
    return identifier(e);
  case Expr::Call:
    return call(e);
  case Expr::Method:
    return method(e);
  case Expr::Index:
    return index(e);
  case Expr::Unary:
    return unary(e);
  case Expr::Binary:
    return binary(e);
  }
  return failure();
}

FailureOr<Value> Evaluator::identifier(const Expr &e) {
  if (Value *v = lookup(e.name))
    return *v;
  if (e.name == "LL" || e.name == "Simple")
    return error(e.loc) << "'" << e.name
                        << "' is a protocol and only valid in protocol(...)";
  if (functions.count(e.name))
    return error(e.loc) << "'" << e.name << "' is a function; call it with '"
                        << e.name << "(...)'";
  return error(e.loc) << "unknown identifier '" << e.name << "'";
}

FailureOr<Value> Evaluator::unary(const Expr &e) {
  auto v = expr(*e.operands[0]);
  if (failed(v))
    return failure();
  if (e.name == "-" || e.name == "~") {
    const Int *i = v->getIf<Int>();
    if (!i)
      return error(e.loc) << "'" << e.name << "' needs an integer, not "
                          << v->kindName();
    // Two's complement: ~x == -x - 1, within the same limits.
    return Value::integer(e.name == "-" ? -i->value : ~i->value);
  }
  const Bool *b = v->getIf<Bool>();
  if (!b)
    return error(e.loc) << "'!' needs a condition, not " << v->kindName();
  return Value::boolean(!b->value);
}

FailureOr<Value> Evaluator::binary(const Expr &e) {
  auto l = expr(*e.operands[0]);
  if (failed(l))
    return failure();
  if (e.name == "&&" || e.name == "||") {
    const Bool *lb = l->getIf<Bool>();
    if (!lb)
      return error(e.operands[0]->loc)
             << "'" << e.name << "' needs conditions, not " << l->kindName();
    if ((e.name == "&&") != lb->value)
      return *l; // short circuit
    auto r = expr(*e.operands[1]);
    if (failed(r))
      return failure();
    if (!r->is<Bool>())
      return error(e.operands[1]->loc)
             << "'" << e.name << "' needs conditions, not " << r->kindName();
    return *r;
  }
  auto r = expr(*e.operands[1]);
  if (failed(r))
    return failure();
  const Int *li = l->getIf<Int>(), *ri = r->getIf<Int>();
  if (e.name == "->") {
    if (!li || !ri)
      return error(e.loc) << "'->' connects two ranks, not "
                          << (li ? r : l)->kindName();
    return Value(Pair{li->value, ri->value});
  }
  // Sums of chunks (in a collective's contract).
  if (e.name == "+" && (isChunkOrSum(*l) || isChunkOrSum(*r)))
    return sum(e, *l, *r);
  if (!li || !ri) {
    const Bool *lb = l->getIf<Bool>(), *rb = r->getIf<Bool>();
    if ((e.name == "==" || e.name == "!=") && lb && rb)
      return Value::boolean((lb->value == rb->value) == (e.name == "=="));
    const Expr &bad = !li ? *e.operands[0] : *e.operands[1];
    return error(bad.loc) << "'" << e.name << "' needs integers, not "
                          << (!li ? l : r)->kindName();
  }
  return arithmetic(e, li->value, ri->value);
}

/// `l + r` where one side is a chunk or a sum of chunks.
FailureOr<Value> Evaluator::sum(const Expr &e, const Value &l,
                                const Value &r) {
  if (!isChunkOrSum(l) || !isChunkOrSum(r))
    return error(e.loc) << "'+' adds two integers or two chunks, not "
                        << l.kindName() << " and " << r.kindName();
  if (mode != Mode::Contract)
    return error(e.loc) << "a sum of chunks only describes a result in a "
                           "collective's 'ensure'; reduce chunks with "
                           ".reduce(...)";
  Sum result;
  for (const Value *v : {&l, &r}) {
    if (const Sum *s = v->getIf<Sum>()) {
      llvm::append_range(result.terms, s->terms);
      continue;
    }
    const Chunk &c = *v->getIf<Chunk>();
    if (c.buffer != "input" || c.count != 1)
      return error(e.loc) << "a sum adds single chunks of input, not "
                          << show(c);
    result.terms.push_back({c.rank, c.first});
  }
  return Value(std::move(result));
}

/// `a OP b` on two integers.
FailureOr<Value> Evaluator::arithmetic(const Expr &e, int64_t a, int64_t b) {
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
  if (e.name == "<<" || e.name == ">>") {
    // Shifts of the two's-complement integer; `>>` is arithmetic (rounds
    // towards minus infinity, like '/' by a power of two).
    if (b < 0 || b > 62)
      return error(e.loc) << "shift count of '" << e.name
                          << "' must be in 0..62, not " << b;
    if (e.name == ">>")
      return Value::integer(a >> b);
    bool wrapped = b > 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b));
    return checked(wrapped, wrapped ? 0 : int64_t(uint64_t(a) << b));
  }
  if (e.name == "&") return Value::integer(a & b);
  if (e.name == "|") return Value::integer(a | b);
  if (e.name == "^") return Value::integer(a ^ b);
  if (e.name == "..") return Value(Range{a, b});
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
  if (const Buffer *buf = base->getIf<Buffer>()) {
    auto r = rankOf(idx);
    if (failed(r))
      return failure();
    OnRank v{buf->name, *r, /*offset=*/0, bufferChunks(buf->name), buf->name};
    if (mode == Mode::Body && aliasing && v.buffer == aliasing->from) {
      v.buffer = aliasing->to;
      v.offset = aliasing->offsets[*r];
    }
    return Value(std::move(v));
  }
  if (const OnRank *on = base->getIf<OnRank>()) {
    auto c = expr(idx);
    if (failed(c))
      return failure();
    int64_t lo, hi;
    if (const Int *i = c->getIf<Int>()) {
      lo = i->value;
      hi = i->value + 1;
    } else if (const Range *range = c->getIf<Range>()) {
      lo = range->lo;
      hi = range->hi;
      if (hi <= lo)
        return error(idx.loc) << "the chunk range " << lo << ".." << hi
                              << " is empty";
    } else {
      return error(idx.loc) << "a chunk index is an integer or a range, not "
                            << c->kindName();
    }
    const std::string &shown = on->shown;
    int64_t n = on->chunks;
    if (lo < 0 || hi > n)
      return error(idx.loc) << "chunk " << (lo < 0 ? lo : hi - 1) << " of '"
                            << shown << "' does not exist ('" << shown
                            << "' has " << n << " chunk" << (n == 1 ? "" : "s")
                            << ")";
    return Value(fresh(Chunk{on->buffer, on->rank, on->offset + lo, hi - lo},
                       e.loc));
  }
  if (const List *list = base->getIf<List>()) {
    auto i = integer(idx);
    if (failed(i))
      return failure();
    int64_t n = list->items->size();
    if (*i < 0 || *i >= n)
      return error(idx.loc) << "index " << *i << " is out of range (the list "
                            << "has " << n << " element" << (n == 1 ? "" : "s")
                            << ")";
    return (*list->items)[*i];
  }
  return error(e.loc) << "cannot index " << base->kindName();
}

} // namespace eval
} // namespace ccl
