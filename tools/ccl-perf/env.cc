// env.cc - setting up and tearing down a ccl-perf run (env.h).
#include "tools/ccl-perf/env.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>

#include "tools/ccl-perf/report.h"

namespace cclperf {

bool Env::cu(cu::CUresult r, const char *what, int rank, std::string *err) const {
  if (r == 0) return true;
  *err = std::string(what) + (rank >= 0 ? " on rank " + std::to_string(rank) : "") +
         " failed: " + cu::cudaErrorText(r);
  return false;
}

bool Env::setRank(int r, std::string *err) const {
  return !cuda || cu(drv->cuCtxSetCurrent(ctxs[r]), "cuCtxSetCurrent", r, err);
}

const void *Env::poison(DType t) {
  if (!poisonValid || poisonType != t) {
    fillPoison(t, poisonBuf.data(), poisonBuf.size() / dtypeSize(t));
    poisonType = t;
    poisonValid = true;
  }
  return poisonBuf.data();
}

void openCommunicator(Env &env) {
  createCommunicator(env);
  configureCommunicator(env);
}

void createCommunicator(Env &env, int device) {
  const Options &opt = env.opt;
  env.comms.assign(env.n, nullptr);
  cclResult_t rc;
  if (!env.multi) {
    rc = cclCommInitAllInProcess(
        env.comms.data(), env.n, env.cuda ? cclTargetCuda : cclTargetHost,
        env.cuda && !opt.devices.empty() ? opt.devices.data() : nullptr);
    if (rc != cclSuccess) fatal(cclError("cclCommInitAllInProcess", -1, rc));
    return;
  }
  cclConfig_t config = CCL_CONFIG_INITIALIZER;
  config.target = env.cuda ? cclTargetCuda : cclTargetHost;
  config.device = env.cuda ? device : -1;
  cclComm_t comm = nullptr;
  rc = cclCommInitFromEnv(&comm, &config);
  // Without a communicator the ranks cannot tell each other: each reports
  // its own failure (the runtime's message names the rank).
  if (rc != cclSuccess)
    fatalHere(cclError("cclCommInitFromEnv", -1, rc) +
              (env.cuda && rc == cclUnsupported
                   ? " (--target host runs the host target with one process per rank)"
                   : ""));
  int rank = -1, count = -1;
  if ((rc = cclCommRank(comm, &rank)) != cclSuccess ||
      (rc = cclCommCount(comm, &count)) != cclSuccess)
    fatalHere(cclError("cclCommRank", env.me, rc));
  if (rank != env.me || count != env.n)
    fatalHere(fmt::format("cclCommInitFromEnv made rank {} of {}; the environment "
                          "says rank {} of {}",
                          rank, count, env.me, env.n));
  env.comms[env.me] = comm;
}

void configureCommunicator(Env &env) {
  const Options &opt = env.opt;
  cclResult_t rc;
  if (opt.timeoutSet || opt.skipRank >= 0) {
    uint64_t ms = opt.timeoutSet ? opt.timeoutMs : 2000;
    for (int r : env.local)
      if ((rc = cclCommSetTimeout(env.comms[r], ms)) != cclSuccess)
        fatal(cclError("cclCommSetTimeout", r, rc));
    fmt::print("# timeout   : {} ms\n", ms);
  }
  for (const Delay &d : opt.delays) {
    uint64_t ms = opt.timeoutSet ? opt.timeoutMs : opt.skipRank >= 0 ? 2000 : 0;
    if (ms && d.us >= ms * 1000)
      fmt::print("# note      : the delay of rank {} ({} us) is not shorter than "
                 "the timeout ({} ms): expect the other ranks to time out\n",
                 d.rank, d.us, ms);
  }
  for (const auto &[rank, ns] : opt.proxyDelays) {
    if (env.drives(rank) &&
        (rc = cclCommDebugSetProxyDelay(env.comms[rank], ns)) != cclSuccess)
      fatal(cclError("cclCommDebugSetProxyDelay", rank, rc));
    if (ns == UINT64_MAX)
      fmt::print("# debug     : the proxy of rank {} takes no requests "
                 "(--proxy-delay); expect a timeout\n", rank);
    else
      fmt::print("# debug     : the proxy of rank {} sleeps {} us before each "
                 "request (--proxy-delay)\n", rank, ns / 1000);
  }
  if (opt.skipRank >= 0) {
    if (env.drives(opt.skipRank)) {
      rc = cclCommDebugSkipLaunches(env.comms[opt.skipRank], 1);
      if (rc != cclSuccess) fatal(cclError("cclCommDebugSkipLaunches", opt.skipRank, rc));
    }
    fmt::print("# debug     : rank {} skips its launches (--skip-rank); expect a "
               "timeout\n", opt.skipRank);
  }
}

void openRanks(Env &env) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const int pid = (int)getpid();
  std::string err;
  env.devices.assign(env.n, -1);
  env.streams.assign(env.n, nullptr);
  if (env.cuda) {
    env.ctxs.assign(env.n, nullptr);
    env.evStart.assign(env.n, nullptr);
    env.evStop.assign(env.n, nullptr);
  }
  const cu::CudaDriver *drv = env.drv;
  // In-process the lines are printed as they come; with one process per
  // rank rank 0 prints everyone's (gathered by the caller).
  auto line = [&env](const std::string &text) {
    if (env.multi)
      env.rankLine = text;
    else
      fmt::print("{}", text);
  };
  for (int r : env.local) {
    cclResult_t rc = cclCommDevice(env.comms[r], &env.devices[r]);
    if (rc != cclSuccess) fatal(cclError("cclCommDevice", r, rc));
    if (!env.cuda) {
      line(fmt::format("#  Rank {:2} Pid {:6} on {}: host thread(s)\n", r, pid, host));
      continue;
    }
    cu::CUdevice dev;
    char name[256] = "?";
    if (!env.cu(drv->cuDeviceGet(&dev, env.devices[r]), "cuDeviceGet", r, &err) ||
        !env.cu(drv->cuDevicePrimaryCtxRetain(&env.ctxs[r], dev),
                "cuDevicePrimaryCtxRetain", r, &err) ||
        !env.setRank(r, &err) ||
        !env.cu(drv->cuStreamCreate(&env.streams[r], cu::CU_STREAM_NON_BLOCKING),
                "cuStreamCreate", r, &err) ||
        !env.cu(drv->cuEventCreate(&env.evStart[r], cu::CU_EVENT_DEFAULT),
                "cuEventCreate", r, &err) ||
        !env.cu(drv->cuEventCreate(&env.evStop[r], cu::CU_EVENT_DEFAULT),
                "cuEventCreate", r, &err))
      fatal(err);
    drv->cuDeviceGetName(name, sizeof name - 1, dev);
    line(fmt::format("#  Rank {:2} Pid {:6} on {} device {:2} {}\n", r, pid, host,
                     env.devices[r], name));
  }
}

void allocateBuffers(Env &env) {
  const Options &opt = env.opt;
  // Working buffers, sized for the largest message that can run (-e, or the
  // plan's max_bytes when it is smaller: rows above it are skipped) of every
  // dtype (recv holds an in-place call's input and output).
  const size_t largest = opt.bufferBytes ? opt.bufferBytes : opt.maxBytes;
  size_t maxIn = 0, maxBuf = 0;
  for (DType t : opt.dtypes) {
    size_t es = dtypeSize(t);
    size_t count = std::max<size_t>(1, largest / es);
    size_t in, buf;
    if (__builtin_mul_overflow(env.coll->inCount(count, env.n), es, &in) ||
        __builtin_mul_overflow(env.coll->inplaceCount(count, env.n), es,
                               &buf) ||
        buf > SIZE_MAX - kAlign)
      fatal(fmt::format(
          "cannot allocate buffers for {}-byte messages of {} ranks: "
          "their size does not fit in 64 bits (-e)",
          largest, env.n));
    maxIn = std::max(maxIn, in);
    maxBuf = std::max(maxBuf, buf);
  }
  const size_t slot = roundUp(maxBuf, kAlign);
  // The check's host buffers first (staging, reference, poison): a size the
  // host cannot hold stops the run here with a message, not with
  // std::bad_alloc.
  if (opt.check) {
    struct {
      std::vector<unsigned char> *buf;
      const char *what;
    } host[] = {{&env.hostBuf, "staging"},
                {&env.refBuf, "reference"},
                {&env.poisonBuf, "poison"}};
    for (auto &h : host) {
      try {
        h.buf->resize(slot);
      } catch (const std::exception &) { // bad_alloc, length_error
        fatal(fmt::format("cannot allocate {} bytes of host memory for the "
                          "check's {} buffer (messages up to {} bytes; a "
                          "smaller -e, or -c 0, needs less)",
                          slot, h.what, largest));
      }
    }
  }
  env.send.assign(env.n, nullptr);
  env.recv.assign(env.n, nullptr);
  cclResult_t rc;
  for (int r : env.local) {
    if ((rc = cclMemAlloc(env.comms[r], &env.send[r], maxIn)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
    if ((rc = cclMemAlloc(env.comms[r], &env.recv[r], maxBuf)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
  }
  // The back-to-back check's buffers: 2K + 1 of the largest buffer's size
  // per rank, at most --check-mem (K is reduced for rows that do not fit;
  // at least 3 buffers, K = 1, whatever the cap).
  env.arena.assign(env.n, nullptr);
  if (!opt.check) return;
  const size_t cap = opt.checkMem ? opt.checkMem
                                  : env.cuda ? kCheckMemCuda : kCheckMemHost;
  size_t want = 0, least = 0;
  if (__builtin_mul_overflow(2 * (size_t)opt.calls + 1, slot, &want))
    want = SIZE_MAX;
  if (__builtin_mul_overflow(3, slot, &least))
    least = SIZE_MAX;
  env.arenaBytes = std::max(std::min(cap, want), least);
  if (least > cap)
    fmt::print("# note      : the largest rows need 3 buffers of {} bytes per "
               "rank (K = 1), more than --check-mem {}\n", slot, cap);
  for (int r : env.local)
    if ((rc = cclMemAlloc(env.comms[r], &env.arena[r], env.arenaBytes)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc) + " (back-to-back check buffers, " +
            std::to_string(env.arenaBytes) + " bytes; see --check-mem and -k)");
}

void closeAll(Env &env) {
  std::string err;
  const cu::CudaDriver *drv = env.drv;
  for (int r : env.local) {
    cclMemFree(env.comms[r], env.send[r]);
    cclMemFree(env.comms[r], env.recv[r]);
    if (env.arena[r]) cclMemFree(env.comms[r], env.arena[r]);
    if (env.cuda) {
      env.setRank(r, &err);
      drv->cuEventDestroy(env.evStart[r]);
      drv->cuEventDestroy(env.evStop[r]);
      drv->cuStreamDestroy(env.streams[r]);
    }
  }
  for (int r : env.local) cclCommDestroy(env.comms[r]);
  if (env.cuda)
    for (int r : env.local) {
      cu::CUdevice dev;
      if (drv->cuDeviceGet(&dev, env.devices[r]) == 0) drv->cuDevicePrimaryCtxRelease(dev);
    }
}

bool copyIn(Env &env, int r, void *dst, const void *src, size_t bytes,
            std::string *err) {
  cclResult_t rc = cclMemcpyToDevice(env.comms[r], dst, src, bytes);
  if (rc != cclSuccess) *err = cclError("cclMemcpyToDevice", r, rc);
  return rc == cclSuccess;
}

bool copyOut(Env &env, int r, void *dst, const void *src, size_t bytes,
             std::string *err) {
  cclResult_t rc = cclMemcpyFromDevice(env.comms[r], dst, src, bytes);
  if (rc != cclSuccess) *err = cclError("cclMemcpyFromDevice", r, rc);
  return rc == cclSuccess;
}

bool copyAsync(Env &env, int r, void *dst, const void *src, size_t bytes,
               std::string *err) {
  if (!env.setRank(r, err)) return false;
  cclResult_t rc = cclMemcpyAsync(env.comms[r], dst, src, bytes, env.stream(r));
  if (rc != cclSuccess) *err = cclError("cclMemcpyAsync", r, rc);
  return rc == cclSuccess;
}

bool setDelays(Env &env, bool on, std::string *err) {
  for (const Delay &d : env.opt.delays) {
    if (!env.drives(d.rank)) continue;
    cclResult_t rc = cclCommDebugSetDelay(env.comms[d.rank], d.block,
                                          on ? d.us * 1000 : 0);
    if (rc != cclSuccess) {
      *err = cclError("cclCommDebugSetDelay", d.rank, rc);
      return false;
    }
  }
  return true;
}

}  // namespace cclperf
