//===- Evaluate.cpp - compile-time evaluation into the ccl dialect ---------===//
//
// Runs the program's compile-time language (let, for, if, functions, integer
// and rank arithmetic) for one rank count at a time and emits the data
// movement it describes as global-level `ccl` operations, each located at
// the source expression that produced it. The collective an algorithm
// implements is evaluated the same way into its contract (`ccl.require`,
// `ccl.ensure`); the built-in collectives are themselves written in the
// language (stdlib/collectives.ccl, compiled in as the prelude).
//
// This file holds the entry points; Evaluator.h says where the rest is.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"
#include "compiler/frontend/Source.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"

extern const char ccl_prelude_source[];

using namespace mlir;
using namespace ccl;

namespace {
constexpr const char *kPreludePath = "stdlib/collectives.ccl";
} // namespace

std::unique_ptr<ast::File> ccl::parseSource(MLIRContext *ctx, StringRef source,
                                            StringRef path) {
  // Not text (the ANTLR lexer would stop at the first bad byte with an
  // internal error): said at the first bad byte. cclc shows no source line
  // that is not text.
  NotText notText;
  if (!checkSourceText(source, notText)) {
    emitError(FileLineColLoc::get(ctx, path, notText.line, notText.column))
        << path << " " << notText.message;
    return nullptr;
  }
  std::vector<ast::Diagnostic> diags;
  auto file = ast::parse(source.str(), path.str(), diags);
  for (const auto &d : diags)
    emitError(FileLineColLoc::get(ctx, path, d.loc.line, d.loc.col))
        << d.message;
  return diags.empty() ? std::move(file) : nullptr;
}

LogicalResult eval::Evaluator::run(const ast::File &main, ModuleOp module) {
  // The prelude: the built-in collectives.
  auto prelude = parseSource(ctx, ccl_prelude_source, kPreludePath);
  if (!prelude)
    return failure();
  for (const auto &c : prelude->collectives)
    builtinCollectives.insert(c->name);
  owned.push_back(std::move(prelude));
  llvm::StringSet<> seen;
  if (failed(load(*owned.front(), false, seen)))
    return failure();
  llvm::SmallString<256> mainPath;
  if (llvm::sys::fs::real_path(main.path, mainPath))
    mainPath = main.path;
  seen.insert(mainPath);
  if (failed(load(main, /*isMain=*/true, seen)))
    return failure();
  if (failed(selections(main, module)))
    return failure();
  for (const ast::Algorithm *a : algorithms)
    for (int64_t n : options.nranks)
      if (failed(algorithm(*a, n, module)))
        return failure();
  return success();
}

OwningOpRef<ModuleOp> ccl::evaluate(MLIRContext *ctx, const ast::File &file,
                                    const FrontendOptions &options) {
  ctx->getOrLoadDialect<CclDialect>();
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(ctx, file.path, 1, 1));
  eval::Evaluator ev(ctx, options);
  if (failed(ev.run(file, *module)))
    return nullptr;
  // The evaluator checks what the program can get wrong; the op verifiers
  // catch the rest at the operation's source line.
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}
