// cuda_driver.h - the CUDA driver API, loaded at run time: the one loader
// of the project (//runtime:cuda_driver), shared by libcclrt, ccl-perf and
// the GPU tests. It declares the few driver types and entry points they use,
// so that nothing needs CUDA installed to build; values and signatures
// follow cuda.h of CUDA 13.0. Loading is dlopen("libcuda.so.1"), then every
// entry point is resolved through cuGetProcAddress (cudaVersion 13000,
// CU_GET_PROC_ADDRESS_DEFAULT); dlsym is used for cuGetProcAddress only.
#ifndef CCLRT_CUDA_DRIVER_H
#define CCLRT_CUDA_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace cclrt {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef int CUjit_option;
typedef int CUdevice_attribute;
typedef unsigned long long CUmemGenericAllocationHandle;

// The virtual memory management API's structures (cuda.h, CUDA 13.0).
struct CUmemLocation {
  int type; // CU_MEM_LOCATION_TYPE_*
  int id;
};
struct CUmemAllocationProp {
  int type;                 // CU_MEM_ALLOCATION_TYPE_*
  int requestedHandleTypes; // CU_MEM_HANDLE_TYPE_*
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc {
  CUmemLocation location;
  int flags; // CU_MEM_ACCESS_FLAGS_*
};
struct CUipcMemHandle {
  char reserved[64];
};

enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
};
enum : int {
  CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
  CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
  CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
  CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
  CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
};
enum : int {
  CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
enum : unsigned {
  CU_MEMHOSTALLOC_PORTABLE = 0x01,
  CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
};
enum : int {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};
enum : unsigned long long { CU_GET_PROC_ADDRESS_DEFAULT = 0 };
constexpr int kCudaApiVersion = 13000;

// The entry points, as cuGetProcAddress returns them for CUDA 13.0 (for
// example cuMemAlloc is cuMemAlloc_v2, cuStreamBeginCapture is
// cuStreamBeginCapture_v2, cuCtxSynchronize is cuCtxSynchronize_v2 and
// cuCtxGetDevice is cuCtxGetDevice_v2, which take the context: NULL is the
// current one).
struct CudaDriver {
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)(CUcontext);
  CUresult (*cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext, unsigned);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  // Unified addressing: any pair of device (or host-mapped) addresses.
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  // cuStreamWriteValue64_v2 for CUDA 13.0: writes after the stream's
  // earlier work, with a memory barrier unless flagged otherwise.
  CUresult (*cuStreamWriteValue64)(CUstream, CUdeviceptr, unsigned long long,
                                   unsigned);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamCreateWithPriority)(CUstream *, unsigned, int);
  CUresult (*cuCtxGetStreamPriorityRange)(int *, int *);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamQuery)(CUstream);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  // cuCtxGetDevice_v2 for CUDA 13.0: the context is explicit.
  CUresult (*cuCtxGetDevice)(CUdevice *, CUcontext);
  // Virtual memory management and IPC (one process per rank).
  CUresult (*cuMemGetAllocationGranularity)(size_t *,
                                            const CUmemAllocationProp *, int);
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle *, size_t,
                          const CUmemAllocationProp *, unsigned long long);
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle);
  CUresult (*cuMemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                                  unsigned long long);
  CUresult (*cuMemAddressFree)(CUdeviceptr, size_t);
  CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t,
                       CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*cuMemUnmap)(CUdeviceptr, size_t);
  CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *,
                             size_t);
  CUresult (*cuMemExportToShareableHandle)(void *, CUmemGenericAllocationHandle,
                                           int, unsigned long long);
  CUresult (*cuMemImportFromShareableHandle)(CUmemGenericAllocationHandle *,
                                             void *, int);
  CUresult (*cuMemRetainAllocationHandle)(CUmemGenericAllocationHandle *,
                                          void *);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
  CUresult (*cuIpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
  CUresult (*cuIpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
  CUresult (*cuIpcCloseMemHandle)(CUdeviceptr);
};

// The legacy default stream (also what a NULL CUstream means to the
// entry points resolved with CU_GET_PROC_ADDRESS_DEFAULT) and the
// per-thread default stream, as cuda.h defines them.
#define CCLRT_CU_STREAM_LEGACY (reinterpret_cast<CUstream>(0x1))
#define CCLRT_CU_STREAM_PER_THREAD (reinterpret_cast<CUstream>(0x2))

// Why the driver could not be loaded. Each user words the message for its
// own audience (libcclrt's errors, ccl-perf's header, a test's skip line).
struct CudaLoadError {
  enum Kind {
    kNone,
    kNoLibrary,        // dlopen("libcuda.so.1") failed: detail = dlerror()
    kNoGetProcAddress, // neither cuGetProcAddress_v2 nor cuGetProcAddress
    kNoEntryPoint,     // detail = the entry point, result = what
                       // cuGetProcAddress returned
    kInitFailed,       // result = what cuInit(0) returned
  };
  Kind kind = kNone;
  std::string detail;
  CUresult result = CUDA_SUCCESS;
};

// Loads the driver and calls cuInit(0), once per process (thread-safe; the
// driver stays loaded). Returns nullptr and, when error is not null, sets
// *error to the reason when it cannot be loaded or initialised.
const CudaDriver *cudaDriver(CudaLoadError *error = nullptr);

// "CUDA_ERROR_INVALID_VALUE (invalid argument)": the driver's name and
// description of r ("CUDA error N" when the driver cannot name it).
std::string cudaErrorText(CUresult r);

} // namespace cclrt

#endif // CCLRT_CUDA_DRIVER_H
