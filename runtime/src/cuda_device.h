// cuda_device.h - the CUDA target's Device (docs/runtime.md, "CUDA
// target"): one GPU per rank (several ranks may share one), its primary
// context, peer access between the GPUs, modules loaded from the plan's
// images, launches on the caller's streams. Internal to cuda_device.cc
// (communicator, memory, streams) and cuda_modules.cc (modules and the
// co-residency of thread blocks). Uses only the entry points of
// cuda_driver.h, loaded at run time.
#ifndef CCLRT_CUDA_DEVICE_H
#define CCLRT_CUDA_DEVICE_H

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "device.h"
#include "gpu_common.h"

namespace cclrt {

// How messages name this API (gpu_common.h).
inline constexpr GpuNames kCudaNames = {"CUDA", "CUDA_VISIBLE_DEVICES", "SM"};

class CudaDevice final : public Device {
public:
  explicit CudaDevice(Shared *s);

  cclResult_t init(const int *devices) override;
  void quiesce() override;
  void teardown() override;
  SavedContext saveContext() const override;

  cclResult_t allocate(int rank, size_t bytes, void **ptr,
                       const char *what) override;
  cclResult_t deallocate(int rank, void *ptr, const char *fn) override;
  cclResult_t allocateUser(int rank, size_t bytes, void **ptr) override;
  cclResult_t zero(int rank, void *ptr, size_t bytes) override;
  cclResult_t upload(int rank, void *dst, const void *src,
                     size_t bytes) override;
  cclResult_t download(int rank, void *dst, const void *src,
                       size_t bytes) override;

  cclResult_t allocateExportable(int rank, size_t bytes, void **ptr, int *fd,
                                 const char *what) override;
  void releaseExportable(int rank, void *ptr, size_t bytes, int fd) override;
  cclResult_t mapPeer(int rank, int fd, size_t bytes, void **ptr,
                      const char *what) override;
  void unmapPeer(int rank, void *ptr, size_t bytes) override;

  cclResult_t exportUserBuffer(int rank, void *buf, UserExport *out,
                               int *fd) override;
  cclResult_t importUserBuffer(int rank, const UserExport &e, int fd,
                               void **base) override;
  void releaseUserImport(int rank, int kind, void *base,
                         uint64_t size) override;

  cclResult_t allocateHostMapped(int rank, size_t bytes, void **host,
                                 void **dev, const char *what) override;
  void freeHostMapped(int rank, void *host) override;
  std::unique_ptr<Transport> createTransport(int rank) override;
  std::unique_ptr<MemoryAccess> memoryAccess(int rank) override;

  cclResult_t loadKernels(PreparedPlan *pp) override;
  void unloadKernels(PreparedPlan *pp) override;
  cclResult_t placeContext(int rank, PreparedRank &pr) override;
  cclResult_t startBlocks(const PreparedPlan &pp) override;
  cclResult_t setTimeout(int rank, PreparedRank &pr, uint64_t ns) override;
  cclResult_t setDelay(int rank, PreparedRank &pr, uint64_t ns,
                       uint32_t block) override;

  const char *streamError(cclStream_t stream) const override;
  cclResult_t copyAsync(int rank, void *dst, const void *src, size_t bytes,
                        cclStream_t stream) override;
  cclResult_t launch(int rank, PreparedPlan *pp, size_t kernel,
                     const LaunchBuffers &lb, uint64_t count,
                     cclStream_t stream) override;
  cclResult_t synchronize(int rank, cclStream_t stream) override;

private:
  // One rank's GPU.
  struct Rank {
    CUdevice cuDev = 0;
    CUcontext cuCtx = nullptr;
    bool ctxRetained = false;
    CUstream internalStream = nullptr; // non-blocking, for ctx updates
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0; ///< streaming multiprocessors (co-residency bound)
    // The ranks on this rank's GPU, in rank order, this one included
    // (several ranks may share a GPU: docs/runtime.md).
    std::vector<int> sameDevice;
    CUdeviceptr abortFlagDev = 0, errorDev = 0; // host-mapped, as seen here
  };

  // The rank's CUDA ordinal (RankState::device).
  int ordinal(int rank) const;
  // Makes the rank's primary context current; `fn` names the caller in the
  // error message.
  cclResult_t setCurrent(int rank, const char *fn);
  // Queues `call` (issue(stream) calls it) on the rank's internal stream
  // and waits for it; reports either failure. Nothing for 0 bytes.
  template <typename Issue>
  cclResult_t onInternalStream(int rank, const char *call, size_t bytes,
                               Issue issue);
  // Writes bytes [offset, offset + size) of the rank's device context from
  // `src` (on the rank's internal stream: it never waits for kernels on the
  // caller's streams, one of which may be spinning).
  cclResult_t updateContext(int rank, PreparedRank &pr, size_t offset,
                            const void *src, size_t size);

  // cuda_memory.cc: a mapping of physical memory (ours, or a peer's
  // imported from its file descriptor) at a reserved address range.
  struct Mapping {
    CUmemGenericAllocationHandle handle = 0;
    size_t size = 0; // rounded up to the granularity
  };
  // The allocation granularity of the rank's GPU for shareable memory, or
  // an error when the GPU cannot export memory as a file descriptor.
  cclResult_t shareableGranularity(int rank, size_t *granularity);
  // Reserves an address range for `handle`, maps it and gives the rank's
  // GPU read-write access; *ptr the address.
  cclResult_t mapHandle(int rank, CUmemGenericAllocationHandle handle,
                        size_t size, void **ptr, const char *what);
  void unmapAddress(int rank, void *ptr);
  // Imports a peer's exported memory (`fd`) and maps `size` bytes of it.
  cclResult_t importFd(int rank, int fd, size_t size, void **ptr,
                       const char *what);
  bool isMapping(void *ptr);

  // cuda_modules.cc.
  // Whether the blocks of every rank on `rank`'s GPU fit on it at once:
  // nblocks per rank, summed over the ranks there, against SMs x the fewest
  // blocks per SM of their kernels. No allocation (runs on the launch path).
  bool coResident(const PreparedPlan *pp, int rank, uint64_t *needed,
                  uint64_t *perSM) const;
  // Fails with cclUnsupported when the blocks of all the ranks on one GPU
  // cannot be resident at once (every GPU, or only `rank`'s when rank >= 0).
  cclResult_t checkCoResidency(const PreparedPlan *pp, int rank) const;
  // Fails with cclInvalidArgument when `stream` is a default stream and the
  // rank shares its GPU with other ranks (their kernels would serialise).
  cclResult_t checkStream(int rank, cclStream_t stream,
                          const char *what) const;
  // Loads the module of rank r and resolves its kernels.
  cclResult_t loadRankKernels(PreparedPlan *pp, int r);

  Shared *s_;
  const CudaDriver *d_ = nullptr; // set by init
  std::vector<Rank> ranks_;
  std::mutex mapMu_;
  std::map<void *, Mapping> mappings_; // by address
  // Loaded modules, shared by the plans whose images are the same (the
  // plans of one library share its images; a rooted plan's instances, one
  // per root, share them too): by (context, the plan's image array).
  struct LoadedModule {
    CUmodule module = nullptr;
    int refs = 0;
  };
  std::mutex moduleMu_;
  std::map<std::pair<CUcontext, const void *>, LoadedModule> modules_;
};

// The message of a driver that could not be loaded, as libcclrt reports it.
std::string cudaLoadMessage(const CudaLoadError &e);
// Sets the error of a failed driver call: "CALL failed WHERE: ERROR"
// (cclDriverError).
cclResult_t cuFail(const char *call, CUresult r, const std::string &where);

} // namespace cclrt

#endif // CCLRT_CUDA_DEVICE_H
