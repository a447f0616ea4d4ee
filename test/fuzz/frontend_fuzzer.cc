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

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// Evaluation is bounded by this many steps per algorithm and rank count,
/// so no input runs long (the default of the compiler is 2^22).
constexpr int64_t kMaxSteps = int64_t(1) << 16;

/// The context is reused across inputs, but uniqued attributes and
/// locations accumulate in it; start a fresh one every this many inputs to
/// keep memory flat over long runs.
constexpr unsigned kInputsPerContext = 4096;

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

/// The directory the input "lives" in, with the libraries it may import;
/// set up by LLVMFuzzerInitialize.
std::string &importDir() {
  static std::string dir;
  return dir;
}

const char *const kImportLibs[][2] = {
    {"lib.ccl", "// Fuzzer import library.\n"
                "import \"base.ccl\";\n"
                "fn next(r) { return mod(r + 1, nranks); }\n"
                "fn send(r, c) {\n"
                "  memory(r -> next(r)).put_packets(recv[next(r)][r], "
                "input[r][c], tb = peer_tb(r));\n"
                "}\n"},
    {"base.ccl", "fn peer_tb(r) { return 1 + r % 2; }\n"
                 "fn twice(x) { return 2 * x; }\n"},
};

bool envFlag(const char *name) {
  const char *e = std::getenv(name);
  return e && *e && *e != '0';
}

bool verbose() {
  static const bool v = envFlag("CCL_FUZZ_VERBOSE");
  return v;
}

bool strict() {
  static const bool v = envFlag("CCL_FUZZ_STRICT");
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

/// Traps unless `module` passes the MLIR verifier (or fails it only with a
/// known bug's message).
void checkVerifies(mlir::MLIRContext &ctx, mlir::ModuleOp module) {
  std::vector<std::string> errors;
  mlir::LogicalResult result = mlir::success();
  {
    mlir::ScopedDiagnosticHandler collect(&ctx, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << d.getLocation() << ": " << d;
        errors.push_back(std::move(text));
      }
      return mlir::success();
    });
    result = mlir::verify(module);
  }
  if (mlir::succeeded(result))
    return;
  bool known = !strict() && !errors.empty();
  for (const std::string &e : errors) {
    bool match = false;
    for (const std::string &k : knownVerifierFailures())
      match |= e.find(k) != std::string::npos;
    known &= match;
  }
  if (known)
    return;
  for (const std::string &e : errors)
    llvm::errs() << "verifier: " << e << "\n";
  if (verbose())
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

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // One directory per user, reused by every run: a crashing run never gets
  // to clean up, so per-run directories would pile up in /tmp. Each file is
  // written under a private name and renamed into place, so concurrent
  // fuzzers (-jobs) never read a half-written library.
  auto fail = [](const std::string &what, std::error_code ec) {
    std::fprintf(stderr, "frontend_fuzzer: %s: %s\n", what.c_str(),
                 ec.message().c_str());
    std::exit(1);
  };
  llvm::SmallString<128> dir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  llvm::sys::path::append(dir,
                          "ccl-fuzz-imports-" + std::to_string(::getuid()));
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    fail("cannot create " + dir.str().str(), ec);
  importDir() = dir.str().str();
  for (const auto &lib : kImportLibs) {
    const std::string final = importDir() + "/" + lib[0];
    const std::string tmp = final + ".tmp" + std::to_string(::getpid());
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(tmp, ec);
      if (ec)
        fail("cannot write " + tmp, ec);
      os << lib[1];
    }
    if (std::error_code ec = llvm::sys::fs::rename(tmp, final))
      fail("cannot rename " + tmp, ec);
  }
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
