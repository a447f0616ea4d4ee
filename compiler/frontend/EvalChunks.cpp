//===- EvalChunks.cpp - what the operations share -------------------------===//
//
// The pieces every data-moving operation uses: the check that it stands in
// an algorithm's body, the freshness of chunk references (a reference made
// before its chunk was overwritten is stale), chunk attributes (interleaved
// by instance), the channel and switch symbols declared on first use, and
// the `tb = ...` placement.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;

namespace ccl {
namespace eval {

LogicalResult Evaluator::inBody(const Expr &e) {
  if (mode == Mode::Body)
    return success();
  return error(e.loc) << "'" << e.name
                      << "' moves data, which a "
                      << (mode == Mode::Contract ? "collective's contract"
                                                 : "clause")
                      << " cannot do";
}

Chunk Evaluator::fresh(Chunk c, ast::Loc where) {
  c.stamp = clock;
  c.madeAt = where;
  c.madeIn = curFile;
  return c;
}

LogicalResult Evaluator::use(const Chunk &c, const Expr &where) {
  if (mode != Mode::Body)
    return success();
  for (int64_t i = 0; i < c.count; ++i) {
    auto it = writes.find({c.buffer, c.rank, c.first + i});
    if (it == writes.end() || it->second.stamp <= c.stamp)
      continue;
    InFlightDiagnostic d =
        error(where.loc)
        << "stale reference to " << show(c)
        << ": the chunk was overwritten after the reference was made; use "
           "the reference the overwriting operation returned";
    d.attachNote(fileLoc(it->second.file, it->second.loc))
        << "overwritten here";
    d.attachNote(fileLoc(c.madeIn, c.madeAt)) << "reference made here";
    return failure();
  }
  return success();
}

Chunk Evaluator::wrote(const Chunk &c, ast::Loc where) {
  ++clock;
  for (int64_t i = 0; i < c.count; ++i)
    writes[{c.buffer, c.rank, c.first + i}] = {clock, where, curFile};
  return fresh(c, where);
}

ChunkRefAttr Evaluator::ref(const Chunk &c, int64_t piece, int64_t count) {
  int64_t idx = c.first + piece;
  if (instances > 1)
    idx = idx * instances + instance;
  return ChunkRefAttr::get(ctx, c.buffer, c.rank, idx, count);
}

FlatSymbolRefAttr Evaluator::channelSymbol(const Channel &ch, Location l) {
  std::string name =
      llvm::formatv("{0}_{1}_{2}", ch.kind == "memory" ? "mem" : ch.kind,
                    ch.src, ch.dst)
          .str() +
      (ch.id ? "_c" + std::to_string(ch.id) : "") + instanceSuffix();
  if (!symbols.count(name)) {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPoint(&algo.getBody().front(),
                              algo.declarationSlot(AlgorithmOp::Decl::Channel));
    auto it = credits.find(std::make_tuple(ch.kind, ch.src, ch.dst, ch.id));
    IntegerAttr credit;
    if (it != credits.end() && it->second.first > 0)
      credit = builder.getI64IntegerAttr(it->second.first);
    symbols[name] =
        ChannelOp::create(builder, l, name, *symbolizeChannelKind(ch.kind),
                          ch.src, ch.dst, credit);
  }
  return FlatSymbolRefAttr::get(ctx, name);
}

FlatSymbolRefAttr Evaluator::switchSymbol(const Switch &sw, Location l) {
  std::string name = sw.symbol + instanceSuffix();
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
  if (const Int *i = v->getIf<Int>()) {
    first = i->value;
  } else if (const Range *range = v->getIf<Range>()) {
    first = range->lo;
    count = range->hi - range->lo;
    if (count < 1)
      return error(tbExpr->loc) << "the thread-block group " << range->lo
                                << ".." << range->hi << " is empty";
  } else {
    return error(tbExpr->loc) << "tb is a thread block or a range of thread "
                                 "blocks 'a..b', not "
                              << v->kindName();
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

} // namespace eval
} // namespace ccl
