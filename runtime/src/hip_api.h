// hip_api.h - the HIP runtime API (libamdhip64.so), loaded at run time
// (//runtime:hip_api), as cuda_driver.h does for the CUDA driver: the few
// types, values and entry points libcclrt's HIP device uses, declared here
// so that nothing needs ROCm installed to build (Debian's HIP headers are
// 5.2 and predate gfx942). Values and signatures follow ROCm 6's
// hip_runtime_api.h. Loading is dlopen of $CCL_HIP_LIBRARY when set, else
// "libamdhip64.so", then "libamdhip64.so.6" and "libamdhip64.so.7"; every
// entry point is resolved with dlsym.
//
// The device's architecture: HIP reports it only as hipDeviceProp_t's
// gcnArchName ("gfx942:sramecc+:xnack-"). hipDeviceAttributeGcnArchName
// is gone in ROCm 6, and the structure's layout differs between releases
// (hipDeviceProp_tR0000 of ROCm 5, hipDeviceProp_tR0600 of ROCm 6 and 7),
// so hipArchName does not declare it: it calls
// hipGetDevicePropertiesR0600 (ROCm 6+; else hipGetDeviceProperties) on a
// zeroed buffer far larger than any version of the structure and takes the
// one string after the 256-byte `name` (the first field in every version)
// that has the form of an architecture: "gfx" and hex digits, then
// ":feature+" / ":feature-" parts. More than one such string, or none, is
// an error that says so.
#ifndef CCLRT_HIP_API_H
#define CCLRT_HIP_API_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace cclrt {

typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
// HIP_IPC_HANDLE_SIZE bytes.
struct hipIpcMemHandle_t {
  char reserved[64];
};

enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorNotFound = 500,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorNotSupported = 801,
};
// hipMemcpyKind.
enum : int {
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
};
// hipDeviceAttribute_t (ROCm 6 numbering).
enum : int {
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMultiprocessorCount = 63,
};
enum : unsigned {
  hipDeviceMallocFinegrained = 0x1, // hipExtMallocWithFlags
  hipHostMallocPortable = 0x1,
  hipHostMallocMapped = 0x2,
  hipHostMallocCoherent = 0x40000000,
  hipStreamNonBlocking = 0x1,
  hipIpcMemLazyEnablePeerAccess = 0x1,
};
// hipModuleLaunchKernel's `extra`: the kernel argument buffer and its size.
#define CCLRT_HIP_LAUNCH_PARAM_BUFFER_POINTER (reinterpret_cast<void *>(0x01))
#define CCLRT_HIP_LAUNCH_PARAM_BUFFER_SIZE (reinterpret_cast<void *>(0x02))
#define CCLRT_HIP_LAUNCH_PARAM_END (reinterpret_cast<void *>(0x03))

// The buffer hipArchName lends hipGetDeviceProperties (hipDeviceProp_tR0600
// is about 1.5 KiB).
constexpr size_t kHipDevicePropBytes = 16384;

struct HipApi {
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipGetDevice)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetAttribute)(int *, int, int);
  // hipGetDevicePropertiesR0600, else hipGetDeviceProperties: only through
  // hipArchName (the structure is not declared here).
  hipError_t (*hipGetDeviceProperties)(void *, int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipDeviceCanAccessPeer)(int *, int, int);
  hipError_t (*hipDeviceEnablePeerAccess)(int, unsigned);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipExtMallocWithFlags)(void **, size_t, unsigned);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipHostMalloc)(void **, size_t, unsigned);
  hipError_t (*hipHostGetDevicePointer)(void **, void *, unsigned);
  hipError_t (*hipHostFree)(void *);
  hipError_t (*hipMemGetAddressRange)(void **, size_t *, void *);
  hipError_t (*hipMemsetAsync)(void *, int, size_t, hipStream_t);
  hipError_t (*hipMemcpyAsync)(void *, const void *, size_t, int, hipStream_t);
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t *, unsigned);
  hipError_t (*hipStreamDestroy)(hipStream_t);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  // Writes after the stream's earlier work.
  hipError_t (*hipStreamWriteValue64)(hipStream_t, void *, uint64_t, unsigned);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *, hipFunction_t, int, size_t);
  hipError_t (*hipIpcGetMemHandle)(hipIpcMemHandle_t *, void *);
  hipError_t (*hipIpcOpenMemHandle)(void **, hipIpcMemHandle_t, unsigned);
  hipError_t (*hipIpcCloseMemHandle)(void *);
};

// Why HIP could not be loaded.
struct HipLoadError {
  enum Kind {
    kNone,
    kNoLibrary,    // dlopen failed: detail = dlerror(), path = what was tried
    kNoEntryPoint, // detail = the entry point, path = the library
    kInitFailed,   // result = what hipInit(0) returned
  };
  Kind kind = kNone;
  std::string detail;
  std::string path;
  hipError_t result = hipSuccess;
};

// Loads libamdhip64 and calls hipInit(0), once per process (thread-safe;
// the library stays loaded). Returns nullptr and, when error is not null,
// sets *error to the reason when it cannot be loaded or initialised.
const HipApi *hipApi(HipLoadError *error = nullptr);

// "hipErrorInvalidValue (invalid argument)": HIP's name and description of
// r ("HIP error N" when HIP cannot name it).
std::string hipErrorText(hipError_t r);

// The gcnArchName of `device` ("gfx942:sramecc+:xnack-"); see the comment
// at the top. hipSuccess, the failure of hipGetDeviceProperties, or
// hipErrorNotFound with *why set when the properties hold no (or more than
// one) architecture string.
hipError_t hipArchName(const HipApi *api, int device, std::string *arch,
                       std::string *why);
// The architecture without its feature suffixes: "gfx942:sramecc+:xnack-"
// -> "gfx942".
std::string hipBaseArch(const std::string &arch);

} // namespace cclrt

#endif // CCLRT_HIP_API_H
