// size.h - byte counts on command lines ("4M", "1KB", "300"), parsed the
// same way by every tool of the project (cclc --max-bytes, ccl-perf -b/-e/-i
// and --check-mem).
#ifndef CCL_TOOLS_SUPPORT_SIZE_H
#define CCL_TOOLS_SUPPORT_SIZE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace ccl {

// Parses decimal digits optionally followed by K, M or G (2^10, 2^20, 2^30;
// either case), then optionally B ("1K", "1KB", "1kb", "64B", "300").
// Returns false, leaving *out unchanged, when `text` has anything else (a
// sign, spaces, another suffix) or the value does not fit in 64 bits; then
// `why` (when given) says which: "not a size" or "more than 2^64 - 1 bytes".
bool parseSize(std::string_view text, uint64_t *out,
               std::string *why = nullptr);

} // namespace ccl

#endif // CCL_TOOLS_SUPPORT_SIZE_H
