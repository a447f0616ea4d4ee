// output.h - --tag-output: a rank's stdout or stderr, line by line, with
// its rank in front.
#ifndef CCL_TOOLS_CCL_RUN_OUTPUT_H
#define CCL_TOOLS_CCL_RUN_OUTPUT_H

#include <cstddef>
#include <string>

namespace cclrun {

// Writes whole lines only, so that lines of different ranks never mix;
// a line longer than kMaxLine is cut into lines of that length.
class TaggedStream {
public:
  static constexpr size_t kMaxLine = 64 * 1024;

  // Lines go to `dest` (1 or 2) as "PREFIXline\n".
  TaggedStream(std::string prefix, int dest);
  // Takes bytes the rank wrote; writes the lines they complete.
  void feed(const char *data, size_t n);
  // At the rank's end: writes an unfinished last line, with a newline.
  void finish();

private:
  void emit(const char *line, size_t n);

  std::string prefix_;
  int dest_;
  std::string pending_; // the unfinished line
};

// write(2) until all of `data` is out; gives up on an error (a closed
// reader: the output is lost, the ranks go on).
void writeAll(int fd, const char *data, size_t n);

} // namespace cclrun

#endif
