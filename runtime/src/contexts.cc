// contexts.cc - the device context of each rank of a prepared plan
// (ccl_dev_ctx, ccl/plan.h): filled when the plan is prepared, and changed
// afterwards by cclCommSetTimeout and cclCommDebugSetDelay for every plan
// the rank has prepared.
#include <cstring>

#include "device.h"

namespace cclrt {

cclResult_t initContext(Shared *s, PreparedPlan *pp, int r) {
  const ccl_variant *var = pp->variant;
  const RankState &rs = *s->ranks[r];
  const size_t nchan = var->num_channels;
  PreparedRank &pr = pp->ranks[r];
  pr.ctx = std::make_unique<ccl_dev_ctx>();
  ccl_dev_ctx &c = *pr.ctx;
  memset(&c, 0, sizeof c);
  c.rank = pp->virt(r);
  c.nranks = s->nranks;
  c.nblocks = var->nblocks;
  c.num_scratch = var->num_scratch;
  c.timeout_ns = rs.timeoutNs;
  c.delay_ns = rs.delayNs;
  c.delay_block = rs.delayBlock;
  c.epoch = static_cast<uint32_t *>(pr.epoch);
  c.scratch = static_cast<void *const *>(pr.scratchTable);
  c.num_channels = var->num_channels;
  c.num_semaphores = var->num_semaphores;
  c.num_barriers = var->num_barriers;
  if (pr.sync) {
    uint64_t *w = static_cast<uint64_t *>(pr.sync);
    c.signal = static_cast<uint64_t *const *>(pr.signalTable);
    c.consumed = w + nchan;
    c.sem = w + 2 * nchan;
    c.barrier = w + 2 * nchan + 2 * (size_t)var->num_semaphores;
    // Port channels (plans.cc has the layout; proxy.cc the FIFOs).
    uint64_t *port = c.barrier + var->num_barriers;
    c.fifo_head = port;
    c.fifo_tail_seen = port + nchan;
    c.port_done = port + 2 * nchan;
  }
  if (pr.fifoDev) {
    c.fifo_slots = pr.fifoSlots;
    c.fifo = static_cast<ccl_trigger *>(pr.fifoDev);
    c.fifo_tail = reinterpret_cast<volatile uint64_t *>(
        static_cast<char *>(pr.fifoDev) +
        nchan * (size_t)pr.fifoSlots * sizeof(ccl_trigger));
  }
  return s->device->placeContext(r, pr);
}

namespace {

// Applies `update` to rank `rank`'s context in every prepared plan (the
// caller holds prepMu, so no plan is being prepared meanwhile); an error
// names `what`, the rank and the algorithm.
template <typename F>
cclResult_t updatePreparedContexts(Shared *s, int rank, const char *what,
                                   F update) {
  std::lock_guard<std::mutex> lk(s->plansMu);
  for (auto &kv : s->plans)
    for (auto &instance : kv.second) {
      PreparedPlan &pp = *instance;
      if (pp.status != PreparedPlan::kReady)
        continue;
      cclResult_t r = update(pp.ranks[rank]);
      if (r != cclSuccess)
        return setError(r, format("%s(rank %d, algorithm %s): ", what, rank,
                                  planName(pp.plan).c_str()) +
                               cclGetLastError());
    }
  return cclSuccess;
}

} // namespace

uint64_t msToNs(uint64_t ms) {
  uint64_t ns;
  if (__builtin_mul_overflow(ms, 1000000ull, &ns))
    return UINT64_MAX;
  return ns;
}

namespace api {

cclResult_t cclCommSetTimeout(cclComm_t comm, uint64_t timeout_ms) {
  cclResult_t r = checkComm(comm, "cclCommSetTimeout");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  int rank = comm->rank;
  uint64_t ns = msToNs(timeout_ms);
  CtxGuard guard(s);
  std::lock_guard<std::mutex> prep(s->prepMu);
  s->ranks[rank]->timeoutNs = ns;
  return updatePreparedContexts(
      s, rank, "cclCommSetTimeout",
      [&](PreparedRank &pr) { return s->device->setTimeout(rank, pr, ns); });
}

cclResult_t cclCommDebugSetDelay(cclComm_t comm, int block,
                                 uint64_t delay_ns) {
  cclResult_t r = checkComm(comm, "cclCommDebugSetDelay");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  if (block < -1)
    return setError(cclInvalidArgument,
                    format("cclCommDebugSetDelay(rank %d): block is %d; it "
                           "must be a thread block index (0, 1, ...) or -1 "
                           "for every block",
                           rank, block));
  const uint32_t sel = block == -1 ? CCL_DELAY_ALL_BLOCKS : (uint32_t)block;
  CtxGuard guard(s);
  // Like cclCommSetTimeout: the rank's setting (for plans prepared later)
  // and the context of every prepared plan (read by __ccl_begin at run
  // time, so CUDA graph replays see it too).
  std::lock_guard<std::mutex> prep(s->prepMu);
  s->ranks[rank]->delayNs = delay_ns;
  s->ranks[rank]->delayBlock = sel;
  return updatePreparedContexts(
      s, rank, "cclCommDebugSetDelay", [&](PreparedRank &pr) {
        return s->device->setDelay(rank, pr, delay_ns, sel);
      });
}

} // namespace api
} // namespace cclrt
