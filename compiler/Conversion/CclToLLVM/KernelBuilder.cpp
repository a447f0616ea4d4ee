//===- KernelBuilder.cpp - kernel skeletons and their environment ---------===//

#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/Lowering.h"

#include "ccl/types.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace ccl;

int ccl::dtypeSize(StringRef dtype) {
  const DTypeInfo *d = findDType(std::string_view(dtype.data(), dtype.size()));
  return d ? int(d->size) : 0;
}

StringRef ccl::dtypeSuffix(StringRef dtype) {
  const DTypeInfo *d = findDType(std::string_view(dtype.data(), dtype.size()));
  return d ? d->suffix : "";
}

std::string ccl::kernelName(StringRef algoSymbol, StringRef dtype,
                            StringRef redop) {
  return ("ccl_" + algoSymbol + "_" + dtypeSuffix(dtype) + "_" + redop).str();
}

AlgorithmTables::AlgorithmTables(AlgorithmOp algo)
    : chunks(algo.getChunks()), ll(algo.isLL()) {
  int64_t bufIndex = 0;
  for (auto s : algo.getBody().getOps<ScratchOp>())
    scratch[s.getSymName()] = {bufIndex++, static_cast<int64_t>(s.getSlots())};
  SyncLayout layout = SyncLayout::of(algo);
  for (auto [i, c] : llvm::enumerate(layout.channels)) {
    channels[c.name] = i;
    if (c.port)
      ports.insert(c.name);
  }
  for (auto [i, s] : llvm::enumerate(layout.semaphores))
    semaphores[s.name] = i;
  for (auto [i, bar] : llvm::enumerate(layout.barriers))
    barriers[SyncLayout::barrierKey(bar.rank, bar.tbs)] = {
        static_cast<int64_t>(i), static_cast<int64_t>(bar.tbs.size())};
  algo.walk([&](CopyPacketsOp op) { padded.insert(op.getSrc().getBuffer()); });
}

Value KernelEnv::esize32(OpBuilder &b, Location loc) const {
  return esizeValue ? esizeValue : i32(b, loc, esize);
}

Value KernelEnv::esize64(OpBuilder &b, Location loc) const {
  if (esizeValue)
    return LLVM::ZExtOp::create(b, loc, b.getI64Type(), esizeValue);
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(esize));
}

Value KernelEnv::slotCount64(OpBuilder &b, Location loc) const {
  if (slotCountValue)
    return slotCountValue;
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(slotCount));
}

std::string KernelEnv::reduceName(StringRef prefix) const {
  if (kind)
    return (prefix + "any").str();
  return (prefix + dtypeSuffix(dtype) + "_" + redop).str();
}

const AlgorithmTables::Barrier *
KernelEnv::barrier(int64_t rank, ArrayRef<int64_t> tbs) const {
  auto it = tables->barriers.find(SyncLayout::barrierKey(rank, tbs));
  return it == tables->barriers.end() ? nullptr : &it->second;
}

const KernelEnv *KernelEnvs::lookup(Operation *op) const {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func)
    return nullptr;
  auto it = envs.find(func);
  return it == envs.end() ? nullptr : &it->second;
}

void KernelEnvs::add(LLVM::LLVMFuncOp kernel, KernelEnv env) {
  envs[kernel] = std::move(env);
}

namespace {
/// On a target that shares kernels across rank counts only between those
/// of the same programs (TargetInfo::sharesKernelsAcrossRankCounts), the
/// largest number of program operations (ProgramSet::ops, all rank counts
/// together) for which one kernel still serves them all.
constexpr int64_t kMaxSharedKernelOps = 200;

} // namespace

int32_t ccl::kindCode(StringRef dtype, StringRef redop) {
  return int32_t(findDType(std::string_view(dtype.data(), dtype.size()))->code * 4 +
                 findRedOp(std::string_view(redop.data(), redop.size()))->code);
}

bool ccl::ranksShareKernel(AlgorithmOp algo, bool perRankKernels) {
  return !perRankKernels && BlockPrograms::of(algo).rankParametric;
}

std::map<std::string, std::string>
ccl::kernelPrefixes(ArrayRef<AlgorithmOp> algos, bool perRankKernels,
                    bool acrossRankCounts) {
  // An LL-packet algorithm's kernel serves the ranks of one rank count: its
  // block count and table base are then constants, not selects on the
  // communicator's rank count (its programs are its own anyway: ShareBlocks).
  std::map<std::string, std::string> out;
  // The variants whose ranks share their programs, by algorithm name.
  llvm::MapVector<StringRef, SmallVector<AlgorithmOp>> sharable;
  for (AlgorithmOp algo : algos) {
    out[algo.getSymName().str()] = algo.getSymName().str();
    if (ranksShareKernel(algo, perRankKernels) && !algo.isLL())
      sharable[algo.getName()].push_back(algo);
  }
  for (auto &[name, variants] : sharable) {
    // Where the target shares kernels across rank counts, one serves them
    // all. Otherwise, unless their programs are few, the rank counts that
    // run the same programs share one (no program is compiled twice),
    // named after the smallest of them, or NAME_nN when that is all.
    std::vector<ProgramSet> sets;
    int64_t ops = 0;
    if (!acrossRankCounts)
      for (AlgorithmOp v : variants) {
        sets.push_back(ProgramSet::of(v));
        ops += sets.back().ops;
      }
    // A kernel of a few programs costs less as one for all rank counts (one
    // prologue and table walk, not one per rank count): gfx942 at 2..8
    // ranks, the two-phase all-pairs (125 operations in all) 1.6 s as one
    // kernel, 1.9 s as seven; the wide tiled ring (673) 33 s as one, 17 s
    // as seven; the overlapped ReduceScatter ring (252) 31 s and 18 s.
    bool all = acrossRankCounts || ops <= kMaxSharedKernelOps ||
               llvm::all_of(sets, [&](const ProgramSet &s) {
                 return s.shapes == sets.front().shapes;
               });
    for (size_t i = 0; i < variants.size(); ++i) {
      std::string &prefix = out[variants[i].getSymName().str()];
      if (all) {
        prefix = (name + "_nN").str();
        continue;
      }
      int64_t first = variants[i].getNranks();
      for (size_t k = 0; k < variants.size(); ++k)
        if (sets[k].shapes == sets[i].shapes)
          first = std::min<int64_t>(first, variants[k].getNranks());
      prefix = (name + "_n" + std::to_string(first)).str();
    }
  }
  return out;
}

namespace {

/// One algorithm variant with what every kernel built from it shares.
struct Variant {
  AlgorithmOp algo;
  BlockPrograms programs;
  std::shared_ptr<const AlgorithmTables> tables;
};

} // namespace

namespace {

/// Adds to `skel` the block functions of `algo` for one dtype and operator
/// (with `onlyRank`, of that rank only): one function
/// KERNEL__nN_bR_T(ctx, input, output, count, epoch) per thread block,
/// holding a copy of the block's operations. The block's entry in the
/// kernel's tables follows those of the variants added before. An empty
/// `dtype` builds type-generic blocks, which take the kind as a sixth
/// argument.
void addBlocks(OpBuilder &b, const Variant &variant, StringRef dtype,
               StringRef redop, uint64_t maxBytes,
               std::optional<int64_t> onlyRank, KernelEnvs &envs,
               KernelSkeleton &skel) {
  AlgorithmOp algo = variant.algo;
  const BlockPrograms &programs = variant.programs;
  MLIRContext *ctx = b.getContext();
  Location loc = algo.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  const bool generic = dtype.empty();
  SmallVector<Type> params{ptrTy, ptrTy, ptrTy, b.getI64Type(), b.getI32Type()};
  if (generic)
    params.push_back(b.getI32Type());
  auto fnTy = LLVM::LLVMFunctionType::get(voidTy, params);
  KernelSkeleton::Variant part;
  part.nranks = programs.nranks;
  part.nblocks = programs.nblocks;
  part.base = skel.entries;
  skel.variants.push_back(part);
  skel.entries += onlyRank ? programs.nblocks : programs.nranks * programs.nblocks;

  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    if (onlyRank && tb.getRank() != *onlyRank)
      continue;
    auto func = LLVM::LLVMFuncOp::create(
        b, tb.getLoc(),
        skel.name + "__n" + std::to_string(programs.nranks) + "_b" +
            std::to_string(tb.getRank()) + "_" + std::to_string(tb.getTb()),
        fnTy, LLVM::Linkage::Internal);
    OpBuilder::InsertionGuard g(b);
    Block *entry = func.addEntryBlock(b);
    OpBuilder cb = OpBuilder::atBlockEnd(entry);

    KernelEnv env;
    env.tables = variant.tables;
    env.ctx = entry->getArgument(0);
    env.input = entry->getArgument(1);
    env.output = entry->getArgument(2);
    env.count = entry->getArgument(3);
    env.epoch = entry->getArgument(4);
    env.dtype = dtype.str();
    env.redop = redop.str();
    if (generic) {
      // esize = __ccl_dtype_size(kind); slots hold max(1, maxBytes / esize)
      // elements.
      env.kind = entry->getArgument(5);
      env.esizeValue = callLib(cb, loc, func, "__ccl_dtype_size",
                               b.getI32Type(), {env.kind});
      Value most = LLVM::ConstantOp::create(
          cb, loc, cb.getI64Type(), cb.getI64IntegerAttr(int64_t(maxBytes)));
      Value per = LLVM::UDivOp::create(cb, loc, most, env.esize64(cb, loc));
      Value one =
          LLVM::ConstantOp::create(cb, loc, cb.getI64Type(), cb.getI64IntegerAttr(1));
      Value none =
          LLVM::ICmpOp::create(cb, loc, LLVM::ICmpPredicate::eq, per,
                               LLVM::ConstantOp::create(cb, loc, cb.getI64Type(),
                                                        cb.getI64IntegerAttr(0)));
      env.slotCountValue = LLVM::SelectOp::create(cb, loc, none, one, per);
    } else {
      env.esize = dtypeSize(dtype);
      env.slotCount =
          std::max<uint64_t>(1, maxBytes / std::max(1, dtypeSize(dtype)));
    }
    // Waits are numbered per channel: the k-th wait of the block on a
    // channel in this call expects consumed + k + 1 signals; at the end of
    // the block its count is added to consumed.
    llvm::MapVector<int64_t, int64_t> waits; // channel -> waits
    for (Operation &op : tb.getBody().front()) {
      Operation *copy = cb.clone(op);
      if (auto w = dyn_cast<WaitOp>(copy)) {
        int64_t &n = waits[env.channelIndex(w.getChannel())];
        env.waitOrdinals[copy] = n++;
      }
    }
    for (auto [chan, n] : waits)
      callLib(cb, loc, func, "__ccl_wait_commit", voidTy,
              {entry->getArgument(0), i32(cb, loc, chan), i32(cb, loc, n)});
    LLVM::ReturnOp::create(cb, loc, ValueRange{});
    int64_t sel = onlyRank ? tb.getTb()
                           : tb.getRank() * programs.nblocks + tb.getTb();
    skel.blocks.push_back({part.base + sel, func});
    envs.add(func, std::move(env));
  }
}

} // namespace

void ccl::buildKernels(OpBuilder &b, ArrayRef<AlgorithmOp> algos,
                       const TargetInfo &target, ArrayRef<std::string> dtypes,
                       ArrayRef<std::string> redops, uint64_t maxBytes,
                       bool perRankKernels, bool typeGeneric,
                       const std::map<std::string, std::string> &prefixes,
                       const std::set<std::string> &sharing,
                       KernelEnvs &envs,
                       SmallVectorImpl<KernelSkeleton> &skeletons) {
  // The variants (rank counts) of one algorithm whose ranks share their
  // block programs share one kernel, NAME_nN, which picks its variant by
  // the communicator's rank count and its block's program by rank and
  // block. A variant whose ranks run different programs gets its own
  // kernel: on GPU targets one per rank (NAME_nK_rR: each GPU loads only its
  // own blocks' code, and ptxas compiles n small kernels rather than one
  // large one), on the host one for all ranks (its kernels are called per
  // block through the plan's function pointers).
  // A bundle's algorithms may support smaller messages than --max-bytes
  // (the module's `cclc.max_bytes`, set by the driver from the selection).
  auto maxBytesOf = [&](AlgorithmOp algo) {
    if (auto m = algo->getParentOfType<ModuleOp>())
      if (auto limits = m->getAttrOfType<DictionaryAttr>("cclc.max_bytes"))
        if (auto v = limits.getAs<IntegerAttr>(algo.getName()))
          return (uint64_t)v.getInt();
    return maxBytes;
  };
  // An LL-packet algorithm's variants whose ranks share their programs get
  // a kernel each, for all their ranks (NAME_nK): a call of a few
  // microseconds pays for every select before its block's entry.
  llvm::MapVector<std::string, SmallVector<Variant>,
                  std::map<std::string, unsigned>>
      shared;
  SmallVector<Variant> own;
  for (AlgorithmOp algo : algos) {
    Variant v{algo, BlockPrograms::of(algo),
              std::make_shared<const AlgorithmTables>(algo)};
    if (sharing.count(algo.getSymName().str()))
      shared[prefixes.at(algo.getSymName().str())].push_back(std::move(v));
    else
      own.push_back(std::move(v));
  }
  // The (dtype, operator) pairs lowered: each of them, or with
  // `typeGeneric` one type-generic pass ("", "") whose skeletons record
  // the kernels of every pair (KernelSkeleton::kinds).
  SmallVector<std::pair<std::string, std::string>> pairs;
  if (typeGeneric)
    pairs.push_back({"", ""});
  else
    for (const std::string &d : dtypes)
      for (const std::string &o : redops)
        pairs.push_back({d, o});
  auto name = [&](KernelSkeleton &skel, StringRef prefix, StringRef d,
                  StringRef o, StringRef suffix) {
    if (!d.empty()) {
      skel.name = kernelName(prefix, d, o) + suffix.str();
      return;
    }
    skel.name = ("ccl_" + prefix + "_any" + suffix).str();
    for (const std::string &dt : dtypes)
      for (const std::string &op : redops)
        skel.kinds.push_back(
            {kernelName(prefix, dt, op) + suffix.str(),
             kindCode(dt, op)});
  };
  for (auto &[d, o] : pairs) {
    for (auto &[prefix, variants] : shared) {
      AlgorithmOp first = variants.front().algo;
      KernelSkeleton skel(first.getLoc());
      name(skel, prefix, d, o, "");
      skel.packets = first.getProtocol() == Protocol::LL;
      for (const Variant &v : variants)
        addBlocks(b, v, d, o, maxBytesOf(v.algo), std::nullopt, envs, skel);
      skeletons.push_back(std::move(skel));
    }
    for (const Variant &v : own) {
      AlgorithmOp algo = v.algo;
      bool perRank = !target.blockIdIsParameter();
      int64_t kernels = perRank ? int64_t(algo.getNranks()) : 1;
      for (int64_t r = 0; r < kernels; ++r) {
        KernelSkeleton skel(algo.getLoc());
        name(skel, algo.getSymName(), d, o,
             perRank ? "_r" + std::to_string(r) : "");
        if (perRank)
          skel.rank = r;
        skel.packets = algo.getProtocol() == Protocol::LL;
        addBlocks(b, v, d, o, maxBytesOf(algo), skel.rank, envs, skel);
        skeletons.push_back(std::move(skel));
      }
    }
  }
}
