//===- frontend_fuzzer.cc - libFuzzer target for the .ccl frontend --------===//
//
// Treats the input bytes as a .ccl source file, parses it and, when it
// parses, evaluates it for 2, 3 and 5 ranks (one module, one call). Traps
// (a crash for libFuzzer) when:
//
//  * parseSource or evaluate fails without emitting an error diagnostic
//    (a silent failure: the user would get no message);
//  * evaluate succeeds although it emitted an error diagnostic;
//  * a module evaluate returned does not pass the MLIR verifier (the
//    frontend must never build invalid IR).
//
// `import` is exercised without reading the machine's files at random: the
// input is evaluated as `fuzz.ccl` in a temporary directory
// ($TMPDIR/ccl-fuzz-imports-UID) that holds only two small libraries
// (`lib.ccl`, which imports `base.ccl`), so a plain relative import either
// finds one of them or fails. (An absolute path, or one with `..`, still
// reaches the real file system.)
//
// Diagnostics are swallowed; set CCL_FUZZ_VERBOSE=1 to print them (useful
// when replaying one input: `frontend_fuzzer crash-...`).
//
// Known, not yet fixed bugs (knownVerifierFailures() in frontend_check.cc,
// each with a reproducer in test/fuzz/regressions/) do not trap, so that a short run keeps finding
// new ones; CCL_FUZZ_STRICT=1 makes them trap too.
//
// Build and run with scripts/fuzz.sh (bazel build --config=fuzz).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/frontend_check.h"
#include "test/fuzz/fuzz_util.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>

namespace {

/// Evaluation is bounded by this many steps per algorithm and rank count,
/// so no input runs long (the default of the compiler is 2^22).
constexpr int64_t kMaxSteps = int64_t(1) << 16;

mlir::MLIRContext &context() {
  return ccl::fuzz::reusedContext(
      [](mlir::MLIRContext &ctx) { ctx.getOrLoadDialect<ccl::CclDialect>(); });
}

} // namespace

CCL_FUZZ_DEFINE_ASAN_OPTIONS

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  ccl::fuzz::fuzzerName() = "frontend_fuzzer";
  ccl::fuzz::setUpImportDir();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = context();
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<ccl::ast::File> file = ccl::fuzz::parseChecked(ctx, source);
  if (!file)
    return 0;
  // One call for all three rank counts, like `cclc --nranks=2,3,5`: every
  // call parses and evaluates the prelude again, so separate calls per rank
  // count halved the executions per second (and reached fewer features in
  // the same time).
  ccl::fuzz::evaluateChecked(ctx, *file, {2, 3, 5}, kMaxSteps);
  return 0;
}
