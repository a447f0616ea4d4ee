// hip_device.h - the HIP target's Device (docs/runtime.md, "HIP target"):
// one AMD GPU per rank (several ranks may share one), peer access between
// the GPUs, fine-grained device memory for everything the runtime
// allocates, code objects picked by the device's gfx architecture,
// launches on the caller's streams. Internal to hip_device.cc
// (communicator, memory, contexts, streams), hip_modules.cc (code objects,
// kernels, co-residency, streams of ranks that share a GPU) and
// hip_memory.cc (IPC between processes, user buffers, the proxy's
// transport and the TCP transport's memory access). Uses only the entry
// points of hip_api.h, loaded at run time.
#ifndef CCLRT_HIP_DEVICE_H
#define CCLRT_HIP_DEVICE_H

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "gpu_common.h"
#include "hip_api.h"

namespace cclrt {

// How messages name this API (gpu_common.h).
inline constexpr GpuNames kHipNames = {"HIP", "HIP_VISIBLE_DEVICES",
                                       "compute unit"};

class HipDevice final : public Device {
public:
  explicit HipDevice(Shared *s);

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
  std::string exportHandle(int rank, void *ptr) override;
  cclResult_t mapPeerHandle(int rank, const std::string &handle, size_t bytes,
                            void **ptr, const char *what) override;
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
    hipStream_t internalStream = nullptr; // non-blocking, for ctx updates
    std::string arch;     ///< gcnArchName, "gfx942:sramecc+:xnack-"
    std::string baseArch; ///< without features, "gfx942"
    int cuCount = 0;      ///< compute units (co-residency bound)
    int maxThreads = 0;   ///< threads per block
    // The ranks on this rank's GPU, in rank order, this one included.
    std::vector<int> sameDevice;
    void *abortFlagDev = nullptr, *errorDev = nullptr; // as seen here
  };

  // The rank's HIP ordinal (RankState::device).
  int ordinal(int rank) const;
  // Makes the rank's device current (hipSetDevice); `fn` names the caller
  // in the error message.
  cclResult_t setCurrent(int rank, const char *fn) const;
  // Queues `issue(stream)` on the rank's internal stream and waits for it;
  // reports either failure. Nothing for 0 bytes.
  template <typename Issue>
  cclResult_t onInternalStream(int rank, const char *call, size_t bytes,
                               Issue issue);

  // hip_modules.cc.
  cclResult_t loadRankKernels(PreparedPlan *pp, int r);
  bool coResident(const PreparedPlan *pp, int rank, uint64_t *needed,
                  uint64_t *perCU) const;
  cclResult_t checkCoResidency(const PreparedPlan *pp, int rank) const;
  cclResult_t checkStream(int rank, cclStream_t stream, const char *what) const;

  Shared *s_;
  const HipApi *h_ = nullptr; // set by init
  std::vector<Rank> ranks_;
  // Peers' memory opened from IPC handles (hip_memory.cc), by address.
  std::mutex ipcMu_;
  std::map<void *, int> ipcOpened_; // address -> opening rank
  // Loaded code objects, shared by the plans whose images are the same:
  // by (device ordinal, the plan's image array).
  struct LoadedModule {
    hipModule_t module = nullptr;
    int refs = 0;
  };
  std::mutex moduleMu_;
  std::map<std::pair<int, const void *>, LoadedModule> modules_;
};

// The message of a HIP runtime that could not be loaded.
std::string hipLoadMessage(const HipLoadError &e);
// Sets the error of a failed HIP call: "CALL failed WHERE: ERROR"
// (cclDriverError).
cclResult_t hipFail(const char *call, hipError_t r, const std::string &where);

} // namespace cclrt

#endif // CCLRT_HIP_DEVICE_H
