//===- EvalOps.cpp - the methods of chunks, channels and semaphores -------===//
//
// `receiver.name(args, tb = ..., relaxed = ...)`: the data-moving and
// synchronising operations, each checked and emitted as `ccl` ops (one per
// chunk when instances interleave the chunks), and `chunk.split(k)`, which
// only makes references.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;

namespace ccl {
namespace eval {

/// A method call, its keyword arguments taken apart.
struct Evaluator::MethodCall {
  const Expr &e;
  std::vector<const Expr *> positional;
  const Expr *tbExpr = nullptr, *relaxedExpr = nullptr;
  Placement place; ///< set once `tb` is evaluated
};

namespace {
bool isSignalOrWait(StringRef name) {
  return name == "signal" || name == "wait";
}
} // namespace

FailureOr<Value> Evaluator::method(const Expr &e) {
  MethodCall m{e};
  for (size_t i = 1; i < e.operands.size(); ++i) {
    const std::string &kw = e.argNames[i - 1];
    if (kw.empty()) {
      m.positional.push_back(e.operands[i].get());
      continue;
    }
    if (kw == "tb") {
      m.tbExpr = e.operands[i].get();
      continue;
    }
    if (kw == "relaxed" && isSignalOrWait(e.name)) {
      m.relaxedExpr = e.operands[i].get();
      continue;
    }
    return error(e.operands[i]->loc)
           << "unknown keyword argument '" << kw << "' of '" << e.name
           << "'; expected 'tb'"
           << (isSignalOrWait(e.name) ? " or 'relaxed'" : "");
  }
  auto recv = expr(*e.operands[0]);
  if (failed(recv))
    return failure();

  // `split` is not an operation: no placement, allowed anywhere.
  const Chunk *chunk = recv->getIf<Chunk>();
  if (chunk && e.name == "split")
    return split(m, *chunk);

  if (failed(inBody(e)) || failed(step(e.loc)))
    return failure();
  auto place = placement(m.tbExpr);
  if (failed(place))
    return failure();
  m.place = *place;
  if (const Channel *ch = recv->getIf<Channel>())
    return channelOp(m, *ch);
  if (const Switch *sw = recv->getIf<Switch>())
    return switchOp(m, *sw);
  if (const Semaphore *sem = recv->getIf<Semaphore>())
    return semaphoreOp(m, *sem);
  if (chunk)
    return chunkOp(m, *chunk);
  return error(e.loc) << "'" << e.name
                      << "' needs a chunk, a channel or a semaphore, not "
                      << recv->kindName();
}

/// `chunk.split(k)`: a list of k equal parts.
FailureOr<Value> Evaluator::split(const MethodCall &m, const Chunk &c) {
  const Expr &e = m.e;
  if (m.tbExpr)
    return error(m.tbExpr->loc) << "'split' takes no 'tb'";
  if (failed(takes(e, m.positional.size(), 1, "the number of parts")))
    return failure();
  auto k = integer(*m.positional[0]);
  if (failed(k))
    return failure();
  if (*k < 1 || c.count % *k != 0)
    return error(m.positional[0]->loc)
           << "cannot split " << show(c) << " (" << c.count << " chunk"
           << (c.count == 1 ? "" : "s") << ") into " << *k << " equal parts";
  if (failed(use(c, e)))
    return failure();
  auto items = std::make_shared<std::vector<Value>>();
  int64_t each = c.count / *k;
  for (int64_t i = 0; i < *k; ++i) {
    Chunk part = c;
    part.first += i * each;
    part.count = each;
    items->push_back(Value(std::move(part)));
  }
  return Value(List{std::move(items)});
}

LogicalResult Evaluator::unknownMethod(const Expr &e, StringRef receiver,
                                       StringRef expected) {
  return error(e.loc) << "unknown " << receiver << " operation '" << e.name
                      << "'; expected " << expected;
}

LogicalResult Evaluator::moves(const Expr &e, const Chunk &dst,
                               const Chunk &src) {
  if (dst.count == src.count)
    return success();
  return error(e.loc) << "'" << e.name << "' moves " << src.count
                      << " chunk(s) into " << dst.count << " chunk(s)";
}

/// The two positional arguments (destination, source) of a transfer; the
/// source must be fresh.
FailureOr<std::pair<Chunk, Chunk>> Evaluator::twoChunks(const MethodCall &m) {
  if (failed(takes(m.e, m.positional.size(), 2,
                   "a destination and a source chunk")))
    return failure();
  auto dst = chunkArg(*m.positional[0], "the destination");
  if (failed(dst))
    return failure();
  auto src = chunkArg(*m.positional[1], "the source");
  if (failed(src) || failed(use(*src, *m.positional[1])))
    return failure();
  return std::make_pair(*dst, *src);
}

/// The chunks of a put (or, with `getDir`, a get) on `ch`, checked against
/// the channel's ends.
FailureOr<std::pair<Chunk, Chunk>>
Evaluator::channelEnds(const MethodCall &m, const Channel &ch, bool getDir) {
  const Expr &e = m.e;
  auto ends = twoChunks(m);
  if (failed(ends))
    return failure();
  const Chunk &dst = ends->first, &src = ends->second;
  int64_t srcRank = getDir ? ch.dst : ch.src;
  int64_t dstRank = getDir ? ch.src : ch.dst;
  if (src.rank != srcRank)
    return error(m.positional[1]->loc)
           << "the source " << show(src) << " is on rank " << src.rank
           << ", but " << e.name << " on channel " << ch.src << " -> "
           << ch.dst << " reads rank " << srcRank;
  if (dst.rank != dstRank)
    return error(m.positional[0]->loc)
           << "the destination " << show(dst) << " is on rank " << dst.rank
           << ", but " << e.name << " on channel " << ch.src << " -> "
           << ch.dst << " writes rank " << dstRank;
  if (failed(moves(e, dst, src)))
    return failure();
  return ends;
}

FailureOr<Value> Evaluator::channelOp(const MethodCall &m, const Channel &ch) {
  const Expr &e = m.e;
  IntegerAttr tb = m.place.tb, group = m.place.group;
  Location l = loc(e.loc);
  auto unit = [&](bool on) { return on ? builder.getUnitAttr() : UnitAttr(); };
  if (e.name == "put" || e.name == "put_with_signal" ||
      e.name == "put_with_signal_and_flush" || e.name == "put_packets") {
    auto ends = channelEnds(m, ch, /*getDir=*/false);
    if (failed(ends))
      return failure();
    const Chunk &dst = ends->first, &src = ends->second;
    if (e.name == "put_packets" && !scratchSlots.count(dst.buffer))
      return error(m.positional[0]->loc)
             << "packets must land in a scratch buffer, not '" << dst.buffer
             << "'";
    if (e.name == "put_with_signal_and_flush" && ch.kind != "port")
      return error(e.loc) << "'put_with_signal_and_flush' needs a port "
                             "channel; memory-channel puts need no flush";
    FlatSymbolRefAttr sym = channelSymbol(ch, l);
    bool withSignal = e.name != "put" && e.name != "put_packets";
    bool withFlush = e.name == "put_with_signal_and_flush";
    // Split into pieces (instances), only the last piece signals.
    pieces(dst.count, [&](int64_t p, int64_t n) {
      bool last = p + n == dst.count;
      if (e.name == "put_packets")
        PutPacketsOp::create(builder, l, sym, tb, group, ref(dst, p, n),
                             ref(src, p, n), nullptr, nullptr);
      else
        PutOp::create(builder, l, sym, tb, group, ref(dst, p, n),
                      ref(src, p, n), unit(withSignal && last),
                      unit(withFlush && last), nullptr, nullptr);
    });
    return Value(wrote(dst, e.loc));
  }
  if (e.name == "get") {
    auto ends = channelEnds(m, ch, /*getDir=*/true);
    if (failed(ends))
      return failure();
    const Chunk &dst = ends->first, &src = ends->second;
    FlatSymbolRefAttr sym = channelSymbol(ch, l);
    pieces(dst.count, [&](int64_t p, int64_t n) {
      GetOp::create(builder, l, sym, tb, group, ref(dst, p, n),
                    ref(src, p, n));
    });
    return Value(wrote(dst, e.loc));
  }
  if (isSignalOrWait(e.name) || e.name == "flush") {
    if (failed(takes(e, m.positional.size(), 0, "no positional arguments")))
      return failure();
    bool relaxed = false;
    if (m.relaxedExpr) {
      auto v =
          condition(*m.relaxedExpr, "relaxed must be true or false, not ");
      if (failed(v))
        return failure();
      relaxed = *v;
    }
    if (e.name == "flush" && ch.kind != "port")
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
  return unknownMethod(e, "channel",
                       "put, put_with_signal, put_with_signal_and_flush, "
                       "put_packets, get, signal, wait or flush");
}

FailureOr<Value> Evaluator::switchOp(const MethodCall &m, const Switch &sw) {
  const Expr &e = m.e;
  if (e.name != "reduce" && e.name != "broadcast")
    return unknownMethod(e, "switch channel", "reduce or broadcast");
  auto ends = twoChunks(m);
  if (failed(ends))
    return failure();
  const Chunk &dst = ends->first, &src = ends->second;
  if (dst.rank != src.rank)
    return error(e.loc) << "'" << e.name << "' runs on one rank: write "
                        << "both chunks with its rank (" << show(dst) << ", "
                        << show(src) << ")";
  if (!llvm::is_contained(sw.members, dst.rank))
    return error(e.loc) << "rank " << dst.rank
                        << " is not connected to this switch channel";
  if (failed(moves(e, dst, src)))
    return failure();
  IntegerAttr tb = m.place.tb, group = m.place.group;
  Location l = loc(e.loc);
  FlatSymbolRefAttr sym = switchSymbol(sw, l);
  pieces(dst.count, [&](int64_t p, int64_t n) {
    if (e.name == "reduce")
      MultimemReduceOp::create(builder, l, sym, tb, group, ref(dst, p, n),
                               ref(src, p, n), nullptr);
    else
      MultimemBroadcastOp::create(builder, l, sym, tb, group, ref(dst, p, n),
                                  ref(src, p, n));
  });
  if (e.name == "broadcast") {
    for (int64_t r : sw.members) {
      Chunk on = dst;
      on.rank = r;
      (void)wrote(on, e.loc);
    }
    return Value(fresh(dst, e.loc));
  }
  return Value(wrote(dst, e.loc));
}

FailureOr<Value> Evaluator::semaphoreOp(const MethodCall &m,
                                        const Semaphore &sem) {
  const Expr &e = m.e;
  if (e.name != "release" && e.name != "acquire")
    return unknownMethod(e, "semaphore", "release or acquire");
  if (failed(takes(e, m.positional.size(), 0, "no positional arguments")))
    return failure();
  auto sym = FlatSymbolRefAttr::get(ctx, sem.symbol);
  Location l = loc(e.loc);
  if (e.name == "release")
    ReleaseOp::create(builder, l, sym, m.place.tb, m.place.group);
  else
    AcquireOp::create(builder, l, sym, m.place.tb, m.place.group);
  return Value();
}

FailureOr<Value> Evaluator::chunkOp(const MethodCall &m, const Chunk &c) {
  const Expr &e = m.e;
  if (e.name == "copy") {
    // src.copy(dst): the receiver is the source.
    if (failed(takes(e, m.positional.size(), 1, "one destination chunk")))
      return failure();
    auto dst = chunkArg(*m.positional[0], "the destination");
    if (failed(dst) || failed(use(c, e)) || failed(moves(e, *dst, c)))
      return failure();
    Location l = loc(e.loc);
    pieces(dst->count, [&](int64_t p, int64_t n) {
      CopyOp::create(builder, l, m.place.tb, m.place.group, ref(*dst, p, n),
                     ref(c, p, n), nullptr, nullptr, nullptr);
    });
    return Value(wrote(*dst, e.loc));
  }
  if (e.name == "reduce" || e.name == "reduce_packets" ||
      e.name == "unpack_packets" || e.name == "copy_packets" ||
      e.name == "pack_packets")
    return combineOp(m, c);
  if (e.name == "read_reduce")
    return readReduce(m, c);
  return unknownMethod(e, "chunk",
                       "copy, reduce, read_reduce, reduce_packets, "
                       "unpack_packets, copy_packets, pack_packets or split");
}

/// `dst.reduce(src)`, `dst.reduce_packets(src)`, `dst.unpack_packets(src)`,
/// `dst.copy_packets(src)`, `dst.pack_packets(src)`: the receiver is the
/// destination.
FailureOr<Value> Evaluator::combineOp(const MethodCall &m, const Chunk &dst) {
  const Expr &e = m.e;
  if (failed(takes(e, m.positional.size(), 1, "one source chunk")))
    return failure();
  const Expr &srcExpr = *m.positional[0];
  auto src = chunkArg(srcExpr, "the source");
  if (failed(src) || failed(use(*src, srcExpr)))
    return failure();
  bool pack = e.name == "pack_packets";
  bool packets = e.name != "reduce" && !pack;
  if ((e.name == "reduce" || e.name == "reduce_packets") &&
      failed(use(dst, e)))
    return failure();
  if (src->count != dst.count)
    return error(e.loc) << "'" << e.name << "' combines " << src->count
                        << " chunk(s) into " << dst.count << " chunk(s)";
  if (packets) {
    if (!scratchSlots.count(src->buffer))
      return error(srcExpr.loc)
             << "packets are received in a scratch buffer, not '"
             << src->buffer << "'";
    if (src->rank != dst.rank)
      return error(srcExpr.loc)
             << "packets are read on the rank they landed on: the source is "
                "on rank "
             << src->rank << ", the destination on rank " << dst.rank;
  }
  if (pack) {
    if (!scratchSlots.count(dst.buffer))
      return error(e.loc) << "packets must land in a scratch buffer, not '"
                          << dst.buffer << "'";
    if (scratchSlots.count(src->buffer))
      return error(srcExpr.loc)
             << "'pack_packets' packs plain data; '" << src->buffer
             << "' holds packets (copy them with copy_packets)";
    if (src->rank != dst.rank)
      return error(srcExpr.loc)
             << "'pack_packets' packs on one rank: the source is on rank "
             << src->rank << ", the destination on rank " << dst.rank
             << " (send to a peer with put_packets)";
  }
  IntegerAttr tb = m.place.tb, group = m.place.group;
  Location l = loc(e.loc);
  pieces(dst.count, [&](int64_t p, int64_t n) {
    ChunkRefAttr d = ref(dst, p, n), s = ref(*src, p, n);
    if (pack)
      PackPacketsOp::create(builder, l, tb, group, d, s);
    else if (e.name == "reduce")
      ReduceOp::create(builder, l, tb, group, d, s, nullptr, nullptr, nullptr,
                       nullptr);
    else if (e.name == "reduce_packets")
      ReducePacketsOp::create(builder, l, tb, group, d, s, nullptr, nullptr,
                              nullptr);
    else if (e.name == "unpack_packets")
      UnpackPacketsOp::create(builder, l, tb, group, d, s, nullptr, nullptr,
                              nullptr);
    else
      CopyPacketsOp::create(builder, l, tb, group, d, s);
  });
  return Value(wrote(dst, e.loc));
}

/// `dst.read_reduce(a, b, ...)`: reads peers' chunks over memory channels
/// and reduces them into `dst`.
FailureOr<Value> Evaluator::readReduce(const MethodCall &m, const Chunk &dst) {
  const Expr &e = m.e;
  if (m.positional.empty())
    return error(e.loc) << "'read_reduce' takes one or more source chunks "
                           "on peer ranks";
  if (failed(use(dst, e)))
    return failure();
  std::vector<Chunk> srcs;
  for (const Expr *p : m.positional) {
    auto s = chunkArg(*p, "a source");
    if (failed(s) || failed(use(*s, *p)))
      return failure();
    if (s->rank == dst.rank)
      return error(p->loc) << "read_reduce reads peers; " << show(*s)
                           << " is on the destination's own rank " << dst.rank
                           << " (use reduce)";
    if (s->count != dst.count)
      return error(p->loc) << show(*s) << " has " << s->count
                           << " chunk(s), the destination " << dst.count;
    srcs.push_back(*s);
  }
  Location l = loc(e.loc);
  SmallVector<Attribute> chans;
  for (const Chunk &s : srcs)
    chans.push_back(channelSymbol(Channel{"memory", dst.rank, s.rank, 0}, l));
  pieces(dst.count, [&](int64_t p, int64_t n) {
    SmallVector<Attribute> refs;
    for (const Chunk &s : srcs)
      refs.push_back(ref(s, p, n));
    ReadReduceOp::create(builder, l, m.place.tb, m.place.group,
                         ref(dst, p, n), builder.getArrayAttr(refs),
                         builder.getArrayAttr(chans));
  });
  return Value(wrote(dst, e.loc));
}

} // namespace eval
} // namespace ccl
