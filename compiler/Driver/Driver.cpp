//===- Driver.cpp - the cclc compilation pipeline --------------------------===//

#include "compiler/Driver/Driver.h"
#include "compiler/Driver/Output.h"
#include "compiler/Driver/SchedulePrinter.h"
#include "compiler/Driver/TimeReport.h"

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/Passes.h"
#include "compiler/Driver/Codegen.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/frontend/Frontend.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <map>
#include <sstream>

using namespace mlir;
using namespace ccl;

void ccl::registerCclDialects(DialectRegistry &registry) {
  registry.insert<CclDialect, LLVM::LLVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

static CclLowerToLLVMOptions lowerOptions(const CompileOptions &options,
                                          StringRef target) {
  CclLowerToLLVMOptions lower;
  lower.target = target.str();
  lower.dtypes.assign(options.dtypes.begin(), options.dtypes.end());
  lower.redops.assign(options.redops.begin(), options.redops.end());
  lower.maxBytes = options.maxBytes;
  lower.perRankKernels = options.kernels == "per-rank";
  // The driver's own corruptions (Driver.h) are not the lowering's.
  if (options.testCorrupt != "image-kernel" &&
      !StringRef(options.testCorrupt).starts_with("plan-"))
    lower.testCorrupt = options.testCorrupt;
  if (auto info = createTargetInfo(target))
    lower.typeGeneric = info->typeGenericKernels() &&
                        (!lower.perRankKernels || info->outlinesPrograms());
  return lower;
}

void ccl::buildCclPipeline(PassManager &pm, const CompileOptions &options,
                           StringRef target) {
  if (options.verify)
    pm.addPass(createCclVerify());
  if (options.emit == EmitLevel::CCL)
    return;
  pm.addPass(createCclChunkDag());
  CclLowerChunksOptions chunks;
  chunks.channelKind = options.channel;
  chunks.crossCall = options.crossCall;
  pm.addPass(createCclLowerChunks(chunks));
  pm.addPass(createCclFuse());
  CclReplicateOptions tiles;
  tiles.instances = options.tiles;
  tiles.shareBlocks = true;
  pm.addPass(createCclReplicate(tiles));
  CclReplicateOptions replicate;
  replicate.instances = options.instances;
  pm.addPass(createCclReplicate(replicate));
  pm.addPass(createCclSchedule());
  // Re-verification of the kernel level, across calls too: a lowering,
  // fusion or scheduling bug is a compile error (reported as the
  // compiler's, not the program's).
  if (options.verify) {
    CclVerifyOptions compiled;
    compiled.compiled = true;
    pm.addPass(createCclVerify(compiled));
  }
  if (options.emit == EmitLevel::Sched || options.emit == EmitLevel::Kernel)
    return;
  pm.addPass(createCclLowerToLLVM(lowerOptions(options, target)));
}

bool ccl::parseIntList(StringRef text, std::vector<int64_t> &out,
                       std::string &error, int64_t lowest, int64_t highest,
                       int64_t *outside) {
  out.clear();
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  if (parts.empty()) {
    error = "empty list";
    return false;
  }
  for (StringRef p : parts) {
    p = p.trim();
    const bool range = p.contains("..");
    auto [lo, hi] = p.split("..");
    int64_t a, b;
    // A range has both ends: "2.." is not "2".
    if (lo.trim().getAsInteger(10, a) ||
        (range && hi.trim().getAsInteger(10, b))) {
      error = ("'" + p + "' is not an integer or a range a..b").str();
      return false;
    }
    if (!range)
      b = a;
    if (b < a) {
      error = ("range '" + p + "' is empty").str();
      return false;
    }
    for (int64_t v : {a, b})
      if (v < lowest || v > highest) {
        if (outside)
          *outside = v;
        error = std::to_string(v) + " is outside " + std::to_string(lowest) +
                ".." + std::to_string(highest);
        return false;
      }
    for (int64_t v = a;; ++v) {
      if (llvm::is_contained(out, v)) {
        error = std::to_string(v) + " is listed twice";
        return false;
      }
      out.push_back(v);
      if (v == b)
        break;
    }
  }
  return true;
}

int64_t ccl::variantRootPlusOne(AlgorithmOp algo) {
  StringRef coll = algo.getCollectiveName();
  if (coll != "Broadcast" && coll != "Reduce")
    return 0;
  if (DictionaryAttr params = algo.getParamsAttr())
    if (auto root = params.getAs<IntegerAttr>("root"))
      return root.getInt() + 1;
  return 1;
}

namespace {

/// For each wait of `algo`: 1 + the op id of the operation whose signal it
/// waits for, and how many times per call the channel's source signals it
/// (ccl_op_info::awaits, ::source_signals). The k-th wait of a call on a
/// channel consumes the k-th signal, counting the channel's credit as the
/// last signals of the call before; both in program order.
std::map<Operation *, std::pair<unsigned, unsigned>>
awaitedSignals(AlgorithmOp algo) {
  std::map<std::string, std::vector<int64_t>> signals; // channel -> op ids
  std::map<std::string, std::vector<Operation *>> waits;
  algo.walk([&](Operation *op) {
    std::optional<int64_t> id = getOpId(op);
    if (!id)
      return;
    for (StringRef c : signalledChannels(op))
      signals[c.str()].push_back(*id);
    if (auto w = dyn_cast<WaitOp>(op))
      waits[w.getChannel().str()].push_back(op);
  });
  std::map<Operation *, std::pair<unsigned, unsigned>> out;
  for (auto ch : algo.getBody().getOps<ChannelOp>()) {
    const std::vector<int64_t> &sig = signals[ch.getSymName().str()];
    const std::vector<Operation *> &ws = waits[ch.getSymName().str()];
    const int64_t n = (int64_t)sig.size();
    const int64_t credit = (int64_t)ch.getCreditOrZero();
    for (int64_t k = 0; k < (int64_t)ws.size(); ++k) {
      int64_t j = k - credit; // < 0: a signal of the call before
      if (j < 0 && n > 0)
        j = ((j % n) + n) % n;
      const bool known = j >= 0 && j < n;
      out[ws[k]] = {known ? unsigned(sig[j] + 1) : 0u, unsigned(n)};
    }
  }
  return out;
}

/// Plan facts read off the scheduled module, before it is lowered.
PlanInfo extractPlanInfo(ModuleOp module, const CompileOptions &options,
                         StringRef sourcePath) {
  PlanInfo info;
  info.selection = selectionOf(module);
  info.source = sourcePath.str();
  info.maxBytes = options.maxBytes;
  info.dtypes = options.dtypes;
  info.redops = options.redops;
  std::map<std::string, size_t> index;
  // Kernel prefixes (kernelPrefixes): for targets that share kernels across
  // rank counts, and, where a target of the compile does not, for those.
  SmallVector<AlgorithmOp> algos(module.getOps<AlgorithmOp>());
  const bool perRank = options.kernels == "per-rank";
  const std::map<std::string, std::string> shared =
      kernelPrefixes(algos, perRank, /*acrossRankCounts=*/true);
  std::map<std::string, std::string> grouped;
  if (llvm::any_of(options.targets, [](const std::string &t) {
        auto info = createTargetInfo(t);
        return info && !info->sharesKernelsAcrossRankCounts();
      }))
    grouped = kernelPrefixes(algos, perRank, /*acrossRankCounts=*/false);
  for (AlgorithmOp algo : algos) {
    auto [it, inserted] = index.try_emplace(algo.getName().str(),
                                            info.algorithms.size());
    if (inserted) {
      AlgorithmInfo a;
      a.name = algo.getName().str();
      a.collective = algo.getCollectiveName().str();
      a.inplace = algo.getInplace();
      a.bothForms = bool(algo.getAlsoInplaceAttr());
      a.chunks = algo.getChunks();
      a.ll = algo.isLL();
      a.bits = bitsOf(algo);
      if (DictionaryAttr params = algo.getParamsAttr())
        if (auto root = params.getAs<IntegerAttr>("root"))
          a.root = root.getInt();
      a.maxBytes = options.maxBytes;
      if (auto limits = module->getAttrOfType<DictionaryAttr>("cclc.max_bytes"))
        if (auto v = limits.getAs<IntegerAttr>(a.name))
          a.maxBytes = v.getInt();
      info.algorithms.push_back(a);
    }
    AlgorithmInfo &a = info.algorithms[it->second];
    // The plan's chunk count: the smallest over the rank counts. Each
    // variant's scratch is sized with its own (instances(64 / nranks) has
    // 32 chunks at 2 ranks and 16 at 4: slots sized for 32 overran at 4
    // ranks, and sized for the smallest they were 2 to 16 times too large
    // at the other counts).
    a.chunks = std::min<int64_t>(a.chunks, algo.getChunks());
    VariantInfo v;
    v.chunks = algo.getChunks();
    v.symbol = algo.getSymName().str();
    v.kernel = shared.at(v.symbol);
    // Read only by targets that do not share (VariantInfo::kernelOn).
    v.groupKernel = grouped.empty() ? v.kernel : grouped.at(v.symbol);
    v.nranks = algo.getNranks();
    v.rootPlusOne = variantRootPlusOne(algo);
    v.nblocks = 1;
    for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
      v.nblocks = std::max<int64_t>(v.nblocks, tb.getTb() + 1);
    for (auto s : algo.getBody().getOps<ScratchOp>())
      v.scratch.push_back({s.getSymName().str(), (int64_t)s.getSlots()});
    v.sync = SyncLayout::of(algo);
    a.variants.push_back(v);
    std::map<Operation *, std::pair<unsigned, unsigned>> awaited =
        awaitedSignals(algo);
    algo.walk([&](Operation *op) {
      if (!isa<InstructionOp, TbBarrierOp>(op))
        return;
      std::optional<int64_t> id = getOpId(op);
      if (!id)
        return;
      OpInfo o;
      o.kind = op->getName().stripDialect().str();
      if (auto l = op->getLoc()->findInstanceOf<FileLineColLoc>()) {
        o.file = l.getFilename().str();
        o.line = l.getLine();
        o.col = l.getColumn();
      }
      if (auto it = awaited.find(op); it != awaited.end())
        std::tie(o.awaits, o.sourceSignals) = it->second;
      if (info.ops.size() <= (size_t)*id)
        info.ops.resize(*id + 1);
      info.ops[*id] = o;
    });
  }
  return info;
}

} // namespace

static bool compileSource(MLIRContext &ctx, const llvm::MemoryBuffer &source,
                          const CompileOptions &options, llvm::raw_ostream &os,
                          TimeReport &times);

bool ccl::compileSource(MLIRContext &ctx, const llvm::MemoryBuffer &source,
                        const CompileOptions &options, llvm::raw_ostream &os) {
  TimeReport times(options.timeReport);
  bool ok = ::compileSource(ctx, source, options, os, times);
  times.end();
  times.print(llvm::errs());
  return ok;
}

static bool compileSource(MLIRContext &ctx, const llvm::MemoryBuffer &source,
                          const CompileOptions &options, llvm::raw_ostream &os,
                          TimeReport &times) {
  StringRef path = source.getBufferIdentifier();
  times.begin("parse");
  auto file = parseSource(&ctx, source.getBuffer(), path);
  if (!file)
    return false;
  if (options.emit == EmitLevel::AST) {
    std::ostringstream ss;
    ast::print(*file, ss);
    os << ss.str();
    return true;
  }

  FrontendOptions fo;
  fo.nranks = options.nranks;
  fo.defines = options.defines;
  fo.includeDirs = options.includeDirs;
  std::vector<FrontendOptions::ImportedFile> imported;
  fo.importedFiles = &imported;
  times.begin("evaluate");
  OwningOpRef<ModuleOp> module = evaluate(&ctx, *file, fo);
  times.end();
  if (!module)
    return false;
  // cclc refused outputs over its input; the imports are known now.
  for (const std::string &out : outputFiles(options))
    for (const FrontendOptions::ImportedFile &in : imported)
      if (sameFile(out, in.realPath)) {
        emitError(in.importedAt)
            << "cclc would write " << out << " over " << in.realPath
            << ", which this program imports; choose another -o";
        return false;
      }
  if (module->getOps<AlgorithmOp>().empty()) {
    emitError(module->getLoc()) << "no algorithm in " << path;
    return false;
  }
  setAlgorithmMaxBytes(*module, options.maxBytes);
  if (options.printSelection) {
    std::vector<AlgorithmInfo> algorithms;
    for (NamedAttribute limit :
         (*module)->getAttrOfType<DictionaryAttr>("cclc.max_bytes")) {
      AlgorithmInfo a;
      a.name = limit.getName().str();
      a.maxBytes = cast<IntegerAttr>(limit.getValue()).getInt();
      for (AlgorithmOp algo : module->getOps<AlgorithmOp>())
        if (algo.getName() == a.name) {
          a.bits = bitsOf(algo);
          break;
        }
      algorithms.push_back(a);
    }
    printSelection(selectionOf(*module), algorithms, os);
    return true;
  }

  // Global level, then kernel level.
  {
    CompileOptions upToSched = options;
    if (upToSched.emit > EmitLevel::Kernel)
      upToSched.emit = EmitLevel::Kernel;
    PassManager pm(&ctx);
    pm.addInstrumentation(times.passInstrumentation());
    buildCclPipeline(pm, upToSched);
    if (failed(pm.run(*module)))
      return false;
  }
  if (options.emit == EmitLevel::Sched) {
    printSchedule(*module, os, options.kernels == "per-rank");
    return true;
  }
  if (options.emit == EmitLevel::CCL || options.emit == EmitLevel::Kernel) {
    module->print(os);
    return true;
  }

  PlanInfo plan = extractPlanInfo(*module, options, path);
  std::vector<TargetArtifacts> artifacts;
  for (const std::string &targetName : options.targets) {
    auto target = createTargetInfo(targetName);
    if (!target) {
      emitError(module->getLoc()) << "unknown target '" << targetName << "'";
      return false;
    }
    OwningOpRef<ModuleOp> kernels = module->clone();
    PassManager pm(&ctx);
    times.begin("pass ccl-lower-to-llvm " + targetName);
    pm.addPass(createCclLowerToLLVM(lowerOptions(options, targetName)));
    if (failed(pm.run(*kernels)))
      return false;
    std::map<std::string, std::string> validatedPrefixes;
    if (auto d = (*kernels)->getAttrOfType<DictionaryAttr>(kKernelPrefixesAttr))
      for (NamedAttribute a : d)
        validatedPrefixes[a.getName().str()] =
            cast<StringAttr>(a.getValue()).str();
    (*kernels)->removeAttr(kKernelPrefixesAttr);
    // Test only: the last target's record damaged (with two targets of one
    // plan, the two records then differ).
    if (!validatedPrefixes.empty() && targetName == options.targets.back()) {
      if (options.testCorrupt == "plan-kernel-record")
        validatedPrefixes.begin()->second += "_other";
      if (options.testCorrupt == "plan-kernel-record-missing")
        validatedPrefixes.erase(validatedPrefixes.begin());
    }

    times.begin("translate to LLVM IR " + targetName);
    auto llctx = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> llmod =
        translateModuleToLLVMIR(*kernels, *llctx, "ccl_kernels");
    if (!llmod) {
      emitError(module->getLoc()) << "translation to LLVM IR failed";
      return false;
    }
    TargetArtifacts art;
    art.target = targetName;
    art.planTarget = target->planTarget();
    art.threadsPerBlock = target->threadsPerBlock();
    art.kernelPrefixes = std::move(validatedPrefixes);
    kernels = nullptr;
    std::string error;
    times.begin("link and optimise " + targetName);
    if (!linkAndOptimize(*llmod, *target, error)) {
      emitError(module->getLoc()) << error;
      return false;
    }
    if (options.testCorrupt == "image-kernel")
      for (llvm::Function &f : *llmod)
        if (!f.isDeclaration() && !f.hasLocalLinkage()) {
          f.setName(f.getName() + "_renamed");
          break;
        }
    if (options.emit == EmitLevel::LLVM) {
      llmod->print(os, nullptr);
      continue;
    }
    if (options.emit == EmitLevel::Asm) {
      std::string text;
      if (!emitCode(*llmod, *target, /*object=*/false, text, error)) {
        emitError(module->getLoc()) << error;
        return false;
      }
      os << text;
      continue;
    }
    if (!finishTarget(*llmod, *target, options.argv0, art, error, &times)) {
      emitError(module->getLoc()) << error;
      return false;
    }
    if (options.emit == EmitLevel::Obj) {
      // One target (cclc checks): its code object, cubin or object.
      const std::string &image = !art.hsaco.empty()   ? art.hsaco
                                 : !art.cubin.empty() ? art.cubin
                                                      : art.object;
      if (image.empty()) {
        emitError(module->getLoc())
            << "--emit=obj for " << targetName
            << " writes a cubin, and no ptxas was found (or CCLC_PTXAS is "
               "'none'); --emit=asm writes the PTX";
        return false;
      }
      os << image;
      continue;
    }
    if (!checkImagesHaveKernels(plan, art, error)) {
      emitError(module->getLoc()) << error;
      return false;
    }
    artifacts.push_back(std::move(art));
  }
  if (options.emit != EmitLevel::SO)
    return true;

  std::string error;
  times.begin("write library");
  if (!writeSharedLibrary(plan, artifacts, *module, options, error, &times)) {
    emitError(module->getLoc()) << error;
    return false;
  }
  return true;
}
