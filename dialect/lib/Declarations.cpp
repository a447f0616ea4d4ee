//===- Declarations.cpp - finding and placing an algorithm's declarations -===//
//
// An algorithm's declarations (scratch buffers, channels, switch channels,
// semaphores) come first in its body, in that order. This file finds one by
// name (AlgorithmOp::lookupDeclaration), finds where a new one goes
// (AlgorithmOp::declarationSlot), and keeps the hash index that makes both
// fast while a pass, the frontend or the verifier works on an algorithm
// (DeclarationIndex).
//
//===----------------------------------------------------------------------===//

#include "ccl/Dialect/CclDialect.h"

using namespace mlir;
using namespace ccl;

bool ccl::isDeclarationOp(Operation &op) {
  return isa<ScratchOp, ChannelOp, SwitchChannelOp, SemaphoreOp>(op);
}

static unsigned declOrder(Operation &op) {
  if (isa<ScratchOp>(op))
    return static_cast<unsigned>(AlgorithmOp::Decl::Scratch);
  if (isa<ChannelOp>(op))
    return static_cast<unsigned>(AlgorithmOp::Decl::Channel);
  if (isa<SwitchChannelOp>(op))
    return static_cast<unsigned>(AlgorithmOp::Decl::SwitchChannel);
  return static_cast<unsigned>(AlgorithmOp::Decl::Semaphore);
}

Block::iterator AlgorithmOp::declarationSlot(Decl kind) {
  Block &body = getBody().front();
  unsigned k = static_cast<unsigned>(kind);
  auto fits = [&](Block::iterator it) {
    return it != body.end() && isDeclarationOp(*it) && declOrder(*it) <= k;
  };
  // With an index in force, start after the declaration the last search
  // ended at (declarations are only added meanwhile, so the slot is at or
  // after it): adding n declarations costs O(n), not O(n^2).
  DeclarationIndex *index = DeclarationIndex::active(getOperation());
  Block::iterator it = body.begin();
  if (index && index->slotHint(k))
    it = std::next(Block::iterator(index->slotHint(k)));
  while (fits(it))
    ++it;
  if (index && it != body.begin())
    index->setSlotHint(k, &*std::prev(it));
  // A declaration added now goes right after the one before the slot.
  if (index)
    index->expectAfter(it == body.begin() ? nullptr : &*std::prev(it));
  return it;
}

/// Scan of the declarations. Declarations come first (verifyRegions checks
/// it), so the scan stops at the first operation that is not one.
static Operation *scanDeclarations(AlgorithmOp algo, StringRef name) {
  for (Operation &op : algo.getBody().front()) {
    if (!isDeclarationOp(op))
      break;
    if (auto sym = op.getAttrOfType<StringAttr>(
            mlir::SymbolTable::getSymbolAttrName());
        sym && sym.getValue() == name)
      return &op;
  }
  return nullptr;
}

Operation *AlgorithmOp::lookupDeclaration(StringRef name) {
  if (DeclarationIndex *index = DeclarationIndex::active(getOperation()))
    return index->lookup(name);
  return scanDeclarations(*this, name);
}

namespace {
thread_local DeclarationIndex *innermostIndex = nullptr;
thread_local std::unique_ptr<DeclarationIndex> verifierIndex;
} // namespace

DeclarationIndex::DeclarationIndex(AlgorithmOp algo)
    : algo(algo.getOperation()) {
  // An index a failed verification left behind must not outlive the IR it
  // describes: passes and the frontend open scopes before any lookup.
  endVerification();
  outer = innermostIndex;
  for (Operation &op : algo.getBody().front()) {
    if (!isDeclarationOp(op))
      break;
    if (auto sym = op.getAttrOfType<StringAttr>(
            mlir::SymbolTable::getSymbolAttrName()))
      byName.try_emplace(sym.getValue(), &op);
  }
  innermostIndex = this;
}

DeclarationIndex::~DeclarationIndex() {
  // Unlinked wherever it sits, so indices may end in any order.
  if (innermostIndex == this) {
    innermostIndex = outer;
    return;
  }
  for (DeclarationIndex *i = innermostIndex; i; i = i->outer)
    if (i->outer == this) {
      i->outer = outer;
      return;
    }
}

DeclarationIndex *DeclarationIndex::active(Operation *algo) {
  for (DeclarationIndex *i = innermostIndex; i; i = i->outer)
    if (i->algo == algo)
      return i;
  return nullptr;
}

void DeclarationIndex::expectAfter(Operation *anchor) {
  if (!llvm::is_contained(anchors, anchor))
    anchors.push_back(anchor);
}

Operation *DeclarationIndex::lookup(StringRef name) {
  auto it = byName.find(name);
  if (it != byName.end())
    return it->second;
  if (anchors.empty())
    return nullptr; // nothing was added since the last look
  // Take in the declarations added since: each sits after an anchor that
  // declarationSlot handed out, up to the next one the index holds.
  Block &body = cast<AlgorithmOp>(algo).getBody().front();
  for (Operation *anchor : anchors)
    for (auto op = anchor ? std::next(Block::iterator(anchor)) : body.begin();
         op != body.end() && isDeclarationOp(*op); ++op) {
      auto sym = op->getAttrOfType<StringAttr>(
          mlir::SymbolTable::getSymbolAttrName());
      if (!sym)
        continue;
      auto [at, fresh] = byName.try_emplace(sym.getValue(), &*op);
      if (!fresh && at->second == &*op)
        break;
    }
  anchors.clear();
  return byName.lookup(name);
}

void DeclarationIndex::beginVerification(AlgorithmOp algo) {
  endVerification();
  verifierIndex.reset(new DeclarationIndex(algo));
}

void DeclarationIndex::endVerification() {
  verifierIndex.reset();
}
