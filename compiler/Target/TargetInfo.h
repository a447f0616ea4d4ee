//===- TargetInfo.h - what differs between code generation targets -*- C++ -*-===//
//
// The NVPTX, AMDGPU and host targets differ in a few places only: the
// kernel calling convention, how a kernel learns its thread-block index,
// the triple/CPU/features for LLVM, the device library bitcode and the
// image format. Everything else in lowering and code generation is shared.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TARGET_TARGETINFO_H
#define CCL_TARGET_TARGETINFO_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CodeGen.h"

#include <memory>

namespace ccl {

class TargetInfo {
public:
  virtual ~TargetInfo() = default;
  /// Name on the cclc command line ("host", "sm_90", "gfx942", "gfx90a").
  virtual llvm::StringRef name() const = 0;
  /// CCL_TARGET_* of ccl/plan.h.
  virtual unsigned planTarget() const = 0;
  virtual llvm::StringRef triple() const = 0;
  virtual llvm::StringRef cpu() const = 0;
  virtual llvm::StringRef features() const = 0;
  /// Threads per block the kernels are launched with.
  virtual unsigned threadsPerBlock() const = 0;
  /// True when the kernel receives its block index as a trailing i32
  /// parameter (host); otherwise it reads it from a register.
  virtual bool blockIdIsParameter() const = 0;
  /// Reads the block index inside `func` (non-parameter targets).
  virtual mlir::Value emitBlockId(mlir::OpBuilder &b, mlir::Location loc) const = 0;
  /// Address space of the read-only tables kernels index (the parameters
  /// of shared block programs): global memory on GPUs.
  virtual unsigned tableAddressSpace() const = 0;
  /// Address space of such tables when they are small: the constant space
  /// on GPUs (cached for values every thread of a block reads).
  virtual unsigned constantAddressSpace() const = 0;
  /// Marks `func` as a kernel entry point (calling convention, and the
  /// attributes the backend needs: on AMDGPU the work-group size it is
  /// launched with).
  virtual void markKernel(mlir::LLVM::LLVMFuncOp func) const = 0;
  /// Whether kernels may call out-of-line functions (shared block programs,
  /// bulk movers called from many places). False on AMDGPU, where a call
  /// needs a stack in scratch (private) memory and spills registers around
  /// it: everything is inlined into the kernels there.
  virtual bool kernelsMayCall() const { return true; }
  /// Whether the variants (rank counts) of an algorithm whose ranks share
  /// their block programs share one kernel, NAME_nN, that picks its
  /// variant by the communicator's rank count, whatever their programs
  /// (otherwise only rank counts that run the same block programs share a
  /// kernel: kernelPrefixes). False on AMDGPU: with every block program
  /// inlined there (kernelsMayCall), a kernel for rank counts of different
  /// programs is one function holding all of them, and the backend's
  /// memory-clause pass takes time quadratic in a function's length (the
  /// wide tiled ring at 2..8 ranks for gfx942: 33 s in one kernel, 17 s in
  /// a kernel per rank count).
  virtual bool sharesKernelsAcrossRankCounts() const { return true; }
  /// Whether block programs stay out of line and LLVM's inliner decides
  /// for the device library's functions (rather than every call inlined),
  /// for compile time and code size over the last call's cost: the host
  /// target, whose kernels run one block per call (a call costs nothing
  /// next to a block's synchronisation) and whose kernels would otherwise
  /// be one function holding every block program, each packet wait
  /// inlined at every call site, which LLVM's optimiser and code generator
  /// take time to compile more than linear in its length (the wide tiled
  /// ring at 2..8 ranks: one function of 140k lines of IR; the two-phase
  /// LL all-pairs at 8 ranks: programs of 25k lines).
  virtual bool outlinesPrograms() const { return false; }
  /// Whether cclc lowers each algorithm once for every element type and
  /// operator (ccl-lower-to-llvm's type-generic), so that the compile's
  /// work no longer grows with the types and operators (12 pairs took 12
  /// times the lowering, optimisation and code generation): the host and
  /// NVPTX. A program then reads its element size at run time and switches
  /// on the kind at each reduction, which costs nothing next to moving a
  /// chunk; an LL kernel inlines its programs with its own kind, which
  /// folds them back to the specialised code. Per-rank kernels on GPUs
  /// (--kernels=per-rank) stay specialised. AMDGPU inlines every program
  /// into every kernel, so lowering once would save nothing there.
  virtual bool typeGenericKernels() const { return false; }
  /// Optimisation level of the backend (the IR is optimised at O3 on every
  /// target).
  virtual llvm::CodeGenOptLevel codegenOptLevel() const {
    return llvm::CodeGenOptLevel::Aggressive;
  }
  /// The device primitive library compiled for this target (LLVM bitcode).
  virtual llvm::StringRef deviceLibrary() const = 0;
};

/// The names createTargetInfo accepts, in the order cclc lists them.
llvm::ArrayRef<llvm::StringRef> targetNames();

/// Returns the target named `name`, or null.
std::unique_ptr<TargetInfo> createTargetInfo(llvm::StringRef name);

} // namespace ccl

#endif // CCL_TARGET_TARGETINFO_H
