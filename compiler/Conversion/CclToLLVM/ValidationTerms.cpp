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
  Trace trace;
  trace.reserve(terms.lastTraceSize);
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
        auto indices = gep.getIndices();
        std::optional<int64_t> slot;
        if (indices.size() == 1) {
          auto idx = indices[0];
          if (auto v = dyn_cast<Value>(idx))
            slot = term.count(v) ? terms.constValue(term[v]) : std::nullopt;
          else
            slot = cast<IntegerAttr>(idx).getInt();
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
          nameKey, terms.propertiesKey(op),
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
    if (!callee.empty() || op.getNumResults() == 0) {
      key[0] = kEvent;
      trace.push_back(terms.intern(key));
      key[0] = kOp;
    }
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      key[4] = int64_t(i);
      key[5] = ptrKey(r.getType().getAsOpaquePointer());
      term[r] = terms.intern(key);
    }
  }
  terms.lastTraceSize = trace.size();
  return trace;
}

} // namespace ccl::validation
