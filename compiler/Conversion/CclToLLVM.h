//===- CclToLLVM.h - kernel-level ccl to the LLVM dialect --------*- C++ -*-===//
//
// What the lowering of kernel-level ccl shares with the rest of the
// compiler: the numbering of an algorithm's synchronisation objects (which
// the plan repeats), the kernels' names and the element types. The pass is
// declared in compiler/Conversion/Passes.td; its pieces live in
// compiler/Conversion/CclToLLVM/.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_H
#define CCL_CONVERSION_CCLTOLLVM_H

#include "compiler/Target/TargetInfo.h"

#include "ccl/Dialect/CclDialect.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ccl {

/// The synchronisation objects of one algorithm variant, in the order the
/// plan lists them (ccl_variant::channels, ::semaphores, ::barriers) and
/// the kernels index them (ccl_dev_ctx::signal, ::consumed, ::sem,
/// ::barrier). Shared by the lowering and the plan emission so that both
/// agree on every index.
struct SyncLayout {
  struct Channel {
    std::string name;
    int64_t src = 0, dst = 0;
    bool port = false;
    int64_t credit = 0; ///< signals before the first call
  };
  struct Semaphore {
    std::string name;
    int64_t rank = 0;
  };
  /// One counter per (rank, set of thread blocks): every ccl.tb_barrier
  /// over the same blocks of a rank uses it, phase after phase.
  struct Barrier {
    int64_t rank = 0;
    std::vector<int64_t> tbs;
  };
  std::vector<Channel> channels;
  std::vector<Semaphore> semaphores;
  std::vector<Barrier> barriers;

  static SyncLayout of(AlgorithmOp algo);
  /// Key of the barrier over blocks `tbs` of `rank` ("R:T0,T1,...").
  static std::string barrierKey(int64_t rank, llvm::ArrayRef<int64_t> tbs);
};

/// Thread blocks grouped by shape (BlockPrograms.cpp): blocks whose
/// operations are the same kinds with the same attributes in the same order,
/// up to integers (ranks, chunk and slot indices, op ids) and the names of
/// channels and semaphores, run one code path that reads the integers from
/// a table. Instances and tiles of a block always share one; so do the
/// ranks of a symmetric algorithm.
struct BlockPrograms {
  int64_t nranks = 0, nblocks = 1;
  /// rank * nblocks + tb -> program, -1 where the rank has no such block.
  std::vector<int32_t> programOf;
  /// Distinct programs.
  int64_t count = 0;
  /// The ranks share their programs (in whatever order their blocks run
  /// them): all ranks together have at most twice as many programs as the
  /// rank with the most. Then one kernel serves every rank; otherwise GPU
  /// targets get one kernel per rank.
  bool rankParametric = true;

  static BlockPrograms of(AlgorithmOp algo);
};

/// The distinct block programs of a variant (BlockPrograms' shapes) and
/// their operations together: what a kernel holding them inlines.
struct ProgramSet {
  std::set<std::vector<uintptr_t>> shapes;
  int64_t ops = 0;
  static ProgramSet of(AlgorithmOp algo);
};

/// Function attribute (LLVM "passthrough") of a block program that blocks
/// of several kernels run (kernels of other rank counts, or of other element
/// types and operators where a block only moves bytes, its element size
/// then read from the table); the code generator keeps such a program out
/// of line rather than inlining a copy into every kernel.
inline constexpr const char *kSharedProgramAttr = "ccl-shared-program";

/// Function attribute (LLVM "passthrough") of every block program (the
/// functions a kernel's switch calls): targets whose TargetInfo says
/// outlinesPrograms() keep them out of line.
inline constexpr const char *kBlockProgramAttr = "ccl-block-program";

/// Function attribute (LLVM "passthrough") of a kernel of an LL-packet
/// algorithm, whose time is latency: the code generator inlines every call
/// in it, its block programs and the device library's movers, even those
/// other kernels keep out of line. In the stdlib bundle on 2 x H200 that
/// took 0.15 us off the LL all-pairs AllReduce at 1 KiB and 1 us at 1 MiB
/// (docs/perf.md, "LL kernels with code of their own, 2026-11-27e").
inline constexpr const char *kInlineAllAttr = "ccl-inline-all";

/// Replaces every operation of `algo` that moves several chunks from or
/// into a scratch buffer by one operation per chunk (SlotRanges.cpp).
void splitSlotRanges(AlgorithmOp algo);

/// How many operations splitSlotRanges makes of `op`: its chunk count
/// when it moves a range of several scratch slots (all its references of
/// one count), else 1.
int64_t slotRangePieces(mlir::Operation *op);

/// The prefix of the kernel names (kernelName) of each variant of `algos`,
/// by its symbol: `<name>_nN` when its ranks share their block programs
/// (one kernel then serves all rank counts of the algorithm that do),
/// otherwise its own symbol `<name>_n<N>` (on GPU targets with `_r<R>`
/// appended per rank); always the latter with `perRankKernels` (cclc
/// --kernels=per-rank). An LL-packet algorithm whose ranks share their
/// programs gets `<name>_n<N>` too, one kernel for all ranks of that rank
/// count. Without `acrossRankCounts` (a target that does not share kernels
/// across rank counts of different programs,
/// TargetInfo::sharesKernelsAcrossRankCounts), when the rank counts' programs
/// have more than 200 operations in all, only rank counts of the same
/// programs share a kernel, `<name>_n<M>` after the smallest of them (or
/// `<name>_nN` when they all do). Decided on the operations as verified
/// (before splitSlotRanges): the plan, the validation and the kernels call
/// it there.
std::map<std::string, std::string>
kernelPrefixes(llvm::ArrayRef<AlgorithmOp> algos, bool perRankKernels,
               bool acrossRankCounts);

/// The module attribute ccl-lower-to-llvm leaves on the lowered module: a
/// dictionary of each variant's symbol to the kernel prefix its kernels were
/// validated under (kernelPrefixes as the pass computed it). The driver
/// moves it into the target's artifacts; the plan check reads the plans'
/// kernel names against it.
inline constexpr llvm::StringLiteral kKernelPrefixesAttr =
    "cclc.kernel_prefixes";

/// Whether the ranks of variant `algo` share one kernel (its block programs
/// are rank-parametric, BlockPrograms, and not `perRankKernels`) rather
/// than each rank having its own on GPU targets. Decided on the operations
/// as verified, before splitSlotRanges (whose pieces change the programs'
/// shapes, and so the count that decides it): kernelPrefixes and
/// buildKernels take this one answer, so the kernels built are the ones
/// the plan and the validation name.
bool ranksShareKernel(AlgorithmOp algo, bool perRankKernels);

/// Bytes per element of `dtype` ("float32", ...), 0 if unknown.
int dtypeSize(llvm::StringRef dtype);
/// "f32", "f16", "bf16".
llvm::StringRef dtypeSuffix(llvm::StringRef dtype);
/// Name of the kernel for an algorithm symbol (`<name>_n<N>`), dtype and op.
std::string kernelName(llvm::StringRef algoSymbol, llvm::StringRef dtype,
                       llvm::StringRef redop);

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_H
