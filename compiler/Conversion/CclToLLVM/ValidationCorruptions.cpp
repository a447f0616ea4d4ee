//===- ValidationCorruptions.cpp - test-only damage for the validation ----===//
//
// The values of ccl-lower-to-llvm's test-corrupt option (Validation.h):
// each damages one table or operand kind of the generated code at the
// stage it belongs to, so that a lit test shows the validation reports it
// (test/lit/Conversion/validate-lowering.mlir).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM/Validation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <vector>

using namespace mlir;
using namespace ccl;

bool ccl::parseCorruption(StringRef name, Corruption &out) {
  static const std::pair<const char *, Corruption> kNames[] = {
      {"", Corruption::None},
      {"row-entry", Corruption::RowEntry},
      {"program-index", Corruption::ProgramIndex},
      {"rank-count-select", Corruption::RankCountSelect},
      {"kernel-name", Corruption::KernelName},
      {"chunk-index", Corruption::ChunkIndex},
      {"scratch-slots", Corruption::ScratchSlots},
      {"channel-index", Corruption::ChannelIndex},
      {"wait-ordinal", Corruption::WaitOrdinal},
      {"kind", Corruption::Kind},
      {"kind-row", Corruption::KindRow},
  };
  for (auto &[n, c] : kNames)
    if (name == n) {
      out = c;
      return true;
    }
  return false;
}

//===----------------------------------------------------------------------===//

namespace {

/// The first call of `callee` in a block function of `skeletons`: its
/// operand `index` replaced by that constant plus one.
bool bumpOperand(ArrayRef<KernelSkeleton> skeletons, StringRef callee,
                 unsigned index) {
  for (const KernelSkeleton &skel : skeletons)
    for (auto &entry : skel.blocks) {
      LLVM::LLVMFuncOp func = entry.second;
      LLVM::CallOp found;
      func.walk([&](LLVM::CallOp call) {
        if (!found && call.getCallee() == callee)
          found = call;
      });
      if (!found)
        continue;
      Value old = found.getArgOperands()[index];
      auto cst = old.getDefiningOp<LLVM::ConstantOp>();
      if (!cst)
        continue;
      OpBuilder b(found);
      int64_t v = cast<IntegerAttr>(cst.getValue()).getInt();
      Value bumped = LLVM::ConstantOp::create(
          b, found.getLoc(), cst.getType(),
          b.getIntegerAttr(cst.getType(), v + 1));
      found->setOperand(index, bumped);
      return true;
    }
  return false;
}

/// Adds one to entry `at` of the first constant i32 table whose name ends
/// with `suffix` and that has more than `at` entries.
bool bumpTable(ModuleOp module, StringRef suffix, size_t at) {
  for (auto g : module.getOps<LLVM::GlobalOp>()) {
    if (!g.getSymName().ends_with(suffix))
      continue;
    auto data = dyn_cast_or_null<DenseIntElementsAttr>(g.getValueOrNull());
    if (!data || data.getNumElements() <= int64_t(at))
      continue;
    std::vector<int32_t> values;
    for (APInt v : data.getValues<APInt>())
      values.push_back(int32_t(v.getSExtValue()));
    values[at] += 1;
    g.setValueAttr(DenseElementsAttr::get(data.getType(),
                                          ArrayRef<int32_t>(values)));
    return true;
  }
  return false;
}

/// In the last kernel that calls a type-generic block program (operands
/// ctx, input, output, count, epoch, kind, row), the first such call's
/// operand `index` (a constant, or a pointer into the row table) moved on
/// by one: the kind becomes another, the row the next entry.
bool bumpLastKernelCall(ModuleOp module, unsigned index) {
  LLVM::CallOp found;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>()) {
    if (f.isExternal() || f.getLinkage() == LLVM::Linkage::Internal)
      continue;
    LLVM::CallOp first;
    f.walk([&](LLVM::CallOp call) {
      if (!first && call.getArgOperands().size() == 7)
        first = call;
    });
    if (first)
      found = first;
  }
  if (!found)
    return false;
  OpBuilder b(found);
  Value old = found.getArgOperands()[index];
  Value bumped;
  if (auto cst = old.getDefiningOp<LLVM::ConstantOp>()) {
    int64_t v = cast<IntegerAttr>(cst.getValue()).getInt();
    bumped = LLVM::ConstantOp::create(b, found.getLoc(), cst.getType(),
                                      b.getIntegerAttr(cst.getType(), v + 1));
  } else {
    bumped = LLVM::GEPOp::create(b, found.getLoc(), old.getType(),
                                 b.getI32Type(), old,
                                 ArrayRef<LLVM::GEPArg>{1});
  }
  found->setOperand(found.getArgOperands().getBeginOperandIndex() + index,
                    bumped);
  return true;
}

} // namespace

bool LoweringValidator::corrupt(Corruption c, Stage stage, ModuleOp module,
                                MutableArrayRef<KernelSkeleton> skeletons) {
  switch (c) {
  case Corruption::None:
    return false;
  case Corruption::ChunkIndex:
    return stage == Stage::Patterns &&
           bumpOperand(skeletons, "__ccl_chunk_ptr", 3);
  case Corruption::ScratchSlots:
    return stage == Stage::Patterns &&
           bumpOperand(skeletons, "__ccl_scratch_ptr", 4);
  case Corruption::ChannelIndex:
    return stage == Stage::Patterns &&
           bumpOperand(skeletons, "__ccl_signal", 1);
  case Corruption::WaitOrdinal:
    return stage == Stage::Patterns && bumpOperand(skeletons, "__ccl_wait", 2);
  case Corruption::RankCountSelect:
    // The kernel picks the variant of another rank count.
    if (stage == Stage::Skeletons)
      for (KernelSkeleton &skel : skeletons)
        if (skel.variants.size() > 1) {
          std::swap(skel.variants[0].nranks, skel.variants[1].nranks);
          return true;
        }
    return false;
  case Corruption::RowEntry:
    return stage == Stage::Module && bumpTable(module, "__params", 0);
  case Corruption::ProgramIndex:
    return stage == Stage::Module && bumpTable(module, "__programs", 0);
  case Corruption::Kind:
    return stage == Stage::Module && bumpLastKernelCall(module, 5);
  case Corruption::KindRow:
    return stage == Stage::Module && bumpLastKernelCall(module, 6);
  case Corruption::KernelName:
    if (stage == Stage::Module)
      for (auto f : module.getOps<LLVM::LLVMFuncOp>())
        if (!f.isExternal() && f.getLinkage() != LLVM::Linkage::Internal) {
          f.setSymName((f.getSymName() + "_renamed").str());
          return true;
        }
    return false;
  }
  return false;
}
