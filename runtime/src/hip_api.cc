// hip_api.cc - run-time loading of the HIP runtime (see hip_api.h).
#include "hip_api.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace cclrt {
namespace {

struct Loaded {
  HipApi api{};
  bool resolved = false; // every entry point (hipInit may still have failed)
  HipLoadError error;
};

bool resolveAll(void *h, Loaded *l) {
  auto resolve = [&](const char *name, void **slot) -> bool {
    dlerror();
    void *p = dlsym(h, name);
    if (!p) {
      l->error.kind = HipLoadError::kNoEntryPoint;
      l->error.detail = name;
      return false;
    }
    *slot = p;
    return true;
  };
#define CCLRT_RESOLVE(name)                                                    \
  if (!resolve(#name, reinterpret_cast<void **>(&l->api.name)))                \
    return false;
  CCLRT_RESOLVE(hipGetErrorName)
  CCLRT_RESOLVE(hipGetErrorString)
  CCLRT_RESOLVE(hipInit)
  CCLRT_RESOLVE(hipGetDeviceCount)
  CCLRT_RESOLVE(hipGetDevice)
  CCLRT_RESOLVE(hipSetDevice)
  CCLRT_RESOLVE(hipDeviceGetAttribute)
  CCLRT_RESOLVE(hipDeviceSynchronize)
  CCLRT_RESOLVE(hipDeviceCanAccessPeer)
  CCLRT_RESOLVE(hipDeviceEnablePeerAccess)
  CCLRT_RESOLVE(hipMalloc)
  CCLRT_RESOLVE(hipExtMallocWithFlags)
  CCLRT_RESOLVE(hipFree)
  CCLRT_RESOLVE(hipHostMalloc)
  CCLRT_RESOLVE(hipHostGetDevicePointer)
  CCLRT_RESOLVE(hipHostFree)
  CCLRT_RESOLVE(hipMemGetAddressRange)
  CCLRT_RESOLVE(hipMemsetAsync)
  CCLRT_RESOLVE(hipMemcpyAsync)
  CCLRT_RESOLVE(hipStreamCreateWithFlags)
  CCLRT_RESOLVE(hipStreamDestroy)
  CCLRT_RESOLVE(hipStreamSynchronize)
  CCLRT_RESOLVE(hipStreamWriteValue64)
  CCLRT_RESOLVE(hipModuleLoadData)
  CCLRT_RESOLVE(hipModuleGetFunction)
  CCLRT_RESOLVE(hipModuleUnload)
  CCLRT_RESOLVE(hipModuleLaunchKernel)
  CCLRT_RESOLVE(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)
  CCLRT_RESOLVE(hipIpcGetMemHandle)
  CCLRT_RESOLVE(hipIpcOpenMemHandle)
  CCLRT_RESOLVE(hipIpcCloseMemHandle)
#undef CCLRT_RESOLVE
  // ROCm 6 and later export the structure of their own layout under this
  // name (hipGetDeviceProperties is ROCm 5's, kept for old binaries).
  void *p = dlsym(h, "hipGetDevicePropertiesR0600");
  if (!p)
    p = dlsym(h, "hipGetDeviceProperties");
  if (!p) {
    l->error.kind = HipLoadError::kNoEntryPoint;
    l->error.detail = "hipGetDevicePropertiesR0600 (or hipGetDeviceProperties)";
    return false;
  }
  l->api.hipGetDeviceProperties =
      reinterpret_cast<hipError_t (*)(void *, int)>(p);
  return true;
}

Loaded *load() {
  Loaded *l = new Loaded(); // never freed: lives as long as the process
  std::vector<std::string> names;
  const char *env = getenv("CCL_HIP_LIBRARY");
  if (env && *env)
    names.push_back(env);
  else
    names = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.7"};
  void *h = nullptr;
  std::string firstError;
  for (const std::string &n : names) {
    dlerror();
    h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      l->error.path = n;
      break;
    }
    const char *e = dlerror();
    if (firstError.empty())
      firstError = e ? e : "unknown error";
  }
  if (!h) {
    l->error.kind = HipLoadError::kNoLibrary;
    l->error.detail = firstError;
    l->error.path = names.front();
    return l;
  }
  if (!resolveAll(h, l))
    return l;
  l->resolved = true;
  hipError_t r = l->api.hipInit(0);
  if (r != hipSuccess) {
    l->error.kind = HipLoadError::kInitFailed;
    l->error.result = r;
  }
  return l;
}

const Loaded &loaded() {
  static std::once_flag once;
  static Loaded *l = nullptr;
  std::call_once(once, [] { l = load(); });
  return *l;
}

bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool isFeatureChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of the architecture string at p (up to end), or 0 when p does
// not start one: gfx[0-9a-f]+(:[a-z0-9_]+[+-])* then NUL.
size_t archAt(const char *p, const char *end) {
  if (end - p < 5 || memcmp(p, "gfx", 3) != 0)
    return 0;
  const char *q = p + 3;
  const char *digits = q;
  while (q < end && isHex(*q))
    q++;
  if (q == digits)
    return 0;
  while (q < end && *q == ':') {
    const char *f = ++q;
    while (q < end && isFeatureChar(*q))
      q++;
    if (q == f || q >= end || (*q != '+' && *q != '-'))
      return 0;
    q++;
  }
  if (q >= end || *q != '\0')
    return 0;
  return (size_t)(q - p);
}

} // namespace

const HipApi *hipApi(HipLoadError *error) {
  const Loaded &l = loaded();
  if (l.error.kind != HipLoadError::kNone) {
    if (error)
      *error = l.error;
    return nullptr;
  }
  return &l.api;
}

std::string hipErrorText(hipError_t r) {
  const Loaded &l = loaded();
  const char *name = nullptr, *str = nullptr;
  if (l.resolved) {
    name = l.api.hipGetErrorName(r);
    str = l.api.hipGetErrorString(r);
  }
  std::string out = name ? name : "HIP error " + std::to_string(r);
  if (str && *str)
    out += std::string(" (") + str + ")";
  return out;
}

hipError_t hipArchName(const HipApi *api, int device, std::string *arch,
                       std::string *why) {
  arch->clear();
  // 16-byte aligned (the structure holds size_t and pointers) and zeroed
  // byte for byte with memset: value-initialising max_align_t zeroes its
  // members, not the padding beside its long double, and the scan below
  // reads every byte.
  std::unique_ptr<std::max_align_t[]> mem(
      new std::max_align_t[kHipDevicePropBytes / sizeof(std::max_align_t)]);
  char *buf = reinterpret_cast<char *>(mem.get());
  memset(buf, 0, kHipDevicePropBytes);
  hipError_t r = api->hipGetDeviceProperties(buf, device);
  if (r != hipSuccess)
    return r;
  const char *end = buf + kHipDevicePropBytes;
  // Each distinct name with the byte offset of its first occurrence: a
  // message that says where the names lie tells a changed structure
  // layout from stray bytes.
  std::vector<std::pair<std::string, size_t>> found;
  for (const char *p = buf + 256; p < end; p++) {
    size_t n = archAt(p, end);
    if (!n)
      continue;
    std::string s(p, n);
    bool seen = false;
    for (const auto &f : found)
      seen |= f.first == s;
    if (!seen)
      found.emplace_back(s, (size_t)(p - buf));
    p += n;
  }
  if (found.size() == 1) {
    *arch = found.front().first;
    return hipSuccess;
  }
  if (found.empty()) {
    *why = "its properties (hipGetDeviceProperties) hold no gcnArchName of "
           "the form gfxNNN";
  } else {
    *why = "its properties (hipGetDeviceProperties) hold more than one "
           "architecture name:";
    for (const auto &f : found)
      *why += " " + f.first + " (at byte " + std::to_string(f.second) + ")";
  }
  return hipErrorNotFound;
}

std::string hipBaseArch(const std::string &arch) {
  return arch.substr(0, arch.find(':'));
}

} // namespace cclrt
