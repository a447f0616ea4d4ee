//===- LowerChunksLanes.cpp - thread blocks of unplaced chunk operations --===//
//
// Part of ccl-lower-chunks (LowerChunks.cpp): the lanes of unplaced copies
// and reduces, the block each gets, and their order by priority.
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/LowerChunksLanes.h"

#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace ccl;
using namespace ccl::lower_chunks;

bool ccl::lower_chunks::canFoldBase(AlgorithmOp algo, ChunkRefAttr dst,
                                    ChunkRefAttr src, ChunkRefAttr base) {
  ChunkRefAttr b = algo.inPlaceRef(base), d = algo.inPlaceRef(dst);
  return !algo.inPlaceRef(src).overlaps(d) && (b == d || !b.overlaps(d));
}

bool ccl::lower_chunks::hasDag(ArrayRef<Operation *> ops) {
  return llvm::all_of(ops,
                      [](Operation *op) { return getDagId(op).has_value(); });
}

void ccl::lower_chunks::forEachDagDep(Operation *op,
                                      llvm::function_ref<void(int64_t)> fn) {
  for (DagEdge kind : kDagEdges)
    for (int64_t id : getDagEdges(op, kind))
      fn(id);
}

int64_t ccl::lower_chunks::assignLanes(AlgorithmOp algo,
                                       ArrayRef<Operation *> ops,
                                       int64_t maxBlocks,
                                       std::map<Operation *, int64_t> &block) {
  std::map<Operation *, Operation *> parent;
  std::function<Operation *(Operation *)> find = [&](Operation *x) {
    Operation *&p = parent[x];
    if (!p || p == x)
      return p = x;
    return p = find(p);
  };
  std::map<std::tuple<std::string, int64_t, int64_t>, Operation *> last;
  int64_t placedBlocks = 0;
  for (Operation &op : algo.getBody().front()) {
    if (auto bar = dyn_cast<TbBarrierOp>(op))
      placedBlocks = std::max(placedBlocks, bar.getTbs().back() + 1);
    if (auto inst = dyn_cast<InstructionOp>(op); inst && inst.isPlaced())
      placedBlocks =
          std::max(placedBlocks, inst.getThreadBlock() + inst.getGroupSize());
  }
  // Block 0 holds the unplaced operations that are not copies or
  // reduces: the lanes start after it.
  if (llvm::any_of(ops,
                   [](Operation *op) { return !isa<CopyOp, ReduceOp>(op); }))
    placedBlocks = std::max<int64_t>(placedBlocks, 1);
  // With the chunk DAG (--ccl-chunk-dag), its edges link the lanes;
  // without it, any two operations touching a common slot do.
  bool haveDag = hasDag(ops);
  std::map<int64_t, Operation *> byId;
  if (haveDag)
    for (Operation *op : ops)
      byId[*getDagId(op)] = op;
  for (Operation *op : ops) {
    find(op);
    if (!isa<CopyOp, ReduceOp>(op))
      continue; // block 0, below
    if (haveDag) {
      forEachDagDep(op, [&](int64_t id) {
        if (auto it = byId.find(id); it != byId.end())
          parent[find(op)] = find(it->second);
      });
      continue;
    }
    auto inst = cast<InstructionOp>(op);
    SmallVector<ChunkRefAttr> refs(inst.getReadRefs());
    llvm::append_range(refs, inst.getWrittenRefs());
    for (ChunkRefAttr r : refs)
      for (int64_t i = 0; i < r.getCount(); ++i) {
        auto key =
            std::make_tuple(r.getBuffer().str(), r.getRank(), r.getIndex() + i);
        auto it = last.find(key);
        if (it != last.end())
          parent[find(op)] = find(it->second);
        last[key] = op;
      }
  }
  std::map<Operation *, int64_t> laneOfRoot;
  for (Operation *op : ops) {
    if (!isa<CopyOp, ReduceOp>(op)) {
      block[op] = 0;
      continue;
    }
    Operation *root = find(op);
    auto it = laneOfRoot.find(root);
    if (it == laneOfRoot.end())
      it = laneOfRoot.emplace(root, laneOfRoot.size()).first;
    block[op] = placedBlocks + it->second % maxBlocks;
  }
  return laneOfRoot.size();
}

namespace {

/// The chunk a local copy or reduce writes, or null for any other op.
ChunkRefAttr localResult(Operation *op) {
  if (auto copy = dyn_cast<CopyOp>(op); copy && !copy.isCrossRank())
    return copy.getDst();
  if (auto red = dyn_cast<ReduceOp>(op); red && !red.isCrossRank())
    return red.getDst();
  return nullptr;
}

/// Whether `op` is a cross-rank copy or reduce of `src`: lowered, it starts
/// with a put of `src` on the rank that holds it.
bool sendsFrom(Operation *op, ChunkRefAttr src) {
  if (auto copy = dyn_cast<CopyOp>(op))
    return copy.isCrossRank() && copy.getSrc() == src;
  if (auto red = dyn_cast<ReduceOp>(op))
    return red.isCrossRank() && red.getSrc() == src;
  return false;
}

/// `order` (a topological order of `ops`) with each cross-rank copy or
/// reduce that sends the result of a local copy or reduce moved up to just
/// after it, where its other predecessors allow. Sorted by depth, a block
/// that holds several lanes would otherwise run all their local copies
/// before any of the sends that read them (the root of a chain whose chunks
/// share blocks); as neighbours, ccl-fuse makes each pair one pass over the
/// data. Only a local operation pulls its send up, so a chain of cross-rank
/// hops keeps its breadth-first order.
SmallVector<size_t> keepSendsWithSources(ArrayRef<Operation *> ops,
                                         ArrayRef<SmallVector<size_t>> preds,
                                         ArrayRef<SmallVector<size_t>> succs,
                                         ArrayRef<size_t> order) {
  std::vector<bool> placed(ops.size(), false);
  SmallVector<size_t> out;
  out.reserve(order.size());
  for (size_t i : order) {
    if (placed[i])
      continue;
    placed[i] = true;
    out.push_back(i);
    ChunkRefAttr result = localResult(ops[i]);
    if (!result)
      continue;
    for (size_t s : succs[i])
      if (!placed[s] && sendsFrom(ops[s], result) &&
          llvm::all_of(preds[s], [&](size_t p) { return placed[p]; })) {
        placed[s] = true;
        out.push_back(s);
      }
  }
  return out;
}

/// `order` with each local copy `D = B` moved down to just before the
/// reduce into D that consumes it, when no other successor of the copy
/// lies between them. Lowered, the reduce follows the copy on its block
/// with only waits between, and ccl-fuse folds the copy into it (`reduce D
/// from X base B`, one pass instead of two). Sorted by depth, a block that
/// holds several lanes would otherwise run all its copies ahead of the
/// reduces (the root of a Reduce chain, and its other hops). Not where the
/// fold would be refused (X is D in place, or B partly overlaps D in
/// place): the copy keeps its early place there.
SmallVector<size_t> keepCopiesWithReduces(AlgorithmOp algo,
                                          ArrayRef<Operation *> ops,
                                          ArrayRef<SmallVector<size_t>> succs,
                                          ArrayRef<size_t> order) {
  std::vector<size_t> pos(ops.size());
  for (size_t k = 0; k < order.size(); ++k)
    pos[order[k]] = k;
  // movedBefore[r]: the copy that goes just before reduce r.
  std::map<size_t, size_t> movedBefore;
  std::vector<bool> moved(ops.size(), false);
  for (size_t c = 0; c < ops.size(); ++c) {
    auto copy = dyn_cast<CopyOp>(ops[c]);
    if (!copy || copy.isCrossRank() || copy.getFwdDstsAttr())
      continue;
    std::optional<size_t> target;
    for (size_t s : succs[c])
      if (auto red = dyn_cast<ReduceOp>(ops[s]);
          red && red.getDst() == copy.getDst() && !red.getMoreAttr() &&
          !red.getBaseAttr() && (!target || pos[s] < pos[*target]))
        target = s;
    if (!target || movedBefore.count(*target))
      continue;
    auto red = cast<ReduceOp>(ops[*target]);
    if (!canFoldBase(algo, red.getDst(), red.getSrc(), copy.getSrc()))
      continue;
    if (llvm::any_of(succs[c], [&](size_t s) { return pos[s] < pos[*target]; }))
      continue;
    movedBefore[*target] = c;
    moved[c] = true;
  }
  SmallVector<size_t> out;
  out.reserve(order.size());
  for (size_t i : order) {
    if (moved[i])
      continue;
    if (auto it = movedBefore.find(i); it != movedBefore.end())
      out.push_back(it->second);
    out.push_back(i);
  }
  return out;
}

} // namespace

void ccl::lower_chunks::orderByPriority(AlgorithmOp algo,
                                        ArrayRef<Operation *> ops) {
  Block &body = algo.getBody().front();
  size_t insts = llvm::count_if(
      body, [](Operation &op) { return isa<InstructionOp, TbBarrierOp>(op); });
  if (ops.size() < 2 || insts != ops.size())
    return; // placed operations too: keep the program's order
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops[i]->getPrevNode() != ops[i - 1])
      return;
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < ops.size(); ++i)
    index[*getDagId(ops[i])] = i;
  std::vector<SmallVector<size_t>> preds(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    forEachDagDep(ops[i], [&](int64_t id) {
      if (auto it = index.find(id); it != index.end() && it->second < i)
        preds[i].push_back(it->second);
    });
  // Program order is topological (an edge points to an earlier op).
  std::vector<int64_t> depth(ops.size(), 0), rdepth(ops.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t p : preds[i])
      depth[i] = std::max(depth[i], depth[p] + 1);
  for (size_t i = ops.size(); i-- > 0;)
    for (size_t p : preds[i])
      rdepth[p] = std::max(rdepth[p], rdepth[i] + 1);
  SmallVector<size_t> order(ops.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    return std::make_tuple(depth[a], -rdepth[a], a) <
           std::make_tuple(depth[b], -rdepth[b], b);
  });
  std::vector<SmallVector<size_t>> succs(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t p : preds[i])
      succs[p].push_back(i);
  order = keepSendsWithSources(ops, preds, succs, order);
  order = keepCopiesWithReduces(algo, ops, succs, order);
  Operation *after = ops.back()->getNextNode();
  for (size_t i : order) {
    if (after)
      ops[i]->moveBefore(after);
    else
      ops[i]->moveBefore(&body, body.end());
  }
}
