//===- CclDialect.cpp - the ccl dialect -----------------------------------===//

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ccl;

#include "ccl/Dialect/CclDialect.cpp.inc"

#include "ccl/Dialect/CclEnums.cpp.inc"

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

//===----------------------------------------------------------------------===//
// Reading an operation's attributes
//===----------------------------------------------------------------------===//

void ccl::forEachAttr(Operation *op,
                      function_ref<void(StringAttr, Attribute)> fn) {
  for (StringAttr name : op->getName().getAttributeNames()) {
    std::optional<Attribute> v = op->getInherentAttr(name.getValue());
    fn(name, v ? *v : Attribute());
  }
  for (NamedAttribute a : op->getDiscardableAttrs())
    fn(a.getName(), a.getValue());
}

void ccl::forEachChunkRef(Operation *op, function_ref<void(ChunkRefAttr)> fn) {
  forEachAttr(op, [&](StringAttr, Attribute a) {
    if (auto ref = dyn_cast_or_null<ChunkRefAttr>(a))
      fn(ref);
    else if (auto list = dyn_cast_or_null<ArrayAttr>(a))
      for (Attribute e : list)
        if (auto ref = dyn_cast<ChunkRefAttr>(e))
          fn(ref);
  });
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

static CclDialect &dialectOf(Operation *op) {
  auto *dialect = op->getContext()->getLoadedDialect<CclDialect>();
  assert(dialect && "the ccl dialect must be loaded");
  return *dialect;
}

/// The id the discardable attribute of `helper` holds on `op`, if any.
template <typename Helper>
static std::optional<int64_t> getId(Helper helper, Operation *op) {
  if (IntegerAttr id = helper.getAttr(op))
    return id.getInt();
  return std::nullopt;
}

template <typename Helper>
static void setId(Helper helper, Operation *op, int64_t id) {
  helper.setAttr(op, OpBuilder(op->getContext()).getI64IntegerAttr(id));
}

std::optional<int64_t> ccl::getOpId(Operation *op) {
  return getId(dialectOf(op).getOpIdAttrHelper(), op);
}

void ccl::setOpId(Operation *op, int64_t id) {
  setId(dialectOf(op).getOpIdAttrHelper(), op, id);
}

std::optional<int64_t> ccl::getDagId(Operation *op) {
  return getId(dialectOf(op).getDagIdAttrHelper(), op);
}

void ccl::setDagId(Operation *op, int64_t id) {
  setId(dialectOf(op).getDagIdAttrHelper(), op, id);
}

/// The attribute name of the edges of `kind`.
static StringAttr edgeName(Operation *op, DagEdge kind) {
  CclDialect &d = dialectOf(op);
  switch (kind) {
  case DagEdge::ReadAfterWrite:
    return d.getRawAttrHelper().getName();
  case DagEdge::WriteAfterRead:
    return d.getWarAttrHelper().getName();
  case DagEdge::WriteAfterWrite:
    break;
  }
  return d.getWawAttrHelper().getName();
}

ArrayRef<int64_t> ccl::getDagEdges(Operation *op, DagEdge kind) {
  if (auto ids = op->getAttrOfType<DenseI64ArrayAttr>(edgeName(op, kind)))
    return ids.asArrayRef();
  return {};
}

void ccl::setDagEdges(Operation *op, DagEdge kind, ArrayRef<int64_t> ids) {
  StringAttr name = edgeName(op, kind);
  if (ids.empty()) {
    op->removeAttr(name);
    return;
  }
  op->setAttr(name, DenseI64ArrayAttr::get(op->getContext(), ids));
}

LogicalResult CclDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == OpIdAttrHelper::getNameStr() ||
      name == DagIdAttrHelper::getNameStr()) {
    auto id = dyn_cast<IntegerAttr>(value);
    if (!id || !id.getType().isSignlessInteger(64) || id.getInt() < 0)
      return op->emitError("'")
             << name << "' must be a non-negative i64, not " << value;
    return success();
  }
  if (name == RawAttrHelper::getNameStr() ||
      name == WarAttrHelper::getNameStr() ||
      name == WawAttrHelper::getNameStr()) {
    if (!isa<DenseI64ArrayAttr>(value))
      return op->emitError("'")
             << name << "' must be an array<i64: ...> of dag ids, not "
             << value;
    return success();
  }
  return op->emitError("'") << name << "' is not an attribute of the ccl dialect";
}
