// device.h - what differs between libcclrt's targets, behind one interface
// (as the compiler's TargetInfo does for code generation): where a rank's
// memory lives, how a plan's kernels are found and started, what a stream
// is, and how a launch is queued. The host target runs ranks as worker
// threads (host.cc); the CUDA target drives one GPU per rank through the
// driver API (cuda_device.cc, cuda_modules.cc); the HIP target one AMD GPU
// per rank through the HIP runtime (hip_device.cc, hip_modules.cc,
// hip_memory.cc). Everything else in the
// runtime (communicators, plan preparation, argument checks, in-place
// staging, errors) is shared and never asks which target it runs on.
//
// Every method that fails sets the calling thread's error (setError) with
// what failed, without the name of the API function; the caller adds it.
#ifndef CCLRT_DEVICE_H
#define CCLRT_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "buffers.h"
#include "internal.h"

namespace cclrt {

class Transport;

// How a thread that is not a kernel (the TCP transport's threads) reads and
// writes a rank's memory: directly on the host target; on GPUs through
// copies between pinned host staging buffers and device memory on a
// stream of the thread's own. One object per thread; every method runs on
// that thread, bind() first.
class MemoryAccess {
public:
  virtual ~MemoryAccess() = default;
  virtual cclResult_t bind() { return cclSuccess; }
  // True when the rank's memory is this process's host memory: the caller
  // may then read and write it in place, with no staging.
  virtual bool direct() const { return true; }
  // The thread's buffer of `bytes` of host memory the copies below accept
  // (pinned on GPUs), allocated once by the first call; a later call may
  // not ask for more (on GPUs freeing pinned memory waits for the whole
  // device, kernels spinning for this thread included).
  virtual cclResult_t staging(size_t bytes, void **ptr) = 0;
  // dst (the rank's memory) = src (a staging buffer), complete on return.
  virtual cclResult_t fromHost(void *dst, const void *src, size_t bytes) = 0;
  // dst (a staging buffer) = src (the rank's memory), complete on return.
  virtual cclResult_t toHost(void *dst, const void *src, size_t bytes) = 0;
  // *addr = value (a counter kernels poll), after every earlier fromHost.
  virtual cclResult_t store(uint64_t *addr, uint64_t value) = 0;
};

// The calling thread's current device context, as Device::saveContext
// found it: `restore(context)` makes it current again (restore is null on
// targets without contexts).
struct SavedContext {
  void (*restore)(void *context) = nullptr;
  void *context = nullptr;
};

class Device {
public:
  virtual ~Device() = default;

  // --- The communicator -------------------------------------------------
  // Sets up every rank of the communicator (its RankState objects exist):
  // `devices` as cclCommInitAllInProcess got it, then the abort flag and
  // error record (Shared::hostMapped, 64 zeroed bytes). On failure the
  // caller calls quiesce and teardown.
  virtual cclResult_t init(const int *devices) = 0;
  // Waits until the queued work of every rank has finished (before the
  // plans are released).
  virtual void quiesce() = 0;
  // Releases what init set up, Shared::hostMapped included.
  virtual void teardown() = 0;
  // The calling thread's current context (public entry points switch to a
  // rank's context and restore the caller's on return).
  virtual SavedContext saveContext() const = 0;

  // --- Memory of a rank's device ----------------------------------------
  // `what` names the allocation in the error message.
  virtual cclResult_t allocate(int rank, size_t bytes, void **ptr,
                               const char *what) = 0;
  // cclMemAlloc's memory: what other processes can map where the target
  // has it (registrations then share it without staging); the default is
  // allocate. deallocate frees either kind.
  virtual cclResult_t allocateUser(int rank, size_t bytes, void **ptr) {
    return allocate(rank, bytes, ptr, "cclMemAlloc");
  }
  // `fn` names the caller in an error message (ignored where freeing
  // cannot fail).
  virtual cclResult_t deallocate(int rank, void *ptr, const char *fn) = 0;
  // Zeroing and copies between host and device memory return when the
  // device has finished them; they never wait for work on the caller's
  // streams.
  virtual cclResult_t zero(int rank, void *ptr, size_t bytes) = 0;
  virtual cclResult_t upload(int rank, void *dst, const void *src,
                             size_t bytes) = 0;
  virtual cclResult_t download(int rank, void *dst, const void *src,
                               size_t bytes) = 0;

  // --- Memory other processes of this host map (one process per rank) ---
  // An allocation of the rank's memory that can be passed to another
  // process as the file descriptor *fd (zeroed). The defaults say the
  // target cannot (yet).
  virtual cclResult_t allocateExportable(int rank, size_t bytes, void **ptr,
                                         int *fd, const char *what);
  virtual void releaseExportable(int rank, void *ptr, size_t bytes, int fd) {}
  // Maps a peer's exported allocation (`fd`, `bytes`) into this process.
  virtual cclResult_t mapPeer(int rank, int fd, size_t bytes, void **ptr,
                              const char *what);
  virtual void unmapPeer(int rank, void *ptr, size_t bytes) {}
  // Targets that share memory by an opaque handle rather than a
  // descriptor (HIP's IPC handles; allocateExportable then gives *fd = -1):
  // the handle of the allocation at `ptr` from allocateExportable, which
  // travels in the plan's exchange record (empty: the target passes a
  // descriptor), and the mapping of a peer's handle, released by
  // unmapPeer.
  virtual std::string exportHandle(int rank, void *ptr) { return ""; }
  virtual cclResult_t mapPeerHandle(int rank, const std::string &handle,
                                    size_t bytes, void **ptr, const char *what);

  // --- User buffers (cclCommRegister; userbufs.cc) ---------------------
  // How rank `rank`'s buffer at `buf` can be shared: its allocation's base
  // and size, and an IPC handle or an exported descriptor (*fd, owned by
  // the caller). The default: not at all (kind cclRegStaged).
  struct UserExport {
    int kind = cclRegStaged;
    void *allocBase = nullptr;
    uint64_t allocSize = 0;
    char ipc[64] = {};
  };
  virtual cclResult_t exportUserBuffer(int rank, void *buf, UserExport *out,
                                       int *fd) {
    *out = UserExport();
    *fd = -1;
    return cclSuccess;
  }
  // Maps a peer's allocation (`e`, with `fd` for cclRegVmmFd) here;
  // *base is its address as this rank's device sees it.
  virtual cclResult_t importUserBuffer(int rank, const UserExport &e, int fd,
                                       void **base) {
    return setError(cclUnsupported, "this target cannot map another "
                                    "process's buffers");
  }
  virtual void releaseUserImport(int rank, int kind, void *base,
                                 uint64_t size) {}

  // --- Port channels (proxy.cc) -----------------------------------------
  // Memory that the host and the rank's kernels both reach (pinned and
  // device-mapped on GPUs), zeroed: *host and *dev address the same bytes.
  virtual cclResult_t allocateHostMapped(int rank, size_t bytes, void **host,
                                         void **dev, const char *what) = 0;
  virtual void freeHostMapped(int rank, void *host) = 0;
  // The transport of the rank's proxy between ranks of this host (copy
  // engines on GPUs, memcpy on the host); null with the error set.
  virtual std::unique_ptr<Transport> createTransport(int rank) = 0;
  // The access to the rank's memory of one more thread (the TCP transport's
  // readers and sender); null with the error set.
  virtual std::unique_ptr<MemoryAccess> memoryAccess(int rank) = 0;

  // --- Plans ----------------------------------------------------------
  // Finds the kernels of pp->variant for every rank (pp->ranks exist).
  virtual cclResult_t loadKernels(PreparedPlan *pp) = 0;
  virtual void unloadKernels(PreparedPlan *pp) = 0;
  // Points the rank's context (pr.ctx, filled by initContext) at the abort
  // flag and error record as the rank's kernels see them, and puts it
  // where they read it.
  virtual cclResult_t placeContext(int rank, PreparedRank &pr) = 0;
  // Makes the plan's thread blocks runnable (after every rank's context
  // was placed).
  virtual cclResult_t startBlocks(const PreparedPlan &pp) = 0;
  // Change one setting of a placed context; kernels launched from now on
  // see it (a running kernel sees the old or the new value).
  virtual cclResult_t setTimeout(int rank, PreparedRank &pr, uint64_t ns) = 0;
  virtual cclResult_t setDelay(int rank, PreparedRank &pr, uint64_t ns,
                               uint32_t block) = 0;

  // --- Streams ----------------------------------------------------------
  // Why `stream` cannot be a stream of this target ("stream must be NULL
  // on the host target"), or nullptr when it can.
  virtual const char *streamError(cclStream_t stream) const = 0;
  // Queues a copy between two buffers of the rank's device memory.
  virtual cclResult_t copyAsync(int rank, void *dst, const void *src,
                                size_t bytes, cclStream_t stream) = 0;
  // Queues lb.pre, kernel `kernel` of the variant on (lb.input, lb.output,
  // count), then lb.post.
  virtual cclResult_t launch(int rank, PreparedPlan *pp, size_t kernel,
                             const LaunchBuffers &lb, uint64_t count,
                             cclStream_t stream) = 0;
  // Waits for the rank's work queued on `stream`.
  virtual cclResult_t synchronize(int rank, cclStream_t stream) = 0;
};

// The devices of the targets, for the communicator `s` (its nranks and
// ranks are set).
std::unique_ptr<Device> createHostDevice(Shared *s);
std::unique_ptr<Device> createCudaDevice(Shared *s);
std::unique_ptr<Device> createHipDevice(Shared *s);
// The device of s->target.
std::unique_ptr<Device> createDevice(Shared *s);

// Restores the calling thread's current context when it goes out of scope.
// It does not refer to the communicator afterwards, so the communicator may
// be destroyed meanwhile.
class CtxGuard {
public:
  explicit CtxGuard(const Shared *s) : saved_(s->device->saveContext()) {}
  ~CtxGuard() {
    if (saved_.restore)
      saved_.restore(saved_.context);
  }
  CtxGuard(const CtxGuard &) = delete;
  CtxGuard &operator=(const CtxGuard &) = delete;

private:
  SavedContext saved_;
};

} // namespace cclrt

#endif // CCLRT_DEVICE_H
