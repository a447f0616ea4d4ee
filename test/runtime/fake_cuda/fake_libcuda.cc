// fake_libcuda.cc - a test double of the CUDA driver (libcuda.so.1) for
// machines without a GPU: just enough for libcclrt to set up a CUDA
// communicator and prepare a plan, with device "memory" in host memory,
// so that the runtime's error paths that need a GPU with particular
// properties run on CPU machines (test/runtime/fake_cuda_test.sh). It is
// named as such in docs/runtime.md ("Tests"); nothing else uses it.
//
// FAKE_CUDA_FD_EXPORT=0 makes the device report no POSIX file-descriptor
// export (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED).
// Every entry point it does not implement returns CUDA_ERROR_NOT_SUPPORTED.
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/src/cuda_driver.h"

using namespace cclrt;

namespace {

constexpr CUresult kNotSupported = 801;

template <typename F> struct Unsupported;
template <typename... A> struct Unsupported<CUresult (*)(A...)> {
  static CUresult fn(A...) { return kNotSupported; }
};

CUcontext fakeCtx() { return reinterpret_cast<CUcontext>(0x1000); }
// Per thread, as the driver's current context is.
thread_local CUcontext g_current = nullptr;

CUresult getErrorString(CUresult r, const char **s) {
  *s = r == kNotSupported ? "operation not supported (fake driver)"
                          : "error (fake driver)";
  return 0;
}
CUresult getErrorName(CUresult r, const char **s) {
  *s = r == kNotSupported ? "CUDA_ERROR_NOT_SUPPORTED" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult init(unsigned) { return 0; }
CUresult driverGetVersion(int *v) { *v = 13000; return 0; }
CUresult deviceGetCount(int *n) { *n = 1; return 0; }
CUresult deviceGet(CUdevice *d, int ord) {
  *d = ord;
  return ord == 0 ? 0 : 101; // CUDA_ERROR_INVALID_DEVICE
}
CUresult deviceGetName(char *name, int len, CUdevice) {
  strncpy(name, "Fake GPU", len);
  return 0;
}
CUresult deviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *v = 1; break;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: {
    const char *e = getenv("FAKE_CUDA_FD_EXPORT");
    *v = e && strcmp(e, "0") == 0 ? 0 : 1;
    break;
  }
  default: *v = 0;
  }
  return 0;
}
CUresult primaryCtxRetain(CUcontext *c, CUdevice) { *c = fakeCtx(); return 0; }
CUresult primaryCtxRelease(CUdevice) { return 0; }
CUresult ctxSetCurrent(CUcontext c) { g_current = c; return 0; }
CUresult ctxGetCurrent(CUcontext *c) { *c = g_current; return 0; }
CUresult ctxSynchronize(CUcontext) { return 0; }
CUresult ctxGetDevice(CUdevice *d, CUcontext) { *d = 0; return 0; }
CUresult moduleLoadDataEx(CUmodule *m, const void *, unsigned, CUjit_option *,
                          void **) {
  *m = reinterpret_cast<CUmodule>(0x2000);
  return 0;
}
CUresult moduleGetFunction(CUfunction *f, CUmodule, const char *) {
  *f = reinterpret_cast<CUfunction>(0x3000);
  return 0;
}
CUresult moduleUnload(CUmodule) { return 0; }
CUresult occupancy(int *n, CUfunction, int, size_t) { *n = 4; return 0; }
// "Device memory" is host memory.
CUresult memAlloc(CUdeviceptr *p, size_t n) {
  *p = reinterpret_cast<CUdeviceptr>(calloc(1, n ? n : 1));
  return *p ? 0 : 2; // CUDA_ERROR_OUT_OF_MEMORY
}
CUresult memFree(CUdeviceptr p) { free(reinterpret_cast<void *>(p)); return 0; }
CUresult memsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream) {
  memset(reinterpret_cast<void *>(p), v, n);
  return 0;
}
CUresult memcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream) {
  memcpy(reinterpret_cast<void *>(d), s, n);
  return 0;
}
CUresult memcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream) {
  memcpy(d, reinterpret_cast<void *>(s), n);
  return 0;
}
CUresult memHostAlloc(void **p, size_t n, unsigned) {
  *p = calloc(1, n);
  return *p ? 0 : 2;
}
CUresult memHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned) {
  *d = reinterpret_cast<CUdeviceptr>(p);
  return 0;
}
CUresult memFreeHost(void *p) { free(p); return 0; }
CUresult streamCreate(CUstream *s, unsigned) {
  *s = reinterpret_cast<CUstream>(0x4000);
  return 0;
}
CUresult streamDestroy(CUstream) { return 0; }
CUresult streamSynchronize(CUstream) { return 0; }
CUresult granularity(size_t *g, const CUmemAllocationProp *, int) {
  *g = 2u << 20;
  return 0;
}

struct Entry {
  const char *name;
  void *fn;
};

#define IMPL(name, f) {#name, reinterpret_cast<void *>(&f)}
#define UNSUPPORTED(name)                                                      \
  {#name,                                                                      \
   reinterpret_cast<void *>(&Unsupported<decltype(CudaDriver::name)>::fn)}

const Entry kEntries[] = {
    IMPL(cuGetErrorString, getErrorString),
    IMPL(cuGetErrorName, getErrorName),
    IMPL(cuInit, init),
    IMPL(cuDriverGetVersion, driverGetVersion),
    IMPL(cuDeviceGetCount, deviceGetCount),
    IMPL(cuDeviceGet, deviceGet),
    IMPL(cuDeviceGetName, deviceGetName),
    IMPL(cuDeviceGetAttribute, deviceGetAttribute),
    IMPL(cuDevicePrimaryCtxRetain, primaryCtxRetain),
    IMPL(cuDevicePrimaryCtxRelease, primaryCtxRelease),
    IMPL(cuCtxSetCurrent, ctxSetCurrent),
    IMPL(cuCtxGetCurrent, ctxGetCurrent),
    IMPL(cuCtxSynchronize, ctxSynchronize),
    IMPL(cuCtxGetDevice, ctxGetDevice),
    IMPL(cuModuleLoadDataEx, moduleLoadDataEx),
    IMPL(cuModuleGetFunction, moduleGetFunction),
    IMPL(cuModuleUnload, moduleUnload),
    IMPL(cuOccupancyMaxActiveBlocksPerMultiprocessor, occupancy),
    IMPL(cuMemAlloc, memAlloc),
    IMPL(cuMemFree, memFree),
    IMPL(cuMemsetD8Async, memsetD8Async),
    IMPL(cuMemcpyHtoDAsync, memcpyHtoDAsync),
    IMPL(cuMemcpyDtoHAsync, memcpyDtoHAsync),
    IMPL(cuMemHostAlloc, memHostAlloc),
    IMPL(cuMemHostGetDevicePointer, memHostGetDevicePointer),
    IMPL(cuMemFreeHost, memFreeHost),
    IMPL(cuStreamCreate, streamCreate),
    IMPL(cuStreamDestroy, streamDestroy),
    IMPL(cuStreamSynchronize, streamSynchronize),
    IMPL(cuMemGetAllocationGranularity, granularity),
    UNSUPPORTED(cuDeviceCanAccessPeer),
    UNSUPPORTED(cuCtxEnablePeerAccess),
    UNSUPPORTED(cuMemsetD8),
    UNSUPPORTED(cuMemcpyHtoD),
    UNSUPPORTED(cuMemcpyDtoH),
    UNSUPPORTED(cuMemcpyDtoDAsync),
    UNSUPPORTED(cuMemcpyAsync),
    UNSUPPORTED(cuStreamCreateWithPriority),
    UNSUPPORTED(cuCtxGetStreamPriorityRange),
    UNSUPPORTED(cuStreamWriteValue64),
    UNSUPPORTED(cuStreamQuery),
    UNSUPPORTED(cuStreamBeginCapture),
    UNSUPPORTED(cuStreamEndCapture),
    UNSUPPORTED(cuEventCreate),
    UNSUPPORTED(cuEventDestroy),
    UNSUPPORTED(cuEventRecord),
    UNSUPPORTED(cuEventSynchronize),
    UNSUPPORTED(cuEventElapsedTime),
    UNSUPPORTED(cuGraphInstantiateWithFlags),
    UNSUPPORTED(cuGraphLaunch),
    UNSUPPORTED(cuGraphExecDestroy),
    UNSUPPORTED(cuGraphDestroy),
    UNSUPPORTED(cuLaunchKernel),
    UNSUPPORTED(cuMemCreate),
    UNSUPPORTED(cuMemRelease),
    UNSUPPORTED(cuMemAddressReserve),
    UNSUPPORTED(cuMemAddressFree),
    UNSUPPORTED(cuMemMap),
    UNSUPPORTED(cuMemUnmap),
    UNSUPPORTED(cuMemSetAccess),
    UNSUPPORTED(cuMemExportToShareableHandle),
    UNSUPPORTED(cuMemImportFromShareableHandle),
    UNSUPPORTED(cuMemRetainAllocationHandle),
    UNSUPPORTED(cuMemGetAddressRange),
    UNSUPPORTED(cuIpcGetMemHandle),
    UNSUPPORTED(cuIpcOpenMemHandle),
    UNSUPPORTED(cuIpcCloseMemHandle),
};

} // namespace

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int, unsigned long long,
                    int *status) {
  for (const Entry &e : kEntries)
    if (strcmp(e.name, symbol) == 0) {
      *pfn = e.fn;
      if (status)
        *status = 1; // CU_GET_PROC_ADDRESS_SUCCESS
      return 0;
    }
  *pfn = nullptr;
  return 500; // CUDA_ERROR_NOT_FOUND
}
