//===- Driver.h - the cclc compilation pipeline as a library -----*- C++ -*-===//
//
// cclc and ccl-opt are thin: the pipeline (buildCclPipeline) and the whole
// compilation from source to a shared library (compileSource) live here.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_DRIVER_DRIVER_H
#define CCL_DRIVER_DRIVER_H

#include "ccl/types.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ccl {

/// How far cclc goes, in pipeline order.
/// How far cclc goes, in pipeline order. `Sched` prints the schedule as a
/// readable table, `Kernel` the same stage as kernel-level MLIR.
enum class EmitLevel { AST, CCL, Sched, Kernel, LLVM, Asm, SO };

struct CompileOptions {
  std::vector<std::string> targets{"host"};
  std::vector<int64_t> nranks{2, 3, 4, 5, 6, 7, 8};
  std::vector<std::string> dtypes{std::begin(kDTypeNames),
                                  std::end(kDTypeNames)};
  std::vector<std::string> redops{"sum"};
  llvm::StringMap<int64_t> defines;
  /// Directories searched by `import` after the importing file's own.
  std::vector<std::string> includeDirs;
  EmitLevel emit = EmitLevel::SO;
  /// Print the selection table (after the frontend) instead of compiling.
  bool printSelection = false;
  bool verify = true;
  /// Channel kind for chunk-level transfers of Simple algorithms.
  std::string channel = "memory";
  /// Protection of the compiler's transfer slots across calls: "ack", or
  /// "none" (testing the verifier and the run-time checks only).
  std::string crossCall = "ack";
  /// "shared": one kernel for all ranks and rank counts whose blocks share
  /// their programs; "per-rank": one kernel per variant (per rank on GPUs),
  /// every block's constants its own, for the lowest latency.
  std::string kernels = "shared";
  /// Copies of each algorithm laid side by side (ccl-replicate).
  int64_t instances = 1;
  /// Tiles per chunk, pipelined on the same thread blocks (ccl-replicate
  /// with share-blocks).
  int64_t tiles = 1;
  /// Largest message, in input bytes per rank, the plans support (scratch
  /// is sized for it).
  uint64_t maxBytes = uint64_t(1) << 20;
  /// Output path (`-` = stdout for the text levels).
  std::string output;
  /// libcclrt.so to link against; empty = search next to the executable.
  std::string runtimeLib;
  /// Path of the running executable (to find libcclrt.so and ld.lld).
  std::string argv0;
};

/// Adds the passes that take a global-level module to the level `emit`
/// needs: ccl-verify (unless disabled), ccl-lower-chunks, ccl-replicate,
/// ccl-schedule, ccl-lower-to-llvm.
void buildCclPipeline(mlir::PassManager &pm, const CompileOptions &options,
                      llvm::StringRef target = "host");

/// Registers the dialects and translations cclc needs.
void registerCclDialects(mlir::DialectRegistry &registry);

/// Compiles one .ccl buffer. Text levels are written to `os`; the `so`
/// level writes options.output (and a header next to it). Diagnostics go
/// through `ctx`'s diagnostic engine. Returns false on error.
bool compileSource(mlir::MLIRContext &ctx, const llvm::MemoryBuffer &source,
                   const CompileOptions &options, llvm::raw_ostream &os);

/// Parses a LIST argument: comma-separated values and ranges ("2..8").
bool parseIntList(llvm::StringRef text, std::vector<int64_t> &out,
                  std::string &error);

} // namespace ccl

#endif // CCL_DRIVER_DRIVER_H
