//===- InputLimits.h - input refused before a parser sees it ---*- C++ -*-===//
//
// MLIR 22's parser recurses once per level of nested brackets: an
// attribute nested a few thousand levels deep overflows the stack of
// ccl-opt (and mlir-opt). Such input is refused before it is parsed, with
// the position of the first bracket past the limit, as cclc refuses .ccl
// source nested too deeply (compiler/frontend/Parser.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef CCL_SUPPORT_INPUTLIMITS_H
#define CCL_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace ccl {

/// How deep brackets of MLIR text may nest: far above what any program
/// the compiler writes holds, far below what overflows an 8 MiB stack
/// (under ASan, whose frames are larger).
constexpr int kMaxMlirNesting = 256;

/// The offset in `text` of the first bracket ('(', '[', '{', '<') that
/// opens level `limit + 1`, counting outside string literals and `//`
/// comments; nothing if the text stays within `limit` levels.
std::optional<size_t> firstTooDeep(llvm::StringRef text,
                                   int limit = kMaxMlirNesting);

} // namespace ccl

#endif // CCL_SUPPORT_INPUTLIMITS_H
