//===- Codegen.cpp - LLVM IR to device images -----------------------------===//
//
// Linking the device library, optimising, emitting PTX, objects, cubins
// and AMDGPU code objects.
// The .so that packages them is SharedLibrary.cpp's.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Codegen.h"
#include "compiler/Driver/Tools.h"

#include "compiler/Conversion/CclToLLVM.h"

#include "ccl/plan.h"
#include "ccl/types.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>
#include <mutex>

#include <unistd.h>

using namespace llvm;
using namespace ccl;

namespace {

void initTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
  });
}

/// Kernels are the external ccl_* functions (the block programs they call
/// are internal).
bool isKernel(const Function &f) {
  return f.getName().starts_with("ccl_") && !f.hasLocalLinkage();
}

} // namespace

namespace ccl {
namespace driver {

std::unique_ptr<TargetMachine> makeMachine(StringRef triple, StringRef cpu,
                                           StringRef features,
                                           std::string &error,
                                           CodeGenOptLevel level) {
  initTargets();
  Triple tt(triple);
  const Target *t = TargetRegistry::lookupTarget(tt, error);
  if (!t)
    return nullptr;
  TargetOptions opts;
  opts.UseInitArray = true; // .init_array: the .so has no crtbegin to run .ctors
  return std::unique_ptr<TargetMachine>(t->createTargetMachine(
      tt, cpu, features, opts, Reloc::PIC_, std::nullopt, level));
}

bool writeTemp(StringRef prefix, StringRef suffix, StringRef data,
               std::string &path, std::string &error) {
  SmallString<128> p;
  int fd;
  if (std::error_code ec = sys::fs::createTemporaryFile(prefix, suffix, fd, p)) {
    error = "cannot create a temporary file: " + ec.message();
    return false;
  }
  // Removed on SIGINT, SIGTERM or a crash (the caller removes it after).
  sys::RemoveFileOnSignal(p);
  raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << data;
  os.close();
  if (os.has_error()) {
    // Cleared, or the stream's destructor aborts ("IO failure on output
    // stream"): a full TMPDIR is an error to report, not a crash.
    error = ("cannot write " + p + ": " + os.error().message()).str();
    os.clear_error();
    sys::fs::remove(p);
    sys::DontRemoveFileOnSignal(p);
    return false;
  }
  path = p.str().str();
  return true;
}

/// Runs `program` with `args`; on failure `error` holds its output.
std::string tempOutputPath(StringRef prefix, StringRef suffix) {
  SmallString<128> dir, path;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  sys::path::append(dir, prefix + "-%%%%%%." + suffix);
  sys::fs::createUniquePath(dir, path, /*MakeAbsolute=*/true);
  return path.str().str();
}

bool runTool(StringRef program, ArrayRef<std::string> args, std::string &error) {
  SmallString<128> log;
  int fd;
  if (sys::fs::createTemporaryFile("cclc-tool", "log", fd, log)) {
    error = "cannot create a temporary file";
    return false;
  }
  ::close(fd);
  sys::RemoveFileOnSignal(log);
  SmallVector<StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string msg;
  int rc = sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0, 0,
                               &msg);
  auto out = MemoryBuffer::getFile(log);
  sys::fs::remove(log);
  sys::DontRemoveFileOnSignal(log);
  if (rc == 0)
    return true;
  std::string cmd = program.str();
  for (const std::string &a : args)
    cmd += " " + a;
  error = "'" + cmd + "' failed" + (msg.empty() ? "" : ": " + msg) +
          (out ? "\n" + (*out)->getBuffer().str() : "");
  return false;
}

/// First of `candidates` that exists, else the program found on PATH.
std::string findTool(ArrayRef<std::string> candidates, StringRef name) {
  for (const std::string &c : candidates)
    if (!c.empty() && sys::fs::can_execute(c))
      return c;
  if (auto p = sys::findProgramByName(name))
    return *p;
  return "";
}

std::string exeDir(const std::string &argv0) {
  std::string exe = sys::fs::getMainExecutable(argv0.c_str(),
                                               (void *)&exeDir);
  return sys::path::parent_path(exe).str();
}

std::string findLinker(const std::string &argv0, std::string &error) {
  if (const char *env = getenv("CCLC_LD_LLD")) {
    if (sys::fs::can_execute(env) && !sys::fs::is_directory(env))
      return env;
    error = "CCLC_LD_LLD=" + std::string(env) +
            " is not an executable ld.lld; unset it to search for one";
    return "";
  }
  // CCLC_LLVM_BIN: bin/ of the LLVM cclc was built with (set by the BUILD
  // file from @llvm).
  std::string lld =
      findTool({exeDir(argv0) + "/ld.lld", CCLC_LLVM_BIN "/ld.lld",
                "/usr/lib/llvm-22/bin/ld.lld"},
               "ld.lld-22");
  if (lld.empty())
    lld = findTool({}, "ld.lld");
  if (lld.empty())
    error = "cannot find ld.lld (looked next to cclc, in " CCLC_LLVM_BIN
            " and /usr/lib/llvm-22/bin, and for ld.lld-22 and ld.lld on "
            "PATH); install lld-22 or set CCLC_LD_LLD";
  return lld;
}

} // namespace driver
} // namespace ccl

using namespace ccl::driver;

/// Bulk data movers of the device library (a loop over a whole chunk each)
/// stay out of line on GPUs once a module calls one from more than
/// kMaxInlinedBulkCalls places: each inlined copy is a few kilobytes of
/// machine code that ptxas optimises again (the ring at 8 ranks with 8
/// instances of 4 tiles: 16 call sites in its 4 block programs; inlined,
/// ptxas took 1.65 s and made 214 KB of code, out of line 0.7 s and 128 KB).
/// A call costs nothing next to moving a chunk. Small kernels keep
/// everything inlined.
constexpr unsigned kMaxInlinedBulkCalls = 4;

static bool isBulkMover(StringRef name) {
  return name == "__ccl_copy" || name == "__ccl_put" || name == "__ccl_get" ||
         name == "__ccl_copy_fwd" || name.starts_with("__ccl_read_reduce_") ||
         (name.starts_with("__ccl_reduce_") &&
          !name.starts_with("__ccl_reduce_packets_"));
}

/// 32-bit registers of an SM's register file (64 Ki on every NVIDIA GPU
/// since sm_50, sm_90 included).
constexpr unsigned kRegistersPerSM = 65536;

/// A kernel that branches to more than kMaxInlinedPrograms block programs
/// calls them rather than holding them all: ptxas compiles relocatable PTX
/// function by function, and its time grows faster than a function's
/// length (the wide tiled ring at 2..8 ranks, float32 sum, 41 programs in
/// one kernel: 7.2 s inlined, 2.3 s out of line). The call is one per
/// block and kernel launch. A kernel of a few programs keeps them inline.
constexpr unsigned kMaxInlinedPrograms = 4;

/// The functions of `module` that call more than kMaxInlinedPrograms
/// block programs (counted once, before the attributes are set).
static DenseSet<const Function *> manyWayKernels(const Module &module) {
  DenseSet<const Function *> many;
  for (const Function &f : module) {
    unsigned programs = 0;
    for (const Instruction &i : instructions(f))
      if (const auto *cb = dyn_cast<CallBase>(&i))
        if (const Function *callee = cb->getCalledFunction())
          programs += callee->hasFnAttribute(kBlockProgramAttr);
    if (programs > kMaxInlinedPrograms)
      many.insert(&f);
  }
  return many;
}

/// Whether a caller of the block program `f` is in `many`.
static bool calledFrom(const Function &f,
                       const DenseSet<const Function *> &many) {
  return llvm::any_of(f.users(), [&](const User *u) {
    const auto *call = dyn_cast<CallBase>(u);
    return call && many.contains(call->getFunction());
  });
}

/// On AMDGPU (kernelsMayCall() false) nothing stays out of line: a call
/// there needs a stack in scratch memory and spills the registers the
/// callee may clobber, so every kernel inlines everything, however often.
static bool keepOutOfLine(const Function &f, const TargetInfo &target) {
  if (target.planTarget() == CCL_TARGET_HOST || !target.kernelsMayCall() ||
      !isBulkMover(f.getName()))
    return false;
  unsigned calls = 0;
  for (const User *u : f.users())
    calls += isa<CallBase>(u);
  return calls > kMaxInlinedBulkCalls;
}

/// Inlines every call of `kernel` to a function of the module, and the
/// calls those bring in, whatever the callees' attributes say: a kernel
/// marked kInlineAllAttr (an LL-packet algorithm's) gets the straight-line
/// code it would have in a library of its own.
static void inlineAllCalls(Function &kernel) {
  auto defined = [](CallBase *cb) {
    Function *callee = cb->getCalledFunction();
    return callee && !callee->isDeclaration() && !callee->isIntrinsic();
  };
  SmallVector<CallBase *> work;
  for (Instruction &i : instructions(kernel))
    if (auto *cb = dyn_cast<CallBase>(&i); cb && defined(cb))
      work.push_back(cb);
  while (!work.empty()) {
    CallBase *cb = work.pop_back_val();
    InlineFunctionInfo info;
    if (!InlineFunction(*cb, info).isSuccess())
      continue;
    for (CallBase *inlined : info.InlinedCallSites)
      if (defined(inlined))
        work.push_back(inlined);
  }
}

bool ccl::linkAndOptimize(Module &module, const TargetInfo &target,
                          std::string &error) {
  std::string diag;
  auto tm = makeMachine(target.triple(), target.cpu(), target.features(), diag);
  if (!tm) {
    error = "no LLVM backend for " + target.triple().str() + ": " + diag;
    return false;
  }
  module.setTargetTriple(Triple(target.triple()));
  module.setDataLayout(tm->createDataLayout());

  StringRef bc = target.deviceLibrary();
  auto lib = parseBitcodeFile(MemoryBufferRef(bc, "ccl_device"),
                              module.getContext());
  if (!lib) {
    error = "cannot read the device library for " + target.name().str() +
            ": " + toString(lib.takeError());
    return false;
  }
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*lib),
                          Linker::Flags::LinkOnlyNeeded)) {
    error = "linking the device library failed";
    return false;
  }

  const DenseSet<const Function *> many = manyWayKernels(module);
  // Clang's -ffreestanding marks the library "no-builtins", and its
  // functions carry target attributes the generated kernels lack; either
  // makes the inliner refuse. Give every function the same attributes, then
  // keep only the kernels external.
  for (Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.removeFnAttr("no-builtins");
    f.removeFnAttr(Attribute::NoInline);
    f.removeFnAttr(Attribute::OptimizeNone);
    f.addFnAttr("target-cpu", target.cpu());
    if (!target.features().empty())
      f.addFnAttr("target-features", target.features());
    else
      f.removeFnAttr("target-features");
    if (isKernel(f)) {
      f.setVisibility(target.planTarget() == CCL_TARGET_HOST
                          ? GlobalValue::HiddenVisibility
                          : GlobalValue::DefaultVisibility);
      continue;
    }
    f.setLinkage(GlobalValue::InternalLinkage);
    // On a target that outlines programs (the host) the block programs
    // stay out of line and LLVM's inliner decides for the rest, as for any
    // C code (the library's own helpers keep their always_inline).
    if (target.outlinesPrograms()) {
      if (f.hasFnAttribute(kBlockProgramAttr))
        f.addFnAttr(Attribute::NoInline);
      continue;
    }
    // On targets whose kernels may call, a block program that kernels of
    // several variants or kinds run stays one function, and so does every
    // program of a kernel that branches to more than kMaxInlinedPrograms
    // (an LL kernel's are inlined below, with everything else it calls).
    if (keepOutOfLine(f, target) ||
        (target.kernelsMayCall() &&
         (f.hasFnAttribute(kSharedProgramAttr) || calledFrom(f, many))))
      f.addFnAttr(Attribute::NoInline);
    else
      f.addFnAttr(Attribute::AlwaysInline);
  }
  for (GlobalVariable &g : module.globals())
    if (!g.isDeclaration())
      g.setLinkage(GlobalValue::InternalLinkage);
  for (Function &f : module)
    if (isKernel(f) && f.hasFnAttribute(kInlineAllAttr) &&
        target.planTarget() != CCL_TARGET_HOST)
      inlineAllCalls(f);

  if (verifyModule(module, &errs())) {
    error = "internal error: the linked kernel module is invalid";
    return false;
  }

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  // Every operation of a kernel inlines its primitive, so kernels are long
  // straight-line code. On the host target (a test target: one thread per
  // block) the loop vectorizer and unroller would multiply each inlined
  // loop into vector, alias-check and epilogue versions for little gain;
  // keep host code compact and quick to compile.
  PipelineTuningOptions pto;
  if (target.planTarget() == CCL_TARGET_HOST) {
    pto.LoopVectorization = false;
    pto.SLPVectorization = false;
    pto.LoopUnrolling = false;
  }
  PassBuilder pb(tm.get(), pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(module, mam);
  return true;
}

bool ccl::emitCode(Module &module, const TargetInfo &target, bool object,
                   std::string &out, std::string &error) {
  std::string diag;
  auto tm = makeMachine(target.triple(), target.cpu(), target.features(), diag,
                        target.codegenOptLevel());
  if (!tm) {
    error = "no LLVM backend for " + target.triple().str() + ": " + diag;
    return false;
  }
  SmallString<0> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              object ? CodeGenFileType::ObjectFile
                                     : CodeGenFileType::AssemblyFile)) {
    error = "the " + target.name().str() + " backend cannot emit this file type";
    return false;
  }
  pm.run(module);
  out = buffer.str().str();
  return true;
}

namespace {

/// Kernels that call a function the module defines: none may on targets
/// whose kernels must not call (everything was marked always_inline).
std::string kernelsWithCalls(Module &module) {
  std::string out;
  for (Function &f : module) {
    if (f.isDeclaration() || !isKernel(f))
      continue;
    for (Instruction &i : instructions(f))
      if (auto *call = dyn_cast<CallBase>(&i))
        if (Function *callee = call->getCalledFunction();
            !callee || !callee->isIntrinsic()) {
          out += (out.empty() ? "" : ", ") + f.getName().str() + " calls " +
                 (callee ? callee->getName().str() : "through a pointer");
          break;
        }
  }
  return out;
}

/// Checks the kernel descriptors (SYMBOL.kd, 64 bytes each, AMDGPUUsage
/// "Kernel Descriptor") of an AMDGPU object: no kernel may use scratch
/// (private) memory, neither a fixed amount (private_segment_fixed_size,
/// bytes 4..7: register spills, a stack) nor a dynamic one
/// (COMPUTE_PGM_RSRC2 bit 0, ENABLE_PRIVATE_SEGMENT, bytes 52..55).
/// Returns false with `error` naming the kernels that do.
bool checkNoScratch(StringRef object, const TargetInfo &target,
                    std::string &error) {
  auto obj = object::ObjectFile::createELFObjectFile(
      MemoryBufferRef(object, "ccl_kernels"));
  if (!obj) {
    error = "internal error: cannot read the " + target.name().str() +
            " object: " + toString(obj.takeError());
    return false;
  }
  std::string bad;
  unsigned kernels = 0;
  for (const object::SymbolRef &sym : (*obj)->symbols()) {
    Expected<StringRef> name = sym.getName();
    if (!name || !name->ends_with(".kd"))
      continue;
    Expected<object::section_iterator> sec = sym.getSection();
    Expected<uint64_t> addr = sym.getValue();
    if (!sec || *sec == (*obj)->section_end() || !addr)
      continue;
    Expected<StringRef> data = (*sec)->getContents();
    uint64_t off = *addr - (*sec)->getAddress();
    if (!data || off + 64 > data->size())
      continue;
    ++kernels;
    auto word = [&](unsigned at) {
      return support::endian::read32le(data->data() + off + at);
    };
    uint32_t fixed = word(4), rsrc2 = word(52);
    if (fixed != 0 || (rsrc2 & 1))
      bad += (bad.empty() ? "" : ", ") + name->drop_back(3).str() + " (" +
             std::to_string(fixed) + " bytes per work-item" +
             ((rsrc2 & 1) ? ", scratch enabled" : "") + ")";
  }
  if (kernels == 0) {
    error = "internal error: the " + target.name().str() +
            " object has no kernel descriptor";
    return false;
  }
  if (!bad.empty()) {
    error = "internal error: " + target.name().str() +
            " kernels use scratch (private) memory, which cclc's kernels "
            "must not (register spills or a stack): " +
            bad;
    return false;
  }
  return true;
}

/// The AMDGPU code object: the backend's relocatable object, checked,
/// linked into a shared object by ld.lld as clang does for amdhsa.
bool finishAMDGPU(Module &module, const TargetInfo &target,
                  const std::string &argv0, TargetArtifacts &art,
                  std::string &error) {
  std::string calls = kernelsWithCalls(module);
  if (!calls.empty()) {
    error = "internal error: " + target.name().str() +
            " kernels must not call functions: " + calls;
    return false;
  }
  std::string object;
  if (!emitCode(module, target, /*object=*/true, object, error))
    return false;
  if (!checkNoScratch(object, target, error))
    return false;
  std::string lld = findLinker(argv0, error);
  if (lld.empty())
    return false;
  std::string objPath;
  if (!writeTemp("cclc-" + target.name().str(), "o", object, objPath, error))
    return false;
  std::string hsaco = tempOutputPath("cclc", "hsaco");
  bool ok = runTool(lld, {"-shared", "--no-undefined", "-o", hsaco, objPath},
                    error);
  sys::fs::remove(objPath);
  if (!ok) {
    sys::fs::remove(hsaco);
    return false;
  }
  auto bin = MemoryBuffer::getFile(hsaco);
  sys::fs::remove(hsaco);
  if (!bin) {
    error = "ld.lld wrote no code object for " + target.name().str();
    return false;
  }
  art.hsaco = (*bin)->getBuffer().str();
  return true;
}

} // namespace

bool ccl::finishTarget(Module &module, const TargetInfo &target,
                       const std::string &argv0, TargetArtifacts &art,
                       std::string &error, TimeReport *report) {
  TimeReport none(false);
  TimeReport &times = report ? *report : none;
  const std::string name = target.name().str();
  times.begin("codegen " + name);
  if (target.planTarget() == CCL_TARGET_HOST)
    return emitCode(module, target, /*object=*/true, art.object, error);
  if (target.planTarget() == CCL_TARGET_AMDGPU)
    return finishAMDGPU(module, target, argv0, art, error);
  if (!emitCode(module, target, /*object=*/false, art.ptx, error))
    return false;
  times.begin("ptxas " + name);
  // cubin through ptxas when it is there; the PTX stays in the library for
  // the driver to JIT otherwise.
  const char *env = getenv("CCLC_PTXAS");
  if (env && StringRef(env) == "none")
    return true;
  std::string ptxas =
      findTool({env ? env : "", "/usr/local/cuda/bin/ptxas"}, "ptxas");
  if (ptxas.empty())
    return true;
  // ptxas in whole-program mode inlines every function into every kernel
  // that calls it, whatever the PTX keeps out of line: 12 kernels of the
  // wide tiled ring (one per element type and operator, 2..8 ranks) calling
  // the same 41 programs took 155 s. Compiled as relocatable code (-c) each
  // function is compiled once (3.4 s), and nvlink, beside ptxas in every
  // CUDA toolkit, links the kernels into the executable cubin the runtime
  // loads. Without an nvlink beside ptxas the cubin comes from ptxas alone.
  std::string nvlink = (sys::path::parent_path(ptxas) + "/nvlink").str();
  if (!sys::fs::can_execute(nvlink) || sys::fs::is_directory(nvlink))
    nvlink.clear();
  std::string ptxPath, objPath, cubinPath;
  if (!writeTemp("cclc", "ptx", art.ptx, ptxPath, error))
    return false;
  cubinPath = tempOutputPath("cclc", "cubin");
  std::string arch = "-arch=" + target.name().str();
  // Every block of a kernel must fit on an SM beside its peers' (they wait
  // on each other): at most the register file over the block's threads
  // (128 registers for 512 threads). Left to itself ptxas gave the wide
  // tiled ring's kernel 152 registers (230 for its relocatable programs),
  // and a kernel that no SM can hold does not launch.
  std::string regs = "-maxrregcount=" +
                     std::to_string(kRegistersPerSM / target.threadsPerBlock());
  bool ok;
  if (nvlink.empty()) {
    ok = runTool(ptxas, {arch, "-O3", regs, ptxPath, "-o", cubinPath}, error);
  } else {
    objPath = tempOutputPath("cclc", "o");
    ok = runTool(ptxas, {arch, "-O3", regs, "-c", ptxPath, "-o", objPath},
                 error);
    if (ok) {
      times.begin("nvlink " + name);
      ok = runTool(nvlink, {arch, objPath, "-o", cubinPath}, error);
    }
    sys::fs::remove(objPath);
  }
  sys::fs::remove(ptxPath);
  if (!ok) {
    sys::fs::remove(cubinPath);
    return false;
  }
  auto bin = MemoryBuffer::getFile(cubinPath);
  sys::fs::remove(cubinPath);
  if (!bin) {
    error = "ptxas wrote no cubin";
    return false;
  }
  art.cubin = (*bin)->getBuffer().str();
  return true;
}
