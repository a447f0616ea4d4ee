// output.cc - see output.h.
#include "tools/ccl-run/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cclrun {

void writeAll(int fd, const char *data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    data += w;
    n -= (size_t)w;
  }
}

TaggedStream::TaggedStream(std::string prefix, int dest)
    : prefix_(std::move(prefix)), dest_(dest) {}

void TaggedStream::emit(const char *line, size_t n) {
  // One write per line: lines of ccl-run's own messages (stderr) and of
  // the other stream do not land inside it.
  std::string out = prefix_;
  out.append(line, n);
  out += '\n';
  writeAll(dest_, out.data(), out.size());
}

void TaggedStream::feed(const char *data, size_t n) {
  while (n > 0) {
    const char *nl = static_cast<const char *>(std::memchr(data, '\n', n));
    size_t take = nl ? (size_t)(nl - data) : n;
    if (!nl && pending_.size() + take <= kMaxLine) {
      pending_.append(data, take);
      return;
    }
    if (pending_.size() + take > kMaxLine)
      take = kMaxLine - pending_.size(); // cut: emit a full-length line
    pending_.append(data, take);
    emit(pending_.data(), pending_.size());
    pending_.clear();
    bool atNewline = nl && data + take == nl;
    data += take + (atNewline ? 1 : 0);
    n -= take + (atNewline ? 1 : 0);
  }
}

void TaggedStream::finish() {
  if (!pending_.empty())
    emit(pending_.data(), pending_.size());
  pending_.clear();
}

} // namespace cclrun
