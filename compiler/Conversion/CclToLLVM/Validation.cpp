//===- Validation.cpp - translation validation of ccl-lower-to-llvm -------===//
//
// See Validation.h. Block functions are read as streams of terms
// (ValidationTerms.h); a load from the program's table row is read as the
// constant the row holds, which is what the block's own function had in
// its place.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM/Validation.h"
#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM/ValidationTerms.h"
#include "ccl/types.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

using namespace mlir;
using namespace ccl;
using namespace ccl::validation;

namespace {

//===----------------------------------------------------------------------===//
// What the verified operations say
//===----------------------------------------------------------------------===//

/// One operand tuple of the check: what (an index into kWhat) and up to
/// six integers; rendered only for a report.
using Key = std::array<int64_t, 7>;

const char *const kWhat[] = {
    "chunk_ptr",          "chunk_elems",        "scratch_ptr",
    "scratch_elems",      "__ccl_signal",       "__ccl_signal_relaxed",
    "__ccl_release",      "__ccl_wait",         "__ccl_wait_relaxed",
    "__ccl_tb_barrier",   "__ccl_port_signal",  "__ccl_port_flush",
    "__ccl_acquire",      "__ccl_port_put",     "__ccl_wait_commit"};
enum What : int64_t {
  kChunkPtr, kChunkElems, kScratchPtr, kScratchElems, kSignal, kSignalRelaxed,
  kRelease, kWait, kWaitRelaxed, kTbBarrier, kPortSignal, kPortFlush,
  kAcquire, kPortPut, kWaitCommit, kNone
};

What whatOf(StringRef callee) {
  for (int64_t i = kSignal; i < kNone; ++i)
    if (callee == kWhat[i])
      return What(i);
  return kNone;
}

Key key(What w, std::initializer_list<int64_t> v) {
  Key k{};
  k.fill(0);
  k[0] = w;
  size_t i = 1;
  for (int64_t x : v)
    k[i++] = x;
  return k;
}

std::string render(const Key &k) {
  auto n = [&](size_t i) { return std::to_string(k[i]); };
  switch (What(k[0])) {
  case kChunkPtr:
    return "chunk_ptr(" + std::string(k[1] == 1 ? "input" : k[1] == 2 ? "output" : "?") +
           "[" + n(2) + "], chunks " + n(3) + ")";
  case kChunkElems:
    return "chunk_elems([" + n(1) + " +" + n(2) + "], chunks " + n(3) + ")";
  case kScratchPtr:
    return "scratch_ptr(buffer " + n(1) + " of rank " + n(2) + ", slot " +
           n(3) + " of " + n(4) + ", chunks " + n(5) + (k[6] ? ", LL" : "") +
           ")";
  case kScratchElems:
    return "scratch_elems(chunks " + n(1) + ", +" + n(2) + ")";
  default: {
    // Synchronisation: name(operands), zeros at the end dropped.
    size_t last = 1;
    for (size_t i = 1; i < k.size(); ++i)
      if (k[i])
        last = i;
    std::string s = std::string(kWhat[k[0]]) + "(";
    for (size_t i = 1; i <= last; ++i)
      s += (i > 1 ? ", " : "") + n(i);
    return s + ")";
  }
  }
}

/// One thread block's expected operands: its chunk references' pointer and
/// element-count calls (a multiset, sorted) and its synchronisation calls
/// in order.
struct Expected {
  std::vector<Key> pointers;
  std::vector<Key> sync;
};

struct VariantRef {
  std::string symbol, prefix;
  Location loc;
  int64_t nranks = 0, nblocks = 1, chunks = 1;
  /// The largest message the variant's scratch is laid out for.
  uint64_t maxBytes = 0;
  bool ll = false;
  /// (rank, tb) -> expected.
  std::map<std::pair<int64_t, int64_t>, Expected> blocks;
};

VariantRef captureVariant(AlgorithmOp algo, const std::string &prefix,
                          uint64_t maxBytes) {
  VariantRef v{algo.getSymName().str(), prefix, algo.getLoc()};
  // A bundle's algorithms may be laid out for less than max-bytes (the
  // module's cclc.max_bytes, the plan's limit).
  v.maxBytes = maxBytes;
  if (auto m = algo->getParentOfType<ModuleOp>())
    if (auto limits = m->getAttrOfType<DictionaryAttr>("cclc.max_bytes"))
      if (auto lim = limits.getAs<IntegerAttr>(algo.getName()))
        v.maxBytes = uint64_t(lim.getInt());
  v.nranks = algo.getNranks();
  v.chunks = algo.getChunks();
  v.ll = algo.isLL();
  // The plan's tables, in declaration order.
  llvm::StringMap<std::pair<int64_t, int64_t>> scratch; // index, slots
  for (auto s : algo.getBody().getOps<ScratchOp>())
    scratch[s.getSymName()] = {int64_t(scratch.size()), int64_t(s.getSlots())};
  llvm::StringMap<int64_t> channels, semaphores;
  llvm::StringSet<> ports;
  for (auto ch : algo.getBody().getOps<ChannelOp>()) {
    channels[ch.getSymName()] = int64_t(channels.size());
    if (ch.getKind() == ChannelKind::Port)
      ports.insert(ch.getSymName());
  }
  for (auto s : algo.getBody().getOps<SemaphoreOp>())
    semaphores[s.getSymName()] = int64_t(semaphores.size());
  std::map<std::string, int64_t> barriers;
  algo.walk([&](TbBarrierOp bar) {
    barriers.try_emplace(
        SyncLayout::barrierKey(bar.getRankAttr().getInt(), bar.getTbs()),
        int64_t(barriers.size()));
  });

  MLIRContext *ctx = algo.getContext();
  const StringAttr fwdChannelsName = StringAttr::get(ctx, "fwd_channels");
  const StringAttr fwdSignalName = StringAttr::get(ctx, "fwd_signal");
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    v.nblocks = std::max<int64_t>(v.nblocks, tb.getTb() + 1);
    Expected &e = v.blocks[{tb.getRank(), tb.getTb()}];
    llvm::MapVector<int64_t, int64_t> waits;
    for (Operation &op : tb.getBody().front()) {
      int64_t id = getOpId(&op).value_or(-1);
      // Pointers: an operation over a range of scratch slots is run one
      // chunk at a time (splitSlotRanges).
      int64_t pieces = slotRangePieces(&op);
      // The operation's attributes in one pass: its chunk references, its
      // fused forwards' channels and whether they signal.
      SmallVector<ChunkRefAttr, 4> refs;
      SmallVector<StringRef> fwd;
      bool fwdSignal = false;
      forEachAttr(&op, [&](StringAttr name, Attribute a) {
        if (!a)
          return;
        if (auto ref = dyn_cast<ChunkRefAttr>(a)) {
          refs.push_back(ref);
        } else if (auto list = dyn_cast<ArrayAttr>(a)) {
          if (name == fwdChannelsName) {
            for (Attribute c : list)
              fwd.push_back(cast<FlatSymbolRefAttr>(c).getValue());
            return;
          }
          for (Attribute x : list)
            if (auto ref = dyn_cast<ChunkRefAttr>(x))
              refs.push_back(ref);
        } else if (name == fwdSignalName) {
          fwdSignal = true;
        }
      });
      for (ChunkRefAttr r : refs) {
        for (int64_t p = 0; p < pieces; ++p) {
          int64_t index = r.getIndex() + (pieces > 1 ? p : 0);
          int64_t n = pieces > 1 ? 1 : int64_t(r.getCount());
          if (r.isScratch()) {
            auto [buf, slots] = scratch.lookup(r.getBuffer());
            e.pointers.push_back(
                key(kScratchPtr, {buf, r.getRank(), index, slots, v.chunks, v.ll ? 1 : 0}));
            e.pointers.push_back(key(kScratchElems, {v.chunks, n}));
          } else {
            e.pointers.push_back(
                key(kChunkPtr, {r.isInput() ? 1 : 2, index, v.chunks}));
            e.pointers.push_back(key(kChunkElems, {index, n, v.chunks}));
          }
        }
      }
      auto chan = [&](StringRef name) { return channels.lookup(name); };
      auto signals = [&](ArrayRef<StringRef> names) {
        llvm::SetVector<StringRef> once(names.begin(), names.end());
        for (StringRef c : once)
          e.sync.push_back(key(kSignal, {chan(c)}));
      };
      if (auto s = dyn_cast<SignalOp>(op)) {
        if (ports.contains(s.getChannel()))
          e.sync.push_back(
              key(kPortSignal, {chan(s.getChannel()), id}));
        else
          e.sync.push_back(key(s.getRelaxed() ? kSignalRelaxed : kSignal,
                               {chan(s.getChannel())}));
      } else if (auto w = dyn_cast<WaitOp>(op)) {
        int64_t c = chan(w.getChannel());
        e.sync.push_back(
            key(w.getRelaxed() ? kWaitRelaxed : kWait, {c, waits[c]++, id}));
      } else if (auto f = dyn_cast<FlushOp>(op)) {
        e.sync.push_back(
            key(kPortFlush, {chan(f.getChannel()), id}));
      } else if (auto r = dyn_cast<ReleaseOp>(op)) {
        e.sync.push_back(
            key(kRelease, {semaphores.lookup(r.getSemaphore())}));
      } else if (auto a = dyn_cast<AcquireOp>(op)) {
        e.sync.push_back(key(
            kAcquire, {semaphores.lookup(a.getSemaphore()), id}));
      } else if (auto bar = dyn_cast<TbBarrierOp>(op)) {
        e.sync.push_back(key(
            kTbBarrier,
            {barriers[SyncLayout::barrierKey(bar.getRankAttr().getInt(),
                                             bar.getTbs())],
             int64_t(bar.getTbs().size()), id}));
      } else if (auto put = dyn_cast<PutOp>(op)) {
        if (ports.contains(put.getChannel())) {
          // One request per piece; a fused signal or flush rides on the
          // last one only (splitSlotRanges).
          int64_t flags =
              (put.getWithSignal() ? 1 : 0) | (put.getWithFlush() ? 2 : 0);
          for (int64_t p = 0; p < pieces; ++p)
            e.sync.push_back(key(kPortPut, {chan(put.getChannel()),
                                            p + 1 == pieces ? flags : 0, id}));
        } else if (put.getWithSignal()) {
          SmallVector<StringRef> all{put.getChannel()};
          all.append(fwd);
          signals(all);
        }
      } else if (isa<CopyOp, ReduceOp, ReducePacketsOp, UnpackPacketsOp>(op) &&
                 fwdSignal) {
        signals(fwd);
      }
    }
    for (auto [c, n] : waits)
      e.sync.push_back(key(kWaitCommit, {c, n}));
    llvm::sort(e.pointers);
  }
  return v;
}

} // namespace

struct LoweringValidator::Impl {
  Options options;
  std::vector<VariantRef> variants;
  Terms terms;
  TracePool traces;
  /// (kernel name, nranks, rank, tb) -> index into traces, of the block's
  /// own function before sharing.
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, size_t> before;
  /// Kernel names, numbered for `before`'s keys.
  llvm::StringMap<uint64_t> kernelIds;
  uint64_t kernelId(StringRef kernel) {
    return kernelIds.try_emplace(kernel, kernelIds.size()).first->second;
  }
  /// `kernel` is a kernelId (looked up once per kernel, not per block).
  static std::pair<uint64_t, uint64_t> blockKey(uint64_t kernel,
                                                int64_t nranks, int64_t rank,
                                                int64_t tb) {
    return {kernel << 32 | uint64_t(nranks),
            uint64_t(rank) << 32 | uint64_t(tb)};
  }
  /// What each callee a term names is (by the term's name key): the
  /// check classifies every call of every block.
  llvm::DenseMap<int64_t, int64_t> calleeKinds;
  /// Whether the block functions take the kind (type-generic).
  bool generic = false;
  llvm::StringMap<std::vector<int32_t>> tableCache;
  /// The module's symbols (ModuleOp::lookupSymbol scans the module).
  std::unique_ptr<SymbolTable> symbols;
  std::unique_ptr<DispatchEvaluator> dispatch;
  /// (program, table, offset) -> index into programTraces, for the
  /// kernels of every kind.
  llvm::DenseMap<std::tuple<Operation *, const void *, int64_t>, size_t>
      programIndex;
  TracePool programTraces;
  /// (program trace, own trace, expected) already compared: the kernels of
  /// every kind of a type-generic lowering run the same programs and rows.
  llvm::DenseSet<std::tuple<size_t, size_t, const Expected *>> compared;
  /// The terms of a block function's arguments (ctx, input, output, count,
  /// epoch [, kind]).
  SmallVector<int32_t, 6> argTerms;
  ArrayRef<int32_t> blockArgs() {
    if (argTerms.empty())
      for (int64_t i = 0; i < (generic ? 6 : 5); ++i)
        argTerms.push_back(terms.arg(i));
    return argTerms;
  }

  const std::vector<int32_t> *table(ModuleOp module, StringRef name) {
    auto it = tableCache.find(name);
    if (it != tableCache.end())
      return &it->second;
    auto g = symbols->lookup<LLVM::GlobalOp>(name);
    if (!g || !g.getConstant())
      return nullptr;
    auto data = dyn_cast_or_null<DenseIntElementsAttr>(g.getValueOrNull());
    if (!data)
      return nullptr;
    std::vector<int32_t> values;
    for (APInt v : data.getValues<APInt>())
      values.push_back(int32_t(v.getSExtValue()));
    return &tableCache.try_emplace(name, std::move(values)).first->second;
  }

  /// The kernel that serves `rank` under `name` (a per-rank kernel is
  /// NAME_rR), or null where the module defines none.
  LLVM::LLVMFuncOp kernelFor(StringRef name, int64_t rank) {
    auto kernel = symbols->lookup<LLVM::LLVMFuncOp>(
        (name + "_r" + std::to_string(rank)).str());
    if (!kernel)
      kernel = symbols->lookup<LLVM::LLVMFuncOp>(name);
    return kernel && !kernel.isExternal() ? kernel : LLVM::LLVMFuncOp();
  }
  /// (kernel of the first type and operator, kernel of another): whether
  /// the second is the first with its own kind (sameUpToKind).
  std::map<std::pair<Operation *, Operation *>, bool> kindCopies;

  /// `kernel` is kernelFor(kernelName, rank).
  LogicalResult checkBlock(ModuleOp module, const VariantRef &v,
                           StringRef kernelName, LLVM::LLVMFuncOp kernel,
                           uint64_t kernelKey, StringRef dtype,
                           StringRef redop, int64_t rank, int64_t tb);
};


LogicalResult LoweringValidator::Impl::checkBlock(ModuleOp module,
                                                  const VariantRef &v,
                                                  StringRef kernelName,
                                                  LLVM::LLVMFuncOp kernel,
                                                  uint64_t kernelKey,
                                                  StringRef dtype,
                                                  StringRef redop,
                                                  int64_t rank, int64_t tb) {
  auto report = [&](const std::string &what) {
    emitError(v.loc) << "internal compiler error: the code generated for "
                        "algorithm '"
                     << v.symbol << "' (" << v.nranks << " ranks, " << dtype
                     << " " << redop << ") differs from its verified schedule "
                     << "at rank " << rank << ", thread block " << tb << ": "
                     << what
                     << "; no library is written (please report this with "
                        "the program)";
    return failure();
  };
  if (!kernel)
    return report("the plan names kernel '" + kernelName.str() + "' (or '" +
                  kernelName.str() + "_r" + std::to_string(rank) +
                  "'), which the module does not define");
  std::string why;
  FailureOr<Dispatched> d = dispatch->eval(kernel, rank, v.nranks, tb, why);
  if (failed(d))
    return report(why);
  auto exp = v.blocks.find({rank, tb});
  if (!d->program) {
    if (exp != v.blocks.end())
      return report("kernel '" + kernel.getName().str() +
                    "' runs nothing for the block");
    return success();
  }
  if (exp == v.blocks.end())
    return report("kernel '" + kernel.getName().str() + "' runs '" +
                  d->program.getName().str() +
                  "' for a block the schedule does not have");
  if (generic) {
    int64_t want = kindCode(dtype, redop);
    if (d->kind != want)
      return report("kernel '" + kernel.getName().str() +
                    "' passes kind " +
                    (d->kind ? std::to_string(*d->kind) : "none") +
                    " to its block program, not " + std::to_string(want));
  }
  const std::vector<int32_t> *rows = table(module, d->rowTable);
  if (!rows)
    return report("kernel '" + kernel.getName().str() + "' passes a row of '" +
                  d->rowTable.str() + "', which is not a constant i32 table");
  // The program's stream with its row put back.
  auto progKey =
      std::make_tuple(d->program.getOperation(),
                      static_cast<const void *>(rows), d->rowOffset);
  auto cached = programIndex.find(progKey);
  if (cached == programIndex.end()) {
    RowBinding row{*rows, d->rowOffset};
    FailureOr<Trace> t = readTrace(d->program, blockArgs(), &row, terms, why,
                                   /*cacheOps=*/true);
    if (failed(t))
      return report(why);
    cached = programIndex.try_emplace(progKey, programTraces.add(*t)).first;
  }
  const size_t afterIndex = cached->second;
  const Trace after = programTraces[afterIndex];

  // 2. The block's own function, before sharing.
  auto b = before.find(blockKey(kernelKey, v.nranks, rank, tb));
  if (b == before.end())
    return report("no block function was lowered for it in kernel '" +
                  kernel.getName().str() + "'");
  const Trace own_ = traces[b->second];
  const Expected &e = exp->second;
  if (!compared.insert({afterIndex, b->second, &e}).second)
    return success();
  if (own_ != after) {
    size_t i = 0;
    while (i < own_.size() && i < after.size() && own_[i] == after[i])
      ++i;
    std::string lowered = i < own_.size() ? terms.render(own_[i]) : "nothing";
    std::string runs = i < after.size() ? terms.render(after[i]) : "nothing";
    return report("call " + std::to_string(i) + " of block program '" +
                  d->program.getName().str() + "' with row " +
                  std::to_string(d->rowOffset) + " of '" + d->rowTable.str() +
                  "' is " + runs + ", the block's lowered code has " + lowered);
  }

  // 3. Its operands against the verified operations.
  std::vector<Key> pointers, sync;
  auto cst = [&](int32_t t) -> std::optional<int64_t> {
    return terms.constValue(t);
  };
  auto str = [&](std::optional<int64_t> x) {
    return x ? std::to_string(*x) : std::string("?");
  };
  std::string suffix = generic ? std::string("_any")
                               : ("_" + dtypeSuffix(dtype) + "_" + redop).str();
  // What a callee is, by its name: kNone for data calls, kReduceCall for
  // a reduction, kOtherCall for the rest.
  constexpr int64_t kReduceCall = kNone + 1, kOtherCall = kNone + 2;
  auto classify = [&](int64_t nameKey, StringRef callee) -> int64_t {
    auto [it, fresh] = calleeKinds.try_emplace(nameKey, kOtherCall);
    if (fresh) {
      if (callee == "__ccl_chunk_ptr")
        it->second = kChunkPtr;
      else if (callee == "__ccl_chunk_elems")
        it->second = kChunkElems;
      else if (callee == "__ccl_scratch_ptr")
        it->second = kScratchPtr;
      else if (callee == "__ccl_scratch_elems")
        it->second = kScratchElems;
      else if (What w = whatOf(callee); w != kNone)
        it->second = w;
      else if (callee.starts_with("__ccl_reduce_") ||
               callee.starts_with("__ccl_read_reduce_"))
        it->second = kReduceCall;
    }
    return it->second;
  };
  for (int32_t ev : after) {
    ArrayRef<int64_t> t = terms.at(ev);
    StringRef callee = terms.names.lookup(t[1]);
    const int64_t kind = classify(t[1], callee);
    ArrayRef<int64_t> a(t.data() + Terms::kFirstOperand,
                        t.size() - Terms::kFirstOperand);
    auto arg = [&](size_t i) -> int32_t {
      return i < a.size() ? int32_t(a[i]) : -1;
    };
    auto c = [&](size_t i) { return i < a.size() ? cst(arg(i)) : std::nullopt; };
    auto whichBuffer = [&](size_t i) -> int64_t {
      auto ai = i < a.size() ? terms.argIndex(arg(i)) : std::nullopt;
      return ai == 1 ? 1 : ai == 2 ? 2 : -1;
    };
    if (kind == kChunkPtr) {
      // (base, count, esize, index, nchunks)
      if (!c(3) || !c(4) || terms.argIndex(arg(1)) != 3)
        return report("a chunk pointer of unknown chunk: " + terms.render(ev));
      pointers.push_back(key(kChunkPtr, {whichBuffer(0), *c(3), *c(4)}));
    } else if (kind == kChunkElems) {
      // (count, index, cnt, nchunks)
      if (!c(1) || !c(2) || !c(3) || terms.argIndex(arg(0)) != 3)
        return report("a chunk's element count of unknown range: " +
                      terms.render(ev));
      pointers.push_back(key(kChunkElems, {*c(1), *c(2), *c(3)}));
    } else if (kind == kScratchPtr) {
      // (ctx, buf, rank, index, slots, layoutCount, nchunks, esize, epoch, ll)
      if (!c(1) || !c(2) || !c(3) || !c(4) || !c(6) || !c(9))
        return report("a scratch pointer of unknown slot: " +
                      terms.render(ev));
      if (!generic) {
        // The layout: slots hold the largest message's chunk.
        std::optional<int64_t> layout = c(5), esize = c(7);
        int64_t want = std::max<int64_t>(
            1, int64_t(v.maxBytes / std::max(1, dtypeSize(dtype))));
        if (!layout || !esize || *esize != dtypeSize(dtype) ||
            *layout != want)
          return report("a scratch pointer laid out for " + str(layout) +
                        " elements of " + str(esize) +
                        " bytes, the plan's scratch for " +
                        std::to_string(want) + " of " +
                        std::to_string(dtypeSize(dtype)) + ": " +
                        terms.render(ev));
      }
      pointers.push_back(
          key(kScratchPtr, {*c(1), *c(2), *c(3), *c(4), *c(6), *c(9)}));
    } else if (kind == kScratchElems) {
      // (count, nchunks, cnt)
      if (!c(1) || !c(2))
        return report("a scratch range of unknown size: " + terms.render(ev));
      pointers.push_back(key(kScratchElems, {*c(1), *c(2)}));
    } else if (kind < kNone) {
      What w = What(kind);
      // The integer operands each call carries (after the context).
      SmallVector<size_t, 3> at;
      switch (w) {
      case kSignal: case kSignalRelaxed: case kRelease:
        at = {1};
        break;
      case kWait: case kWaitRelaxed: case kTbBarrier:
        at = {1, 2, 3};
        break;
      case kPortPut: // (ctx, channel, dst, src, bytes, flags, op)
        at = {1, 5, 6};
        break;
      default: // port signal and flush, acquire, wait commit
        at = {1, 2};
        break;
      }
      Key k = key(w, {});
      for (auto [i, pos] : llvm::enumerate(at)) {
        std::optional<int64_t> x = c(pos);
        if (!x)
          return report("an operand of " + callee.str() +
                        " that is not a constant: " + terms.render(ev));
        k[1 + i] = *x;
      }
      sync.push_back(k);
    } else if (kind == kReduceCall && !callee.ends_with(suffix)) {
      return report("'" + callee.str() + "' reduces with another type or "
                                          "operator than '" +
                    suffix.substr(1) + "'");
    }
  }
  llvm::sort(pointers);
  if (pointers != e.pointers) {
    std::vector<Key> missing, extra;
    std::set_difference(e.pointers.begin(), e.pointers.end(), pointers.begin(),
                        pointers.end(), std::back_inserter(missing));
    std::set_difference(pointers.begin(), pointers.end(), e.pointers.begin(),
                        e.pointers.end(), std::back_inserter(extra));
    return report("its chunk references differ: the schedule has " +
                  (missing.empty() ? std::string("nothing more")
                                   : render(missing.front())) +
                  " (" + std::to_string(missing.size()) +
                  " missing), the code has " +
                  (extra.empty() ? std::string("nothing more") : render(extra.front())) +
                  " (" + std::to_string(extra.size()) + " not in the schedule)");
  }
  if (sync != e.sync) {
    size_t i = 0;
    while (i < sync.size() && i < e.sync.size() && sync[i] == e.sync[i])
      ++i;
    return report("synchronisation call " + std::to_string(i) + " is " +
                  (i < sync.size() ? render(sync[i]) : std::string("missing")) +
                  ", the schedule has " +
                  (i < e.sync.size() ? render(e.sync[i]) : std::string("nothing")));
  }
  return success();
}

LoweringValidator::LoweringValidator(ArrayRef<AlgorithmOp> algos,
                                     Options options)
    : impl(std::make_unique<Impl>()) {
  impl->options = std::move(options);
  impl->generic = impl->options.typeGeneric;
  for (AlgorithmOp algo : algos)
    impl->variants.push_back(captureVariant(
        algo, impl->options.prefixes.at(algo.getSymName().str()),
        impl->options.maxBytes));
}

LoweringValidator::~LoweringValidator() = default;

void LoweringValidator::reserveBlocks(ArrayRef<KernelSkeleton> skeletons) {
  // Room for every block at once (growing the tables one block at a time
  // was a fifth of recordBlocks' time on a file of many small algorithms).
  size_t blocks = 0, keys = 0;
  for (const KernelSkeleton &skel : skeletons) {
    blocks += skel.blocks.size();
    keys += skel.blocks.size() * std::max<size_t>(1, skel.kinds.size());
  }
  impl->traces.reserve(blocks);
  impl->before.reserve(impl->before.size() + keys);
}

void LoweringValidator::recordBlocks(ArrayRef<KernelSkeleton> skeletons) {
  for (const KernelSkeleton &skel : skeletons) {
    SmallVector<std::string> names;
    if (skel.kinds.empty())
      names.push_back(skel.name);
    for (auto &k : skel.kinds)
      names.push_back(k.first);
    SmallVector<uint64_t> ids;
    for (const std::string &n : names)
      ids.push_back(impl->kernelId(n));
    for (auto &[sel, func] : skel.blocks) {
      const KernelSkeleton::Variant *var = nullptr;
      for (const KernelSkeleton::Variant &v : skel.variants) {
        int64_t size = skel.rank ? v.nblocks : v.nranks * v.nblocks;
        if (sel >= v.base && sel < v.base + size)
          var = &v;
      }
      if (!var)
        continue; // reported by validate: no block function for it
      int64_t local = sel - var->base;
      int64_t rank = skel.rank ? *skel.rank : local / var->nblocks;
      int64_t tb = skel.rank ? local : local % var->nblocks;
      std::string why;
      FailureOr<Trace> t = readTrace(func, impl->blockArgs(), nullptr,
                                     impl->terms, why, /*cacheOps=*/false);
      if (failed(t))
        continue; // validate reports the block as not lowered
      size_t at = impl->traces.add(*t);
      for (uint64_t n : ids)
        impl->before[Impl::blockKey(n, var->nranks, rank, tb)] = at;
    }
  }
}

LogicalResult LoweringValidator::validate(ModuleOp module) {
  impl->symbols = std::make_unique<SymbolTable>(module);
  impl->dispatch = std::make_unique<DispatchEvaluator>(
      *impl->symbols,
      [impl = impl.get(), module](StringRef name) mutable {
        return impl->table(module, name);
      });
  // Operations of the erased block functions may have left their
  // addresses to new ones.
  impl->terms.forgetOperations();
  const std::string &d0 = impl->options.dtypes.front();
  const std::string &o0 = impl->options.redops.front();
  bool ok = true;
  for (const VariantRef &v : impl->variants) {
    const std::string first = kernelName(v.prefix, d0, o0);
    for (const std::string &d : impl->options.dtypes)
      for (const std::string &o : impl->options.redops) {
        std::string name = kernelName(v.prefix, d, o);
        for (int64_t r = 0; r < v.nranks && ok; ++r) {
          LLVM::LLVMFuncOp k = impl->kernelFor(name, r);
          // A type-generic kernel that is the first pair's kernel with its
          // own kind does for every block what that one was shown to do.
          if (impl->generic && name != first) {
            LLVM::LLVMFuncOp k0 = impl->kernelFor(first, r);
            if (k0 && k) {
              auto [it, fresh] = impl->kindCopies.try_emplace(
                  {k0.getOperation(), k.getOperation()}, false);
              if (fresh)
                it->second = sameUpToKind(k0, kindCode(d0, o0), k, kindCode(d, o));
              if (it->second)
                continue;
            }
          }
          uint64_t kid = k ? impl->kernelId(k.getName()) : 0;
          for (int64_t tb = 0; tb < v.nblocks && ok; ++tb)
            ok = succeeded(
                impl->checkBlock(module, v, name, k, kid, d, o, r, tb));
        }
      }
  }
  return success(ok);
}
