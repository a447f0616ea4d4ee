//===- verifier_fuzzer.cc - libFuzzer target for the verifier and lowering
//-===//
//
// Takes .ccl programs the front end accepts and compiles them to the kernel
// level: parses and evaluates the input as frontend_fuzzer does (as
// `fuzz.ccl` beside the import libraries of fuzz_util.h, with -D K=2), for
// 2, 3 and 4 ranks with a step bound of 2^14, then runs cclc's pass
// pipeline on the module: ccl-verify, ccl-chunk-dag, ccl-lower-chunks,
// ccl-fuse, ccl-replicate, ccl-schedule and the re-verification of the
// kernel level (pipeline_check.h; no LLVM lowering or code generation);
// a program the verifier rejects is compiled again as `cclc --no-verify`
// compiles it.
//
// Traps (a crash for libFuzzer) on the front end's bugs (as frontend_fuzzer:
// a failure without an error diagnostic, a success with one, a module that
// fails the MLIR verifier) and on the pipeline's (pipeline_check.h: a pass
// that fails silently or succeeds with an error, a pass that leaves an
// invalid module, an internal compiler error, a scheduled module that does
// not round-trip through text).
//
// Bounded effort: inputs over 8 KiB and modules over 1500 operations are
// skipped. A comment line `// fuzz: channel=port tiles=2 instances=2` in
// the input sets the pipeline's options (pipeline_check.h).
//
// CCL_FUZZ_VERBOSE=1 prints the diagnostics and passes (replaying one
// input: `verifier_fuzzer crash-...`); CCL_FUZZ_STRICT=1 reports known bugs.
// Build and run with scripts/fuzz.sh --fuzzer verifier.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/frontend_check.h"
#include "test/fuzz/fuzz_util.h"
#include "test/fuzz/pipeline_check.h"

#include "ccl/Dialect/CclDialect.h"

#include <cstdint>
#include <memory>

using namespace ccl::fuzz;

namespace {

/// Evaluation steps per algorithm and rank count (frontend_fuzzer: 2^16;
/// the pipeline costs more per operation than the evaluator).
constexpr int64_t kMaxSteps = int64_t(1) << 14;

/// Larger inputs are skipped (the front end's own fuzzer covers them).
constexpr size_t kMaxInputBytes = 8192;

mlir::MLIRContext &context() { return reusedContext(setUpContext, 1024); }

} // namespace

CCL_FUZZ_DEFINE_ASAN_OPTIONS

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzzerName() = "verifier_fuzzer";
  setUpImportDir();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return 0;
  mlir::MLIRContext &ctx = context();
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<ccl::ast::File> file = parseChecked(ctx, source);
  if (!file)
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      evaluateChecked(ctx, *file, {2, 3, 4}, kMaxSteps);
  if (!module || module->getOps<ccl::AlgorithmOp>().empty())
    return 0;
  if (!withinLimits(*module, PipelineLimits()))
    return 0;
  compileBothWays(ctx, *module, pipelineOptionsFrom(source));
  return 0;
}
