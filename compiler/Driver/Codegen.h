//===- Codegen.h - LLVM IR to device images and the .so ----------*- C++ -*-===//
#ifndef CCL_DRIVER_CODEGEN_H
#define CCL_DRIVER_CODEGEN_H

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/TimeReport.h"
#include "compiler/Target/TargetInfo.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccl {

class AlgorithmOp;

/// ccl_variant::root_plus_one of a scheduled algorithm variant: 1 + the
/// root of a Broadcast or Reduce as its `root =` argument evaluated at its
/// rank count (each variant has its own), 0 for the other collectives.
int64_t variantRootPlusOne(AlgorithmOp algo);

struct OpInfo {
  std::string kind, file;
  unsigned line = 0, col = 0;
  /// A wait's: 1 + the op id of the signal it waits for (ccl_op_info).
  unsigned awaits = 0, sourceSignals = 0;
};

struct VariantInfo {
  std::string symbol; ///< `<name>_n<N>`
  /// Prefix of its kernel names (kernelPrefixes): `<name>_nN` when one
  /// kernel serves all rank counts of the algorithm, else `symbol`;
  /// `groupKernel` on a target that shares a kernel only between rank
  /// counts of the same block programs (kernelOn).
  std::string kernel, groupKernel;
  int64_t nranks = 0, nblocks = 1;
  /// The variant's chunk count: its scratch slots hold ceil(count / chunks)
  /// elements each.
  int64_t chunks = 1;
  /// 1 + the root a rooted collective's variant was proved for (its
  /// `root =` argument at this rank count); 0 for the others
  /// (ccl_variant::root_plus_one).
  int64_t rootPlusOne = 0;
  std::vector<std::pair<std::string, int64_t>> scratch; ///< name, slots
  /// Channels, semaphores and multi-block barriers, indexed as the kernels
  /// index them (SyncLayout).
  SyncLayout sync;
  /// The prefix of its kernel names in the images of `target`.
  const std::string &kernelOn(const TargetInfo &target) const {
    return target.sharesKernelsAcrossRankCounts() ? kernel : groupKernel;
  }
};

struct AlgorithmInfo {
  std::string name, collective;
  bool inplace = false, ll = false;
  /// Out of place, and its code serves in-place calls too (`implements
  /// C(inplace, outofplace)`): the plan's inplace is CCL_INPLACE_BOTH.
  bool bothForms = false;
  int64_t chunks = 1;
  int64_t root = 0; ///< the collective's `root` parameter (0 without one)
  /// Largest message its plan supports (scratch is sized for it): the
  /// compile's --max-bytes, lowered to the largest max_bytes of the
  /// selection rows that name it when they all bound it.
  uint64_t maxBytes = 0;
  /// What it promises of its reduced results and the verifier proves
  /// (AlgorithmOp `bits`, with the collective's default): `any`,
  /// `rank_consistent` or `size_invariant`.
  std::string bits = "any";
  std::vector<VariantInfo> variants;
};

/// One row of a bundled library's selection table (`select` in .ccl).
struct SelectionRow {
  std::string collective, algorithm;
  int64_t minRanks = 1, maxRanks = -1; ///< -1: no bound
  int64_t maxBytes = -1;               ///< -1: no bound
  std::string where;                   ///< FILE:LINE:COL of the row
  /// A row of a `select C deterministic` table.
  bool deterministic = false;
};

/// What the .so's execution plans describe.
struct PlanInfo {
  std::string source;
  uint64_t maxBytes = 0;
  std::vector<std::string> dtypes, redops;
  std::vector<AlgorithmInfo> algorithms;
  std::vector<OpInfo> ops; ///< indexed by op_id
  /// Non-empty for a bundled library: its NCCL-shaped entry points choose
  /// by these rows.
  std::vector<SelectionRow> selection;
};

/// The selection rows of a module (its `cclc.selection` attribute).
std::vector<SelectionRow> selectionOf(mlir::ModuleOp module);

/// Per algorithm, the largest message its plan must support: `maxBytes`,
/// or less when every selection row that names it bounds it lower.
/// Recorded on the module as `cclc.max_bytes` (read by ccl-lower-to-llvm).
void setAlgorithmMaxBytes(mlir::ModuleOp module, uint64_t maxBytes);

/// What `algo` promises of its reduced results (AlgorithmInfo::bits).
std::string bitsOf(AlgorithmOp algo);

/// Prints the selection table as `cclc --print-selection` shows it.
void printSelection(const std::vector<SelectionRow> &rows,
                    const std::vector<AlgorithmInfo> &algorithms,
                    llvm::raw_ostream &os);

/// Compiled code for one target.
struct TargetArtifacts {
  std::string target;
  unsigned planTarget = 0;
  unsigned threadsPerBlock = 1;
  std::string object; ///< host: native object with the kernels
  std::string ptx;    ///< NVPTX: PTX text
  std::string cubin;  ///< NVPTX: cubin from ptxas, empty without ptxas
  std::string hsaco;  ///< AMDGPU: code object (ELF shared object) from ld.lld
  /// Variant symbol -> the kernel prefix the lowering's validation read its
  /// kernels under (kKernelPrefixesAttr); the plan check's kernel names.
  std::map<std::string, std::string> kernelPrefixes;
};

/// Links the target's device library into `module` (only what is needed),
/// makes the library's function attributes match the kernels', internalizes
/// everything but the kernels, and runs the O3 pipeline.
bool linkAndOptimize(llvm::Module &module, const TargetInfo &target,
                     std::string &error);

/// Emits assembly (PTX for NVPTX, AMDGCN for AMDGPU) or an object file.
bool emitCode(llvm::Module &module, const TargetInfo &target, bool object,
              std::string &out, std::string &error);

/// Produces the artifacts of one target from its optimized module: a host
/// object; PTX and, with ptxas, a cubin; an AMDGPU code object (the
/// backend's object linked by ld.lld), checked to have no call and no
/// scratch (private) memory in any kernel.
/// `argv0` finds the tools next to cclc (ld.lld). With `report`, code
/// generation and the external tools (ptxas, ld.lld) are its stages.
bool finishTarget(llvm::Module &module, const TargetInfo &target,
                  const std::string &argv0, TargetArtifacts &art,
                  std::string &error, TimeReport *report = nullptr);

/// Checks that every kernel the plans name is defined in each image of
/// `art` (ImageCheck.cpp); the error names the first that is not.
bool checkImagesHaveKernels(const PlanInfo &plan, const TargetArtifacts &art,
                            std::string &error);

/// The artifacts grouped by plan target (CCL_TARGET_*), each group in
/// --target order: one plan per algorithm and group (gfx942 and gfx90a
/// share one), named after the group's first target.
std::vector<std::vector<const TargetArtifacts *>>
planTargetGroups(llvm::ArrayRef<TargetArtifacts> artifacts);

/// CCL_COLL_* of a collective's name; CCL_COLL_COUNT for one the
/// NCCL-shaped entry points do not serve (a `collective` of the program).
unsigned collectiveCode(llvm::StringRef collective);

/// Reads the plans and the selection table back from `library` (the
/// linked .so's bytes, through its dynamic relocations and ccl/plan.h's
/// layout) and checks every field against the scheduled module
/// `scheduled` and the artifacts linked into it (PlanCheck.cpp). The error
/// is an internal compiler error naming the plan, variant and field.
bool checkLibraryPlans(llvm::StringRef library, mlir::ModuleOp scheduled,
                       const CompileOptions &options,
                       llvm::ArrayRef<TargetArtifacts> artifacts,
                       std::string &error);

/// Writes options.output (a .so) and a C header next to it, once the
/// linked library's plans pass checkLibraryPlans against `scheduled`.
bool writeSharedLibrary(const PlanInfo &plan,
                        const std::vector<TargetArtifacts> &artifacts,
                        mlir::ModuleOp scheduled, const CompileOptions &options,
                        std::string &error, TimeReport *report = nullptr);

} // namespace ccl

#endif // CCL_DRIVER_CODEGEN_H
