// gpu.cc - the CUDA probe of ccl-perf (gpu.h).
#include "tools/ccl-perf/gpu.h"

namespace cclperf {
namespace {

// Why the driver could not be loaded, as ccl-perf's header and errors say
// it ("--target cuda: no usable GPU: ...").
std::string loadFailure(const cu::CudaLoadError &e) {
  switch (e.kind) {
    case cu::CudaLoadError::kNone:
      break;
    case cu::CudaLoadError::kNoLibrary:
      return "cannot load libcuda.so.1 (" + e.detail + ")";
    case cu::CudaLoadError::kNoGetProcAddress:
      return "libcuda.so.1 has no cuGetProcAddress (driver too old)";
    case cu::CudaLoadError::kNoEntryPoint:
      return "the CUDA driver does not provide " + e.detail;
    case cu::CudaLoadError::kInitFailed:
      return "cuInit failed: " + cu::cudaErrorText(e.result);
  }
  return "the CUDA driver is not loaded";
}

Gpus probe(std::string *why) {
  Gpus g;
  cu::CudaLoadError e;
  g.drv = cu::cudaDriver(&e);
  if (!g.drv) {
    *why = loadFailure(e);
    return g;
  }
  g.drv->cuDriverGetVersion(&g.driverVersion);
  cu::CUresult r = g.drv->cuDeviceGetCount(&g.deviceCount);
  if (r != cu::CUDA_SUCCESS || g.deviceCount <= 0) {
    *why = r != cu::CUDA_SUCCESS
               ? "cuDeviceGetCount failed: " + cu::cudaErrorText(r)
               : std::string("the CUDA driver sees no GPU");
    g.drv = nullptr;
  }
  return g;
}

}  // namespace

const Gpus *probeGpus(std::string *why) {
  static std::string failure;
  static const Gpus gpus = probe(&failure);
  if (!gpus.drv) *why = failure;
  return gpus.drv ? &gpus : nullptr;
}

}  // namespace cclperf
