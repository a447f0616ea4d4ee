//===- KernelBuilder.cpp - kernel skeletons and their environment ---------===//

#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/Lowering.h"

#include "ccl/types.h"
#include "llvm/ADT/MapVector.h"

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
  for (auto [i, c] : llvm::enumerate(layout.channels))
    channels[c.name] = i;
  for (auto [i, s] : llvm::enumerate(layout.semaphores))
    semaphores[s.name] = i;
  for (auto [i, bar] : llvm::enumerate(layout.barriers))
    barriers[SyncLayout::barrierKey(bar.rank, bar.tbs)] = {
        static_cast<int64_t>(i), static_cast<int64_t>(bar.tbs.size())};
  algo.walk([&](CopyPacketsOp op) { padded.insert(op.getSrc().getBuffer()); });
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

/// Number of thread blocks per rank: one more than the largest index used.
int64_t numBlocks(AlgorithmOp algo) {
  int64_t n = 1;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
    n = std::max<int64_t>(n, tb.getTb() + 1);
  return n;
}

/// Builds the kernel of `algo` for one dtype and operator: every rank's
/// thread blocks behind a switch on (rank, block), or with `onlyRank` one
/// rank's (a per-rank kernel, named NAME_rR, switching on the block).
/// Moves a copy of every thread block's operations into its switch case.
void buildKernel(OpBuilder &b, AlgorithmOp algo, const TargetInfo &target,
                 const std::shared_ptr<const AlgorithmTables> &tables,
                 StringRef dtype, StringRef redop, uint64_t maxBytes,
                 std::optional<int64_t> onlyRank, KernelEnvs &envs) {
  MLIRContext *ctx = b.getContext();
  Location loc = algo.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  SmallVector<Type> args{ptrTy, ptrTy, ptrTy, b.getI64Type()};
  if (target.blockIdIsParameter())
    args.push_back(b.getI32Type());
  std::string name = kernelName(algo.getSymName(), dtype, redop);
  if (onlyRank)
    name += "_r" + std::to_string(*onlyRank);
  auto func = LLVM::LLVMFuncOp::create(
      b, loc, name, LLVM::LLVMFunctionType::get(voidTy, args));
  target.markKernel(func);

  OpBuilder::InsertionGuard g(b);
  Block *entry = func.addEntryBlock(b);
  Block *exit = new Block();
  func.getBody().push_back(exit);

  KernelEnv env;
  env.tables = tables;
  env.ctx = entry->getArgument(0);
  env.input = entry->getArgument(1);
  env.output = entry->getArgument(2);
  env.count = entry->getArgument(3);
  env.esize = dtypeSize(dtype);
  env.slotCount =
      std::max<uint64_t>(1, maxBytes / std::max(1, dtypeSize(dtype)));
  env.dtype = dtype.str();
  env.redop = redop.str();

  b.setInsertionPointToStart(entry);
  Value block = target.blockIdIsParameter() ? entry->getArgument(4)
                                            : target.emitBlockId(b, loc);
  // The host has no block-index register; spin-wait error records (and the
  // start delay of __ccl_begin) read the index the kernel was called with.
  if (target.blockIdIsParameter())
    callLib(b, loc, func, "__ccl_host_set_block", voidTy, {block});
  env.epoch = callLib(b, loc, func, "__ccl_begin", b.getI32Type(),
                      {entry->getArgument(0)});
  int64_t nblocks = numBlocks(algo);
  Value sel = block;
  if (!onlyRank) { // ctx->rank * nblocks + block
    Value rank = LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                      entry->getArgument(0), /*alignment=*/4);
    sel = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, rank, i32(b, loc, nblocks)),
        block);
  }

  SmallVector<int32_t> caseValues;
  SmallVector<Block *> caseBlocks;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    if (onlyRank && tb.getRank() != *onlyRank)
      continue;
    Block *bb = new Block();
    func.getBody().getBlocks().insert(Region::iterator(exit), bb);
    OpBuilder cb = OpBuilder::atBlockEnd(bb);
    // Waits are numbered per channel: the k-th wait of the block on a
    // channel in this call expects consumed + k + 1 signals; at the end of
    // the case the block's count is added to consumed.
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
    LLVM::BrOp::create(cb, loc, exit);
    caseValues.push_back(static_cast<int32_t>(
        onlyRank ? tb.getTb() : tb.getRank() * nblocks + tb.getTb()));
    caseBlocks.push_back(bb);
  }
  SmallVector<ValueRange> caseOperands(caseBlocks.size(), ValueRange{});
  LLVM::SwitchOp::create(b, loc, sel, exit, ValueRange{}, caseValues,
                         caseBlocks, caseOperands);

  b.setInsertionPointToStart(exit);
  callLib(b, loc, func, "__ccl_end", voidTy, {entry->getArgument(0)});
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  envs.add(func, std::move(env));
}

} // namespace

void ccl::buildKernels(OpBuilder &b, AlgorithmOp algo, const TargetInfo &target,
                       ArrayRef<std::string> dtypes,
                       ArrayRef<std::string> redops, uint64_t maxBytes,
                       KernelEnvs &envs) {
  auto tables = std::make_shared<const AlgorithmTables>(algo);
  // GPU targets get one kernel per rank (each GPU loads only its own
  // blocks' code, and ptxas's time grows much faster than linearly with
  // one kernel's size); the host target, whose kernels are called per
  // block through the plan's function pointers, one for all ranks.
  bool perRank = !target.blockIdIsParameter();
  for (const std::string &d : dtypes)
    for (const std::string &o : redops) {
      if (!perRank) {
        buildKernel(b, algo, target, tables, d, o, maxBytes, std::nullopt,
                    envs);
        continue;
      }
      for (int64_t r = 0; r < algo.getNranks(); ++r)
        buildKernel(b, algo, target, tables, d, o, maxBytes, r, envs);
    }
}
