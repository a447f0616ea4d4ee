//===- fuzz_util.h - what the compiler's fuzzers share ------*- C++ -*-===//
//
// Helpers of frontend_fuzzer.cc, verifier_fuzzer.cc and ccl_opt_fuzzer.cc:
// the environment flags (CCL_FUZZ_VERBOSE, CCL_FUZZ_STRICT), a diagnostic
// handler that counts (and optionally keeps) errors, the trap that reports
// a bug, a context that is replaced every few thousand inputs, and the
// directory of import libraries the .ccl fuzzers evaluate their input in.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_TEST_FUZZ_FUZZ_UTIL_H
#define CCL_TEST_FUZZ_FUZZ_UTIL_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace ccl::fuzz {

inline bool envFlag(const char *name) {
  const char *e = std::getenv(name);
  return e && *e && *e != '0';
}

/// CCL_FUZZ_VERBOSE=1: print every diagnostic (and, for a bug, the module).
inline bool verbose() {
  static const bool v = envFlag("CCL_FUZZ_VERBOSE");
  return v;
}

/// CCL_FUZZ_STRICT=1: report known, not yet fixed bugs too.
inline bool strict() {
  static const bool v = envFlag("CCL_FUZZ_STRICT");
  return v;
}

/// The name of the running fuzzer, for messages (set by each target).
inline std::string &fuzzerName() {
  static std::string name = "fuzzer";
  return name;
}

/// Reports a bug and traps (a crash for libFuzzer).
[[noreturn]] inline void bug(const std::string &what) {
  std::fprintf(stderr, "%s: %s\n", fuzzerName().c_str(), what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

/// "loc: message" of a diagnostic.
inline std::string describe(const mlir::Diagnostic &d) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << d.getLocation() << ": " << d;
  return text;
}

/// Counts the diagnostics emitted while it is alive and swallows them
/// (prints them with CCL_FUZZ_VERBOSE=1). With `keep`, also keeps the text
/// of each error.
struct DiagnosticCounter {
  explicit DiagnosticCounter(mlir::MLIRContext *ctx, bool keep = false)
      : handler(ctx, [this, keep](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
            ++errors;
            if (keep)
              messages.push_back(describe(d));
          }
          if (verbose())
            llvm::errs() << "[" << d.getLocation() << "] " << d << "\n";
          return mlir::success();
        }) {}
  unsigned errors = 0;
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler;
};

/// Whether every message contains one of `known` (and there is one): the
/// failure is that of a known bug. Never with CCL_FUZZ_STRICT=1.
inline bool allKnown(const std::vector<std::string> &messages,
                     const std::vector<std::string> &known) {
  if (strict() || messages.empty())
    return false;
  for (const std::string &m : messages) {
    bool match = false;
    for (const std::string &k : known)
      match |= m.find(k) != std::string::npos;
    if (!match)
      return false;
  }
  return true;
}

/// A context reused across inputs; uniqued attributes and locations
/// accumulate in it, so a fresh one replaces it every `inputsPerContext`
/// inputs to keep memory flat over long runs. `setUp` loads the dialects.
inline mlir::MLIRContext &
reusedContext(const std::function<void(mlir::MLIRContext &)> &setUp,
              unsigned inputsPerContext = 4096) {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses >= inputsPerContext) {
    ctx.reset(); // destroy the old one before building the next
    ctx = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    setUp(*ctx);
    uses = 0;
  }
  return *ctx;
}

/// The directory the .ccl input "lives" in, with the libraries it may
/// import; set up by setUpImportDir.
inline std::string &importDir() {
  static std::string dir;
  return dir;
}

/// Writes the import libraries (`lib.ccl`, which imports `base.ccl`) into
/// $TMPDIR/ccl-fuzz-imports-UID and sets importDir(). One directory per
/// user, reused by every run: a crashing run never gets to clean up, so
/// per-run directories would pile up in /tmp. Each file is written under a
/// private name and renamed into place, so concurrent fuzzers (-jobs) never
/// read a half-written library. Exits on failure.
inline void setUpImportDir() {
  static const char *const kImportLibs[][2] = {
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
  auto fail = [](const std::string &what, std::error_code ec) {
    std::fprintf(stderr, "%s: %s: %s\n", fuzzerName().c_str(), what.c_str(),
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
}

} // namespace ccl::fuzz

/// libMLIR.so and libLLVM.so are not instrumented, but the LLVM headers
/// compiled into the fuzzers are: inlined llvm::BumpPtrAllocator code sees
/// ASan and poisons each new slab, then the library's own (uninstrumented)
/// copy of the allocator hands out memory from that slab without
/// unpoisoning it, and the first write is reported as use-after-poison.
/// Ignoring manual poisoning removes that false positive; heap, stack and
/// global checks are unaffected. Still overridable with ASAN_OPTIONS.
/// (Define it in exactly one translation unit per fuzzer:
/// CCL_FUZZ_DEFINE_ASAN_OPTIONS.)
#define CCL_FUZZ_DEFINE_ASAN_OPTIONS                                           \
  extern "C" const char *__asan_default_options() {                            \
    return "allow_user_poisoning=0";                                           \
  }

#endif // CCL_TEST_FUZZ_FUZZ_UTIL_H
