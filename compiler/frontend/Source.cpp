//===- Source.cpp - reading .ccl source files (Source.h) ------------------===//

#include "compiler/frontend/Source.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Errno.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace ccl {

static constexpr const char *kLimitText =
    "1 MiB (1048576 bytes), the limit of a .ccl source file";
static_assert(kMaxSourceBytes == 1048576, "kLimitText says 1 MiB");

std::unique_ptr<MemoryBuffer> readSourceFile(StringRef path,
                                             std::string &error) {
  const bool stdinInput = path == "-";
  int fd = stdinInput ? STDIN_FILENO
                      : ::open(path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot be opened: " + sys::StrError(errno);
    return nullptr;
  }
  // A regular file says its size; anything else (a pipe, a device such as
  // /dev/zero) is read until it ends or passes the limit.
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      uint64_t(st.st_size) > kMaxSourceBytes) {
    if (!stdinInput)
      ::close(fd);
    error =
        "is " + std::to_string(st.st_size) + " bytes, more than " + kLimitText;
    return nullptr;
  }
  std::string data;
  char chunk[65536];
  bool tooLarge = false;
  for (;;) {
    // Never more than kMaxSourceBytes + 1 in all: one byte over says enough.
    size_t want =
        std::min<size_t>(sizeof chunk, kMaxSourceBytes + 1 - data.size());
    ssize_t n = ::read(fd, chunk, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = "cannot be read: " + sys::StrError(errno);
      if (!stdinInput)
        ::close(fd);
      return nullptr;
    }
    if (n == 0)
      break;
    data.append(chunk, n);
    if (data.size() > kMaxSourceBytes) {
      tooLarge = true;
      break;
    }
  }
  if (!stdinInput)
    ::close(fd);
  if (tooLarge) {
    error = "is more than " + std::string(kLimitText) +
            "; reading stopped after " + std::to_string(data.size()) + " bytes";
    return nullptr;
  }
  return MemoryBuffer::getMemBufferCopy(data, stdinInput ? "<stdin>" : path);
}

bool checkSourceText(StringRef text, NotText &bad) {
  // LLVM's check stops at the first byte of the first invalid sequence
  // (overlong forms, surrogates and code points above U+10FFFF included).
  const auto *begin = reinterpret_cast<const UTF8 *>(text.data());
  const UTF8 *stop = begin;
  const size_t invalid = isLegalUTF8String(&stop, begin + text.size())
                             ? StringRef::npos
                             : size_t(stop - begin);
  const size_t nul = text.find('\0');
  const size_t offset = std::min(nul, invalid);
  if (offset == StringRef::npos)
    return true;
  StringRef before = text.take_front(offset);
  StringRef lineSoFar = before.substr(before.rfind('\n') + 1);
  bad.offset = offset;
  bad.line = 1 + before.count('\n');
  // Columns count characters: every byte but UTF-8 continuation bytes.
  bad.column = 1 + llvm::count_if(lineSoFar, [](char c) {
                 return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
               });
  std::string what;
  if (offset == nul) {
    what = "is not text (NUL byte";
  } else {
    what = "is not UTF-8 text (invalid byte " +
           llvm::utohexstr(static_cast<unsigned char>(text[offset]),
                           /*LowerCase=*/true, /*Width=*/2);
    what.insert(what.size() - 2, "0x");
  }
  bad.message = what + " at byte offset " + std::to_string(offset) + ", line " +
                std::to_string(bad.line) + ", column " +
                std::to_string(bad.column) + ")";
  return false;
}

} // namespace ccl
