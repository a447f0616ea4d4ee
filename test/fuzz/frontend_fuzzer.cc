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
// Known, not yet fixed bugs (knownVerifierFailures(), each with a reproducer
// in test/fuzz/regressions/) do not trap, so that a short run keeps finding
// new ones; CCL_FUZZ_STRICT=1 makes them trap too.
//
// Build and run with scripts/fuzz.sh (bazel build --config=fuzz).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Frontend.h"
#include "test/fuzz/fuzz_util.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using ccl::fuzz::bug;
using ccl::fuzz::DiagnosticCounter;
using ccl::fuzz::importDir;

namespace {

/// Evaluation is bounded by this many steps per algorithm and rank count,
/// so no input runs long (the default of the compiler is 2^22).
constexpr int64_t kMaxSteps = int64_t(1) << 16;

/// Verifier messages of known frontend bugs that are not fixed yet. A
/// module whose verifier errors all contain one of these is not reported
/// (unless CCL_FUZZ_STRICT=1). Add an entry with its reproducer in
/// test/fuzz/regressions/ and remove it together with the fix. (Empty now:
/// the one that was here, test/fuzz/corpus/fuzz_put-packets-without-ll.ccl,
/// was fixed by the evaluator rewrite.)
const std::vector<std::string> &knownVerifierFailures() {
  static const std::vector<std::string> known = {};
  return known;
}

mlir::MLIRContext &context() {
  return ccl::fuzz::reusedContext(
      [](mlir::MLIRContext &ctx) { ctx.getOrLoadDialect<ccl::CclDialect>(); });
}

/// Traps unless `module` passes the MLIR verifier (or fails it only with a
/// known bug's message).
void checkVerifies(mlir::MLIRContext &ctx, mlir::ModuleOp module) {
  mlir::LogicalResult result = mlir::success();
  std::vector<std::string> errors;
  {
    DiagnosticCounter collect(&ctx, /*keep=*/true);
    result = mlir::verify(module);
    errors = std::move(collect.messages);
  }
  if (mlir::succeeded(result) ||
      ccl::fuzz::allKnown(errors, knownVerifierFailures()))
    return;
  for (const std::string &e : errors)
    llvm::errs() << "verifier: " << e << "\n";
  if (ccl::fuzz::verbose())
    module.print(llvm::errs());
  bug("evaluate built a module that fails the MLIR verifier");
}

/// Evaluates `file` for `nranks` and checks the result.
void evaluateAndCheck(mlir::MLIRContext &ctx, const ccl::ast::File &file,
                      std::vector<int64_t> nranks) {
  ccl::FrontendOptions options;
  options.nranks = std::move(nranks);
  options.defines["K"] = 2; // so programs written for `cclc -D K=...` run
  options.maxSteps = kMaxSteps;
  options.includeDirs.push_back(importDir() + "/missing-include-dir");

  DiagnosticCounter diags(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = ccl::evaluate(&ctx, file, options);
  if (!module) {
    if (diags.errors == 0)
      bug("evaluate failed without an error diagnostic");
    return;
  }
  if (diags.errors != 0)
    bug("evaluate succeeded but emitted an error diagnostic");
  checkVerifies(ctx, *module);
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
  static const std::string path = importDir() + "/fuzz.ccl";

  std::unique_ptr<ccl::ast::File> file;
  {
    DiagnosticCounter diags(&ctx);
    file = ccl::parseSource(&ctx, source, path);
    if (!file && diags.errors == 0)
      bug("parseSource failed without an error diagnostic");
    if (file && diags.errors != 0)
      bug("parseSource succeeded but emitted an error diagnostic");
  }
  if (!file)
    return 0;

  // One call for all three rank counts, like `cclc --nranks=2,3,5`: every
  // call parses and evaluates the prelude again, so separate calls per rank
  // count halved the executions per second (and reached fewer features in
  // the same time).
  evaluateAndCheck(ctx, *file, {2, 3, 5});
  return 0;
}
