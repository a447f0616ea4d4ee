// types.h - C++ lookups over ccl/types.def (element types and reduction
// operators) for cclc, libcclrt and ccl-perf. Not part of the installed C
// API: applications use cclDataType_t and cclRedOp_t from ccl.h.
#ifndef CCL_TYPES_H
#define CCL_TYPES_H

#include <cstddef>
#include <string>
#include <string_view>

namespace ccl {

struct DTypeInfo {
  unsigned code;        ///< CCL_DT_* / cclDataType_t
  const char *name;     ///< "float32"
  size_t size;          ///< bytes per element
  const char *suffix;   ///< "f32": kernel names, LLVM element type
  const char *ncclName; ///< "float": nccl-tests' table name
};

struct RedOpInfo {
  unsigned code;    ///< CCL_OP_* / cclRedOp_t
  const char *name; ///< "sum"
};

inline constexpr DTypeInfo kDTypes[] = {
#define CCL_DTYPE(ID, CName, code, name, size, suffix, ncclName)               \
  {code, name, size, suffix, ncclName},
#include "ccl/types.def"
};

/// NCCL's other element types: no kernels; the byte-moving collectives of
/// a bundle serve them by size (CCL_BYTE_DTYPE in types.def).
struct ByteTypeInfo {
  unsigned code;    ///< cclDataType_t
  const char *name; ///< "int8"
  size_t size;      ///< bytes per element
};
inline constexpr ByteTypeInfo kByteTypes[] = {
#define CCL_BYTE_DTYPE(ID, CName, code, name, size, ...) {code, name, size},
#include "ccl/types.def"
};

inline constexpr RedOpInfo kRedOps[] = {
#define CCL_REDOP(ID, CName, code, name) {code, name},
#include "ccl/types.def"
};

/// The names alone, in table order (default option lists).
inline constexpr const char *kDTypeNames[] = {
#define CCL_DTYPE(ID, CName, code, name, ...) name,
#include "ccl/types.def"
};

/// The row named `name`, or nullptr.
inline const DTypeInfo *findDType(std::string_view name) {
  for (const DTypeInfo &d : kDTypes)
    if (name == d.name)
      return &d;
  return nullptr;
}
inline const RedOpInfo *findRedOp(std::string_view name) {
  for (const RedOpInfo &o : kRedOps)
    if (name == o.name)
      return &o;
  return nullptr;
}

/// The row whose code is `code`, or nullptr.
inline const DTypeInfo *dtypeByCode(unsigned code) {
  for (const DTypeInfo &d : kDTypes)
    if (d.code == code)
      return &d;
  return nullptr;
}
inline const ByteTypeInfo *byteTypeByCode(unsigned code) {
  for (const ByteTypeInfo &b : kByteTypes)
    if (b.code == code)
      return &b;
  return nullptr;
}
inline const RedOpInfo *redOpByCode(unsigned code) {
  for (const RedOpInfo &o : kRedOps)
    if (o.code == code)
      return &o;
  return nullptr;
}

/// "float32,float16,bfloat16": every name of the table, in order, joined by
/// `sep` (option defaults and help texts).
inline std::string allDTypeNames(const char *sep = ",") {
  std::string s;
  for (const DTypeInfo &d : kDTypes)
    s += (s.empty() ? "" : sep) + std::string(d.name);
  return s;
}
inline std::string allRedOpNames(const char *sep = ",") {
  std::string s;
  for (const RedOpInfo &o : kRedOps)
    s += (s.empty() ? "" : sep) + std::string(o.name);
  return s;
}

} // namespace ccl

#endif // CCL_TYPES_H
