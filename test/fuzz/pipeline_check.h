//===- pipeline_check.h - cclc's passes, trapping on bugs --*- C++ -*-===//
//
// What verifier_fuzzer.cc and ccl_opt_fuzzer.cc share: cclc's pass pipeline
// (ccl::buildCclPipeline, compiler/Driver/Driver.h) up to the kernel level
// (ccl-verify, ccl-chunk-dag, ccl-lower-chunks, ccl-fuse, ccl-replicate
// twice, ccl-schedule, ccl-verify{compiled}; no LLVM lowering or code
// generation), run on one module with checks that trap on compiler bugs.
// A module the first ccl-verify rejects is compiled again without either
// verification, as `cclc --no-verify` does, so that the lowering passes see
// every valid module and not only correct programs (compileBothWays). The
// checks:
//
//  * a pass that fails without emitting an error diagnostic;
//  * a pass that succeeds although it emitted an error diagnostic;
//  * a pass that succeeds but leaves a module that fails the MLIR verifier
//    (the pass manager's own verifier is replaced by the same check after
//    each successful pass, so the bug names the pass);
//  * an "internal compiler error" (the re-verification of the kernel
//    level rejected the compiler's lowering of a program that verified);
//  * a module that does not round-trip through its textual form: printed,
//    parsed back and printed again, it must give the same text (done for
//    the pipeline's output, and by ccl_opt_fuzzer for its input).
//
// Known, not yet fixed bugs (knownPipelineFailures() in pipeline_check.cc)
// do not trap unless CCL_FUZZ_STRICT=1.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TEST_FUZZ_PIPELINE_CHECK_H
#define CCL_TEST_FUZZ_PIPELINE_CHECK_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace ccl::fuzz {

/// Pass options the input chooses with a comment line
/// `// fuzz: channel=port tiles=2 instances=2` (any subset, any order;
/// other values are ignored). A directive that does not parse is ignored.
struct PipelineOptions {
  std::string channel = "memory"; ///< ccl-lower-chunks channel=memory|port
  int64_t tiles = 1;              ///< 1 or 2 (ccl-replicate share-blocks)
  int64_t instances = 1;          ///< 1 or 2 (ccl-replicate)
  /// false: without either ccl-verify, as `cclc --no-verify` compiles.
  bool verify = true;
};
PipelineOptions pipelineOptionsFrom(llvm::StringRef text);

/// Limits on what the pipeline is run on (bounded effort per input).
struct PipelineLimits {
  int64_t maxOps = 1500;  ///< operations in the module
  int64_t maxRanks = 8;   ///< nranks of any algorithm
  int64_t maxChunks = 64; ///< chunks, input_chunks, output_chunks
};

/// Whether `module` is small enough for the pipeline (false: skip it).
bool withinLimits(mlir::ModuleOp module, const PipelineLimits &limits);

enum class PipelineResult {
  Compiled, ///< every pass succeeded
  Rejected, ///< the first ccl-verify rejected the program
  Failed,   ///< a later pass failed (with an error diagnostic)
};

/// Runs the pipeline on `module` (changed in place) and traps on the bugs
/// listed above.
PipelineResult runPipelineAndCheck(mlir::MLIRContext &ctx,
                                   mlir::ModuleOp module,
                                   const PipelineOptions &options);

/// The fuzzers' use of it: runs the pipeline on a copy of `module`, and
/// when ccl-verify rejects the program, again on another copy without
/// verification (`cclc --no-verify` lowers such programs too, so the
/// lowering passes see every valid module, not only correct programs).
void compileBothWays(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                     PipelineOptions options);

/// Traps unless `module` prints, parses back and prints to the same text.
/// `what` names the module in the report ("the input", "the scheduled
/// module").
void checkRoundTrip(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                    const char *what);

/// Registers the dialects ccl-opt registers (ccl::registerCclDialects) and
/// loads the ccl dialect.
void setUpContext(mlir::MLIRContext &ctx);

} // namespace ccl::fuzz

#endif // CCL_TEST_FUZZ_PIPELINE_CHECK_H
