//===- Frontend.h - .ccl source to the ccl dialect ---------------*- C++ -*-===//
#ifndef CCL_FRONTEND_FRONTEND_H
#define CCL_FRONTEND_FRONTEND_H

#include "compiler/frontend/Ast.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace ccl {

struct FrontendOptions {
  /// Rank counts to specialise for; one `ccl.algorithm` per algorithm and
  /// rank count.
  std::vector<int64_t> nranks;
  /// Compile-time parameters from `cclc -D name=value`.
  llvm::StringMap<int64_t> defines;
  /// Upper bound on loop iterations, statements and operations per algorithm
  /// and rank count (at least 8 * nranks^2); evaluation stops with a
  /// diagnostic beyond it.
  int64_t maxSteps = int64_t(1) << 22;
  /// Directories searched for `import "..."` after the importing file's own.
  std::vector<std::string> includeDirs;
  /// When set, receives every file an import read (so that the driver can
  /// refuse to write its outputs over one).
  struct ImportedFile {
    std::string realPath;
    mlir::Location importedAt; // the first `import` that read it
  };
  std::vector<ImportedFile> *importedFiles = nullptr;
};

/// Parses `source`; syntax errors become MLIR diagnostics at
/// `path:line:col`. Returns null on error.
std::unique_ptr<ast::File> parseSource(mlir::MLIRContext *ctx,
                                       llvm::StringRef source,
                                       llvm::StringRef path);

/// Evaluates every algorithm of `file` for every rank count of `options`
/// into a module of `ccl.algorithm` ops. Evaluation errors are emitted as
/// diagnostics at the offending source location; returns null on error.
mlir::OwningOpRef<mlir::ModuleOp> evaluate(mlir::MLIRContext *ctx,
                                           const ast::File &file,
                                           const FrontendOptions &options);

} // namespace ccl

#endif // CCL_FRONTEND_FRONTEND_H
