// dtype.h - element types and reduction operators of ccl-perf, and exact
// float <-> float16 / bfloat16 conversions (round to nearest even).
// Header-only; also used by the host-target test fixtures in test/perf/.
#ifndef CCL_PERF_DTYPE_H
#define CCL_PERF_DTYPE_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ccl/types.h"

namespace cclperf {

// The values of cclDataType_t and cclRedOp_t, from ccl/types.def.
enum class DType : unsigned {
#define CCL_DTYPE(ID, CName, code, ...) CName = code,
#include "ccl/types.def"
};
enum class Op : unsigned {
#define CCL_REDOP(ID, CName, code, ...) CName = code,
#include "ccl/types.def"
};

inline const ccl::DTypeInfo &dtypeInfo(DType t) {
  return *ccl::dtypeByCode(static_cast<unsigned>(t));
}
inline size_t dtypeSize(DType t) { return dtypeInfo(t).size; }
// Names as nccl-tests prints them in its table.
inline const char *dtypeTableName(DType t) { return dtypeInfo(t).ncclName; }
inline const char *dtypeName(DType t) { return dtypeInfo(t).name; }
inline const char *opName(Op o) {
  return ccl::redOpByCode(static_cast<unsigned>(o))->name;
}

inline uint32_t floatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}
inline float bitsFloat(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t floatToHalf(float f) {
  uint32_t x = floatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff)  // inf / nan (keep nan quiet)
    return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half (or zero)
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;  // may carry into exp
  return (uint16_t)h;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = std::ldexp((float)mant, -24);
    return sign ? -v : v;
  }
  if (exp == 31) return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

inline uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}
inline float bf16ToFloat(uint16_t b) { return bitsFloat((uint32_t)b << 16); }

// Element `i` of a buffer of type `t`, as float.
inline float loadAsFloat(DType t, const void *buf, size_t i) {
  switch (t) {
    case DType::Float32: {
      float f;
      std::memcpy(&f, (const char *)buf + 4 * i, 4);
      return f;
    }
    case DType::Float16: {
      uint16_t h;
      std::memcpy(&h, (const char *)buf + 2 * i, 2);
      return halfToFloat(h);
    }
    case DType::Bfloat16: {
      uint16_t h;
      std::memcpy(&h, (const char *)buf + 2 * i, 2);
      return bf16ToFloat(h);
    }
  }
  return 0;
}
inline void storeFromFloat(DType t, void *buf, size_t i, float v) {
  switch (t) {
    case DType::Float32: std::memcpy((char *)buf + 4 * i, &v, 4); break;
    case DType::Float16: {
      uint16_t h = floatToHalf(v);
      std::memcpy((char *)buf + 2 * i, &h, 2);
      break;
    }
    case DType::Bfloat16: {
      uint16_t h = floatToBf16(v);
      std::memcpy((char *)buf + 2 * i, &h, 2);
      break;
    }
  }
}

// a op b, in the type of the operands (ints for the references, floats for
// the test doubles' arithmetic).
template <typename T>
inline T applyOp(Op o, T a, T b) {
  switch (o) {
    case Op::Sum: return a + b;
    case Op::Prod: return a * b;
    case Op::Max: return a > b ? a : b;
    case Op::Min: return a < b ? a : b;
  }
  return a;
}

}  // namespace cclperf

#endif  // CCL_PERF_DTYPE_H
