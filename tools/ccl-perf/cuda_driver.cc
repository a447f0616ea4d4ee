#include "tools/ccl-perf/cuda_driver.h"

#include <dlfcn.h>

#include <cstdint>
#include <string>

namespace cclperf {
namespace cu {
namespace {

typedef CUresult (*GetProcV2)(const char *symbol, void **pfn, int cudaVersion,
                              uint64_t flags, int *symbolStatus);
typedef CUresult (*GetProcV1)(const char *symbol, void **pfn, int cudaVersion,
                              uint64_t flags);

constexpr int kCudaVersion = 13000;

struct Loader {
  GetProcV2 v2 = nullptr;
  GetProcV1 v1 = nullptr;

  void *get(const char *name, int version) const {
    void *fn = nullptr;
    CUresult r;
    if (v2) {
      int status = 0;
      r = v2(name, &fn, version, 0, &status);
    } else {
      r = v1(name, &fn, version, 0);
    }
    return r == 0 ? fn : nullptr;
  }
  // Asks for the CUDA 13 ABI; an older driver that does not know 13.0 is
  // asked again for the 12.0 ABI (same prototypes for what we use).
  template <typename F>
  bool resolve(F *slot, const char *name, std::string *why) const {
    void *fn = get(name, kCudaVersion);
    if (!fn) fn = get(name, 12000);
    if (!fn) {
      *why = std::string("the CUDA driver does not provide ") + name;
      return false;
    }
    *slot = reinterpret_cast<F>(fn);
    return true;
  }
};

}  // namespace

std::string Driver::errorText(CUresult r) const {
  const char *name = nullptr, *str = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &str);
  std::string s = name ? name : ("CUresult " + std::to_string(r));
  if (str) s += std::string(" (") + str + ")";
  return s;
}

const Driver *loadDriver(std::string *why) {
  static Driver drv;
  static bool done = false;
  static bool ok = false;
  static std::string err;
  if (done) {
    if (!ok) *why = err;
    return ok ? &drv : nullptr;
  }
  done = true;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    const char *e = dlerror();
    err = std::string("cannot load libcuda.so.1 (") + (e ? e : "?") + ")";
    *why = err;
    return nullptr;
  }
  Loader L;
  L.v2 = reinterpret_cast<GetProcV2>(dlsym(h, "cuGetProcAddress_v2"));
  if (!L.v2) L.v1 = reinterpret_cast<GetProcV1>(dlsym(h, "cuGetProcAddress"));
  if (!L.v2 && !L.v1) {
    err = "libcuda.so.1 has no cuGetProcAddress (driver too old)";
    *why = err;
    return nullptr;
  }
  bool good =
      L.resolve(&drv.cuInit, "cuInit", &err) &&
      L.resolve(&drv.cuDriverGetVersion, "cuDriverGetVersion", &err) &&
      L.resolve(&drv.cuGetErrorString, "cuGetErrorString", &err) &&
      L.resolve(&drv.cuGetErrorName, "cuGetErrorName", &err) &&
      L.resolve(&drv.cuDeviceGetCount, "cuDeviceGetCount", &err) &&
      L.resolve(&drv.cuDeviceGet, "cuDeviceGet", &err) &&
      L.resolve(&drv.cuDeviceGetName, "cuDeviceGetName", &err) &&
      L.resolve(&drv.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", &err) &&
      L.resolve(&drv.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", &err) &&
      L.resolve(&drv.cuCtxSetCurrent, "cuCtxSetCurrent", &err) &&
      L.resolve(&drv.cuStreamCreate, "cuStreamCreate", &err) &&
      L.resolve(&drv.cuStreamDestroy, "cuStreamDestroy", &err) &&
      L.resolve(&drv.cuStreamSynchronize, "cuStreamSynchronize", &err) &&
      L.resolve(&drv.cuEventCreate, "cuEventCreate", &err) &&
      L.resolve(&drv.cuEventDestroy, "cuEventDestroy", &err) &&
      L.resolve(&drv.cuEventRecord, "cuEventRecord", &err) &&
      L.resolve(&drv.cuEventSynchronize, "cuEventSynchronize", &err) &&
      L.resolve(&drv.cuEventElapsedTime, "cuEventElapsedTime", &err) &&
      L.resolve(&drv.cuStreamBeginCapture, "cuStreamBeginCapture", &err) &&
      L.resolve(&drv.cuStreamEndCapture, "cuStreamEndCapture", &err) &&
      L.resolve(&drv.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", &err) &&
      L.resolve(&drv.cuGraphLaunch, "cuGraphLaunch", &err) &&
      L.resolve(&drv.cuGraphExecDestroy, "cuGraphExecDestroy", &err) &&
      L.resolve(&drv.cuGraphDestroy, "cuGraphDestroy", &err);
  if (!good) {
    *why = err;
    return nullptr;
  }
  CUresult r = drv.cuInit(0);
  if (r != 0) {
    err = "cuInit failed: " + drv.errorText(r);
    *why = err;
    return nullptr;
  }
  drv.cuDriverGetVersion(&drv.driverVersion);
  r = drv.cuDeviceGetCount(&drv.deviceCount);
  if (r != 0 || drv.deviceCount <= 0) {
    err = r != 0 ? "cuDeviceGetCount failed: " + drv.errorText(r)
                 : std::string("the CUDA driver sees no GPU");
    *why = err;
    return nullptr;
  }
  ok = true;
  return &drv;
}

}  // namespace cu
}  // namespace cclperf
