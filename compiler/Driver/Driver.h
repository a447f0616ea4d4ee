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

/// How far cclc goes, in pipeline order. `Sched` prints the schedule as a
/// readable table, `Kernel` the same stage as kernel-level MLIR. `Obj` is
/// one target's device image as the library would embed it (an AMDGPU code
/// object, an NVPTX cubin) or its host object.
enum class EmitLevel { AST, CCL, Sched, Kernel, LLVM, Asm, Obj, SO };

/// Limits of the options that multiply cclc's work; docs/compiler.md
/// ("Limits") has the measurements behind them.
///
/// The most ranks cclc compiles for (`--nranks`): verification time and
/// memory grow as about N^4 (the verifier's vector clocks). At 64 ranks a
/// stdlib algorithm takes from seconds to minutes and up to a few GB; the
/// ring and the all-pairs AllReduce took 6 and 10 GB at 128.
constexpr int64_t kMaxNranks = 64;
/// The most copies of each algorithm (`--instances`): each takes at least
/// one thread block of each rank, and a rank has at most 132 (ccl-verify's
/// max-blocks-per-rank).
constexpr int64_t kMaxInstances = 128;
/// The most tiles per chunk (`--tiles`): ccl::kMaxTiles (CclDialect.h), a
/// bound of the program's `tiles(k)` clause and the option together.

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
  /// Print each stage's time and the peak memory after it (TimeReport.h)
  /// on standard error.
  bool timeReport = false;
  /// Test only: ccl-lower-to-llvm's test-corrupt (Validation.h), or
  /// `image-kernel`: a kernel renamed in the optimised LLVM module, which
  /// the check of the images (ImageCheck.cpp) must report; `plan-peer`
  /// (the first channel's destination rank), `plan-scratch-slots` (the
  /// first scratch buffer's slot count) or `plan-root` (the first
  /// variant's root_plus_one) written wrong into the plans,
  /// which the check of the linked library (PlanCheck.cpp) must report;
  /// `plan-kernel-record` (the first variant's validated kernel prefix
  /// changed) or `plan-kernel-record-missing` (dropped) in the record the
  /// last target's lowering leaves for that check, which it must report
  /// too.
  std::string testCorrupt;
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

/// Parses a LIST argument: comma-separated values and ranges ("2..8"),
/// each value in lowest..highest (checked before a range is expanded, so
/// "1..1000000000000" fails at once) and listed once. On error returns
/// false with `error` ("'x' is not an integer or a range a..b", "range
/// '5..2' is empty", "0 is outside 1..64" (and the value in `*outside` when
/// given), "3 is listed twice").
bool parseIntList(llvm::StringRef text, std::vector<int64_t> &out,
                  std::string &error, int64_t lowest = INT64_MIN,
                  int64_t highest = INT64_MAX, int64_t *outside = nullptr);

} // namespace ccl

#endif // CCL_DRIVER_DRIVER_H
