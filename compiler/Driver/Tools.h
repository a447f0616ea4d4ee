//===- Tools.h - helpers of the driver's code generation --------*- C++ -*-===//
//
// Internal to compiler/Driver: target machines, temporary files and the
// external tools (ptxas, ld.lld) that Codegen.cpp and SharedLibrary.cpp run.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_DRIVER_TOOLS_H
#define CCL_DRIVER_TOOLS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace ccl {
namespace driver {

/// A target machine for the triple (PIC, .init_array, code generation at
/// `level`, -O3 by default); null and `error` when LLVM has no backend for
/// it.
std::unique_ptr<llvm::TargetMachine>
makeMachine(llvm::StringRef triple, llvm::StringRef cpu,
            llvm::StringRef features, std::string &error,
            llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive);
/// Writes `data` to a new temporary file PREFIX-XXXX.SUFFIX; its path in
/// `path`.
bool writeTemp(llvm::StringRef prefix, llvm::StringRef suffix,
               llvm::StringRef data, std::string &path, std::string &error);
/// A new unique path $TMPDIR/PREFIX-XXXXXX.SUFFIX for a tool to write
/// (nothing is created). Not registered for removal on a signal: with
/// paths that do not exist yet on LLVM's list, a SIGTERM during ptxas left
/// the PTX or the tool log behind (test/lit/cclc/signal-cleanup.ccl, 1 to 2
/// runs in 3 on a loaded machine).
std::string tempOutputPath(llvm::StringRef prefix, llvm::StringRef suffix);
/// Runs `program` with `args`; on failure `error` holds the command line
/// and its output.
bool runTool(llvm::StringRef program, llvm::ArrayRef<std::string> args,
             std::string &error);
/// First of `candidates` that exists, else the program found on PATH.
std::string findTool(llvm::ArrayRef<std::string> candidates,
                     llvm::StringRef name);
/// The directory of the running executable.
std::string exeDir(const std::string &argv0);
/// The ld.lld that links the libraries and the AMDGPU code objects:
/// $CCLC_LD_LLD when set (which must be executable), else ld.lld next to
/// cclc, in the bin/ of the LLVM cclc was built with, /usr/lib/llvm-22/bin,
/// then ld.lld-22 and ld.lld on PATH. Empty with `error` when none is.
std::string findLinker(const std::string &argv0, std::string &error);

} // namespace driver
} // namespace ccl

#endif // CCL_DRIVER_TOOLS_H
