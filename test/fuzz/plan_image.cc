// plan_image.cc - plan tables as bytes and back (plan_image.h).
#include "plan_image.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace plan_image {
namespace {

// A pointer field of a struct: where it is, what it points to, and the
// uint32_t field that counts its elements or the uint64_t field that holds
// its size in bytes (-1: none).
struct Field {
  size_t offset;
  ImageKind target;
  long count;
  long size;
};

Field field(size_t offset, ImageKind target, long count = -1, long size = -1) {
  return Field{offset, target, count, size};
}
#define PTR(T, f, kind) field(offsetof(T, f), kind)
#define TABLE(T, f, kind, n) field(offsetof(T, f), kind, offsetof(T, n))
#define DATA(T, f, size) field(offsetof(T, f), kBytes, -1, offsetof(T, size))

// The pointer fields of each struct of ccl/plan.h (every other field is
// copied from the image as it is).
const std::vector<Field> &fieldsOf(ImageKind kind) {
  static const std::vector<Field> none;
  static const std::vector<Field> plan = {
      PTR(ccl_plan, algorithm, kBytes),
      PTR(ccl_plan, collective, kBytes),
      PTR(ccl_plan, source, kBytes),
      TABLE(ccl_plan, variants, kVariant, num_variants),
      TABLE(ccl_plan, ops, kOp, num_ops),
      TABLE(ccl_plan, images, kImage, num_images),
  };
  static const std::vector<Field> variant = {
      TABLE(ccl_variant, scratch, kScratch, num_scratch),
      TABLE(ccl_variant, kernels, kKernel, num_kernels),
      TABLE(ccl_variant, channels, kChannel, num_channels),
      TABLE(ccl_variant, semaphores, kSemaphore, num_semaphores),
      TABLE(ccl_variant, barriers, kBarrier, num_barriers),
  };
  static const std::vector<Field> scratch = {
      PTR(ccl_scratch_info, name, kBytes)};
  static const std::vector<Field> kernel = {
      PTR(ccl_kernel_info, symbol, kBytes),
      PTR(ccl_kernel_info, host_fn, kHostFn)};
  static const std::vector<Field> op = {PTR(ccl_op_info, kind, kBytes),
                                        PTR(ccl_op_info, file, kBytes)};
  static const std::vector<Field> image = {PTR(ccl_image, arch, kBytes),
                                           DATA(ccl_image, data, size)};
  static const std::vector<Field> selection = {
      TABLE(ccl_selection, rows, kRow, num_rows),
      TABLE(ccl_selection, algorithms, kRow, num_algorithms),
      PTR(ccl_selection, source, kBytes),
      TABLE(ccl_selection, deterministic_rows, kRow, num_deterministic_rows)};
  static const std::vector<Field> row = {
      PTR(ccl_selection_row, algorithm, kBytes),
      TABLE(ccl_selection_row, plans, kPlanRef, num_plans),
      PTR(ccl_selection_row, where, kBytes)};
  switch (kind) {
  case kPlan:
    return plan;
  case kVariant:
    return variant;
  case kScratch:
    return scratch;
  case kKernel:
    return kernel;
  case kOp:
    return op;
  case kImage:
    return image;
  case kSelection:
    return selection;
  case kRow:
    return row;
  default:
    return none;
  }
}

#undef PTR
#undef TABLE
#undef DATA

uint32_t readU32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
uint64_t readU64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

} // namespace

size_t elementSize(ImageKind kind) {
  switch (kind) {
  case kCall:
    return sizeof(PlanCall);
  case kRecord:
    return sizeof(ccl_error_record);
  case kPlan:
    return sizeof(ccl_plan);
  case kVariant:
    return sizeof(ccl_variant);
  case kScratch:
    return sizeof(ccl_scratch_info);
  case kKernel:
    return sizeof(ccl_kernel_info);
  case kChannel:
    return sizeof(ccl_channel_info);
  case kSemaphore:
    return sizeof(ccl_semaphore_info);
  case kBarrier:
    return sizeof(ccl_barrier_info);
  case kOp:
    return sizeof(ccl_op_info);
  case kImage:
    return sizeof(ccl_image);
  case kSelection:
    return sizeof(ccl_selection);
  case kRow:
    return sizeof(ccl_selection_row);
  case kPlanRef:
    return sizeof(uint32_t);
  default:
    return 1;
  }
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

void *Decoded::allocate(size_t bytes) {
  // One allocation per table, of its exact size: ASan sees a read past its
  // end. Never NULL for an empty table (the runtime must not read it).
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    return nullptr;
  owned.emplace_back(p, free);
  decodedBytes += bytes;
  return p;
}

// Copies one element of `kind` (esize bytes at src, or none) into the
// struct at dst and resolves its pointer fields.
void Decoded::fill(ImageKind kind, uint8_t *dst, const uint8_t *src,
                   size_t esize) {
  const size_t size = elementSize(kind);
  memset(dst, 0, size);
  if (src)
    memcpy(dst, src, std::min(esize, size));
  for (const Field &f : fieldsOf(kind)) {
    const uint64_t ref = readU64(dst + f.offset);
    if (f.target == kHostFn) {
      const uint32_t r = (uint32_t)ref;
      ccl_host_kernel_fn fn = r && nfns ? fns[(r - 1) % nfns] : nullptr;
      memcpy(dst + f.offset, &fn, sizeof fn);
      continue;
    }
    uint32_t count = f.count >= 0 ? readU32(dst + f.count) : 0;
    uint64_t bytes = f.size >= 0 ? readU64(dst + f.size) : 0;
    const void *p = resolve(f.target, ref, f.count >= 0 ? &count : nullptr,
                            f.size >= 0 ? &bytes : nullptr);
    memcpy(dst + f.offset, &p, sizeof p);
    if (f.count >= 0)
      memcpy(dst + f.count, &count, sizeof count);
    if (f.size >= 0)
      memcpy(dst + f.size, &bytes, sizeof bytes);
  }
}

// The table a reference names, copied with *count elements (a kBytes
// table: NUL-terminated, *size at most its length); NULL for reference 0,
// no table of the kind, or a decoded total over kMaxDecodedBytes.
const void *Decoded::resolve(ImageKind kind, uint64_t ref, uint32_t *count,
                             uint64_t *size) {
  const uint32_t r = (uint32_t)ref;
  if (r == 0 || byKind[kind].empty())
    return nullptr;
  const size_t index = byKind[kind][(r - 1) % byKind[kind].size()];
  const Table &t = tables[index];
  if (kind == kBytes) {
    const size_t len = (size_t)t.n * t.esize;
    if (size && *size > len)
      *size = len;
    auto key = std::make_tuple((int)kind, index, 0u);
    if (void *p = memo[key])
      return p;
    if (decodedBytes + len + 1 > kMaxDecodedBytes)
      return nullptr;
    char *s = static_cast<char *>(allocate(len + 1));
    if (!s)
      return nullptr;
    if (len)
      memcpy(s, t.bytes, len);
    s[len] = '\0';
    memo[key] = s;
    return s;
  }
  if (*count > kMaxElements)
    *count = t.n;
  const uint32_t n = *count;
  auto key = std::make_tuple((int)kind, index, n);
  if (void *p = memo[key])
    return p;
  const size_t esize =
      kind == kPlanRef ? sizeof(const ccl_plan *) : elementSize(kind);
  const size_t bytes = (size_t)n * esize;
  if (decodedBytes + bytes > kMaxDecodedBytes)
    return nullptr;
  uint8_t *out = static_cast<uint8_t *>(allocate(bytes));
  if (!out)
    return nullptr;
  memo[key] = out;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *src = i < t.n ? t.bytes + (size_t)i * t.esize : nullptr;
    if (kind == kPlanRef) {
      uint32_t v = 0;
      if (src)
        memcpy(&v, src, std::min(t.esize, sizeof v));
      const ccl_plan *p =
          v && numPlans ? &planSlots[(v - 1) % numPlans] : nullptr;
      memcpy(out + (size_t)i * esize, &p, sizeof p);
    } else {
      fill(kind, out + (size_t)i * esize, src, src ? t.esize : 0);
    }
  }
  return out;
}

void Decoded::decode(const uint8_t *data, size_t size, ccl_plan *plans,
                     size_t maxPlansIn, const ccl_host_kernel_fn *fnsIn,
                     size_t nfnsIn) {
  planSlots = plans;
  maxPlans = maxPlansIn;
  fns = fnsIn;
  nfns = nfnsIn;
  size_t pos = 0;
  while (size - pos >= 4) {
    Table t;
    t.kind = ImageKind(data[pos] % kNumKinds);
    t.esize = data[pos + 1];
    t.n = (uint32_t)data[pos + 2] | (uint32_t)data[pos + 3] << 8;
    pos += 4;
    if (t.esize && (size_t)t.n * t.esize > size - pos)
      t.n = (uint32_t)((size - pos) / t.esize);
    t.bytes = data + pos;
    pos += (size_t)t.n * t.esize;
    tables.push_back(t);
  }
  byKind.assign(kNumKinds, {});
  for (size_t i = 0; i < tables.size(); i++)
    byKind[tables[i].kind].push_back(i);
  // The first element of the first table of a kind that has one.
  auto first = [&](ImageKind kind) -> const Table * {
    for (size_t i : byKind[kind])
      if (tables[i].n)
        return &tables[i];
    return nullptr;
  };
  if (const Table *t = first(kCall))
    memcpy(&call, t->bytes, std::min(t->esize, sizeof call));
  if (const Table *t = first(kRecord)) {
    hasRecord = true;
    memcpy(&record, t->bytes, std::min(t->esize, sizeof record));
  }
  if (!byKind[kPlan].empty()) {
    const Table &t = tables[byKind[kPlan].front()];
    numPlans = std::min<size_t>(t.n, maxPlans);
    for (size_t i = 0; i < numPlans; i++)
      fill(kPlan, reinterpret_cast<uint8_t *>(&plans[i]), t.bytes + i * t.esize,
           t.esize);
  }
  if (const Table *t = first(kSelection)) {
    hasSelection = true;
    fill(kSelection, reinterpret_cast<uint8_t *>(&selection), t->bytes,
         t->esize);
  }
}

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

namespace {

class Writer {
public:
  explicit Writer(const std::vector<const ccl_plan *> &plans) : plans(plans) {}

  // A table of `n` elements of `kind` at `base` (kBytes: n bytes); returns
  // its reference.
  uint32_t table(ImageKind kind, const void *base, uint32_t n) {
    if (!base)
      return 0;
    n = std::min<uint32_t>(n, 0xffff);
    auto key = std::make_tuple((int)kind, base, n);
    auto it = seen.find(key);
    if (it != seen.end())
      return it->second;
    const uint32_t ref = ++ordinal[kind];
    seen[key] = ref;
    const size_t slot = tables.size();
    tables.emplace_back();
    const size_t esize = elementSize(kind);
    std::string out;
    out.push_back((char)kind);
    out.push_back((char)esize);
    out.push_back((char)(n & 0xff));
    out.push_back((char)(n >> 8));
    const uint8_t *src = static_cast<const uint8_t *>(base);
    for (uint32_t i = 0; i < n; i++)
      out += element(kind, src + (size_t)i * memberSize(kind));
    tables[slot] = std::move(out);
    return ref;
  }

  // A table of one element of `kind` that is not in a library (the call).
  void raw(ImageKind kind, const void *p, size_t bytes) {
    ++ordinal[kind];
    std::string out;
    out.push_back((char)kind);
    out.push_back((char)bytes);
    out.push_back(1);
    out.push_back(0);
    out.append(static_cast<const char *>(p), bytes);
    tables.push_back(std::move(out));
  }

  std::string result() const {
    std::string all;
    for (const std::string &t : tables)
      all += t;
    return all;
  }

private:
  // The size of one element in memory (kPlanRef: a plan pointer).
  static size_t memberSize(ImageKind kind) {
    return kind == kPlanRef ? sizeof(const ccl_plan *) : elementSize(kind);
  }

  std::string element(ImageKind kind, const uint8_t *src) {
    if (kind == kPlanRef) {
      const ccl_plan *p;
      memcpy(&p, src, sizeof p);
      uint32_t v = 0;
      for (size_t i = 0; i < plans.size(); i++)
        if (plans[i] == p)
          v = (uint32_t)i + 1;
      return std::string(reinterpret_cast<const char *>(&v), sizeof v);
    }
    if (kind == kBytes)
      return std::string(1, (char)*src);
    std::string e(reinterpret_cast<const char *>(src), elementSize(kind));
    uint8_t *dst = reinterpret_cast<uint8_t *>(&e[0]);
    for (const Field &f : fieldsOf(kind)) {
      const void *p;
      memcpy(&p, src + f.offset, sizeof p);
      uint64_t ref = 0;
      if (f.target == kHostFn) {
        ref = p ? 1 : 0;
      } else if (f.target == kBytes && p) {
        // A string, or data of the size the struct says.
        const uint64_t len = f.size >= 0 ? readU64(src + f.size)
                                         : strlen(static_cast<const char *>(p));
        ref = table(kBytes, p, (uint32_t)std::min<uint64_t>(len, 0xffff));
      } else if (f.target != kBytes) {
        ref = table(f.target, p, readU32(src + f.count));
      }
      memcpy(dst + f.offset, &ref, sizeof ref);
    }
    return e;
  }

  const std::vector<const ccl_plan *> &plans;
  std::vector<std::string> tables;
  uint32_t ordinal[kNumKinds] = {};
  std::map<std::tuple<int, const void *, uint32_t>, uint32_t> seen;
};

} // namespace

std::string encode(const std::vector<const ccl_plan *> &plans,
                   const ccl_selection *sel, const PlanCall &call,
                   const ccl_error_record *record) {
  Writer w(plans);
  w.raw(kCall, &call, sizeof call);
  if (record)
    w.raw(kRecord, record, sizeof *record);
  // The plans are one table: copy them side by side first.
  std::vector<ccl_plan> copies;
  for (const ccl_plan *p : plans)
    copies.push_back(*p);
  w.table(kPlan, copies.data(), (uint32_t)copies.size());
  if (sel)
    w.table(kSelection, sel, 1);
  return w.result();
}

} // namespace plan_image
