//===- CclDialect.cpp - the ccl dialect -----------------------------------===//

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ccl;

#include "ccl/Dialect/CclDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ccl/Dialect/CclAttrs.cpp.inc"

void CclDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ccl/Dialect/CclAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ccl/Dialect/CclOps.cpp.inc"
      >();
}

LogicalResult
ChunkRefAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                     StringRef buffer, int64_t rank, int64_t index,
                     int64_t count) {
  if (buffer.empty())
    return emitError() << "chunk reference needs a buffer name";
  if (rank < 0)
    return emitError() << "chunk reference has negative rank " << rank;
  if (index < 0)
    return emitError() << "chunk reference has negative chunk index " << index;
  if (count < 1)
    return emitError() << "chunk reference must cover at least one chunk, not "
                       << count;
  return success();
}

bool ChunkRefAttr::overlaps(ChunkRefAttr other) const {
  return getBuffer() == other.getBuffer() && getRank() == other.getRank() &&
         getIndex() < other.getIndex() + other.getCount() &&
         other.getIndex() < getIndex() + getCount();
}

std::string ChunkRefAttr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << getBuffer() << "[" << getRank() << "][" << getIndex();
  if (getCount() != 1)
    os << ":" << getIndex() + getCount();
  os << "]";
  return s;
}
