//===- Replicate.cpp - instances: copies of an algorithm side by side -----===//

#include "compiler/Transforms/Passes.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace ccl {
#define GEN_PASS_DEF_CCLREPLICATE
#include "compiler/Transforms/Passes.h.inc"
} // namespace ccl

#include <cassert>

using namespace mlir;
using namespace ccl;

namespace {

/// Depth of every operation of a placed program: the longest chain of
/// "comes after" relations that ends at it, where an operation comes after
/// the previous one of each of its thread blocks and a wait comes after the
/// operation that sends the signal it consumes (the k-th signal of a
/// channel pairs with its k-th wait, or with wait k + n on a channel with
/// credit n). None when the program synchronises in
/// ways this does not model (semaphores, multi-block barriers, LL packets,
/// whose flags order readers after writers) or when the relation has a
/// cycle (a program that deadlocks; the verifier reports it).
std::optional<std::vector<int64_t>> depths(AlgorithmOp algo,
                                           ArrayRef<Operation *> program) {
  if (algo.isLL())
    return std::nullopt;
  size_t n = program.size();
  std::vector<SmallVector<size_t>> succ(n);
  std::vector<int64_t> indeg(n, 0);
  auto edge = [&](size_t from, size_t to) {
    succ[from].push_back(to);
    ++indeg[to];
  };
  std::map<std::pair<int64_t, int64_t>, size_t> lastOfBlock;
  llvm::StringMap<SmallVector<size_t>> signals, waits;
  for (size_t i = 0; i < n; ++i) {
    Operation *op = program[i];
    if (isa<TbBarrierOp, ReleaseOp, AcquireOp>(op))
      return std::nullopt;
    auto inst = cast<InstructionOp>(op);
    for (int64_t t = 0; t < inst.getGroupSize(); ++t) {
      auto key = std::make_pair(inst.getExecRank(), inst.getThreadBlock() + t);
      if (auto it = lastOfBlock.find(key); it != lastOfBlock.end())
        edge(it->second, i);
      lastOfBlock[key] = i;
    }
    for (StringRef c : signalledChannels(op))
      signals[c].push_back(i);
    if (auto w = dyn_cast<WaitOp>(op))
      waits[w.getChannel()].push_back(i);
  }
  for (auto &entry : waits) {
    auto it = signals.find(entry.getKey());
    if (it == signals.end())
      continue;
    // A channel with credit n pairs its k-th wait with signal k - n; the
    // first n waits of a call take signals of earlier calls.
    int64_t credit = 0;
    if (auto ch = dyn_cast_or_null<ChannelOp>(
            algo.lookupDeclaration(entry.getKey())))
      credit = ch.getCreditOrZero();
    for (size_t k = credit; k < entry.getValue().size() &&
                            k - credit < it->second.size();
         ++k)
      edge(it->second[k - credit], entry.getValue()[k]);
  }
  std::vector<int64_t> depth(n, 0);
  SmallVector<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0)
      ready.push_back(i);
  size_t done = 0;
  while (!ready.empty()) {
    size_t i = ready.pop_back_val();
    ++done;
    for (size_t j : succ[i]) {
      depth[j] = std::max(depth[j], depth[i] + 1);
      if (--indeg[j] == 0)
        ready.push_back(j);
    }
  }
  if (done != n)
    return std::nullopt;
  return depth;
}

class Replicator {
public:
  Replicator(AlgorithmOp algo, int64_t k, bool share)
      : algo(algo), k(k), share(share) {}

  LogicalResult run() {
    Block &body = algo.getBody().front();
    SmallVector<Operation *> program, decls, contract;
    int64_t blocks = 1;
    for (Operation &op : body) {
      if (auto inst = dyn_cast<InstructionOp>(op)) {
        if (!inst.isPlaced())
          return success(); // needs --ccl-lower-chunks first
        blocks = std::max(blocks, inst.getThreadBlock() + inst.getGroupSize());
        program.push_back(&op);
      } else if (auto bar = dyn_cast<TbBarrierOp>(op)) {
        blocks = std::max(blocks, bar.getTbs().back() + 1);
        program.push_back(&op);
      } else if (isa<RequireOp, EnsureOp>(op)) {
        contract.push_back(&op);
      } else {
        decls.push_back(&op);
      }
    }
    // (Before the channels are renamed: a wait finds its rank through its
    // channel's declaration.)
    SmallVector<std::pair<Operation *, int64_t>> copies = order(program);
    OpBuilder b(algo.getContext());
    // Declarations: scratch grows, channels and semaphores are copied (and
    // the originals erased: no DeclarationIndex may be open for this
    // algorithm, it would keep them).
    assert(!DeclarationIndex::active(algo.getOperation()) &&
           "declarations are erased while an index holds them");
    for (Operation *op : decls) {
      if (auto s = dyn_cast<ScratchOp>(op)) {
        s.setSlots(s.getSlots() * k);
        continue;
      }
      auto sym = cast<SymbolOpInterface>(op);
      std::string name = sym.getName().str();
      b.setInsertionPoint(op);
      for (int64_t j = 0; j < k; ++j) {
        Operation *copy = b.clone(*op);
        std::string renamed = name + (share ? "_t" : "_i") + std::to_string(j);
        cast<SymbolOpInterface>(copy).setName(b.getStringAttr(renamed));
        renames[name].push_back(renamed);
      }
      op->erase();
    }
    // The program: instances one copy after the other; tiles as a
    // wavefront (see order()). Then the contract.
    if (contract.empty())
      b.setInsertionPointToEnd(&body);
    else
      b.setInsertionPoint(contract.front());
    for (auto [op, j] : copies)
      emitCopies(b, op, j, blocks);
    for (Operation *op : contract)
      for (int64_t j = 0; j < k; ++j) {
        b.setInsertionPoint(op);
        Operation *copy = b.clone(*op);
        rewrite(copy, j, /*piece=*/0, blocks);
      }
    for (Operation *op : program)
      op->erase();
    for (Operation *op : contract)
      op->erase();

    auto scale = [&](IntegerAttr a) {
      return a ? b.getI64IntegerAttr(a.getInt() * k) : IntegerAttr();
    };
    algo.setChunks(algo.getChunks() * k);
    algo.setInputChunksAttr(scale(algo.getInputChunksAttr()));
    algo.setOutputChunksAttr(scale(algo.getOutputChunksAttr()));
    // The in-place layout of an algorithm of both forms moves with the
    // chunks: chunk i becomes chunks i * k .. i * k + k - 1, so input[r][i]
    // at output[r][i + off] becomes input[r][i * k + j] at
    // output[r][(i + off) * k + j].
    if (DictionaryAttr alias = algo.getAlsoInplaceAttr()) {
      SmallVector<int64_t> offsets(
          alias.getAs<DenseI64ArrayAttr>("offsets").asArrayRef());
      for (int64_t &off : offsets)
        off *= k;
      NamedAttrList entries(alias);
      entries.set("offsets", b.getDenseI64ArrayAttr(offsets));
      algo.setAlsoInplaceAttr(entries.getDictionary(b.getContext()));
    }
    if (!share) {
      int64_t prev =
          algo.getInstancesAttr() ? algo.getInstancesAttr().getInt() : 1;
      algo.setInstancesAttr(b.getI64IntegerAttr(prev * k));
    }
    return success();
  }

private:
  /// The order of the copies: (operation, copy). Instances, and tiles of a
  /// program whose depths are unknown (see depths()), run copy after copy.
  /// Other tiles run as a wavefront: tile j of an operation of depth d at
  /// step d + j (ties: the older tile first, then program order), so a
  /// block sends tile j + 1 while tile j travels on. Each tile has its own
  /// channels, so a wait still pairs with the signal of its own tile, and
  /// every wait's signal has a smaller step: the order deadlocks no more
  /// than the program does. Within a tile, every block keeps its order.
  SmallVector<std::pair<Operation *, int64_t>>
  order(ArrayRef<Operation *> program) {
    SmallVector<std::tuple<int64_t, int64_t, size_t>> keys;
    std::optional<std::vector<int64_t>> depth;
    if (share)
      depth = depths(algo, program);
    for (int64_t j = 0; j < k; ++j)
      for (size_t i = 0; i < program.size(); ++i)
        keys.push_back({depth ? (*depth)[i] + j : j, j, i});
    llvm::stable_sort(keys);
    SmallVector<std::pair<Operation *, int64_t>> out;
    for (auto [step, j, i] : keys)
      out.push_back({program[i], j});
    return out;
  }

  /// Emits copy `j` of `op`, one operation per chunk of its references.
  void emitCopies(OpBuilder &b, Operation *op, int64_t j, int64_t blocks) {
    int64_t count = 1;
    forEachChunkRef(op, [&](ChunkRefAttr r) {
      count = std::max<int64_t>(count, r.getCount());
    });
    for (int64_t m = 0; m < count; ++m) {
      Operation *copy = b.clone(*op);
      rewrite(copy, j, m, blocks);
      // A fused signal or flush belongs after the last piece only.
      if (m + 1 < count)
        dropFusedSync(copy);
    }
  }

  /// Refines the chunk references of `op` to piece `piece` of copy `j`,
  /// renames its channels and semaphores and moves its thread blocks.
  void rewrite(Operation *op, int64_t j, int64_t piece, int64_t blocks) {
    MLIRContext *ctx = op->getContext();
    auto refine = [&](Attribute a) -> Attribute {
      if (auto r = dyn_cast<ChunkRefAttr>(a))
        return ChunkRefAttr::get(ctx, r.getBuffer(), r.getRank(),
                                 (r.getIndex() + piece) * k + j, 1);
      if (auto s = dyn_cast<FlatSymbolRefAttr>(a)) {
        auto it = renames.find(s.getValue());
        if (it != renames.end())
          return FlatSymbolRefAttr::get(ctx, it->second[j]);
      }
      return a;
    };
    for (NamedAttribute na : op->getAttrs()) {
      Attribute a = na.getValue();
      if (auto arr = dyn_cast<ArrayAttr>(a)) {
        SmallVector<Attribute> items;
        for (Attribute x : arr)
          items.push_back(refine(x));
        op->setAttr(na.getName(), ArrayAttr::get(ctx, items));
      } else {
        op->setAttr(na.getName(), refine(a));
      }
    }
    if (share)
      return; // tiles run on the same thread blocks, one after the other
    if (auto tb = op->getAttrOfType<IntegerAttr>("tb"))
      op->setAttr("tb", IntegerAttr::get(tb.getType(), tb.getInt() + j * blocks));
    if (auto bar = dyn_cast<TbBarrierOp>(op)) {
      SmallVector<int64_t> tbs;
      for (int64_t t : bar.getTbs())
        tbs.push_back(t + j * blocks);
      bar.setTbs(tbs);
    }
  }

  AlgorithmOp algo;
  int64_t k;
  bool share;
  llvm::StringMap<SmallVector<std::string>> renames;
};

/// Whether every operation of `algo` is on a thread block.
bool placed(AlgorithmOp algo) {
  return llvm::all_of(algo.getBody().front(), [](Operation &op) {
    auto inst = dyn_cast<InstructionOp>(op);
    return !inst || inst.isPlaced();
  });
}

struct CclReplicatePass
    : public ccl::impl::CclReplicateBase<CclReplicatePass> {
  using CclReplicateBase::CclReplicateBase;
  void runOnOperation() override {
    if (instances < 1 || instances > 1024) {
      getOperation().emitError("instances must be in 1..1024, not ")
          << static_cast<int64_t>(instances);
      return signalPassFailure();
    }
    for (AlgorithmOp algo : getOperation().getOps<AlgorithmOp>()) {
      if (algo.getScheduled())
        continue;
      int64_t k = instances;
      // Tiling also applies the program's own tiles(k) clause, once its
      // operations are placed (the replicator leaves others alone).
      if (shareBlocks && algo.getTilesAttr() && placed(algo)) {
        int64_t asked = algo.getTilesAttr().getInt();
        k *= asked;
        if (k > kMaxTiles) {
          algo.emitError() << "tiles(" << asked << ") with "
                           << static_cast<int64_t>(instances)
                           << " tiles per chunk from the options gives " << k
                           << ", more than " << kMaxTiles;
          return signalPassFailure();
        }
        algo.removeTilesAttr();
      }
      if (k > 1 && failed(Replicator(algo, k, shareBlocks).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
