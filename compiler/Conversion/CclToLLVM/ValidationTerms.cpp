//===- ValidationTerms.cpp - block functions read as terms ----------------===//

#include "compiler/Conversion/CclToLLVM/ValidationTerms.h"

using namespace mlir;

namespace ccl::validation {

StringRef calleeOf(Operation &op) {
  if (auto call = dyn_cast<LLVM::CallOp>(op))
    if (auto callee = call.getCallee())
      return *callee;
  return {};
}

FailureOr<Trace> readTrace(LLVM::LLVMFuncOp func, ArrayRef<int32_t> args,
                           const RowBinding *row, Terms &terms,
                           std::string &why, bool cacheOps) {
  if (!llvm::hasSingleElement(func.getBody())) {
    why = "block program '" + func.getName().str() + "' has control flow";
    return failure();
  }
  Block &entry = func.getBody().front();
  size_t named = entry.getNumArguments() - (row ? 1 : 0);
  if (named > args.size()) {
    why = "block program '" + func.getName().str() + "' takes " +
          std::to_string(entry.getNumArguments()) + " arguments";
    return failure();
  }
  // The terms of the values read so far, and the pointers into the row
  // (maps kept between calls: most blocks are alike in size).
  llvm::DenseMap<Value, int32_t> &term = terms.valueTerms;
  llvm::DenseMap<Value, int64_t> &rowSlot = terms.rowSlots;
  term.clear();
  rowSlot.clear();
  for (size_t i = 0; i < named; ++i)
    term[entry.getArgument(i)] = args[i];
  Value rowArg = row ? entry.getArguments().back() : Value();
  std::vector<int32_t> &trace = terms.traceScratch;
  trace.clear();
  for (Operation &op : entry) {
    if (isa<LLVM::ReturnOp>(op))
      continue;
    if (auto cst = dyn_cast<LLVM::ConstantOp>(op)) {
      auto a = dyn_cast<IntegerAttr>(cst.getValue());
      if (a && a.getType().getIntOrFloatBitWidth() <= 64) {
        term[cst] = terms.constant(cst.getType(), a.getValue().getSExtValue());
        continue;
      }
    }
    if (row) {
      if (auto gep = dyn_cast<LLVM::GEPOp>(op); gep && gep.getBase() == rowArg) {
        // The raw indices: getIndices would make an attribute of each
        // constant one.
        ArrayRef<int32_t> raw = gep.getRawConstantIndices();
        std::optional<int64_t> slot;
        if (raw.size() == 1) {
          if (raw[0] == LLVM::GEPOp::kDynamicIndex) {
            Value v = gep.getDynamicIndices()[0];
            slot = term.count(v) ? terms.constValue(term[v]) : std::nullopt;
          } else {
            slot = raw[0];
          }
        }
        if (!slot) {
          why = "block program '" + func.getName().str() +
                "' indexes its row by a value that is not a constant";
          return failure();
        }
        rowSlot[gep] = *slot;
        continue;
      }
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        auto it = rowSlot.find(load.getAddr());
        if (it != rowSlot.end()) {
          int64_t at = row->offset + it->second;
          if (at < 0 || at >= int64_t(row->table.size())) {
            why = "block program '" + func.getName().str() +
                  "' reads entry " + std::to_string(at) +
                  " of a row table of " + std::to_string(row->table.size());
            return failure();
          }
          term[load] = terms.constant(load.getType(), row->table[at]);
          continue;
        }
      }
    }
    if (auto ext = dyn_cast<LLVM::SExtOp>(op)) {
      auto it = term.find(ext.getArg());
      if (it != term.end())
        if (auto v = terms.constValue(it->second)) {
          term[ext] = terms.constant(ext.getType(), *v);
          continue;
        }
    }
    if (op.getNumRegions() || op.getNumSuccessors()) {
      why = "block program '" + func.getName().str() + "' holds '" +
            op.getName().getStringRef().str() + "'";
      return failure();
    }
    StringRef callee = calleeOf(op);
    auto opKeys = [&] {
      int64_t nameKey = callee.empty()
                            ? ptrKey(op.getName().getAsOpaquePointer())
                            : ptrKey(callee.data());
      terms.names.try_emplace(nameKey, callee.empty()
                                           ? op.getName().getStringRef()
                                           : callee);
      return std::array<int64_t, 3>{
          nameKey,
          terms.propertiesKey(op, callee.empty()
                                      ? op.getName().getAsOpaquePointer()
                                      : static_cast<const void *>(callee.data())),
          ptrKey(op.getDiscardableAttrDictionary().getAsOpaquePointer())};
    };
    std::array<int64_t, 3> keys;
    if (cacheOps) {
      auto [cached, fresh] = terms.opKeys.try_emplace(&op);
      if (fresh)
        cached->second = opKeys();
      keys = cached->second;
    } else {
      keys = opKeys();
    }
    SmallVector<int64_t, 24> key{kOp, keys[0], keys[1], keys[2], 0, 0};
    for (Value v : op.getOperands()) {
      auto it = term.find(v);
      if (it == term.end()) {
        why = "block program '" + func.getName().str() +
              "' uses a value defined outside it";
        return failure();
      }
      key.push_back(it->second);
    }
    // An event: a call, or an operation without results. A call with
    // results is its first result's term (which names the call and its
    // operands, and more), so that it is interned once.
    if (op.getNumResults() == 0) {
      key[0] = kEvent;
      trace.push_back(terms.intern(key));
      key[0] = kOp;
    }
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      key[4] = int64_t(i);
      key[5] = ptrKey(r.getType().getAsOpaquePointer());
      int32_t id = terms.intern(key);
      term[r] = id;
      if (i == 0 && !callee.empty())
        trace.push_back(id);
    }
  }
  return Trace(trace);
}

namespace {

/// The kind operand of a block program call (ctx, input, output, count,
/// epoch, kind, row), or null for any other operation.
OpOperand *kindOperand(Operation &op) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  if (!call || !call.getCallee() || call.getArgOperands().size() != 7)
    return nullptr;
  return &call->getOpOperand(call.getArgOperands().getBeginOperandIndex() + 5);
}

/// Whether `v` is an integer constant equal to `kind`.
bool isKindConstant(Value v, int64_t kind) {
  auto c = v.getDefiningOp<LLVM::ConstantOp>();
  auto i = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
  return i && i.getValue().getSExtValue() == kind;
}

/// Whether every use of `v` is the kind operand of a block program call.
bool onlyKindUses(Value v) {
  return llvm::all_of(v.getUses(), [](OpOperand &use) {
    return kindOperand(*use.getOwner()) == &use;
  });
}

} // namespace

bool sameUpToKind(LLVM::LLVMFuncOp a, int64_t kindA, LLVM::LLVMFuncOp b,
                  int64_t kindB) {
  Region &ra = a.getBody(), &rb = b.getBody();
  if (ra.getBlocks().size() != rb.getBlocks().size() ||
      a.getFunctionType() != b.getFunctionType())
    return false;
  llvm::DenseMap<Value, Value> values;
  llvm::DenseMap<Block *, Block *> blocks;
  for (auto [ba, bb] : llvm::zip(ra, rb)) {
    if (ba.getNumArguments() != bb.getNumArguments())
      return false;
    blocks[&ba] = &bb;
    for (auto [x, y] : llvm::zip(ba.getArguments(), bb.getArguments())) {
      if (x.getType() != y.getType())
        return false;
      values[x] = y;
    }
  }
  auto check = [&](Value x, Value y) {
    return success(values.lookup(x) == y);
  };
  auto mark = [&](Value x, Value y) { values[x] = y; };
  for (auto [ba, bb] : llvm::zip(ra, rb)) {
    if (ba.getOperations().size() != bb.getOperations().size())
      return false;
    for (auto [x, y] : llvm::zip(ba, bb)) {
      auto cx = dyn_cast<LLVM::ConstantOp>(x);
      auto cy = dyn_cast<LLVM::ConstantOp>(y);
      if (cx && cy && cx.getValue() != cy.getValue()) {
        // The one difference allowed: the kind each kernel passes.
        if (cx.getType() != cy.getType() || !isKindConstant(cx, kindA) ||
            !isKindConstant(cy, kindB) || !onlyKindUses(cx) ||
            !onlyKindUses(cy))
          return false;
        values[cx] = cy;
        continue;
      }
      if (!OperationEquivalence::isEquivalentTo(
              &x, &y, check, mark, OperationEquivalence::IgnoreLocations))
        return false;
      if (x.getNumSuccessors() != y.getNumSuccessors())
        return false;
      for (unsigned i = 0; i < x.getNumSuccessors(); ++i)
        if (blocks.lookup(x.getSuccessor(i)) != y.getSuccessor(i))
          return false;
      // Every call passes its own kernel's kind.
      if (OpOperand *k = kindOperand(x)) {
        OpOperand *ky = kindOperand(y);
        if (!ky || !isKindConstant(k->get(), kindA) ||
            !isKindConstant(ky->get(), kindB))
          return false;
      }
    }
  }
  return true;
}

} // namespace ccl::validation
