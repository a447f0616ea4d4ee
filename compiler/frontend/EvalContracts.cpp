//===- EvalContracts.cpp - the collective an algorithm implements ---------===//
//
// A collective declaration gives an algorithm its buffer sizes (`input(...)`,
// `output(...)`), its in-place layout (`inplace(A[r] = B[r][OFFSET])`) and
// its contract (`require`, `ensure`), which becomes `ccl.require` and
// `ccl.ensure` ops in the algorithm.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;
using ast::Stmt;

namespace ccl {
namespace eval {

/// Evaluates in collective `c`'s file with `chunks` bound to `factor`;
/// both are restored when the scope ends, on every path.
struct Evaluator::CollectiveScope {
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
      for (int64_t i = 0; i < in; ++i)
        result.requires_.push_back(
            {Chunk{"input", r, i}, {{r, i}}, fileLoc(c.file, c.loc)});
  // Locations through the in-place layout.
  if (fullAlias)
    for (auto *list : {&result.requires_, &result.ensures})
      for (auto &e : *list)
        if (e.at.buffer == fullAlias->from) {
          e.at.buffer = fullAlias->to;
          e.at.first += fullAlias->offsets[e.at.rank];
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
    RequireOp::create(builder, e.loc, chunk(e.at.buffer, e.at.rank, e.at.first),
                      chunk("input", e.terms[0].first, e.terms[0].second));
  builder.setInsertionPointToEnd(&body);
  for (const auto &e : con.ensures) {
    SmallVector<Attribute> terms;
    for (auto [r, i] : e.terms)
      terms.push_back(chunk("input", r, i));
    EnsureOp::create(builder, e.loc, chunk(e.at.buffer, e.at.rank, e.at.first),
                     builder.getArrayAttr(terms));
  }
}

LogicalResult Evaluator::contractStmt(const Stmt &s) {
  StringRef what = s.kind == Stmt::Ensure ? "ensure" : "require";
  if (mode != Mode::Contract)
    return error(s.loc) << "'" << what
                        << "' belongs in a collective declaration, not in an "
                           "algorithm";
  // `c` split into single chunks, each holding the matching chunk of input
  // `from` from `from.first` on.
  auto oneByOne = [&](const Chunk &c, const Chunk &from,
                      std::vector<Contract::Entry> &into) {
    for (int64_t i = 0; i < c.count; ++i) {
      Chunk one = c;
      one.first += i;
      one.count = 1;
      into.push_back({one, {{from.rank, from.first + i}}, loc(s.loc)});
    }
  };
  if (s.kind == Stmt::Require) {
    auto v = chunkArg(*s.expr, "'require'");
    if (failed(v))
      return failure();
    if (v->buffer != "input")
      return error(s.expr->loc)
             << "'require' names input chunks that hold data at the start, "
                "not "
             << show(*v);
    collecting->explicitRequire = true;
    oneByOne(*v, *v, collecting->requires_);
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
  if (const Chunk *c = v->getIf<Chunk>()) {
    if (c->buffer != "input")
      return error(e.operands[1]->loc)
             << "the right side of 'ensure' combines input chunks, not "
             << show(*c);
    if (c->count != at->count)
      return error(e.loc) << show(*at) << " has " << at->count
                          << " chunk(s) but " << show(*c) << " has "
                          << c->count;
    oneByOne(*at, *c, collecting->ensures);
    return success();
  }
  const Sum *sum = v->getIf<Sum>();
  if (!sum)
    return error(e.operands[1]->loc)
           << "the right side of 'ensure' must be an input chunk or a sum of "
              "input chunks, not "
           << v->kindName();
  if (at->count != 1)
    return error(e.operands[0]->loc)
           << "a sum is ensured for one chunk at a time, not " << show(*at);
  collecting->ensures.push_back({*at, sum->terms, loc(s.loc)});
  return success();
}

} // namespace eval
} // namespace ccl
