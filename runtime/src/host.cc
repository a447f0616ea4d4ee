// host.cc - the host target's stream: a worker thread per rank and a pool of
// block threads (docs/runtime.md, "Host target").
#include "internal.h"

#include <cstring>

namespace cclrt {

namespace {
constexpr size_t kInitialQueue = 4096;
}

HostRank::HostRank(int rank) : rank_(rank) { ring_.resize(kInitialQueue); }

void HostRank::start() {
  worker_ = std::thread([this] { workerLoop(); });
}

HostRank::~HostRank() {
  {
    std::unique_lock<std::mutex> lk(mu_);
    stop_ = true;
  }
  cvTask_.notify_all();
  if (worker_.joinable())
    worker_.join(); // the worker finishes the queued tasks first
  {
    std::unique_lock<std::mutex> lk(pmu_);
    pstop_ = true;
  }
  pcvStart_.notify_all();
  for (std::thread &t : blocks_)
    if (t.joinable())
      t.join();
}

void HostRank::ensureBlocks(uint32_t n) {
  std::unique_lock<std::mutex> lk(pmu_);
  while (blocks_.size() < n) {
    uint32_t b = static_cast<uint32_t>(blocks_.size());
    // The thread joins from the next kernel on (read under pmu_, so that a
    // kernel started before it is scheduled is not missed).
    uint64_t gen = gen_;
    blocks_.emplace_back([this, b, gen] { blockLoop(b, gen); });
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

void HostRank::runKernel(const HostTask &t) {
  if (t.nblocks == 0)
    return;
  std::unique_lock<std::mutex> lk(pmu_);
  // The pool was sized when the plan was prepared; blocks_.size() >= nblocks.
  cur_ = t;
  remaining_ = t.nblocks;
  gen_++;
  pcvStart_.notify_all();
  pcvDone_.wait(lk, [this] { return remaining_ == 0; });
}

void HostRank::blockLoop(uint32_t b, uint64_t seen) {
  for (;;) {
    HostTask t;
    {
      std::unique_lock<std::mutex> lk(pmu_);
      pcvStart_.wait(lk, [&] { return gen_ != seen || pstop_; });
      if (gen_ == seen) // stopping
        return;
      seen = gen_;
      t = cur_;
    }
    if (b >= t.nblocks)
      continue;
    t.fn(t.ctx, t.input, t.output, t.count, b);
    {
      std::unique_lock<std::mutex> lk(pmu_);
      if (--remaining_ == 0)
        pcvDone_.notify_one();
    }
  }
}

} // namespace cclrt
