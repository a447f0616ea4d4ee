// cuda_driver.cc - run-time loading of the CUDA driver (see cuda_driver.h).
#include "cuda_driver.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <mutex>

namespace cclrt {
namespace {

typedef CUresult (*GetProcAddressV2)(const char *, void **, int,
                                     unsigned long long, int *);
typedef CUresult (*GetProcAddressV1)(const char *, void **, int,
                                     unsigned long long);

struct Loaded {
  CudaDriver drv{};
  // Every entry point was resolved (cuInit may still have failed).
  bool resolved = false;
  CudaLoadError error;
};

// Resolves every entry point of l->drv; false (with l->error) when one is
// missing.
bool resolveAll(void *h, Loaded *l) {
  GetProcAddressV2 gpa2 =
      reinterpret_cast<GetProcAddressV2>(dlsym(h, "cuGetProcAddress_v2"));
  GetProcAddressV1 gpa1 = nullptr;
  if (!gpa2)
    gpa1 = reinterpret_cast<GetProcAddressV1>(dlsym(h, "cuGetProcAddress"));
  if (!gpa2 && !gpa1) {
    l->error.kind = CudaLoadError::kNoGetProcAddress;
    return false;
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
      l->error.kind = CudaLoadError::kNoEntryPoint;
      l->error.detail = name;
      l->error.result = r;
      return false;
    }
    *slot = p;
    return true;
  };
#define CCLRT_RESOLVE(name)                                                    \
  if (!resolve(#name, reinterpret_cast<void **>(&l->drv.name)))               \
    return false;
  CCLRT_RESOLVE(cuGetErrorString)
  CCLRT_RESOLVE(cuGetErrorName)
  CCLRT_RESOLVE(cuInit)
  CCLRT_RESOLVE(cuDriverGetVersion)
  CCLRT_RESOLVE(cuDeviceGetCount)
  CCLRT_RESOLVE(cuDeviceGet)
  CCLRT_RESOLVE(cuDeviceGetName)
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
  CCLRT_RESOLVE(cuMemsetD8)
  CCLRT_RESOLVE(cuMemsetD8Async)
  CCLRT_RESOLVE(cuMemcpyHtoD)
  CCLRT_RESOLVE(cuMemcpyDtoH)
  CCLRT_RESOLVE(cuMemcpyDtoHAsync)
  CCLRT_RESOLVE(cuMemcpyHtoDAsync)
  CCLRT_RESOLVE(cuMemcpyDtoDAsync)
  CCLRT_RESOLVE(cuMemcpyAsync)
  CCLRT_RESOLVE(cuStreamCreateWithPriority)
  CCLRT_RESOLVE(cuCtxGetStreamPriorityRange)
  CCLRT_RESOLVE(cuStreamWriteValue64)
  CCLRT_RESOLVE(cuMemHostAlloc)
  CCLRT_RESOLVE(cuMemHostGetDevicePointer)
  CCLRT_RESOLVE(cuMemFreeHost)
  CCLRT_RESOLVE(cuStreamCreate)
  CCLRT_RESOLVE(cuStreamDestroy)
  CCLRT_RESOLVE(cuStreamSynchronize)
  CCLRT_RESOLVE(cuStreamQuery)
  CCLRT_RESOLVE(cuStreamBeginCapture)
  CCLRT_RESOLVE(cuStreamEndCapture)
  CCLRT_RESOLVE(cuEventCreate)
  CCLRT_RESOLVE(cuEventDestroy)
  CCLRT_RESOLVE(cuEventRecord)
  CCLRT_RESOLVE(cuEventSynchronize)
  CCLRT_RESOLVE(cuEventElapsedTime)
  CCLRT_RESOLVE(cuGraphInstantiateWithFlags)
  CCLRT_RESOLVE(cuGraphLaunch)
  CCLRT_RESOLVE(cuGraphExecDestroy)
  CCLRT_RESOLVE(cuGraphDestroy)
  CCLRT_RESOLVE(cuLaunchKernel)
  CCLRT_RESOLVE(cuOccupancyMaxActiveBlocksPerMultiprocessor)
  CCLRT_RESOLVE(cuCtxGetDevice)
  CCLRT_RESOLVE(cuMemGetAllocationGranularity)
  CCLRT_RESOLVE(cuMemCreate)
  CCLRT_RESOLVE(cuMemRelease)
  CCLRT_RESOLVE(cuMemAddressReserve)
  CCLRT_RESOLVE(cuMemAddressFree)
  CCLRT_RESOLVE(cuMemMap)
  CCLRT_RESOLVE(cuMemUnmap)
  CCLRT_RESOLVE(cuMemSetAccess)
  CCLRT_RESOLVE(cuMemExportToShareableHandle)
  CCLRT_RESOLVE(cuMemImportFromShareableHandle)
  CCLRT_RESOLVE(cuMemRetainAllocationHandle)
  CCLRT_RESOLVE(cuMemGetAddressRange)
  CCLRT_RESOLVE(cuIpcGetMemHandle)
  CCLRT_RESOLVE(cuIpcOpenMemHandle)
  CCLRT_RESOLVE(cuIpcCloseMemHandle)
#undef CCLRT_RESOLVE
  return true;
}

Loaded *load() {
  Loaded *l = new Loaded(); // never freed: lives as long as the process
  dlerror();
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    l->error.kind = CudaLoadError::kNoLibrary;
    l->error.detail = e ? e : "unknown error";
    return l;
  }
  if (!resolveAll(h, l))
    return l;
  l->resolved = true;
  // The proxy's copy streams (port channels) must not share a hardware
  // queue with a stream whose kernel spins until their copies land: with
  // the driver's default of 8 queues per context the streams of a few ranks
  // and their proxies alias, and a copy queued behind such a kernel never
  // runs (docs/runtime.md, "The proxy"). Ask for the most queues unless the
  // application chose a number; the driver reads this when it creates a
  // context, so it has no effect on a context created before libcclrt
  // loaded the driver.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  CUresult r = l->drv.cuInit(0);
  if (r != CUDA_SUCCESS) {
    l->error.kind = CudaLoadError::kInitFailed;
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

} // namespace

const CudaDriver *cudaDriver(CudaLoadError *error) {
  const Loaded &l = loaded();
  if (l.error.kind != CudaLoadError::kNone) {
    if (error)
      *error = l.error;
    return nullptr;
  }
  return &l.drv;
}

std::string cudaErrorText(CUresult r) {
  const Loaded &l = loaded();
  const char *name = nullptr, *str = nullptr;
  if (l.resolved) {
    if (l.drv.cuGetErrorName(r, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (l.drv.cuGetErrorString(r, &str) != CUDA_SUCCESS)
      str = nullptr;
  }
  std::string out = name ? name : "CUDA error " + std::to_string(r);
  if (str)
    out += std::string(" (") + str + ")";
  return out;
}

} // namespace cclrt
