// cuda_driver.cc - run-time loading of the CUDA driver (see cuda_driver.h).
#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace cclrt {
namespace {

typedef CUresult (*GetProcAddressV2)(const char *, void **, int,
                                     unsigned long long, int *);
typedef CUresult (*GetProcAddressV1)(const char *, void **, int,
                                     unsigned long long);

struct Loaded {
  CudaDriver drv{};
  bool ok = false;
  std::string error;
  int initResult = 0;
};

Loaded *load() {
  Loaded *l = new Loaded(); // never freed: lives as long as the process
  dlerror();
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    l->error = std::string("CUDA target requested but the CUDA driver "
                           "(libcuda.so.1) could not be loaded: ") +
               (e ? e : "unknown error") +
               "; use the host target (--target host) on machines without "
               "a GPU";
    return l;
  }
  GetProcAddressV2 gpa2 =
      reinterpret_cast<GetProcAddressV2>(dlsym(h, "cuGetProcAddress_v2"));
  GetProcAddressV1 gpa1 = nullptr;
  if (!gpa2)
    gpa1 = reinterpret_cast<GetProcAddressV1>(dlsym(h, "cuGetProcAddress"));
  if (!gpa2 && !gpa1) {
    l->error = "the CUDA driver (libcuda.so.1) was loaded but exports neither "
               "cuGetProcAddress_v2 nor cuGetProcAddress (driver older than "
               "CUDA 11.3?); install a newer NVIDIA driver";
    return l;
  }
  auto resolve = [&](const char *name, void **slot) -> bool {
    void *p = nullptr;
    CUresult r;
    if (gpa2) {
      int status = 0;
      r = gpa2(name, &p, kCudaApiVersion, CU_GET_PROC_ADDRESS_DEFAULT,
               &status);
    } else {
      r = gpa1(name, &p, kCudaApiVersion, CU_GET_PROC_ADDRESS_DEFAULT);
    }
    if (r != CUDA_SUCCESS || !p) {
      l->error = std::string("the CUDA driver (libcuda.so.1) does not provide ") +
                 name + " (cuGetProcAddress returned " + std::to_string(r) +
                 "); install a newer NVIDIA driver";
      return false;
    }
    *slot = p;
    return true;
  };
#define CCLRT_RESOLVE(name)                                                    \
  if (!resolve(#name, reinterpret_cast<void **>(&l->drv.name)))               \
    return l;
  CCLRT_RESOLVE(cuGetErrorString)
  CCLRT_RESOLVE(cuGetErrorName)
  CCLRT_RESOLVE(cuInit)
  CCLRT_RESOLVE(cuDriverGetVersion)
  CCLRT_RESOLVE(cuDeviceGetCount)
  CCLRT_RESOLVE(cuDeviceGet)
  CCLRT_RESOLVE(cuDeviceGetAttribute)
  CCLRT_RESOLVE(cuDevicePrimaryCtxRetain)
  CCLRT_RESOLVE(cuDevicePrimaryCtxRelease)
  CCLRT_RESOLVE(cuCtxSetCurrent)
  CCLRT_RESOLVE(cuCtxGetCurrent)
  CCLRT_RESOLVE(cuCtxSynchronize)
  CCLRT_RESOLVE(cuDeviceCanAccessPeer)
  CCLRT_RESOLVE(cuCtxEnablePeerAccess)
  CCLRT_RESOLVE(cuModuleLoadDataEx)
  CCLRT_RESOLVE(cuModuleGetFunction)
  CCLRT_RESOLVE(cuModuleUnload)
  CCLRT_RESOLVE(cuMemAlloc)
  CCLRT_RESOLVE(cuMemFree)
  CCLRT_RESOLVE(cuMemsetD8Async)
  CCLRT_RESOLVE(cuMemcpyDtoHAsync)
  CCLRT_RESOLVE(cuMemcpyHtoDAsync)
  CCLRT_RESOLVE(cuMemcpyDtoDAsync)
  CCLRT_RESOLVE(cuMemHostAlloc)
  CCLRT_RESOLVE(cuMemHostGetDevicePointer)
  CCLRT_RESOLVE(cuMemFreeHost)
  CCLRT_RESOLVE(cuStreamCreate)
  CCLRT_RESOLVE(cuStreamDestroy)
  CCLRT_RESOLVE(cuStreamSynchronize)
  CCLRT_RESOLVE(cuLaunchKernel)
  CCLRT_RESOLVE(cuOccupancyMaxActiveBlocksPerMultiprocessor)
#undef CCLRT_RESOLVE
  CUresult r = l->drv.cuInit(0);
  l->initResult = r;
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr, *str = nullptr;
    if (l->drv.cuGetErrorName(r, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (l->drv.cuGetErrorString(r, &str) != CUDA_SUCCESS)
      str = nullptr;
    l->error = std::string("CUDA target requested but cuInit failed: ") +
               (name ? name : std::to_string(r).c_str()) + " (" +
               (str ? str : "unknown") +
               "); use the host target (--target host) on machines without "
               "a usable GPU";
    return l;
  }
  l->ok = true;
  return l;
}

} // namespace

const CudaDriver *cudaDriver(std::string *error, int *initResult) {
  static std::once_flag once;
  static Loaded *loaded = nullptr;
  std::call_once(once, [] { loaded = load(); });
  if (initResult)
    *initResult = loaded->initResult;
  if (!loaded->ok) {
    if (error)
      *error = loaded->error;
    return nullptr;
  }
  return &loaded->drv;
}

} // namespace cclrt
