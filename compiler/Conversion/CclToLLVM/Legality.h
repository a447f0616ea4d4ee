//===- Legality.h - what ccl-lower-to-llvm can lower -------------*- C++ -*-===//
//
// Legality of --ccl-lower-to-llvm, in two steps. Before any kernel is
// built, checkLowerable reports at its source line every operation of a
// scheduled algorithm the lowering cannot produce code for (port channels,
// multimem, thread-block groups, chunk-level cross-rank operations, ...)
// and every channel end two thread blocks share. The conversion target
// then says what the kernels may hold once the patterns ran: the LLVM
// dialect and nothing of the ccl dialect.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_LEGALITY_H
#define CCL_CONVERSION_CCLTOLLVM_LEGALITY_H

#include "ccl/Dialect/CclDialect.h"

#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

namespace ccl {

/// Collects the lowering's errors. An algorithm exists once per rank count,
/// so the same source line would fail once per variant: each (location,
/// message) is reported once.
class Reporter {
public:
  class Msg {
  public:
    Msg(Reporter &r, mlir::Operation *op) : r(r), op(op), os(text) {}
    Msg(const Msg &) = delete;
    ~Msg() { r.emit(op, os.str(), note); }
    template <typename T> Msg &operator<<(const T &v) {
      os << v;
      return *this;
    }
    void attachNote(mlir::Location loc, std::string text) {
      note = {loc, std::move(text)};
    }

  private:
    Reporter &r;
    mlir::Operation *op;
    std::string text;
    llvm::raw_string_ostream os;
    std::optional<std::pair<mlir::Location, std::string>> note;
  };
  Msg fail(mlir::Operation *op) { return Msg(*this, op); }
  bool ok() const { return clean; }

private:
  void emit(mlir::Operation *op, const std::string &msg,
            const std::optional<std::pair<mlir::Location, std::string>> &note);
  bool clean = true;
  std::set<std::pair<const void *, std::string>> seen;
};

/// Reports, at the operation's source line, what the lowering does not
/// support in `algo`, and channel ends shared by thread blocks.
void checkLowerable(AlgorithmOp algo, Reporter &rep);

/// The kernels hold LLVM dialect operations only.
class CclToLLVMConversionTarget : public mlir::ConversionTarget {
public:
  explicit CclToLLVMConversionTarget(mlir::MLIRContext &ctx);
};

} // namespace ccl

#endif // CCL_CONVERSION_CCLTOLLVM_LEGALITY_H
