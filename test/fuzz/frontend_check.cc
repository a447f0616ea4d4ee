//===- frontend_check.cc - the front end's contract, for the fuzzers ------===//

#include "test/fuzz/frontend_check.h"

#include "test/fuzz/fuzz_util.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ccl::fuzz {

namespace {

/// Verifier messages of known front-end bugs that are not fixed yet. A
/// module whose verifier errors all contain one of these is not reported
/// (unless CCL_FUZZ_STRICT=1). Add an entry with its reproducer in
/// test/fuzz/regressions/ and remove it together with the fix. (Empty now:
/// the one that was here, test/fuzz/corpus/fuzz_put-packets-without-ll.ccl,
/// was fixed by the evaluator rewrite.)
const std::vector<std::string> &knownVerifierFailures() {
  static const std::vector<std::string> known = {};
  return known;
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
  if (mlir::succeeded(result) || allKnown(errors, knownVerifierFailures()))
    return;
  for (const std::string &e : errors)
    llvm::errs() << "verifier: " << e << "\n";
  if (verbose())
    module.print(llvm::errs());
  bug("evaluate built a module that fails the MLIR verifier");
}

} // namespace

std::unique_ptr<ccl::ast::File> parseChecked(mlir::MLIRContext &ctx,
                                             llvm::StringRef source) {
  static const std::string path = importDir() + "/fuzz.ccl";
  DiagnosticCounter diags(&ctx);
  std::unique_ptr<ccl::ast::File> file = ccl::parseSource(&ctx, source, path);
  if (!file && diags.errors == 0)
    bug("parseSource failed without an error diagnostic");
  if (file && diags.errors != 0)
    bug("parseSource succeeded but emitted an error diagnostic");
  return file;
}

mlir::OwningOpRef<mlir::ModuleOp>
evaluateChecked(mlir::MLIRContext &ctx, const ccl::ast::File &file,
                std::vector<int64_t> nranks, int64_t maxSteps) {
  ccl::FrontendOptions options;
  options.nranks = std::move(nranks);
  options.defines["K"] = 2; // so programs written for `cclc -D K=...` run
  options.maxSteps = maxSteps;
  options.includeDirs.push_back(importDir() + "/missing-include-dir");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    DiagnosticCounter diags(&ctx);
    module = ccl::evaluate(&ctx, file, options);
    if (!module && diags.errors == 0)
      bug("evaluate failed without an error diagnostic");
    if (module && diags.errors != 0)
      bug("evaluate succeeded but emitted an error diagnostic");
  }
  if (module)
    checkVerifies(ctx, *module);
  return module;
}

} // namespace ccl::fuzz
