//===- CclToLLVM.cpp - kernel-level ccl to LLVM dialect kernels ------------===//
//
// The --ccl-lower-to-llvm pass. Each scheduled algorithm becomes one kernel
// per (dtype, reduction op), and on GPU targets per rank:
//
//   1. checkLowerable reports what the lowering cannot produce code for
//      (Legality.h); operations on several scratch slots are split
//      (splitSlotRanges);
//   2. buildKernels emits a function per thread block of each kernel with
//      copies of the block's ops and records its environment
//      (KernelBuilder.h);
//   3. the patterns (Patterns.h) rewrite the copies into calls to the
//      device library, reading the environment of their kernel, one
//      kernel's blocks at a time;
//   4. BlockSharing merges the blocks whose code is the same up to integer
//      constants into one function reading those from a table, as each
//      kernel's blocks are lowered, and builds each kernel around them
//      (ShareBlocks.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM/Legality.h"
#include "compiler/Conversion/CclToLLVM/Patterns.h"
#include "compiler/Conversion/CclToLLVM/Validation.h"
#include "compiler/Conversion/Passes.h"
#include "compiler/Support/Activity.h"
#include "ccl/types.h"

#include <chrono>
#include <optional>

namespace ccl {
#define GEN_PASS_DEF_CCLLOWERTOLLVM
#include "compiler/Conversion/Passes.h.inc"
} // namespace ccl

using namespace mlir;
using namespace ccl;

namespace {

struct CclLowerToLLVMPass
    : public ccl::impl::CclLowerToLLVMBase<CclLowerToLLVMPass> {
  using CclLowerToLLVMBase::CclLowerToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target = createTargetInfo(this->target);
    if (!target) {
      module.emitError("unknown target '") << this->target << "'";
      return signalPassFailure();
    }
    SmallVector<std::string> dts(dtypes.begin(), dtypes.end());
    SmallVector<std::string> ops(redops.begin(), redops.end());
    if (dts.empty())
      dts = {"float32"};
    if (ops.empty())
      ops = {"sum"};
    for (const std::string &d : dts)
      if (!dtypeSize(d)) {
        module.emitError("unknown dtype '") << d << "'";
        return signalPassFailure();
      }
    for (const std::string &o : ops)
      if (!findRedOp(o)) {
        module.emitError("unknown reduction operator '") << o << "'";
        return signalPassFailure();
      }

    Corruption corruption;
    if (!parseCorruption(testCorrupt, corruption)) {
      module.emitError("unknown test-corrupt value '") << testCorrupt << "'";
      return signalPassFailure();
    }

    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    SmallVector<AlgorithmOp> algos(module.getOps<AlgorithmOp>());
    // What every block must do, read from the verified operations before
    // anything is rewritten (Validation.h).
    LoweringValidator::Options vopts;
    vopts.dtypes.assign(dts.begin(), dts.end());
    vopts.redops.assign(ops.begin(), ops.end());
    vopts.perRankKernels = perRankKernels;
    // Each variant's kernel prefix, decided on the operations as verified,
    // before splitSlotRanges adds operations (kernelPrefixes counts them;
    // the plan decides there too).
    vopts.prefixes = kernelPrefixes(algos, perRankKernels,
                                    target->sharesKernelsAcrossRankCounts());
    vopts.typeGeneric = typeGeneric;
    vopts.maxBytes = maxBytes;
    const std::map<std::string, std::string> prefixes = vopts.prefixes;
    // The validation's own time, a stage of cclc --time-report.
    std::chrono::steady_clock::duration validating{};
    auto timed = [&](auto &&f) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      validating += std::chrono::steady_clock::now() - t0;
    };
    std::optional<LoweringValidator> validator;
    timed([&] { validator.emplace(algos, std::move(vopts)); });
    Reporter rep;
    // Declarations are neither added nor removed from here on.
    std::vector<std::unique_ptr<DeclarationIndex>> indices;
    for (AlgorithmOp algo : algos)
      indices.push_back(std::make_unique<DeclarationIndex>(algo));
    // Which variants' ranks share a kernel, decided as kernelPrefixes
    // decided it: on the verified operations, before they are split.
    std::set<std::string> sharing;
    for (AlgorithmOp algo : algos)
      if (ranksShareKernel(algo, perRankKernels))
        sharing.insert(algo.getSymName().str());
    for (AlgorithmOp algo : algos) {
      if (!algo.getScheduled()) {
        algo.emitError("must be scheduled (--ccl-schedule) before lowering");
        return signalPassFailure();
      }
      checkLowerable(algo, rep);
      splitSlotRanges(algo);
    }
    if (!rep.ok())
      return signalPassFailure();
    KernelEnvs envs;
    SmallVector<KernelSkeleton> skeletons;
    buildKernels(b, algos, *target, dts, ops, maxBytes, perRankKernels,
                 typeGeneric, prefixes, sharing, envs, skeletons);
    indices.clear();
    for (AlgorithmOp algo : algos)
      algo.erase();

    CclToLLVMConversionTarget conv(getContext());
    RewritePatternSet patterns(&getContext());
    populateDataMovementPatterns(envs, patterns);
    populateSynchronizationPatterns(envs, patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // One kernel at a time: its blocks are lowered, read by the
    // validation, and merged with the blocks of their shape before the
    // next kernel's are lowered (BlockSharing), so that the module never
    // holds a lowered function per block.
    using Stage = LoweringValidator::Stage;
    timed([&] { validator->reserveBlocks(skeletons); });
    BlockSharing blockSharing(skeletons);
    bool corrupted = false;
    for (size_t k = 0; k < skeletons.size(); ++k) {
      SmallVector<Operation *> funcs;
      for (auto &entry : skeletons[k].blocks)
        funcs.push_back(entry.second);
      if (failed(applyPartialConversion(funcs, conv, frozen)))
        return signalPassFailure();
      MutableArrayRef<KernelSkeleton> one =
          MutableArrayRef<KernelSkeleton>(skeletons).slice(k, 1);
      if (!corrupted)
        corrupted =
            LoweringValidator::corrupt(corruption, Stage::Patterns, module, one);
      timed([&] { validator->recordBlocks(one); });
      blockSharing.add(k);
    }
    // Whatever of the dialect is left outside the kernels' blocks.
    if (failed(applyPartialConversion(module, conv, frozen)))
      return signalPassFailure();
    LoweringValidator::corrupt(corruption, Stage::Skeletons, module,
                               skeletons);
    blockSharing.finish(b, module, *target);
    LoweringValidator::corrupt(corruption, Stage::Module, module, {});
    // The module against the schedule, always (Validation.h).
    bool valid = false;
    timed([&] { valid = succeeded(validator->validate(module)); });
    addPartTime("validation",
                std::chrono::duration<double>(validating).count());
    if (!valid)
      return signalPassFailure();
    // Each variant's kernel prefix, as the validation read the kernels: the
    // plan check compares the plans' kernel names with these (PlanCheck.cpp).
    SmallVector<NamedAttribute> named;
    for (const auto &[symbol, prefix] : prefixes)
      named.push_back(b.getNamedAttr(symbol, b.getStringAttr(prefix)));
    module->setAttr(kKernelPrefixesAttr,
                    DictionaryAttr::get(module.getContext(), named));
  }
};

} // namespace
