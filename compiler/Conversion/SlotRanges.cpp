//===- SlotRanges.cpp - one operation per scratch slot --------------------===//
//
// A scratch buffer is laid out slot by slot: slot i starts at i times the
// slot size of the largest message the library supports, and holds one
// chunk (docs/semantics.md, "Buffers and chunks"). A range of several
// chunks of `input` or `output` is contiguous, but its chunks differ in
// size by up to one element, and a call's chunks are smaller than a slot.
// So an operation that moves several chunks from or into scratch cannot
// move one contiguous block: before code generation it becomes one
// operation per chunk, each moving its chunk to or from the start of its
// own slot. Everything else about the operation (thread block, op id,
// forwards) is kept; a fused signal or flush stays on the last piece, which
// the block runs after the others.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace ccl;

namespace {

/// Chunk `i` of every reference of `op` (which all have the same count).
void narrowTo(Operation *op, int64_t i) {
  MLIRContext *ctx = op->getContext();
  auto piece = [&](ChunkRefAttr r) {
    return ChunkRefAttr::get(ctx, r.getBuffer(), r.getRank(),
                             r.getIndex() + i, 1);
  };
  for (NamedAttribute a : llvm::to_vector(op->getAttrs())) {
    if (auto ref = dyn_cast<ChunkRefAttr>(a.getValue())) {
      op->setAttr(a.getName(), piece(ref));
    } else if (auto list = dyn_cast<ArrayAttr>(a.getValue())) {
      if (list.empty() || !isa<ChunkRefAttr>(list[0]))
        continue;
      SmallVector<Attribute> items;
      for (Attribute e : list)
        items.push_back(piece(cast<ChunkRefAttr>(e)));
      op->setAttr(a.getName(), ArrayAttr::get(ctx, items));
    }
  }
}

} // namespace

int64_t ccl::slotRangePieces(Operation *op) {
  bool scratchRange = false, sameCount = true;
  int64_t count = -1;
  forEachChunkRef(op, [&](ChunkRefAttr r) {
    if (count < 0)
      count = r.getCount();
    sameCount &= r.getCount() == count;
    scratchRange |= r.isScratch() && r.getCount() > 1;
  });
  return scratchRange && sameCount ? count : 1;
}

void ccl::splitSlotRanges(AlgorithmOp algo) {
  SmallVector<std::pair<Operation *, int64_t>> work;
  algo.walk([&](InstructionOp inst) {
    if (int64_t n = slotRangePieces(inst.getOperation()); n > 1)
      work.push_back({inst.getOperation(), n});
  });
  for (auto [op, count] : work) {
    OpBuilder b(op);
    for (int64_t i = 0; i < count; ++i) {
      Operation *piece = b.clone(*op);
      narrowTo(piece, i);
      if (i + 1 < count)
        dropFusedSync(piece);
    }
    op->erase();
  }
}
