//===- TargetInfo.cpp - NVPTX and host targets -----------------------------===//

#include "compiler/Target/TargetInfo.h"

#include "ccl/plan.h"

using namespace mlir;
using namespace ccl;

// Device library bitcode, embedded at build time (see compiler/Target/BUILD).
extern "C" const unsigned char ccl_device_bitcode_host[];
extern "C" const unsigned long ccl_device_bitcode_host_size;
extern "C" const unsigned char ccl_device_bitcode_nvptx[];
extern "C" const unsigned long ccl_device_bitcode_nvptx_size;

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
  unsigned tableAddressSpace() const override { return 0; }
  unsigned constantAddressSpace() const override { return 0; }
  Value emitBlockId(OpBuilder &, Location) const override { return nullptr; }
  void markKernel(LLVM::LLVMFuncOp) const override {}
  StringRef deviceLibrary() const override {
    return StringRef(reinterpret_cast<const char *>(ccl_device_bitcode_host),
                     ccl_device_bitcode_host_size);
  }
};

class NVPTXTarget : public TargetInfo {
public:
  explicit NVPTXTarget(std::string arch) : arch(std::move(arch)) {}
  StringRef name() const override { return arch; }
  unsigned planTarget() const override { return CCL_TARGET_NVPTX; }
  StringRef triple() const override { return "nvptx64-nvidia-cuda"; }
  StringRef cpu() const override { return arch; }
  StringRef features() const override { return "+ptx80"; }
  unsigned threadsPerBlock() const override { return 512; }
  bool blockIdIsParameter() const override { return false; }
  unsigned tableAddressSpace() const override { return 1; }    // global
  unsigned constantAddressSpace() const override { return 4; } // constant
  Value emitBlockId(OpBuilder &b, Location loc) const override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getI32Type(),
               b.getStringAttr("llvm.nvvm.read.ptx.sreg.ctaid.x"), ValueRange{})
        .getResult(0);
  }
  void markKernel(LLVM::LLVMFuncOp func) const override {
    func.setCConv(LLVM::CConv::PTX_Kernel);
  }
  StringRef deviceLibrary() const override {
    return StringRef(reinterpret_cast<const char *>(ccl_device_bitcode_nvptx),
                     ccl_device_bitcode_nvptx_size);
  }

private:
  std::string arch;
};

} // namespace

std::unique_ptr<TargetInfo> ccl::createTargetInfo(StringRef name) {
  if (name == "host")
    return std::make_unique<HostTarget>();
  if (name == "sm_90")
    return std::make_unique<NVPTXTarget>(name.str());
  return nullptr;
}
