//===- Source.cpp - reading .ccl source files (Source.h) ------------------===//

#include "compiler/frontend/Source.h"

#include "llvm/Support/Errno.h"

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
  size_t line = 1, column = 1;
  auto hex = [](unsigned char c) {
    const char *digits = "0123456789abcdef";
    return std::string("0x") + digits[c >> 4] + digits[c & 15];
  };
  // Records the first bad byte, at `offset`, of the character at line,
  // column; `what` opens the message.
  auto fail = [&](size_t offset, const std::string &what) {
    bad.offset = offset;
    bad.line = line;
    bad.column = column;
    bad.message = what + " at byte offset " + std::to_string(offset) +
                  ", line " + std::to_string(line) + ", column " +
                  std::to_string(column) + ")";
    return false;
  };
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c == 0)
      return fail(i, "is not text (NUL byte");
    if (c < 0x80) {
      ++i;
      if (c == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
      continue;
    }
    // The length of the sequence and the range of its second byte
    // (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing
    // above U+10FFFF).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0)
        lo = 0xA0;
      if (c == 0xED)
        hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0)
        lo = 0x90;
      if (c == 0xF4)
        hi = 0x8F;
    } else {
      return fail(i, "is not UTF-8 text (invalid byte " + hex(c));
    }
    for (size_t k = 1; k < len; ++k) {
      unsigned char lowest = k == 1 ? lo : 0x80, highest = k == 1 ? hi : 0xBF;
      if (i + k >= n || p[i + k] < lowest || p[i + k] > highest) {
        // The byte that breaks the sequence (or its lead byte at the end).
        size_t at = i + k < n ? i + k : i;
        return fail(at, "is not UTF-8 text (invalid byte " + hex(p[at]));
      }
    }
    i += len;
    ++column;
  }
  return true;
}

} // namespace ccl
