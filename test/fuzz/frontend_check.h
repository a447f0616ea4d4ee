//===- frontend_check.h - the front end's contract, for the fuzzers -------===//
//
// Parses and evaluates a fuzzer input as `fuzz.ccl` in importDir() (with
// -D K=2 and an include directory that does not exist) and traps (a crash
// for libFuzzer) when the front end breaks its contract: parseSource or
// evaluate failing without an error diagnostic or succeeding with one, or a
// module that fails the MLIR verifier (unless only with the message of a
// known, not yet fixed bug: knownVerifierFailures in frontend_check.cc;
// CCL_FUZZ_STRICT=1 traps on those too). frontend_fuzzer and
// verifier_fuzzer share it.
//
//===----------------------------------------------------------------------===//

#ifndef CCL_TEST_FUZZ_FRONTEND_CHECK_H
#define CCL_TEST_FUZZ_FRONTEND_CHECK_H

#include "compiler/frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ccl::fuzz {

/// The parsed file, or null when the input does not parse (with an error).
std::unique_ptr<ccl::ast::File> parseChecked(mlir::MLIRContext &ctx,
                                             llvm::StringRef source);

/// The module for `nranks` (evaluation bounded by `maxSteps` per algorithm
/// and rank count), or null when evaluation failed (with an error).
mlir::OwningOpRef<mlir::ModuleOp>
evaluateChecked(mlir::MLIRContext &ctx, const ccl::ast::File &file,
                std::vector<int64_t> nranks, int64_t maxSteps);

} // namespace ccl::fuzz

#endif // CCL_TEST_FUZZ_FRONTEND_CHECK_H
