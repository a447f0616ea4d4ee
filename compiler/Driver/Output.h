//===- Output.h - the files cclc writes -------------------------*- C++ -*-===//
//
// Every output of cclc (the library, its header, a text level written with
// -o) is written to a new file next to its destination and renamed into
// place once complete, so that a failed or interrupted compile never leaves
// a truncated file and a previous good output survives an error. A
// destination that exists and is not a regular file (/dev/null, a pipe, a
// terminal) is written in place.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_DRIVER_OUTPUT_H
#define CCL_DRIVER_OUTPUT_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ccl {

struct CompileOptions;

/// One output being written.
struct OutputFile {
  /// Where it ends up (a symbolic link resolved to its target).
  std::string path;
  /// Where it is written first: a fresh name in path's directory, or path
  /// itself for a destination that is not a regular file.
  std::string temp;
  bool inPlace() const { return temp == path; }
};

/// Picks `out` for `path`; false and `error` when its directory cannot be
/// written.
bool prepareOutput(llvm::StringRef path, OutputFile &out, std::string &error);
/// Renames out.temp to out.path (nothing to do in place).
bool commitOutput(const OutputFile &out, std::string &error);
/// Removes out.temp, if it is not out.path.
void discardOutput(const OutputFile &out);
/// The three in one: writes `data` to `path` through a temporary file.
bool writeOutputFile(llvm::StringRef path, llvm::StringRef data,
                     std::string &error);

/// The header cclc writes next to a library: the -o name with the
/// extension .h (`lib/libring.so` -> `lib/libring.h`).
std::string headerPath(llvm::StringRef library);
/// The files a compile with `options` writes: the library and its header
/// at the `so` level, else options.output unless it is "-" (standard
/// output).
std::vector<std::string> outputFiles(const CompileOptions &options);
/// Whether two paths name one file: the same file on disk (device and
/// inode) when both exist, else the same absolute path without `.` and
/// `..`.
bool sameFile(llvm::StringRef a, llvm::StringRef b);

} // namespace ccl

#endif // CCL_DRIVER_OUTPUT_H
