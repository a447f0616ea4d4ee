// host.cc - the host target (docs/runtime.md, "Host target"): a rank's
// memory is host memory, and its stream is a worker thread that runs the
// queued copies and kernels in order, the thread blocks of a kernel as
// fibers of its own (a block whose wait fails lets the next one run).
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>

#include "device.h"
#include "proxy.h"

#include "host_fiber.h"

namespace cclrt {

namespace {

struct HostTask {
  enum Kind { kKernel, kCopy } kind;
  ccl_host_kernel_fn fn;
  const ccl_dev_ctx *ctx;
  const void *input;
  void *output;
  uint64_t count;
  uint32_t nblocks;
  // kCopy
  void *dst;
  const void *src;
  size_t bytes;
};

constexpr size_t kInitialQueue = 4096;
// The most thread blocks a host kernel runs per rank (each a fiber with a
// stack of its own, all mapped at once): a larger nblocks is a corrupt
// plan, refused before its stacks are mapped.
constexpr uint32_t kMaxHostBlocks = 1024;

// One thread block of a rank's kernels: a fiber of the rank's worker, with
// a stack of its own (mapped once, reused by every kernel).
struct Fiber {
  void *sp = nullptr; // its saved stack pointer while it does not run
  FiberStack stack;
  bool done = false;  // its block of the current kernel returned
  bool fresh = false; // a new wait since it last ran (progress)
  uint64_t sleepsSeen = 0; // the worker's sleeps when it last ran
#if CCL_HOST_ASAN
  void *fakeStack = nullptr;
#endif
#if CCL_HOST_TSAN
  void *tsan = nullptr;
#endif
};

// One rank's stream: a worker thread that runs the queued copies and
// kernels in order, each kernel's thread blocks as fibers of its own: a
// block whose wait's poll fails pauses (cclrtHostPause), and the worker
// runs the next block that is not done, round after round. A round in
// which no block made progress spins, then yields, then sleeps on the
// process's doorbell (HostIdle). With a thread per block, 8 ranks of 64
// blocks were 512 threads on 2 CPUs that woke each other through the
// kernel: a call of a tiled ring took 40-100 ms, most of it in futex wakes
// and context switches.
class HostRank {
public:
  HostRank();
  ~HostRank(); // drains the queue, joins the worker, unmaps the stacks
  // Starts the worker thread. Throws std::system_error.
  void start();
  // Maps the stacks of the fibers to run kernels of at least n blocks.
  // Throws std::system_error.
  void ensureBlocks(uint32_t n);
  // Queues a task (never waits for other work; allocates only when more
  // than the preallocated number of tasks are queued).
  void enqueue(const HostTask &t);
  // Waits until every queued task has finished.
  void drain();

  // The fiber side (cclrtHostPause): switches to the worker with this
  // block's news and returns when its turn comes again.
  void pause(bool fresh);
  bool takeSlept();

private:
  void workerLoop();
  void runKernel(const HostTask &t);
  static void fiberMain();
  void switchToFiber(Fiber &f);
  void switchToWorker(Fiber &f, bool finished);

  // Task FIFO (a ring that grows only when full).
  std::mutex mu_;
  std::condition_variable cvTask_, cvIdle_;
  std::vector<HostTask> ring_;
  size_t head_ = 0, size_ = 0;
  bool busy_ = false, stop_ = false;
  std::thread worker_;
  // The fibers (written under fmu_ by ensureBlocks, from the thread that
  // prepares a plan; read by the worker, which runs a kernel only after
  // its plan was prepared).
  std::mutex fmu_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  // The running kernel (worker thread only).
  const HostTask *task_ = nullptr;
  uint32_t running_ = 0;
  uint64_t sleeps_ = 0; // times the worker slept (HostIdle)
  void *workerSp_ = nullptr;
#if CCL_HOST_ASAN
  const void *workerStack_ = nullptr;
  size_t workerStackBytes_ = 0;
#endif
#if CCL_HOST_TSAN
  void *workerTsan_ = nullptr;
#endif
};

// The rank whose kernel the calling thread runs (its worker, while in
// runKernel), and whether it is in one of the kernel's fibers.
thread_local HostRank *tRank = nullptr;
thread_local bool tInFiber = false;

HostRank::HostRank() { ring_.resize(kInitialQueue); }

void HostRank::start() {
  worker_ = std::thread([this] { workerLoop(); });
  hostThreadsChanged(+1);
}

HostRank::~HostRank() {
  {
    std::unique_lock<std::mutex> lk(mu_);
    stop_ = true;
  }
  cvTask_.notify_all();
  if (worker_.joinable()) {
    worker_.join(); // the worker finishes the queued tasks first
    hostThreadsChanged(-1);
  }
  for (auto &f : fibers_) {
#if CCL_HOST_TSAN
    if (f->tsan)
      __tsan_destroy_fiber(f->tsan);
#endif
    unmapFiberStack(f->stack);
  }
}

void HostRank::ensureBlocks(uint32_t n) {
  std::unique_lock<std::mutex> lk(fmu_);
  while (fibers_.size() < n) {
    auto f = std::make_unique<Fiber>();
    f->stack = mapFiberStack(); // throws std::system_error
#if CCL_HOST_TSAN
    f->tsan = __tsan_create_fiber(0);
#endif
    fibers_.push_back(std::move(f));
  }
}

void HostRank::enqueue(const HostTask &t) {
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (size_ == ring_.size()) {
      // Full: grow (the only allocation on this path; needs more than
      // kInitialQueue tasks queued on one rank).
      std::vector<HostTask> bigger(ring_.size() * 2);
      for (size_t i = 0; i < size_; i++)
        bigger[i] = ring_[(head_ + i) % ring_.size()];
      ring_.swap(bigger);
      head_ = 0;
    }
    ring_[(head_ + size_) % ring_.size()] = t;
    size_++;
  }
  cvTask_.notify_one();
}

void HostRank::drain() {
  std::unique_lock<std::mutex> lk(mu_);
  cvIdle_.wait(lk, [this] { return size_ == 0 && !busy_; });
}

void HostRank::workerLoop() {
  for (;;) {
    HostTask t;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cvTask_.wait(lk, [this] { return size_ > 0 || stop_; });
      if (size_ == 0) // stop_ and nothing left
        return;
      t = ring_[head_];
      head_ = (head_ + 1) % ring_.size();
      size_--;
      busy_ = true;
    }
    if (t.kind == HostTask::kCopy) {
      if (t.bytes)
        std::memmove(t.dst, t.src, t.bytes);
    } else {
      runKernel(t);
    }
    {
      std::unique_lock<std::mutex> lk(mu_);
      busy_ = false;
      if (size_ == 0)
        cvIdle_.notify_all();
    }
  }
}

// Sanitizers are told of every switch between stacks (ASan's stack
// bounds and fake stacks; TSan's per-fiber state), in the order their
// fiber interfaces ask for.
void HostRank::switchToFiber(Fiber &f) {
#if CCL_HOST_ASAN
  void *fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f.stack.base, f.stack.bytes);
#endif
#if CCL_HOST_TSAN
  __tsan_switch_to_fiber(f.tsan, 0);
#endif
  tInFiber = true;
  ccl_fiber_switch(&workerSp_, f.sp);
  tInFiber = false;
#if CCL_HOST_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

void HostRank::switchToWorker(Fiber &f, bool finished) {
#if CCL_HOST_ASAN
  // A finished fiber's fake stack is dropped (it never runs on).
  __sanitizer_start_switch_fiber(finished ? nullptr : &f.fakeStack,
                                 workerStack_, workerStackBytes_);
#endif
#if CCL_HOST_TSAN
  __tsan_switch_to_fiber(workerTsan_, 0);
#endif
  (void)finished;
  ccl_fiber_switch(&f.sp, workerSp_);
#if CCL_HOST_ASAN
  __sanitizer_finish_switch_fiber(f.fakeStack, &workerStack_,
                                  &workerStackBytes_);
#endif
}

void HostRank::fiberMain() {
  HostRank *r = tRank;
  Fiber &f = *r->fibers_[r->running_];
#if CCL_HOST_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &r->workerStack_,
                                  &r->workerStackBytes_);
#endif
  const HostTask &t = *r->task_;
  t.fn(t.ctx, t.input, t.output, t.count, r->running_);
  f.done = true;
  r->switchToWorker(f, /*finished=*/true); // never resumed
}

void HostRank::pause(bool fresh) {
  Fiber &f = *fibers_[running_];
  f.fresh = f.fresh || fresh;
  switchToWorker(f, /*finished=*/false);
}

bool HostRank::takeSlept() {
  Fiber &f = *fibers_[running_];
  bool s = f.sleepsSeen != sleeps_;
  f.sleepsSeen = sleeps_;
  return s;
}

void HostRank::runKernel(const HostTask &t) {
  const uint32_t n = t.nblocks;
  if (n == 0)
    return;
  // The plan's preparation mapped the stacks (ensureBlocks); fmu_ orders
  // that before this read.
  {
    std::unique_lock<std::mutex> lk(fmu_);
    if (fibers_.size() < n)
      std::abort(); // a kernel of a plan that was never prepared
  }
  task_ = &t;
  tRank = this;
#if CCL_HOST_TSAN
  workerTsan_ = __tsan_get_current_fiber();
#endif
  for (uint32_t b = 0; b < n; b++) {
    Fiber &f = *fibers_[b];
    f.done = f.fresh = false;
    f.sleepsSeen = sleeps_;
    f.sp = fiberStart(f.stack, &HostRank::fiberMain);
  }
  HostIdle idle;
  uint32_t live = n;
  while (live) {
    bool progress = false;
    for (uint32_t b = 0; b < n; b++) {
      Fiber &f = *fibers_[b];
      if (f.done)
        continue;
      running_ = b;
      f.fresh = false;
      switchToFiber(f);
      if (f.done) {
        live--;
        progress = true;
      } else if (f.fresh) {
        progress = true;
      }
    }
    if (progress) {
      idle.reset();
    } else if (live && idle.idle()) {
      sleeps_++;
    }
  }
  idle.reset();
  tRank = nullptr;
  task_ = nullptr;
}

} // namespace

bool hostPauseFiber(bool fresh) {
  if (!tInFiber)
    return false;
  tRank->pause(fresh);
  return true;
}

int hostFiberSlept() { return tRank && tRank->takeSlept() ? 1 : 0; }

bool hostInFiber() { return tInFiber; }

namespace {

HostTask copyTask(void *dst, const void *src, size_t bytes) {
  HostTask t{};
  t.kind = HostTask::kCopy;
  t.dst = dst;
  t.src = src;
  t.bytes = bytes;
  return t;
}

// The proxy's transport on the host target: the peer's memory is this
// process's (in-process) or mapped into it (one process per rank), so a put
// is a memcpy that has landed when it returns.
class HostTransport final : public Transport {
public:
  cclResult_t put(int peer, void *dst, const void *src,
                  uint64_t bytes) override {
    memcpy(dst, src, bytes);
    return cclSuccess;
  }
  cclResult_t signal(int peer, uint64_t *addr, uint64_t value) override {
    __atomic_store_n(addr, value, __ATOMIC_RELEASE);
    hostRing();
    return cclSuccess;
  }
  cclResult_t complete(int peer, uint64_t *addr, uint64_t value) override {
    return signal(peer, addr, value);
  }
  void drain() override {}
};

// The host target's memory is this process's: nothing to stage.
class HostMemoryAccess final : public MemoryAccess {
public:
  ~HostMemoryAccess() override { std::free(staging_); }
  cclResult_t staging(size_t bytes, void **ptr) override {
    if (bytes > stagingBytes_) {
      std::free(staging_);
      staging_ = std::malloc(bytes);
      stagingBytes_ = staging_ ? bytes : 0;
    }
    *ptr = staging_;
    return staging_ ? cclSuccess
                    : setError(cclSystemError, "out of host memory");
  }
  cclResult_t fromHost(void *dst, const void *src, size_t bytes) override {
    memcpy(dst, src, bytes);
    return cclSuccess;
  }
  cclResult_t toHost(void *dst, const void *src, size_t bytes) override {
    memcpy(dst, src, bytes);
    return cclSuccess;
  }
  cclResult_t store(uint64_t *addr, uint64_t value) override {
    __atomic_store_n(addr, value, __ATOMIC_RELEASE);
    hostRing();
    return cclSuccess;
  }

private:
  void *staging_ = nullptr;
  size_t stagingBytes_ = 0;
};

class HostDevice final : public Device {
public:
  explicit HostDevice(Shared *s) : s_(s), workers_(s->nranks) {}

  cclResult_t init(const int *devices) override {
    s_->hostMapped = aligned_alloc(64, 64);
    if (!s_->hostMapped)
      return setError(cclSystemError, "out of host memory");
    memset(s_->hostMapped, 0, 64);
    for (int r : s_->local) {
      try {
        workers_[r] = std::make_unique<HostRank>();
        workers_[r]->start();
      } catch (const std::system_error &e) {
        return setError(cclSystemError,
                        format("could not start the worker thread of rank "
                               "%d: %s",
                               r, e.what()));
      }
    }
    return cclSuccess;
  }

  void quiesce() override {
    // Each worker finishes its queued work before it stops.
    for (auto &w : workers_)
      w.reset();
  }

  void teardown() override {
    std::free(s_->hostMapped);
    s_->hostMapped = nullptr;
  }

  SavedContext saveContext() const override { return {}; }

  // Large regions are anonymous mappings: their pages are zero and take no
  // memory until first touched, and zero() gives them back (a bundle
  // prepares every plan's scratch for its largest message, most of which a
  // run never touches; 8 ranks in one process add up).
  cclResult_t allocate(int rank, size_t bytes, void **ptr,
                       const char *what) override {
    *ptr = nullptr;
    if (bytes > SIZE_MAX - kPage)
      return setError(cclSystemError,
                      format("allocating %zu bytes for %s failed: more than "
                             "the address space holds",
                             bytes, what));
    if (bytes >= kMapBytes) {
      size_t n = (bytes + kPage - 1) / kPage * kPage;
      void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        return setError(
            cclSystemError,
            format("allocating %zu bytes for %s failed: %s", bytes, what,
                   errno == ENOMEM ? "out of host memory" : strerror(errno)));
      std::lock_guard<std::mutex> lk(mapMu_);
      mapped_[p] = n;
      *ptr = p;
      return cclSuccess;
    }
    size_t n = (bytes + 63) / 64 * 64;
    if (n == 0)
      n = 64;
    void *p = aligned_alloc(64, n);
    if (!p)
      return setError(cclSystemError,
                      format("allocating %zu bytes for %s failed: out of host "
                             "memory",
                             bytes, what));
    *ptr = p;
    return cclSuccess;
  }

  cclResult_t deallocate(int rank, void *ptr, const char *fn) override {
    {
      std::lock_guard<std::mutex> lk(mapMu_);
      auto it = mapped_.find(ptr);
      if (it != mapped_.end()) {
        munmap(ptr, it->second);
        mapped_.erase(it);
        return cclSuccess;
      }
    }
    std::free(ptr);
    return cclSuccess;
  }

  // Port channels: the kernels and the proxy are threads of one process.
  cclResult_t allocateHostMapped(int rank, size_t bytes, void **host,
                                 void **dev, const char *what) override {
    cclResult_t r = allocate(rank, bytes, host, what);
    if (r == cclSuccess)
      memset(*host, 0, bytes);
    *dev = *host;
    return r;
  }
  // allocate() may have mapped it (a FIFO of 1 MiB or more).
  void freeHostMapped(int rank, void *host) override {
    deallocate(rank, host, "freeHostMapped");
  }
  std::unique_ptr<Transport> createTransport(int rank) override {
    return std::make_unique<HostTransport>();
  }
  std::unique_ptr<MemoryAccess> memoryAccess(int rank) override {
    return std::make_unique<HostMemoryAccess>();
  }

  // Memory of one process per rank: a memfd (no file, gone with the last
  // descriptor and mapping), mapped shared.
  cclResult_t allocateExportable(int rank, size_t bytes, void **ptr, int *fd,
                                 const char *what) override {
    *ptr = nullptr;
    *fd = -1;
    int f = memfd_create("cclrt-scratch", MFD_CLOEXEC);
    if (f < 0)
      return setError(cclSystemError,
                      format("%s: memfd_create failed: %s", what,
                             strerror(errno)));
    if (ftruncate(f, (off_t)bytes) != 0) {
      int e = errno;
      close(f);
      return setError(cclSystemError,
                      format("%s: sizing the %zu-byte shared memory failed: "
                             "%s",
                             what, bytes, strerror(e)));
    }
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      close(f);
      return setError(cclSystemError,
                      format("%s: mapping %zu bytes of shared memory failed: "
                             "%s",
                             what, bytes, strerror(e)));
    }
    *ptr = p;
    *fd = f;
    return cclSuccess;
  }

  void releaseExportable(int rank, void *ptr, size_t bytes, int fd) override {
    if (ptr)
      munmap(ptr, bytes);
    if (fd >= 0)
      close(fd);
  }

  cclResult_t mapPeer(int rank, int fd, size_t bytes, void **ptr,
                      const char *what) override {
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < bytes)
      return setError(cclSystemError,
                      format("%s: the shared memory is smaller than the %zu "
                             "bytes announced",
                             what, bytes));
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
      return setError(cclSystemError,
                      format("%s: mapping %zu bytes failed: %s", what, bytes,
                             strerror(errno)));
    *ptr = p;
    return cclSuccess;
  }

  void unmapPeer(int rank, void *ptr, size_t bytes) override {
    munmap(ptr, bytes);
  }

  // Zeroing the whole pages of a mapped region drops them (they read as
  // zero again and take no memory); the partial pages at its ends are
  // cleared.
  cclResult_t zero(int rank, void *ptr, size_t bytes) override {
    if (!bytes)
      return cclSuccess;
    if (bytes >= kMapBytes && inMapped(ptr, bytes)) {
      uintptr_t b = (uintptr_t)ptr, e = b + bytes;
      uintptr_t pb = (b + kPage - 1) / kPage * kPage, pe = e / kPage * kPage;
      memset(ptr, 0, pb - b);
      if (pe > pb && madvise((void *)pb, pe - pb, MADV_DONTNEED) != 0)
        memset((void *)pb, 0, pe - pb);
      memset((void *)pe, 0, e - pe);
      return cclSuccess;
    }
    memset(ptr, 0, bytes);
    return cclSuccess;
  }

  cclResult_t upload(int rank, void *dst, const void *src,
                     size_t bytes) override {
    if (bytes)
      memcpy(dst, src, bytes);
    return cclSuccess;
  }

  cclResult_t download(int rank, void *dst, const void *src,
                       size_t bytes) override {
    return upload(rank, dst, src, bytes); // both sides are host memory
  }

  cclResult_t loadKernels(PreparedPlan *pp) override {
    const ccl_variant *var = pp->variant;
    if (var->nblocks > kMaxHostBlocks)
      return setError(cclInvalidArgument,
                      format("its variant for %u ranks has %u thread blocks "
                             "per rank; the host target runs at most %u (one "
                             "stack each)",
                             var->nranks, var->nblocks, kMaxHostBlocks));
    for (uint32_t k = 0; k < var->num_kernels; k++)
      if (!var->kernels[k].host_fn)
        return setError(cclInvalidArgument,
                        format("its %s/%s kernel has no host function",
                               dtypeName(var->kernels[k].dtype),
                               opName(var->kernels[k].redop)));
    return cclSuccess;
  }

  void unloadKernels(PreparedPlan *pp) override {}

  cclResult_t placeContext(int rank, PreparedRank &pr) override {
    // The kernels read the context, the abort flag and the error record
    // where they are.
    pr.ctx->abort_flag = s_->abortFlag;
    pr.ctx->error = s_->error;
    return cclSuccess;
  }

  cclResult_t startBlocks(const PreparedPlan &pp) override {
    const uint32_t nblocks = pp.variant->nblocks;
    for (int r : s_->local) {
      try {
        workers_[r]->ensureBlocks(nblocks);
      } catch (const std::system_error &e) {
        return setError(cclSystemError,
                        format("could not map the stacks of %u thread "
                               "blocks for rank %d: %s",
                               nblocks, r, e.what()));
      }
    }
    return cclSuccess;
  }

  cclResult_t setTimeout(int rank, PreparedRank &pr, uint64_t ns) override {
    __atomic_store_n(&pr.ctx->timeout_ns, ns, __ATOMIC_RELAXED);
    return cclSuccess;
  }

  cclResult_t setDelay(int rank, PreparedRank &pr, uint64_t ns,
                       uint32_t block) override {
    // Off first, so that a block starting meanwhile never pairs the new
    // delay with the old block (or the reverse).
    __atomic_store_n(&pr.ctx->delay_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pr.ctx->delay_block, block, __ATOMIC_RELAXED);
    __atomic_store_n(&pr.ctx->delay_ns, ns, __ATOMIC_RELEASE);
    return cclSuccess;
  }

  const char *streamError(cclStream_t stream) const override {
    return stream ? "stream must be NULL on the host target" : nullptr;
  }

  cclResult_t copyAsync(int rank, void *dst, const void *src, size_t bytes,
                        cclStream_t stream) override {
    workers_[rank]->enqueue(copyTask(dst, src, bytes));
    return cclSuccess;
  }

  cclResult_t launch(int rank, PreparedPlan *pp, size_t kernel,
                     const LaunchBuffers &lb, uint64_t count,
                     cclStream_t stream) override {
    HostRank &w = *workers_[rank];
    if (lb.pre.bytes)
      w.enqueue(copyTask(lb.pre.dst, lb.pre.src, lb.pre.bytes));
    HostTask t{};
    t.kind = HostTask::kKernel;
    t.fn = pp->variant->kernels[kernel].host_fn;
    t.ctx = pp->ranks[rank].ctx.get();
    t.input = lb.input;
    t.output = lb.output;
    t.count = count;
    t.nblocks = pp->variant->nblocks;
    w.enqueue(t);
    if (lb.post.bytes)
      w.enqueue(copyTask(lb.post.dst, lb.post.src, lb.post.bytes));
    return cclSuccess;
  }

  cclResult_t synchronize(int rank, cclStream_t stream) override {
    workers_[rank]->drain();
    return cclSuccess;
  }

private:
  const size_t kPage = (size_t)sysconf(_SC_PAGESIZE);
  static constexpr size_t kMapBytes = 1 << 20;

  // Whether [ptr, ptr + bytes) lies inside one region allocate() mapped.
  bool inMapped(void *ptr, size_t bytes) {
    std::lock_guard<std::mutex> lk(mapMu_);
    auto it = mapped_.upper_bound(ptr);
    if (it == mapped_.begin())
      return false;
    --it;
    uintptr_t b = (uintptr_t)it->first, p = (uintptr_t)ptr;
    return p >= b && p + bytes <= b + it->second;
  }

  Shared *s_;
  std::vector<std::unique_ptr<HostRank>> workers_;
  std::mutex mapMu_;
  std::map<void *, size_t> mapped_; // base -> mapped bytes
};

} // namespace

std::unique_ptr<Device> createHostDevice(Shared *s) {
  return std::make_unique<HostDevice>(s);
}

std::unique_ptr<Device> createDevice(Shared *s) {
  switch (s->target) {
  case cclTargetCuda:
    return createCudaDevice(s);
  case cclTargetHip:
    return createHipDevice(s);
  default:
    return createHostDevice(s);
  }
}

} // namespace cclrt
