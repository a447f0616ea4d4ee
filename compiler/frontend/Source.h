//===- Source.h - reading .ccl source files ---------------------*- C++ -*-===//
//
// The limits every .ccl file cclc reads is held to, the main input and each
// imported file alike: at most kMaxSourceBytes bytes (read with a bound, so
// that /dev/zero or a pipe that never ends is refused at once), UTF-8 text
// without NUL bytes, and, for an import, a name ending in `.ccl`.
// docs/compiler.md ("Limits") says why.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_FRONTEND_SOURCE_H
#define CCL_FRONTEND_SOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ccl {

/// The largest .ccl file cclc reads: 1 MiB. Parsing takes about 2 s and
/// 300 MB per MiB on the 2-core build machine (the ANTLR parse tree of the
/// whole file is held at once); the largest file of the standard library is
/// under 3 KiB.
constexpr uint64_t kMaxSourceBytes = uint64_t(1) << 20;

/// Reads `path` ("-": standard input) into a buffer named `path` ("<stdin>"
/// for "-"), reading at most kMaxSourceBytes + 1 bytes whatever the file is
/// (a regular file, a pipe, a device). On failure returns null and sets
/// `error` to a message that follows the file's name: "cannot be opened:
/// REASON", "cannot be read: REASON", "is N bytes, more than 1 MiB
/// (1048576 bytes), the limit of a .ccl source file" (a regular file, not
/// read), or "is more than 1 MiB (1048576 bytes), the limit of a .ccl
/// source file; reading stopped after 1048577 bytes" (a pipe or a device).
std::unique_ptr<llvm::MemoryBuffer> readSourceFile(llvm::StringRef path,
                                                   std::string &error);

/// Where `text` stops being text, for checkSourceText.
struct NotText {
  /// The first bad byte (of an invalid UTF-8 sequence: its first byte): its
  /// offset from the start of the file (from 0),
  /// and its line and column (from 1; columns count characters).
  size_t offset = 0, line = 0, column = 0;
  /// Follows the file's name: "is not UTF-8 text (invalid byte 0xNN at
  /// byte offset O, line L, column C)" or "is not text (NUL byte at byte
  /// offset O, line L, column C)".
  std::string message;
};

/// Checks that `text` is UTF-8 without NUL bytes; on failure returns false
/// and says where in `where`.
bool checkSourceText(llvm::StringRef text, NotText &where);

} // namespace ccl

#endif // CCL_FRONTEND_SOURCE_H
