//===- ccl_opt_fuzzer.cc - libFuzzer target for ccl-dialect MLIR ----------===//
//
// Treats the input as a textual .mlir file of the ccl dialect, as ccl-opt
// reads it: parses it with the dialects ccl-opt registers (the parser runs
// the MLIR verifier, so the dialect's verifiers run too), and when it parses
// checks that it round-trips through text and runs cclc's pass pipeline on
// it, up to the kernel level (pipeline_check.h: ccl-verify, ccl-chunk-dag,
// ccl-lower-chunks, ccl-fuse, ccl-replicate, ccl-schedule, ccl-verify
// {compiled}), and without the two verifications when the first rejects
// the module (compileBothWays).
//
// Traps (a crash for libFuzzer) when:
//
//  * parsing (custom parsers, attribute parsers, op verifiers) fails
//    without an error diagnostic, or succeeds although it emitted one;
//  * the parsed module does not round-trip (prints, parses back and prints
//    the same text);
//  * the pipeline hits one of the bugs of pipeline_check.h.
//
// Bounded effort: inputs over 32 KiB, and inputs ccl-opt refuses as nested
// too deeply (upstream MLIR's parser recurses per level), are skipped; the pipeline runs only on
// modules of at most 1500 operations, 8 ranks and 64 chunks per algorithm
// (pipeline_check.h). A comment line `// fuzz: channel=port tiles=2
// instances=2` sets the pipeline's options.
//
// Known bugs (knownParseFailure() below, knownPipelineFailures() in
// pipeline_check.cc) are not reported. CCL_FUZZ_VERBOSE=1 prints the
// diagnostics and passes; CCL_FUZZ_STRICT=1 reports known bugs. Build and
// run with scripts/fuzz.sh --fuzzer mlir.
//
//===----------------------------------------------------------------------===//

#include "compiler/Support/InputLimits.h"
#include "test/fuzz/fuzz_util.h"
#include "test/fuzz/pipeline_check.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>

using namespace ccl::fuzz;

namespace {

constexpr size_t kMaxInputBytes = 32768;

/// A known bug of upstream MLIR 22, not reported unless CCL_FUZZ_STRICT=1
/// (reproducers in test/fuzz/regressions/mlir/): a token the lexer
/// rejects right after a pretty dialect attribute (#ccl.chunk<...>@, a
/// lone '.' or '"') is lexed twice, its error emitted twice, and dropped:
/// the parse succeeds. Its signature: every error is a lexer error, and
/// each comes twice in a row.
bool knownParseFailure(const std::vector<std::string> &messages) {
  static const std::vector<std::string> lexerErrors = {
      "@ identifier expected to start with letter or '_'",
      "expected three consecutive dots for an ellipsis",
      "expected '\"' in string literal",
      "unexpected character",
  };
  if (messages.size() % 2 || !allKnown(messages, lexerErrors))
    return false;
  for (size_t i = 0; i < messages.size(); i += 2)
    if (messages[i] != messages[i + 1])
      return false;
  return true;
}

mlir::MLIRContext &context() { return reusedContext(setUpContext, 1024); }

} // namespace

CCL_FUZZ_DEFINE_ASAN_OPTIONS

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzzerName() = "ccl_opt_fuzzer";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return 0;
  mlir::MLIRContext &ctx = context();
  // MLIR's lexer expects a NUL after the buffer, as files read by ccl-opt
  // (MemoryBuffer::getFile) have; libFuzzer's input has none, so parse a
  // copy (std::string keeps a NUL after its characters).
  const std::string text(reinterpret_cast<const char *>(data), size);
  llvm::StringRef source(text);
  // Refused before the parser, as ccl-opt refuses it: MLIR 22's parser
  // recurses once per level of brackets (compiler/Support/InputLimits.h;
  // CCL_FUZZ_STRICT=1 parses it anyway: regressions/mlir/deep_nesting.mlir).
  if (ccl::firstTooDeep(source) && !strict())
    return 0;

  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    DiagnosticCounter diags(&ctx, /*keep=*/true);
    mlir::ParserConfig config(&ctx);
    module =
        mlir::parseSourceString<mlir::ModuleOp>(source, config, "fuzz.mlir");
    if (!module && diags.errors == 0)
      bug("parsing failed without an error diagnostic");
    if (module && diags.errors != 0) {
      if (knownParseFailure(diags.messages))
        return 0;
      for (const std::string &e : diags.messages)
        llvm::errs() << "error: " << e << "\n";
      bug("parsing succeeded but emitted an error diagnostic");
    }
  }
  if (!module)
    return 0;
  checkRoundTrip(ctx, *module, "the input");
  if (!withinLimits(*module, PipelineLimits()))
    return 0;
  compileBothWays(ctx, *module, pipelineOptionsFrom(source));
  return 0;
}
