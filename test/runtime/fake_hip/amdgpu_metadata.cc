// amdgpu_metadata.cc - the explicit kernel arguments of an AMDGPU code
// object's metadata (amdgpu_metadata.h): a small MessagePack reader (the
// types the metadata uses: integers, strings, arrays, maps, booleans,
// nil, floats and binary skipped) and a walk over "amdhsa.kernels".
#include "amdgpu_metadata.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace fakehip {
namespace {

struct Value {
  enum Type { kNil, kInt, kStr, kArr, kMap, kOther } type = kNil;
  int64_t i = 0;
  std::string s;
  std::vector<Value> arr;
  std::vector<std::pair<Value, Value>> map;

  const Value *get(const char *key) const {
    for (const auto &kv : map)
      if (kv.first.type == kStr && kv.first.s == key)
        return &kv.second;
    return nullptr;
  }
};

class Reader {
public:
  Reader(const unsigned char *p, size_t n) : p_(p), end_(p + n) {}

  bool read(Value *v, int depth = 0) {
    if (depth > 32 || p_ >= end_)
      return false;
    const unsigned char c = *p_++;
    if (c <= 0x7f)
      return v->type = Value::kInt, v->i = c, true;
    if (c >= 0xe0)
      return v->type = Value::kInt, v->i = (int8_t)c, true;
    if ((c & 0xf0) == 0x80)
      return readMap(v, c & 0x0f, depth);
    if ((c & 0xf0) == 0x90)
      return readArr(v, c & 0x0f, depth);
    if ((c & 0xe0) == 0xa0)
      return readStr(v, c & 0x1f);
    switch (c) {
    case 0xc0:
      return v->type = Value::kNil, true;
    case 0xc2:
    case 0xc3:
      return v->type = Value::kInt, v->i = c == 0xc3, true;
    case 0xc4:
    case 0xc5:
    case 0xc6: { // bin: skipped
      uint64_t n;
      return uint(1u << (c - 0xc4), &n) && skip(n) && (v->type = Value::kOther);
    }
    case 0xca:
      return skip(4) && (v->type = Value::kOther);
    case 0xcb:
      return skip(8) && (v->type = Value::kOther);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      uint64_t n;
      if (!uint(1u << (c - 0xcc), &n))
        return false;
      return v->type = Value::kInt, v->i = (int64_t)n, true;
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      const unsigned bytes = 1u << (c - 0xd0);
      uint64_t n;
      if (!uint(bytes, &n))
        return false;
      if (bytes < 8 && (n >> (bytes * 8 - 1)))
        n |= ~0ull << (bytes * 8); // sign-extend
      return v->type = Value::kInt, v->i = (int64_t)n, true;
    }
    case 0xd9:
    case 0xda:
    case 0xdb: {
      uint64_t n;
      return uint(1u << (c - 0xd9), &n) && readStr(v, n);
    }
    case 0xdc:
    case 0xdd: {
      uint64_t n;
      return uint(c == 0xdc ? 2 : 4, &n) && readArr(v, n, depth);
    }
    case 0xde:
    case 0xdf: {
      uint64_t n;
      return uint(c == 0xde ? 2 : 4, &n) && readMap(v, n, depth);
    }
    }
    return false; // ext types and reserved bytes: not in the metadata
  }

private:
  bool uint(unsigned bytes, uint64_t *n) {
    if ((size_t)(end_ - p_) < bytes)
      return false;
    *n = 0;
    for (unsigned k = 0; k < bytes; k++)
      *n = (*n << 8) | *p_++; // big-endian
    return true;
  }
  bool skip(uint64_t n) {
    if ((uint64_t)(end_ - p_) < n)
      return false;
    p_ += n;
    return true;
  }
  bool readStr(Value *v, uint64_t n) {
    if ((uint64_t)(end_ - p_) < n)
      return false;
    v->type = Value::kStr;
    v->s.assign(reinterpret_cast<const char *>(p_), n);
    p_ += n;
    return true;
  }
  bool readArr(Value *v, uint64_t n, int depth) {
    if (n > (uint64_t)(end_ - p_))
      return false; // every element takes a byte at least
    v->type = Value::kArr;
    v->arr.resize(n);
    for (Value &e : v->arr)
      if (!read(&e, depth + 1))
        return false;
    return true;
  }
  bool readMap(Value *v, uint64_t n, int depth) {
    if (n > (uint64_t)(end_ - p_))
      return false;
    v->type = Value::kMap;
    v->map.resize(n);
    for (auto &kv : v->map)
      if (!read(&kv.first, depth + 1) || !read(&kv.second, depth + 1))
        return false;
    return true;
  }

  const unsigned char *p_, *end_;
};

} // namespace

bool kernelMetadata(const unsigned char *desc, size_t size,
                    std::map<std::string, KernelMeta> *out) {
  Value root;
  Reader rd(desc, size);
  if (!rd.read(&root) || root.type != Value::kMap)
    return false;
  const Value *kernels = root.get("amdhsa.kernels");
  if (!kernels || kernels->type != Value::kArr)
    return false;
  for (const Value &k : kernels->arr) {
    const Value *name = k.get(".name");
    const Value *args = k.get(".args");
    if (!name || name->type != Value::kStr)
      return false;
    uint32_t end = 0;
    if (args && args->type == Value::kArr)
      for (const Value &a : args->arr) {
        const Value *off = a.get(".offset"), *sz = a.get(".size"),
                    *kind = a.get(".value_kind");
        if (!off || !sz || !kind || off->type != Value::kInt ||
            sz->type != Value::kInt || kind->type != Value::kStr)
          return false;
        if (kind->s.rfind("hidden_", 0) == 0)
          continue;
        end = std::max<uint32_t>(end, (uint32_t)(off->i + sz->i));
      }
    KernelMeta meta;
    meta.explicitBytes = end;
    if (const Value *mf = k.get(".max_flat_workgroup_size");
        mf && mf->type == Value::kInt)
      meta.maxFlat = (uint32_t)mf->i;
    if (const Value *rq = k.get(".reqd_workgroup_size");
        rq && rq->type == Value::kArr && rq->arr.size() == 3)
      for (int d = 0; d < 3; d++)
        if (rq->arr[d].type == Value::kInt)
          meta.reqd[d] = (uint32_t)rq->arr[d].i;
    (*out)[name->s] = meta;
  }
  return true;
}

} // namespace fakehip
