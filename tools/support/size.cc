// size.cc - byte counts on command lines (size.h).
#include "tools/support/size.h"

namespace ccl {

bool parseSize(std::string_view text, uint64_t *out, std::string *why) {
  auto bad = [&](const char *what) {
    if (why)
      *why = what;
    return false;
  };
  if (!text.empty() && (text.back() == 'B' || text.back() == 'b'))
    text.remove_suffix(1);
  uint64_t mult = 1;
  if (!text.empty()) {
    switch (text.back()) {
    case 'K':
    case 'k':
      mult = uint64_t(1) << 10;
      break;
    case 'M':
    case 'm':
      mult = uint64_t(1) << 20;
      break;
    case 'G':
    case 'g':
      mult = uint64_t(1) << 30;
      break;
    }
    if (mult != 1)
      text.remove_suffix(1);
  }
  if (text.empty())
    return bad("not a size");
  for (char c : text)
    if (c < '0' || c > '9')
      return bad("not a size");
  uint64_t value = 0;
  for (char c : text)
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, uint64_t(c - '0'), &value))
      return bad("more than 2^64 - 1 bytes");
  if (__builtin_mul_overflow(value, mult, &value))
    return bad("more than 2^64 - 1 bytes");
  *out = value;
  return true;
}

} // namespace ccl
