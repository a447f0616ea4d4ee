//===- KernelBuilder.h - kernel skeletons and their environment --*- C++ -*-===//
//
// The kernel builder of --ccl-lower-to-llvm. For one scheduled algorithm,
// element type and reduction operator it emits the kernel's skeleton
//
//   kernel(ctx, input, output, count [, block])
//     epoch = __ccl_begin(ctx)
//     switch (ctx->rank * nblocks + block)   // per-rank kernels: block
//       case r * nblocks + t: <copies of thread block t of rank r's ops>
//     __ccl_end(ctx, epoch)
//
// and records the kernel's environment: its arguments, element size and
// type, reduction operator and the algorithm's tables (where each scratch
// buffer, channel, semaphore and barrier sits in the plan). The patterns
// (Patterns.h) look the environment up for the kernel that holds the op
// they rewrite; nothing about the kernel travels in attributes.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_KERNELBUILDER_H
#define CCL_CONVERSION_CCLTOLLVM_KERNELBUILDER_H

#include <map>
#include <set>
#include <string>
#include "compiler/Target/TargetInfo.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <optional>
#include <string>

namespace ccl {

/// Facts of one algorithm that every kernel built from it shares: the
/// indices SyncLayout gives its channels, semaphores and multi-block
/// barriers, its scratch buffers in declaration order, its protocol.
struct AlgorithmTables {
  struct Scratch {
    int64_t index = 0, slots = 0;
  };
  struct Barrier {
    int64_t index = 0, nblocks = 0;
  };
  int64_t chunks = 1;
  bool ll = false;
  llvm::StringMap<Scratch> scratch;
  llvm::StringMap<int64_t> channels;
  /// The port channels (their proxy executes puts, signals and flushes).
  llvm::StringSet<> ports;
  llvm::StringMap<int64_t> semaphores;
  /// By SyncLayout::barrierKey.
  llvm::StringMap<Barrier> barriers;
  /// Scratch buffers a copy_packets reads: their put_packets fill whole
  /// slot ranges.
  llvm::StringSet<> padded;

  explicit AlgorithmTables(AlgorithmOp algo);
};

/// Everything a pattern needs to know about the kernel it is inside.
struct KernelEnv {
  std::shared_ptr<const AlgorithmTables> tables;
  /// The kernel's arguments and the epoch __ccl_begin returned.
  mlir::Value ctx, input, output, count, epoch;
  /// Bytes per element.
  int64_t esize = 0;
  /// The count scratch is laid out for (the largest message's).
  int64_t slotCount = 1;
  std::string dtype, redop;
  /// A type-generic block (lowered once for every element type and
  /// operator): its kind argument (dtype code * 4 + operator code), and
  /// the element size and layout count computed from it at the block's
  /// entry. Null otherwise (esize and slotCount hold the constants).
  mlir::Value kind, esizeValue, slotCountValue;
  /// Per ccl.wait: how many waits on its channel its block made before it
  /// in the call.
  llvm::DenseMap<mlir::Operation *, int64_t> waitOrdinals;

  int64_t channelIndex(llvm::StringRef name) const {
    return tables->channels.lookup(name);
  }
  bool isPort(llvm::StringRef name) const {
    return tables->ports.contains(name);
  }
  int64_t semaphoreIndex(llvm::StringRef name) const {
    return tables->semaphores.lookup(name);
  }
  bool isPadded(llvm::StringRef buffer) const {
    return tables->padded.contains(buffer);
  }
  /// The element size as an i32 or i64 value, and the layout count as an
  /// i64 value: constants, or the type-generic block's values.
  mlir::Value esize32(mlir::OpBuilder &b, mlir::Location loc) const;
  mlir::Value esize64(mlir::OpBuilder &b, mlir::Location loc) const;
  mlir::Value slotCount64(mlir::OpBuilder &b, mlir::Location loc) const;
  /// The device-library function `prefix`<f32|f16|bf16>_<op>, or of a
  /// type-generic block `prefix`any, whose first argument is the kind
  /// (callReduce adds it).
  std::string reduceName(llvm::StringRef prefix) const;
  /// The barrier over blocks `tbs` of `rank`; null if the algorithm has
  /// none.
  const AlgorithmTables::Barrier *barrier(int64_t rank,
                                          llvm::ArrayRef<int64_t> tbs) const;
};

/// The environments of the kernels of a module, by kernel.
class KernelEnvs {
public:
  /// The environment of the kernel that holds `op`; null outside a kernel.
  const KernelEnv *lookup(mlir::Operation *op) const;
  void add(mlir::LLVM::LLVMFuncOp kernel, KernelEnv env);

private:
  llvm::DenseMap<mlir::Operation *, KernelEnv> envs;
};

/// The kind a type-generic block program takes for an element type and
/// operator (ccl_device.h): the type's code * 4 + the operator's.
int32_t kindCode(llvm::StringRef dtype, llvm::StringRef redop);

/// The thread blocks of one kernel, each lowered into its own function
/// (ctx, input, output, count, epoch), before BlockSharing merges
/// the blocks of one shape and builds the kernel around them.
struct KernelSkeleton {
  /// The algorithm variants (rank counts) the kernel serves; their blocks'
  /// entries in the kernel's tables start at `base`.
  struct Variant {
    int64_t nranks = 1, nblocks = 1, base = 0;
  };
  std::string name;
  /// Set for a per-rank kernel (NAME_nK_rR): entries are its blocks.
  std::optional<int64_t> rank;
  /// More than one: the kernel picks its variant by the communicator's rank
  /// count (ctx->nranks).
  llvm::SmallVector<Variant> variants;
  /// Table entries: per variant nranks * nblocks (per-rank kernels:
  /// nblocks), rank * nblocks + tb within it.
  int64_t entries = 0;
  /// The algorithm moves LL packets: a small-message kernel, whose table
  /// reads are on the critical path of a call of a few microseconds (its
  /// tables go to the constant space first).
  bool packets = false;
  mlir::Location loc;
  /// (entry) -> the block's function.
  llvm::SmallVector<std::pair<int64_t, mlir::LLVM::LLVMFuncOp>> blocks;
  /// A type-generic skeleton (its block functions take the kind as a sixth
  /// argument): the kernels built from it, by name, each with its kind.
  /// Empty: one kernel, `name`.
  llvm::SmallVector<std::pair<std::string, int32_t>> kinds;

  explicit KernelSkeleton(mlir::Location loc) : loc(loc) {}
};

/// Builds the block functions of the kernels of `algos` at the end of
/// `b`'s block, per dtype and operator: one kernel for the variants of an
/// algorithm whose ranks share their block programs (BlockPrograms; of an
/// LL-packet algorithm, one per such variant), named after kernelPrefixes:
/// the variants `sharing` names (ranksShareKernel, decided before
/// splitSlotRanges); for every other variant one
/// kernel, on targets whose
/// kernels read the block index from a register one per rank (NAME_nK_rR).
/// With `typeGeneric`, each skeleton is built once, for every dtype and
/// operator (KernelSkeleton::kinds).
/// Records the block functions' environments and the kernels' skeletons.
void buildKernels(mlir::OpBuilder &b, llvm::ArrayRef<AlgorithmOp> algos,
                  const TargetInfo &target,
                  llvm::ArrayRef<std::string> dtypes,
                  llvm::ArrayRef<std::string> redops, uint64_t maxBytes,
                  bool perRankKernels, bool typeGeneric,
                  const std::map<std::string, std::string> &prefixes,
                  const std::set<std::string> &sharing,
                  KernelEnvs &envs,
                  llvm::SmallVectorImpl<KernelSkeleton> &skeletons);

/// Block sharing: groups the blocks of all kernels
/// whose functions are the same up to integer constants, emits one function
/// per group that reads the constants that differ from a table row, and
/// builds the kernel
///
///   kernel(ctx, input, output, count [, block])
///     epoch = __ccl_begin(ctx)
///     sel = base[ctx->nranks] + ctx->rank * nblocks[ctx->nranks] + block
///                                                // per-rank kernels: block
///     switch (programs[sel])
///       case p: program_p(ctx, input, output, count, epoch, &params[offsets[sel]])
///     __ccl_end(ctx, epoch)
///
/// Done in two steps: `add(k)` once kernel k's block functions are lowered
/// (each block joins the group of its shape; the functions of all but the
/// first block of a shape are erased there), `finish` once all are. The
/// block functions are all gone after it (ShareBlocks.cpp).
class BlockSharing {
public:
  /// `skeletons` must outlive this.
  explicit BlockSharing(llvm::ArrayRef<KernelSkeleton> skeletons);
  ~BlockSharing();
  BlockSharing(const BlockSharing &) = delete;
  BlockSharing &operator=(const BlockSharing &) = delete;

  void add(size_t kernel);
  void finish(mlir::OpBuilder &b, mlir::ModuleOp module,
              const TargetInfo &target);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_KERNELBUILDER_H
