//===- SharedLibrary.cpp - the generated .so and its header --------------===//
//
// The host module of a generated library (plans, entry points, a bundle's
// selection table and NCCL-shaped entry points, the constructor that
// registers the plans), linked with the kernels' objects and libcclrt into
// the .so, and the C header written next to it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Codegen.h"
#include "compiler/Driver/Output.h"
#include "compiler/Driver/Tools.h"

#include "ccl/plan.h"
#include "ccl/types.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>

using namespace llvm;
using namespace ccl;
using namespace ccl::driver;

std::vector<std::vector<const TargetArtifacts *>>
ccl::planTargetGroups(ArrayRef<TargetArtifacts> artifacts) {
  std::vector<std::vector<const TargetArtifacts *>> groups;
  for (const TargetArtifacts &art : artifacts) {
    auto it = llvm::find_if(groups, [&](const auto &g) {
      return g.front()->planTarget == art.planTarget;
    });
    if (it == groups.end())
      groups.push_back({&art});
    else
      it->push_back(&art);
  }
  return groups;
}

unsigned ccl::collectiveCode(StringRef collective) {
  return StringSwitch<unsigned>(collective)
      .Case("AllReduce", CCL_COLL_ALLREDUCE)
      .Case("AllGather", CCL_COLL_ALLGATHER)
      .Case("ReduceScatter", CCL_COLL_REDUCESCATTER)
      .Case("AllToAll", CCL_COLL_ALLTOALL)
      .Case("Broadcast", CCL_COLL_BROADCAST)
      .Case("Reduce", CCL_COLL_REDUCE)
      .Default(CCL_COLL_COUNT);
}

namespace {

/// Broadcast and Reduce: their entry points take the root at run time.
bool isRootedCollective(StringRef collective) {
  return collective == "Broadcast" || collective == "Reduce";
}

/// Builds the host-side module of the .so: plans, entry points, constructor.
class PlanEmitter {
public:
  /// `corrupt`: CompileOptions::testCorrupt (test only).
  PlanEmitter(LLVMContext &c, Module &m, StringRef corrupt)
      : c(c), m(m), corrupt(corrupt.str()) {
    i32 = Type::getInt32Ty(c);
    i64 = Type::getInt64Ty(c);
    ptr = PointerType::getUnqual(c);
    opTy = StructType::create(c, {ptr, ptr, i32, i32, i32, i32}, "ccl_op_info");
    scratchTy = StructType::create(c, {ptr, i32, i32}, "ccl_scratch_info");
    kernelTy = StructType::create(c, {i32, i32, ptr, ptr}, "ccl_kernel_info");
    channelTy = StructType::create(c, {i32, i32, i32, i32}, "ccl_channel_info");
    semaphoreTy = StructType::create(c, {i32}, "ccl_semaphore_info");
    barrierTy = StructType::create(c, {i32, i32}, "ccl_barrier_info");
    variantTy = StructType::create(
        c,
        {i32, i32, i32, i32, ptr, i32, ptr, i32, ptr, i32, ptr, i32, ptr, i32,
         i32},
        "ccl_variant");
    imageTy = StructType::create(c, {i32, ptr, ptr, i64}, "ccl_image");
    planTy = StructType::create(
        c, {i32, i32, ptr, ptr, i32, i32, i32, i64, ptr, i32, ptr, i32, ptr,
            i32, ptr, i32},
        "ccl_plan");
    rowTy = StructType::create(c, {i32, i32, i32, i32, i64, ptr, ptr, ptr},
                               "ccl_selection_row");
    selectionTy =
        StructType::create(c, {i32, i32, ptr, i32, ptr, ptr, i32, ptr},
                           "ccl_selection");
  }

  /// The selection table of a bundle and its NCCL-shaped entry points:
  /// cclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream) and
  /// the others in NCCL's argument order, each calling cclrtCollective.
  void selection(const PlanInfo &info,
                 const std::map<std::string, std::vector<GlobalVariable *>>
                     &plansOf) {
    auto plansArray = [&](const std::string &alg) -> Constant * {
      const auto &list = plansOf.at(alg);
      auto *aty = ArrayType::get(ptr, list.size());
      std::vector<Constant *> elems(list.begin(), list.end());
      return new GlobalVariable(m, aty, true, GlobalValue::PrivateLinkage,
                                ConstantArray::get(aty, elems),
                                "ccl_row_plans");
    };
    auto row = [&](StringRef coll, StringRef alg, int64_t minRanks,
                   int64_t maxRanks, int64_t maxBytes, StringRef where) {
      return ConstantStruct::get(
          rowTy, {u32(collectiveCode(coll)), u32(minRanks),
                  u32(maxRanks < 0 ? 0 : maxRanks),
                  u32(plansOf.at(alg.str()).size()),
                  u64(maxBytes < 0 ? UINT64_MAX : (uint64_t)maxBytes),
                  str(alg), plansArray(alg.str()), str(where)});
    };
    std::vector<Constant *> rows, algs, detRows;
    for (const SelectionRow &r : info.selection)
      (r.deterministic ? detRows : rows)
          .push_back(row(r.collective, r.algorithm, r.minRanks, r.maxRanks,
                         r.maxBytes, r.where));
    for (const AlgorithmInfo &a : info.algorithms)
      if (collectiveCode(a.collective) != CCL_COLL_COUNT)
        algs.push_back(row(a.collective, a.name, 1, -1, -1, ""));
    auto *table = new GlobalVariable(
        m, selectionTy, true, GlobalValue::InternalLinkage,
        ConstantStruct::get(
            selectionTy,
            {u32(CCL_SELECTION_ABI_VERSION), u32(rows.size()),
             array(rowTy, rows, "ccl_selection_rows"), u32(algs.size()),
             array(rowTy, algs, "ccl_selection_algorithms"),
             str(info.source), u32(detRows.size()),
             array(rowTy, detRows, "ccl_selection_deterministic_rows")}),
        "ccl_selection");
    // name, collective, takes op, takes root
    struct Shape {
      const char *name;
      unsigned coll;
      bool op, root;
    };
    const Shape shapes[] = {
        {"cclAllReduce", CCL_COLL_ALLREDUCE, true, false},
        {"cclAllGather", CCL_COLL_ALLGATHER, false, false},
        {"cclReduceScatter", CCL_COLL_REDUCESCATTER, true, false},
        {"cclAllToAll", CCL_COLL_ALLTOALL, false, false},
        {"cclBroadcast", CCL_COLL_BROADCAST, false, true},
        {"cclReduce", CCL_COLL_REDUCE, true, true},
    };
    FunctionCallee collective = m.getOrInsertFunction(
        "cclrtCollective",
        FunctionType::get(i32, {ptr, i32, ptr, ptr, i64, i32, i32, i32, ptr, ptr},
                          false));
    for (const Shape &sh : shapes) {
      // (sendbuff, recvbuff, count, datatype, [op], [root], comm, stream)
      SmallVector<Type *, 8> params{ptr, ptr, i64, i32};
      if (sh.op)
        params.push_back(i32);
      if (sh.root)
        params.push_back(i32);
      params.push_back(ptr);
      params.push_back(ptr);
      Function *f = Function::Create(FunctionType::get(i32, params, false),
                                     GlobalValue::ExternalLinkage, sh.name, m);
      IRBuilder<> b(BasicBlock::Create(c, "entry", f));
      unsigned k = 4;
      Value *op = sh.op ? (Value *)f->getArg(k++) : u32(CCL_OP_SUM);
      Value *root = sh.root ? (Value *)f->getArg(k++) : u32(0);
      Value *comm = f->getArg(k++), *stream = f->getArg(k++);
      b.CreateRet(b.CreateCall(
          collective, {table, u32(sh.coll), f->getArg(0), f->getArg(1),
                       f->getArg(2), f->getArg(3), op, root, comm, stream}));
    }
  }

  Constant *str(StringRef s) {
    auto &g = strings[s.str()];
    if (!g) {
      auto *init = ConstantDataArray::getString(c, s, /*AddNull=*/true);
      g = new GlobalVariable(m, init->getType(), true,
                             GlobalValue::PrivateLinkage, init, ".str");
      g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    }
    return g;
  }
  Constant *bytes(StringRef data, StringRef name) {
    auto *init = ConstantDataArray::get(
        c, ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                             data.size()));
    auto *g = new GlobalVariable(m, init->getType(), true,
                                 GlobalValue::PrivateLinkage, init, name);
    g->setAlignment(Align(16));
    return g;
  }
  Constant *array(StructType *ty, ArrayRef<Constant *> elems, StringRef name) {
    if (elems.empty())
      return ConstantPointerNull::get(ptr);
    auto *aty = ArrayType::get(ty, elems.size());
    return new GlobalVariable(m, aty, true, GlobalValue::PrivateLinkage,
                              ConstantArray::get(aty, elems), name);
  }
  Constant *u32(uint64_t v) { return ConstantInt::get(i32, v); }
  Constant *u64(uint64_t v) { return ConstantInt::get(i64, v); }

  Constant *ops(const PlanInfo &plan) {
    if (opTable)
      return opTable;
    std::vector<Constant *> elems;
    for (const OpInfo &o : plan.ops)
      elems.push_back(ConstantStruct::get(
          opTy, {str(o.kind), str(o.file), u32(o.line), u32(o.col),
                 u32(o.awaits), u32(o.sourceSignals)}));
    opTable = array(opTy, elems, "ccl_ops");
    return opTable;
  }

  /// The plan of `a` for the targets of `group`: artifacts of one plan
  /// target (CCL_TARGET_*), such as gfx942 and gfx90a, whose kernels have
  /// the same names and launch shape; the plan holds every one's images.
  GlobalVariable *plan(const PlanInfo &info, const AlgorithmInfo &a,
                       ArrayRef<const TargetArtifacts *> group) {
    const TargetArtifacts &art = *group.front();
    // The targets of one plan target name their kernels alike.
    std::unique_ptr<TargetInfo> target = createTargetInfo(art.target);
    assert(target && "artifacts of a known target");
    std::vector<Constant *> variants;
    for (const VariantInfo &v : a.variants) {
      std::vector<Constant *> scratch, kernels;
      for (const auto &[name, slots] : v.scratch)
        scratch.push_back(ConstantStruct::get(
            scratchTy, {str(name), u32(slots + damage("plan-scratch-slots")),
                        u32(a.ll ? 1 : 0)}));
      for (const std::string &dt : info.dtypes)
        for (const std::string &op : info.redops) {
          std::string sym = kernelName(v.kernelOn(*target), dt, op);
          Constant *fn = ConstantPointerNull::get(ptr);
          if (art.planTarget == CCL_TARGET_HOST)
            fn = cast<Constant>(
                m.getOrInsertFunction(
                     sym, FunctionType::get(Type::getVoidTy(c),
                                            {ptr, ptr, ptr, i64, i32}, false))
                    .getCallee());
          kernels.push_back(ConstantStruct::get(
              kernelTy, {u32(dtypeCode(dt)), u32(opCode(op)), str(sym), fn}));
        }
      std::vector<Constant *> channels, semaphores, barriers;
      for (const SyncLayout::Channel &ch : v.sync.channels)
        channels.push_back(ConstantStruct::get(
            channelTy, {u32(ch.src),
                        u32((ch.dst + damage("plan-peer")) % v.nranks),
                        u32(ch.port ? CCL_CHANNEL_PORT : CCL_CHANNEL_MEMORY),
                        u32(ch.credit)}));
      for (const SyncLayout::Semaphore &sem : v.sync.semaphores)
        semaphores.push_back(ConstantStruct::get(semaphoreTy, {u32(sem.rank)}));
      for (const SyncLayout::Barrier &bar : v.sync.barriers)
        barriers.push_back(ConstantStruct::get(
            barrierTy, {u32(bar.rank), u32(bar.tbs.size())}));
      variants.push_back(ConstantStruct::get(
          variantTy,
          {u32(v.nranks), u32(v.nblocks), u32(art.threadsPerBlock),
           u32(scratch.size()), array(scratchTy, scratch, "ccl_scratch"),
           u32(kernels.size()), array(kernelTy, kernels, "ccl_kernels"),
           u32(channels.size()), array(channelTy, channels, "ccl_channels"),
           u32(semaphores.size()),
           array(semaphoreTy, semaphores, "ccl_semaphores"),
           u32(barriers.size()), array(barrierTy, barriers, "ccl_barriers"),
           u32(v.chunks), u32(v.rootPlusOne + damage("plan-root"))}));
    }
    // The targets' images hold every algorithm's kernels: one copy in the
    // library, shared by the plans of all algorithms (a bundle has many).
    // Per target of the group, in --target order: a cubin, then PTX
    // (NVPTX), or a code object (AMDGPU); each names its architecture, and
    // the runtime loads the one that matches the device.
    auto &[imageArray, imageCount] = imagesOf[&art];
    if (!imageArray) {
      std::vector<Constant *> images;
      for (const TargetArtifacts *t : group) {
        if (!t->cubin.empty())
          images.push_back(ConstantStruct::get(
              imageTy, {u32(CCL_IMAGE_CUBIN), str(t->target),
                        bytes(t->cubin, "ccl_cubin"), u64(t->cubin.size())}));
        if (!t->ptx.empty()) {
          std::string ptx = t->ptx;
          ptx.push_back('\0'); // the driver reads PTX as a C string
          images.push_back(ConstantStruct::get(
              imageTy, {u32(CCL_IMAGE_PTX), str(t->target),
                        bytes(ptx, "ccl_ptx"), u64(ptx.size())}));
        }
        if (!t->hsaco.empty())
          images.push_back(ConstantStruct::get(
              imageTy, {u32(CCL_IMAGE_HSACO), str(t->target),
                        bytes(t->hsaco, "ccl_hsaco"), u64(t->hsaco.size())}));
      }
      imageArray = array(imageTy, images, "ccl_images");
      imageCount = images.size();
    }
    auto *init = ConstantStruct::get(
        planTy,
        {u32(CCL_PLAN_ABI_VERSION), u32(art.planTarget), str(a.name),
         str(a.collective),
         u32(a.bothForms ? CCL_INPLACE_BOTH
             : a.inplace ? CCL_INPLACE_ONLY
                         : CCL_INPLACE_NO),
         u32(a.chunks), u32(a.ll ? CCL_PROTO_LL : CCL_PROTO_SIMPLE),
         u64(a.maxBytes), str(info.source), u32(variants.size()),
         array(variantTy, variants, "ccl_variants"), u32(info.ops.size()),
         ops(info), u32(imageCount), imageArray, u32(a.root)});
    return new GlobalVariable(m, planTy, true, GlobalValue::InternalLinkage,
                              init, "ccl_plan_" + a.name + "_" + art.target);
  }

  // The options were checked against ccl/types.def before codegen.
  static unsigned dtypeCode(StringRef dt) {
    return ccl::findDType(std::string_view(dt.data(), dt.size()))->code;
  }
  static unsigned opCode(StringRef op) {
    return ccl::findRedOp(std::string_view(op.data(), op.size()))->code;
  }

  /// cclResult_t ccl_<name>(comm, input, output, count, dtype, op, stream): picks
  /// the plan of the communicator's target and calls cclrtLaunch. A rooted
  /// collective's entry also takes the root (before the stream) and calls
  /// cclrtLaunchRooted.
  void entry(const AlgorithmInfo &a,
             ArrayRef<std::pair<unsigned, GlobalVariable *>> plans) {
    const bool rooted = isRootedCollective(a.collective);
    SmallVector<Type *, 8> params{ptr, ptr, ptr, i64, i32, i32};
    if (rooted)
      params.push_back(i32);
    params.push_back(ptr);
    auto *fty = FunctionType::get(i32, params, false);
    Function *f = Function::Create(fty, GlobalValue::ExternalLinkage,
                                   "ccl_" + a.name, m);
    IRBuilder<> b(BasicBlock::Create(c, "entry", f));
    Value *plan = selectPlan(b, f->getArg(0), plans);
    SmallVector<Value *, 9> args{plan};
    SmallVector<Type *, 9> types{ptr};
    for (Argument &arg : f->args()) {
      args.push_back(&arg);
      types.push_back(arg.getType());
    }
    FunctionCallee launch = m.getOrInsertFunction(
        rooted ? "cclrtLaunchRooted" : "cclrtLaunch",
        FunctionType::get(i32, types, false));
    b.CreateRet(b.CreateCall(launch, args));
  }

  /// The plan of the communicator's target among `plans`.
  Value *selectPlan(IRBuilder<> &b, Value *comm,
                    ArrayRef<std::pair<unsigned, GlobalVariable *>> plans) {
    Value *plan = plans.front().second;
    if (plans.size() > 1) {
      Value *slot = b.CreateAlloca(i32);
      b.CreateStore(u32(plans.front().first), slot);
      FunctionCallee getTarget = m.getOrInsertFunction(
          "cclCommTarget", FunctionType::get(i32, {ptr, ptr}, false));
      b.CreateCall(getTarget, {comm, slot});
      Value *t = b.CreateLoad(i32, slot);
      for (auto [code, g] : plans.drop_front())
        plan = b.CreateSelect(b.CreateICmpEQ(t, u32(code)), g, plan);
    }
    return plan;
  }

  void constructor(ArrayRef<GlobalVariable *> plans) {
    auto *f = Function::Create(FunctionType::get(Type::getVoidTy(c), false),
                               GlobalValue::InternalLinkage,
                               "ccl_register_plans", m);
    IRBuilder<> b(BasicBlock::Create(c, "entry", f));
    FunctionCallee reg = m.getOrInsertFunction(
        "cclrtRegisterPlan", FunctionType::get(Type::getVoidTy(c), {ptr}, false));
    for (GlobalVariable *p : plans)
      b.CreateCall(reg, {p});
    b.CreateRetVoid();
    appendToGlobalCtors(m, f, 65535);
  }

private:
  /// 1 the first time the test-only corruption `what` is asked for (and
  /// is the one requested), else 0.
  int64_t damage(StringRef what) {
    if (corrupt != what || damaged)
      return 0;
    damaged = true;
    return 1;
  }

  LLVMContext &c;
  Module &m;
  std::string corrupt;
  bool damaged = false;
  Type *i32, *i64;
  PointerType *ptr;
  StructType *opTy, *scratchTy, *kernelTy, *variantTy, *imageTy, *planTy;
  StructType *channelTy, *semaphoreTy, *barrierTy, *rowTy, *selectionTy;
  std::map<std::string, GlobalVariable *> strings;
  Constant *opTable = nullptr;
  /// Per group of targets (keyed by its first): its image array and the
  /// number of images in it.
  std::map<const TargetArtifacts *, std::pair<Constant *, size_t>> imagesOf;
};

std::string headerText(const PlanInfo &plan, StringRef guard) {
  std::string s;
  raw_string_ostream os(s);
  os << "/* Generated by cclc from " << plan.source
     << ". Link with libcclrt. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <ccl/ccl.h>\n\n"
     << "/* The library was built against plan ABI " << CCL_PLAN_ABI_VERSION
     << " (ccl/plan.h); libcclrt refuses\n   its plans if it implements another "
        "version. */\n"
     << "#define " << guard << "_PLAN_ABI " << CCL_PLAN_ABI_VERSION << "u\n"
     << "#if CCL_PLAN_ABI_VERSION != " << guard << "_PLAN_ABI\n"
     << "#error \"ccl/plan.h does not match the plan ABI this library was "
        "built with; use the headers of the libcclrt it was built against\"\n"
     << "#endif\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const AlgorithmInfo &a : plan.algorithms) {
    os << "/* " << a.name << ": " << a.collective
       << (a.bothForms ? " (in place or out of place)"
           : a.inplace ? " (in place)"
                       : "")
       << ", ranks";
    for (const VariantInfo &v : a.variants)
      os << " " << v.nranks;
    os << "; at most " << a.maxBytes << " input bytes per rank. */\n"
       << "cclResult_t ccl_" << a.name
       << "(cclComm_t comm, const void *input, void *output, size_t count,\n"
       << "    cclDataType_t dtype, cclRedOp_t op, "
       << (isRootedCollective(a.collective) ? "int root, " : "")
       << "cclStream_t stream);\n\n";
  }
  if (!plan.selection.empty())
    os << "/* The bundle's entry points, in NCCL's argument order: each picks\n"
          "   the algorithm by the library's selection table (cclc\n"
          "   --print-selection; CCL_ALGO=collective=algorithm,... forces one).\n"
          "   A call no algorithm serves returns cclUnsupported and says what\n"
          "   the library serves. */\n"
          "cclResult_t cclAllReduce(const void *sendbuff, void *recvbuff,\n"
          "    size_t count, cclDataType_t datatype, cclRedOp_t op,\n"
          "    cclComm_t comm, cclStream_t stream);\n"
          "cclResult_t cclAllGather(const void *sendbuff, void *recvbuff,\n"
          "    size_t sendcount, cclDataType_t datatype, cclComm_t comm,\n"
          "    cclStream_t stream);\n"
          "cclResult_t cclReduceScatter(const void *sendbuff, void *recvbuff,\n"
          "    size_t recvcount, cclDataType_t datatype, cclRedOp_t op,\n"
          "    cclComm_t comm, cclStream_t stream);\n"
          "cclResult_t cclAllToAll(const void *sendbuff, void *recvbuff,\n"
          "    size_t count, cclDataType_t datatype, cclComm_t comm,\n"
          "    cclStream_t stream);\n"
          "cclResult_t cclBroadcast(const void *sendbuff, void *recvbuff,\n"
          "    size_t count, cclDataType_t datatype, int root, cclComm_t comm,\n"
          "    cclStream_t stream);\n"
          "cclResult_t cclReduce(const void *sendbuff, void *recvbuff,\n"
          "    size_t count, cclDataType_t datatype, cclRedOp_t op, int root,\n"
          "    cclComm_t comm, cclStream_t stream);\n\n";
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}

} // namespace

bool ccl::writeSharedLibrary(const PlanInfo &plan,
                             const std::vector<TargetArtifacts> &artifacts,
                             mlir::ModuleOp scheduled,
                             const CompileOptions &options, std::string &error,
                             TimeReport *report) {
  if (options.output.empty() || options.output == "-") {
    error = "a shared library needs an output file (-o NAME.so)";
    return false;
  }
  LLVMContext c;
  Module m("ccl_plans", c);
  auto host = createTargetInfo("host");
  std::string diag;
  auto tm = makeMachine(host->triple(), host->cpu(), host->features(), diag);
  if (!tm) {
    error = "no LLVM backend for the host: " + diag;
    return false;
  }
  m.setTargetTriple(Triple(host->triple()));
  m.setDataLayout(tm->createDataLayout());
  PlanEmitter pe(c, m, options.testCorrupt);
  // One plan per algorithm and plan target: the targets of one plan target
  // (gfx942 and gfx90a) share it, each with its images. Their kernels are
  // launched with the plan's threads per block, so those must agree.
  const std::vector<std::vector<const TargetArtifacts *>> groups =
      planTargetGroups(artifacts);
  for (const auto &group : groups)
    for (const TargetArtifacts *art : group)
      if (art->threadsPerBlock != group.front()->threadsPerBlock) {
        error = "internal error: targets " + group.front()->target + " and " +
                art->target + " share a plan but not its threads per block";
        return false;
      }
  std::vector<GlobalVariable *> all;
  std::map<std::string, std::vector<GlobalVariable *>> plansOf;
  for (const AlgorithmInfo &a : plan.algorithms) {
    std::vector<std::pair<unsigned, GlobalVariable *>> plans;
    for (const auto &group : groups) {
      const TargetArtifacts &art = *group.front();
      GlobalVariable *g = pe.plan(plan, a, group);
      plans.push_back({art.planTarget, g});
      plansOf[a.name].push_back(g);
      all.push_back(g);
    }
    pe.entry(a, plans);
  }
  if (!plan.selection.empty())
    pe.selection(plan, plansOf);
  pe.constructor(all);
  if (verifyModule(m, &errs())) {
    error = "internal error: the plan module is invalid";
    return false;
  }
  std::string planObj;
  if (!emitCode(m, *host, /*object=*/true, planObj, error))
    return false;

  // Find libcclrt.so and the linker.
  std::string dir = exeDir(options.argv0);
  std::string runtime = options.runtimeLib;
  if (runtime.empty())
    if (const char *env = getenv("CCLC_RUNTIME_LIB"))
      runtime = env;
  if (runtime.empty())
    for (std::string cand : {dir + "/../lib/libcclrt.so",
                             dir + "/../../runtime/libcclrt.so",
                             dir + "/libcclrt.so"})
      if (sys::fs::exists(cand)) {
        runtime = cand;
        break;
      }
  if (runtime.empty() || !sys::fs::exists(runtime)) {
    error = "cannot find libcclrt.so (looked next to cclc, in ../lib and "
            "../../runtime); pass --runtime-lib=PATH or set CCLC_RUNTIME_LIB";
    return false;
  }
  SmallString<256> absRuntime(runtime);
  sys::fs::make_absolute(absRuntime);
  sys::path::remove_dots(absRuntime, true);
  std::string lld = findLinker(options.argv0, error);
  if (lld.empty())
    return false;

  // The library and its header are written under temporary names next to
  // them and renamed into place when both are complete (Output.h).
  OutputFile library, header;
  if (!prepareOutput(options.output, library, error))
    return false;
  if (!prepareOutput(headerPath(options.output), header, error)) {
    discardOutput(library);
    return false;
  }
  std::vector<std::string> temps;
  auto cleanup = [&] {
    for (const std::string &t : temps) {
      sys::fs::remove(t);
      sys::DontRemoveFileOnSignal(t);
    }
  };
  auto fail = [&] {
    cleanup();
    discardOutput(library);
    discardOutput(header);
    return false;
  };
  std::string path;
  if (!writeTemp("cclc-plan", "o", planObj, path, error))
    return fail();
  temps.push_back(path);
  // Linked to the temporary name, named for the final one.
  std::string soname = "--soname=" + sys::path::filename(options.output).str();
  std::vector<std::string> args{"-shared", "-o",          library.temp, soname,
                                "-z",      "noexecstack", "--build-id", path};
  for (const TargetArtifacts &art : artifacts)
    if (!art.object.empty()) {
      if (!writeTemp("cclc-kernels", "o", art.object, path, error))
        return fail();
      temps.push_back(path);
      args.push_back(path);
    }
  args.push_back(absRuntime.str().str());
  args.push_back("-rpath=$ORIGIN");
  args.push_back("-rpath=$ORIGIN/../lib");
  for (const char *libdir : {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu"})
    args.push_back(std::string("-L") + libdir);
  args.push_back("--as-needed");
  args.push_back("-lc");
  // A library that would not load is never written: every symbol it uses
  // must come from its own objects, libcclrt or the C library.
  args.push_back("--no-undefined");
  // ld.lld maps its output: on a full file system it dies of SIGBUS
  // instead of saying so. The library takes about as many bytes as its
  // objects; where fewer are free, say that, before linking and after a
  // failed link.
  uint64_t need = planObj.size();
  for (const TargetArtifacts &art : artifacts)
    need += art.object.size();
  SmallString<256> outDir(library.temp);
  sys::path::remove_filename(outDir);
  if (outDir.empty())
    outDir = ".";
  auto noSpace = [&](uint64_t margin) -> bool {
    ErrorOr<sys::fs::space_info> space = sys::fs::disk_space(outDir);
    if (!space || space->available >= need + margin)
      return false;
    error = "no space left on the file system of '" + outDir.str().str() +
            "': " + std::to_string(space->available) +
            " bytes are free, and the library needs about " +
            std::to_string(need) + "; nothing was written";
    return true;
  };
  if (noSpace(0))
    return fail();
  if (!runTool(lld, args, error)) {
    if (noSpace(need + (1 << 20)))
      return fail();
    if (error.find("No space left on device") != std::string::npos) {
      error = "no space left on the device of '" + options.output +
              "' (ld.lld could not write the library); nothing was written";
      return fail();
    }
    if (error.find("undefined symbol") != std::string::npos)
      error = "internal compiler error: the library would not load (a "
              "symbol it uses is defined nowhere); nothing was written:\n" +
              error;
    return fail();
  }
  cleanup();

  // The plans as the library holds them, against the verified schedule.
  if (report)
    report->begin("check library plans");
  auto linked = MemoryBuffer::getFile(library.temp, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!linked) {
    error = "cannot read back " + library.temp + ": " +
            linked.getError().message();
    return fail();
  }
  if (!checkLibraryPlans((*linked)->getBuffer(), scheduled, options,
                         artifacts, error))
    return fail();
  if (report)
    report->begin("write header");

  // A header with the entry points, next to the library.
  std::string guard = "CCL_GENERATED_" +
                      sys::path::stem(options.output).upper() + "_H";
  for (char &ch : guard)
    if (!isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  {
    std::error_code ec;
    raw_fd_ostream hs(header.temp, ec);
    if (!ec) {
      hs << headerText(plan, guard);
      hs.close();
      ec = hs.error();
      hs.clear_error();
    }
    if (ec) {
      error = "cannot write " + header.path + ": " + ec.message();
      return fail();
    }
  }
  if (!commitOutput(library, error)) {
    discardOutput(header);
    return false;
  }
  return commitOutput(header, error);
}
