// cuda_driver.h - the part of the CUDA driver API that ccl-perf uses,
// loaded at run time. Only cuGetProcAddress(_v2) is resolved with dlsym;
// every other entry point comes from it (cudaVersion 13000). cuda.h is not
// included: ccl-perf builds on machines without CUDA.
#ifndef CCL_PERF_CUDA_DRIVER_H
#define CCL_PERF_CUDA_DRIVER_H

#include <string>

namespace cclperf {
namespace cu {

typedef int CUresult;  // CUDA_SUCCESS == 0
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

enum {
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0,
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};

struct Driver {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *s, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream s) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream s) = nullptr;
  CUresult (*cuEventCreate)(CUevent *e, unsigned flags) = nullptr;
  CUresult (*cuEventDestroy)(CUevent e) = nullptr;
  CUresult (*cuEventRecord)(CUevent e, CUstream s) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent e) = nullptr;
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream s, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream s, CUgraph *g) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph g,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream s) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph g) = nullptr;

  int driverVersion = 0;
  int deviceCount = 0;

  // "cuStreamCreate failed: CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string errorText(CUresult r) const;
};

// Loads libcuda.so.1, resolves the entry points and calls cuInit(0) and
// cuDeviceGetCount. Returns nullptr and sets *why when no GPU is usable.
// The driver stays loaded for the life of the process.
const Driver *loadDriver(std::string *why);

}  // namespace cu
}  // namespace cclperf

#endif  // CCL_PERF_CUDA_DRIVER_H
