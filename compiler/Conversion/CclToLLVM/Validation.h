//===- Validation.h - translation validation of ccl-lower-to-llvm -*- C++ -*-===//
//
// The verifier proves the kernel-level schedule; this checks that the LLVM
// dialect module --ccl-lower-to-llvm wrote runs exactly that schedule
// (docs/semantics.md, "What is proved, what is validated, what is
// trusted"). For every algorithm variant, element type and operator, rank
// and thread block it reads what the module holds, never the tables the
// code generator built it from:
//
//   1. the kernel the plan names for the rank (`<kernel>_r<rank>`, else
//      `<kernel>`, the runtime's lookup), and its dispatch evaluated for
//      that rank, rank count and block (the rank-count selects, the
//      programs and offsets tables, the switch) down to the block program
//      it calls and the row it passes;
//   2. that program with the row's values put back in place of its table
//      loads, read as a stream of library calls whose operands are terms
//      over the kernel's arguments; it must equal the stream of the
//      block's own function before blocks were merged (sharing, tables and
//      dispatch are then exact);
//   3. the operands of that stream against the verified operations of the
//      block: every chunk and scratch-slot pointer and element count
//      (buffer, rank, chunk, chunk count, scratch index, slots, layout,
//      protocol), every signal, wait, port request, semaphore and barrier
//      in order (channel, wait ordinal, semaphore and barrier indices,
//      barrier size, op id) and the waits committed per channel, the
//      reduction's element type and operator.
//
// A difference is an internal compiler error naming the algorithm, rank
// count, rank, thread block and operation; no library is written.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_VALIDATION_H
#define CCL_CONVERSION_CCLTOLLVM_VALIDATION_H

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccl {

struct KernelSkeleton;

/// The test-only corruptions of --ccl-lower-to-llvm's `test-corrupt`
/// option: each damages one table or operand kind, so that a lit test can
/// show the validation reports it.
enum class Corruption {
  None,
  RowEntry,        ///< a value of a block program's table row
  ProgramIndex,    ///< a kernel's programs-table entry
  RankCountSelect, ///< the rank counts of a kernel serving several
  KernelName,      ///< the name of a kernel a plan names
  ChunkIndex,      ///< the chunk index of a chunk pointer
  ScratchSlots,    ///< the slot count of a scratch pointer
  ChannelIndex,    ///< the channel of a signal
  WaitOrdinal,     ///< the ordinal of a wait
  Kind,            ///< the kind the last type-generic kernel passes
  KindRow,         ///< the row the last type-generic kernel passes
};

/// Parses `test-corrupt`'s value; false for an unknown name.
bool parseCorruption(llvm::StringRef name, Corruption &out);

class LoweringValidator {
public:
  struct Options {
    std::vector<std::string> dtypes, redops;
    bool perRankKernels = false, typeGeneric = false;
    /// Each variant's kernel prefix (kernelPrefixes), by its symbol.
    std::map<std::string, std::string> prefixes;
    uint64_t maxBytes = 0;
  };

  /// Captures what each thread block of `algos` must do, from the
  /// scheduled (verified) operations, before anything is lowered.
  LoweringValidator(llvm::ArrayRef<AlgorithmOp> algos, Options options);
  ~LoweringValidator();

  /// Room for the blocks of all of `skeletons`, once, before the first
  /// recordBlocks.
  void reserveBlocks(llvm::ArrayRef<KernelSkeleton> skeletons);
  /// After the patterns, before blocks are merged: reads every block
  /// function of `skeletons` (some of the kernels: called once per kernel
  /// as each is lowered) as its stream of calls.
  void recordBlocks(llvm::ArrayRef<KernelSkeleton> skeletons);

  /// After BlockSharing::finish: checks every (variant, type, operator, rank,
  /// block); emits an internal compiler error and fails on a difference.
  mlir::LogicalResult validate(mlir::ModuleOp module);

  /// Applies a test-only corruption at the stage it belongs to: `Patterns`
  /// (block functions, before recordBlocks), `Skeletons` (before sharing)
  /// or `Module` (after sharing); true if it changed something.
  enum class Stage { Patterns, Skeletons, Module };
  static bool corrupt(Corruption c, Stage stage, mlir::ModuleOp module,
                      llvm::MutableArrayRef<KernelSkeleton> skeletons);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_VALIDATION_H
