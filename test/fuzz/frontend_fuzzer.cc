//===- frontend_fuzzer.cc - libFuzzer target for the .ccl frontend --------===//
//
// Treats the input bytes as a .ccl source file, parses it and, when it
// parses, evaluates it for 2, 3 and 5 ranks (each on its own, then all three
// into one module). Traps (a crash for libFuzzer) when:
//
//  * parseSource or evaluate fails without emitting an error diagnostic
//    (a silent failure: the user would get no message);
//  * evaluate succeeds although it emitted an error diagnostic;
//  * a module evaluate returned does not pass the MLIR verifier (the
//    frontend must never build invalid IR).
//
// Diagnostics are swallowed; set CCL_FUZZ_VERBOSE=1 to print them (useful
// when replaying one input: `frontend_fuzzer crash-...`).
//
// Build and run with scripts/fuzz.sh (bazel build --config=fuzz).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Frontend.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

/// Evaluation is bounded by this many steps per algorithm and rank count,
/// so no input runs long (the default of the compiler is 2^22).
constexpr int64_t kMaxSteps = int64_t(1) << 16;

/// The context is reused across inputs, but uniqued attributes and
/// locations accumulate in it; start a fresh one every this many inputs to
/// keep memory flat over long runs.
constexpr unsigned kInputsPerContext = 4096;

bool verbose() {
  static const bool v = [] {
    const char *e = std::getenv("CCL_FUZZ_VERBOSE");
    return e && *e && *e != '0';
  }();
  return v;
}

/// Counts the diagnostics emitted while it is alive and swallows them.
struct DiagnosticCounter {
  explicit DiagnosticCounter(mlir::MLIRContext *ctx)
      : handler(ctx, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
            ++errors;
          if (verbose())
            llvm::errs() << "[" << d.getLocation() << "] " << d << "\n";
          return mlir::success();
        }) {}
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler;
};

[[noreturn]] void bug(const char *what) {
  std::fprintf(stderr, "frontend_fuzzer: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses >= kInputsPerContext) {
    ctx.reset(); // destroy the old one before building the next
    ctx = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    ctx->getOrLoadDialect<ccl::CclDialect>();
    uses = 0;
  }
  return *ctx;
}

/// Evaluates `file` for `nranks`; returns whether it succeeded.
bool evaluateAndCheck(mlir::MLIRContext &ctx, const ccl::ast::File &file,
                      std::vector<int64_t> nranks) {
  ccl::FrontendOptions options;
  options.nranks = std::move(nranks);
  options.defines["K"] = 2; // so programs written for `cclc -D K=...` run
  options.maxSteps = kMaxSteps;

  DiagnosticCounter diags(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = ccl::evaluate(&ctx, file, options);
  if (!module) {
    if (diags.errors == 0)
      bug("evaluate failed without an error diagnostic");
    return false;
  }
  if (diags.errors != 0)
    bug("evaluate succeeded but emitted an error diagnostic");
  if (mlir::failed(mlir::verify(*module))) {
    if (verbose())
      module->print(llvm::errs());
    bug("evaluate built a module that fails the MLIR verifier");
  }
  return true;
}

} // namespace

/// libMLIR.so and libLLVM.so are not instrumented, but the LLVM headers
/// compiled into this binary are: inlined llvm::BumpPtrAllocator code sees
/// ASan and poisons each new slab, then the library's own (uninstrumented)
/// copy of the allocator hands out memory from that slab without
/// unpoisoning it, and the first write is reported as use-after-poison.
/// Ignoring manual poisoning removes that false positive; heap, stack and
/// global checks are unaffected. Still overridable with ASAN_OPTIONS.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = context();
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);

  std::unique_ptr<ccl::ast::File> file;
  {
    DiagnosticCounter diags(&ctx);
    file = ccl::parseSource(&ctx, source, "fuzz.ccl");
    if (!file && diags.errors == 0)
      bug("parseSource failed without an error diagnostic");
    if (file && diags.errors != 0)
      bug("parseSource succeeded but emitted an error diagnostic");
  }
  if (!file)
    return 0;

  bool all = true;
  for (int64_t n : {2, 3, 5})
    all &= evaluateAndCheck(ctx, *file, {n});
  // One module for several rank counts: symbols of different rank counts
  // must not collide.
  if (all)
    evaluateAndCheck(ctx, *file, {2, 3, 5});
  return 0;
}
