//===- TargetInfo.cpp - NVPTX, AMDGPU and host targets --------------------===//

#include "compiler/Target/TargetInfo.h"

#include "ccl/plan.h"

using namespace mlir;
using namespace ccl;

// Device library bitcode, embedded at build time (see compiler/Target/BUILD).
extern "C" const unsigned char ccl_device_bitcode_host[];
extern "C" const unsigned long ccl_device_bitcode_host_size;
extern "C" const unsigned char ccl_device_bitcode_nvptx[];
extern "C" const unsigned long ccl_device_bitcode_nvptx_size;
extern "C" const unsigned char ccl_device_bitcode_amdgcn_gfx942[];
extern "C" const unsigned long ccl_device_bitcode_amdgcn_gfx942_size;
extern "C" const unsigned char ccl_device_bitcode_amdgcn_gfx90a[];
extern "C" const unsigned long ccl_device_bitcode_amdgcn_gfx90a_size;

namespace {

class HostTarget : public TargetInfo {
public:
  StringRef name() const override { return "host"; }
  unsigned planTarget() const override { return CCL_TARGET_HOST; }
  StringRef triple() const override { return "x86_64-unknown-linux-gnu"; }
  StringRef cpu() const override { return "x86-64"; }
  StringRef features() const override { return ""; }
  unsigned threadsPerBlock() const override { return 1; }
  bool blockIdIsParameter() const override { return true; }
  bool outlinesPrograms() const override { return true; }
  bool typeGenericKernels() const override { return true; }
  unsigned tableAddressSpace() const override { return 0; }
  unsigned constantAddressSpace() const override { return 0; }
  Value emitBlockId(OpBuilder &, Location) const override { return nullptr; }
  void markKernel(LLVM::LLVMFuncOp) const override {}
  StringRef deviceLibrary() const override {
    return StringRef(reinterpret_cast<const char *>(ccl_device_bitcode_host),
                     ccl_device_bitcode_host_size);
  }
};

/// What the GPU targets share: the architecture names the target and is
/// the CPU, the block index comes from an intrinsic, and the tables live in
/// the global (1) and constant (4) address spaces, the same numbers in
/// LLVM's NVPTX and AMDGPU backends.
class GpuTarget : public TargetInfo {
public:
  explicit GpuTarget(std::string arch) : arch(std::move(arch)) {}
  StringRef name() const override { return arch; }
  StringRef cpu() const override { return arch; }
  bool blockIdIsParameter() const override { return false; }
  unsigned tableAddressSpace() const override { return 1; }    // global
  unsigned constantAddressSpace() const override { return 4; } // constant
  Value emitBlockId(OpBuilder &b, Location loc) const override {
    return LLVM::CallIntrinsicOp::create(b, loc, b.getI32Type(),
                                         b.getStringAttr(blockIdIntrinsic()),
                                         ValueRange{})
        .getResult(0);
  }

protected:
  /// The intrinsic that reads the block index (i32, no operands).
  virtual StringRef blockIdIntrinsic() const = 0;
  std::string arch;
};

class NVPTXTarget : public GpuTarget {
public:
  using GpuTarget::GpuTarget;
  unsigned planTarget() const override { return CCL_TARGET_NVPTX; }
  StringRef triple() const override { return "nvptx64-nvidia-cuda"; }
  StringRef features() const override { return "+ptx80"; }
  unsigned threadsPerBlock() const override { return 512; }
  StringRef blockIdIntrinsic() const override {
    return "llvm.nvvm.read.ptx.sreg.ctaid.x";
  }
  void markKernel(LLVM::LLVMFuncOp func) const override {
    func.setCConv(LLVM::CConv::PTX_Kernel);
  }
  bool typeGenericKernels() const override { return true; }
  StringRef deviceLibrary() const override {
    return StringRef(reinterpret_cast<const char *>(ccl_device_bitcode_nvptx),
                     ccl_device_bitcode_nvptx_size);
  }
};

/// AMD Instinct GPUs through LLVM's AMDGPU backend (HSA code objects):
/// gfx942 (MI300) and gfx90a (MI200). Both are GFX9, whose waves are
/// always 64 lanes wide; "+wavefrontsize64" says so explicitly, so the IR
/// does not depend on the default of a later LLVM.
///
/// 256 threads per block: four waves of 64, one per SIMD of a compute unit
/// (the block size RCCL's kernels use on these GPUs). The kernels are
/// marked with exactly that work-group size (reqd_work_group_size and
/// "amdgpu-flat-work-group-size"="256,256"): the backend then folds the
/// device library's reads of the work-group size to the constant, and the
/// kernels need no implicit (hidden) arguments. The runtime launches every
/// kernel with the plan's threads_per_block, which is this value.
class AMDGPUTarget : public GpuTarget {
public:
  static constexpr unsigned kThreads = 256;
  using GpuTarget::GpuTarget;
  unsigned planTarget() const override { return CCL_TARGET_AMDGPU; }
  StringRef triple() const override { return "amdgcn-amd-amdhsa"; }
  StringRef features() const override { return "+wavefrontsize64"; }
  unsigned threadsPerBlock() const override { return kThreads; }
  StringRef blockIdIntrinsic() const override {
    return "llvm.amdgcn.workgroup.id.x";
  }
  void markKernel(LLVM::LLVMFuncOp func) const override {
    func.setCConv(LLVM::CConv::AMDGPU_KERNEL);
    Builder b(func.getContext());
    func.setReqdWorkGroupSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(kThreads), 1, 1}));
    std::string size = std::to_string(kThreads);
    auto pair = [&](StringRef key, StringRef value) -> Attribute {
      return b.getArrayAttr({b.getStringAttr(key), b.getStringAttr(value)});
    };
    func.setPassthroughAttr(
        b.getArrayAttr({pair("amdgpu-flat-work-group-size", size + "," + size),
                        pair("uniform-work-group-size", "true")}));
  }
  bool kernelsMayCall() const override { return false; }
  bool sharesKernelsAcrossRankCounts() const override { return false; }
  /// The backend at O1 ("Less"): from O2 on it runs SIFormMemoryClauses,
  /// which (with XNACK possible, as for a code object for any XNACK mode)
  /// recomputes register liveness from scratch at every clause candidate,
  /// quadratic in the length of a block. cclc's kernels are long
  /// straight-line code with everything inlined: the reduce-scatter ring
  /// with overlap at 2..8 ranks took 114 s in llc -O3, 94 s of them in
  /// that pass, and 18 s at -O1 (2.7% more instructions). The pass is
  /// only a scheduling aid; the hazard recognizer keeps clauses correct
  /// without it. The IR is still optimised at O3.
  llvm::CodeGenOptLevel codegenOptLevel() const override {
    return llvm::CodeGenOptLevel::Less;
  }
  StringRef deviceLibrary() const override {
    if (arch == "gfx90a")
      return StringRef(
          reinterpret_cast<const char *>(ccl_device_bitcode_amdgcn_gfx90a),
          ccl_device_bitcode_amdgcn_gfx90a_size);
    return StringRef(
        reinterpret_cast<const char *>(ccl_device_bitcode_amdgcn_gfx942),
        ccl_device_bitcode_amdgcn_gfx942_size);
  }
};

} // namespace

ArrayRef<StringRef> ccl::targetNames() {
  static const StringRef names[] = {"host", "sm_90", "gfx942", "gfx90a"};
  return names;
}

std::unique_ptr<TargetInfo> ccl::createTargetInfo(StringRef name) {
  if (name == "host")
    return std::make_unique<HostTarget>();
  if (name == "sm_90")
    return std::make_unique<NVPTXTarget>(name.str());
  if (name == "gfx942" || name == "gfx90a")
    return std::make_unique<AMDGPUTarget>(name.str());
  return nullptr;
}
