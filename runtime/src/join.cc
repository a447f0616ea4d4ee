// join.cc - one process per rank (docs/runtime.md, "Bootstrap" and
// "Launchers"): unique ids, cclCommInitRank and its environment form, the
// check that every rank loaded the same plans, the failure reports of the
// other ranks, host-side all-gathers and cclCommAbort.
#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "bootstrap.h"
#include "device.h"
#include "hip_api.h"

namespace cclrt {
namespace {

const char *getenvNonEmpty(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : nullptr;
}

bool parseInt(const char *s, int *out) {
  if (!s)
    return false;
  char *end = nullptr;
  long v = strtol(s, &end, 10);
  if (*end || v < 0 || v > 1 << 24)
    return false;
  *out = (int)v;
  return true;
}

// The launcher variables that give rank and size, in order of preference.
struct LaunchVars {
  const char *rank, *size, *launcher;
};
constexpr LaunchVars kLaunchers[] = {
    {"CCL_RANK", "CCL_NRANKS", "ccl-run"},
    {"RANK", "WORLD_SIZE", "torchrun"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
    {"PMI_RANK", "PMI_SIZE", "PMI"},
    {"SLURM_PROCID", "SLURM_NTASKS", "Slurm"},
};

// Which launcher's variables are set: false when none; an error when they
// are set but not numbers.
bool envRank(int *rank, int *nranks, const LaunchVars **which,
             std::string *err) {
  for (const LaunchVars &l : kLaunchers) {
    const char *r = getenvNonEmpty(l.rank), *n = getenvNonEmpty(l.size);
    if (!r && !n)
      continue;
    if (!parseInt(r, rank) || !parseInt(n, nranks) || *nranks < 1 ||
        *rank >= *nranks) {
      *err = format("%s=%s and %s=%s (%s) are not a rank and a rank count",
                    l.rank, r ? r : "(unset)", l.size, n ? n : "(unset)",
                    l.launcher);
      return false;
    }
    *which = &l;
    return true;
  }
  *which = nullptr;
  return true;
}

// Digests of the tables that several plans point to (a library's
// operations table, its images: in a bundle every plan shares them, and
// the images are tens of MB), by address and size: each is hashed once per
// agreement, and a plan's digest takes the table's digest in its place.
using TableDigests = std::map<std::pair<const void *, uint64_t>, Digest>;

template <typename Fill>
const Digest &tableDigest(TableDigests &cache, const void *table,
                          uint64_t size, Fill fill) {
  auto [it, fresh] = cache.try_emplace({table, size});
  if (fresh) {
    Sha256 t;
    fill(t);
    it->second = t.finish();
  }
  return it->second;
}

// The plans of this target the ranks must agree on: "P <algorithm>
// <digest>" lines (sorted), after a "V" line with the library's versions.
// Reads no table that is NULL (preparation refuses such a plan).
std::string plansDigest(const ccl_plan *p, TableDigests &shared) {
  Sha256 h;
  h.updateValue(p->abi_version);
  h.updateValue(p->target);
  h.updateString(p->algorithm);
  h.updateString(p->collective);
  h.updateValue(p->inplace);
  h.updateValue(p->chunks);
  h.updateValue(p->protocol);
  h.updateValue(p->max_bytes);
  h.updateValue(p->root);
  h.updateString(p->source);
  for (uint32_t v = 0; v < p->num_variants && p->variants; v++) {
    const ccl_variant &var = p->variants[v];
    h.updateValue(var.nranks);
    h.updateValue(var.nblocks);
    h.updateValue(var.threads_per_block);
    h.updateValue(var.chunks);
    h.updateValue(var.root_plus_one);
    for (uint32_t b = 0; b < var.num_scratch && var.scratch; b++) {
      h.updateString(var.scratch[b].name);
      h.updateValue(var.scratch[b].slots);
      h.updateValue(var.scratch[b].packets);
    }
    for (uint32_t k = 0; k < var.num_kernels && var.kernels; k++) {
      h.updateValue(var.kernels[k].dtype);
      h.updateValue(var.kernels[k].redop);
      h.updateString(var.kernels[k].symbol);
    }
    for (uint32_t c = 0; c < var.num_channels && var.channels; c++)
      h.update(&var.channels[c], sizeof var.channels[c]);
    for (uint32_t i = 0; i < var.num_semaphores && var.semaphores; i++)
      h.update(&var.semaphores[i], sizeof var.semaphores[i]);
    for (uint32_t i = 0; i < var.num_barriers && var.barriers; i++)
      h.update(&var.barriers[i], sizeof var.barriers[i]);
  }
  h.updateValue(p->num_ops);
  if (p->ops) {
    const Digest &ops = tableDigest(shared, p->ops, p->num_ops, [&](Sha256 &t) {
      for (uint32_t o = 0; o < p->num_ops; o++) {
        t.updateString(p->ops[o].kind);
        t.updateString(p->ops[o].file);
        t.updateValue(p->ops[o].line);
        t.updateValue(p->ops[o].col);
      }
    });
    h.update(ops.data(), ops.size());
  }
  for (uint32_t i = 0; i < p->num_images && p->images; i++) {
    const ccl_image &im = p->images[i];
    h.updateValue(im.kind);
    h.updateString(im.arch);
    h.updateValue(im.size);
    if (im.data) {
      const Digest &data = tableDigest(shared, im.data, im.size, [&](Sha256 &t) {
        t.update(im.data, im.size);
      });
      h.update(data.data(), data.size());
    }
  }
  Digest d = h.finish();
  return wire::hex(d.data(), 8);
}

std::string versionLine() {
  return format("V libcclrt %s plan-abi %u", CCL_VERSION_STRING,
                CCL_PLAN_ABI_VERSION);
}

std::string rankSet(const std::vector<int> &v, int nranks) {
  if ((int)v.size() == nranks)
    return "every rank";
  std::string s = v.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < v.size(); i++)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// Describes how the ranks' lists differ ("" if they do not). Every rank
// computes it from the same lists, so every rank prints the same message.
std::string compareLists(const std::vector<std::string> &all) {
  const int n = (int)all.size();
  // line -> ranks that have it
  std::map<std::string, std::vector<int>> has;
  std::vector<std::string> versions(n);
  std::map<std::string, std::vector<int>> tables; // "D 0/1" -> ranks
  for (int q = 0; q < n; q++) {
    std::istringstream in(all[q]);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("V ", 0) == 0)
        versions[q] = line.substr(2);
      else if (line.rfind("D ", 0) == 0)
        tables[line.substr(2)].push_back(q);
      else if (!line.empty())
        has[line].push_back(q);
    }
  }
  // The selection table: ranks that chose differently would run different
  // algorithms and wait for each other forever.
  if (tables.size() > 1)
    return "the ranks chose different selection tables: " +
           rankSet(tables["1"], n) + " asked for the deterministic one " +
           "(CCL_DETERMINISTIC=1 or cclConfig_t::deterministic) and " +
           rankSet(tables["0"], n) + " did not; every rank must choose alike";
  std::map<std::string, std::vector<int>> byVersion;
  for (int q = 0; q < n; q++)
    byVersion[versions[q]].push_back(q);
  std::string msg;
  if (byVersion.size() > 1) {
    for (auto &kv : byVersion)
      msg += (msg.empty() ? "" : "; ") + rankSet(kv.second, n) + " run" +
             (kv.second.size() == 1 ? "s " : " ") + kv.first;
    return "the ranks run different libcclrt builds: " + msg;
  }
  // By algorithm: which builds (digests) which ranks loaded.
  std::map<std::string, std::map<std::string, std::vector<int>>> algs;
  for (auto &kv : has) {
    std::istringstream in(kv.first);
    std::string tag, alg, digest;
    in >> tag >> alg >> digest;
    algs[alg][digest] = kv.second;
  }
  for (auto &a : algs) {
    std::vector<int> with;
    for (auto &d : a.second)
      with.insert(with.end(), d.second.begin(), d.second.end());
    if (a.second.size() == 1 && (int)with.size() == n)
      continue;
    std::string part = "algorithm " + a.first + ":";
    for (auto &d : a.second)
      part += " " + rankSet(d.second, n) + " loaded build " + d.first + ";";
    std::vector<int> without;
    std::sort(with.begin(), with.end());
    for (int q = 0; q < n; q++)
      if (!std::binary_search(with.begin(), with.end(), q))
        without.push_back(q);
    if (!without.empty())
      part += " " + rankSet(without, n) + " did not load it;";
    part.pop_back();
    msg += (msg.empty() ? "" : "; ") + part;
  }
  if (msg.empty())
    return "";
  return "the ranks did not load the same algorithms (every rank must load "
         "the same generated libraries, from the same cclc build): " +
         msg;
}

// Validates a config; fills target, device and timeout.
cclResult_t readConfig(const cclConfig_t *c, const char *fn, int *target,
                       int *device, uint64_t *timeoutMs, bool *deterministic) {
  *target = cclTargetCuda;
  *device = -1;
  *timeoutMs = 0;
  int det = -1;
  if (c) {
    // A config of a header before `deterministic` ends at that field.
    const bool old = c->size == offsetof(cclConfig_t, deterministic);
    if ((c->size != sizeof(cclConfig_t) && !old) ||
        c->magic != CCL_CONFIG_MAGIC)
      return setError(cclInvalidArgument,
                      format("%s: config was not set up with "
                             "CCL_CONFIG_INITIALIZER (size %zu, magic 0x%x)",
                             fn, c->size, c->magic));
    if (c->target != -1 && c->target != cclTargetHost &&
        c->target != cclTargetCuda && c->target != cclTargetHip)
      return setError(cclInvalidArgument,
                      format("%s: config target %d is not cclTargetHost, "
                             "cclTargetCuda or cclTargetHip",
                             fn, c->target));
    if (c->target != -1)
      *target = c->target;
    *device = c->device;
    *timeoutMs = c->bootstrap_timeout_ms;
    if (!old) {
      if (c->deterministic < -1 || c->deterministic > 1)
        return setError(cclInvalidArgument,
                        format("%s: config deterministic is %d; it must be 1, "
                               "0 or -1 (the environment's "
                               "CCL_DETERMINISTIC)",
                               fn, c->deterministic));
      det = c->deterministic;
    }
  }
  if (det == -1) {
    std::string err;
    if (!deterministicFromEnv(deterministic, &err))
      return setError(cclInvalidArgument, format("%s: ", fn) + err);
  } else {
    *deterministic = det == 1;
  }
  if (*timeoutMs == 0)
    *timeoutMs = bootstrapTimeoutMs();
  return cclSuccess;
}

// The device of the calling thread's current CUDA context, if it has one.
bool currentCudaDevice(int *device) {
  const CudaDriver *d = cudaDriver();
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  if (!d || d->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx ||
      d->cuCtxGetDevice(&dev, ctx) != CUDA_SUCCESS)
    return false;
  *device = dev;
  return true;
}

// The calling thread's current HIP device, when HIP loads.
bool currentHipDevice(int *device) {
  const HipApi *h = hipApi();
  return h && h->hipGetDevice(device) == hipSuccess;
}

// The monitor's callbacks for a multi-process communicator.
void watch(Shared *s) {
  s->boot->startMonitor(
      [s](const wire::Abort &a) {
        if (a.kind == 1) {
          ccl_error_record rec;
          static_assert(sizeof rec <= sizeof a.record, "record size");
          memcpy(&rec, a.record, sizeof rec);
          recordRemoteFailure(s, a.text, &rec);
        } else {
          recordRemoteFailure(s, a.text, nullptr);
        }
      },
      [s] { tellPeers(s); });
}


} // namespace

// The all-gather of an in-process communicator: the calls of all ranks
// meet here.
cclResult_t gatherInProcess(Shared *s, int rank, const void *send, void *recv,
                            size_t bytes) {
  std::unique_lock<std::mutex> lk(s->gatherMu);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(bootstrapTimeoutMs());
  // Wait until the previous round has been read by everyone.
  if (!s->gatherCv.wait_until(lk, deadline,
                              [&] { return s->gatherLeaving == 0 || aborted(s); }))
    return setError(cclTimeout, "timed out waiting for the previous "
                                "all-gather to finish");
  if (s->gatherSlots.size() != (size_t)s->nranks)
    s->gatherSlots.assign(s->nranks, std::string());
  s->gatherSlots[rank].assign(static_cast<const char *>(send), bytes);
  const uint64_t round = s->gatherRound;
  if (++s->gatherArrived == s->nranks) {
    s->gatherArrived = 0;
    s->gatherLeaving = s->nranks;
    s->gatherRound++;
    s->gatherCv.notify_all();
  } else if (!s->gatherCv.wait_until(lk, deadline, [&] {
               return s->gatherRound != round || aborted(s);
             }) ||
             s->gatherRound == round) {
    s->gatherArrived--;
    return aborted(s) ? setError(asyncResult(s), describeAsyncError(s))
                      : setError(cclTimeout,
                                 "timed out waiting for the other ranks' "
                                 "calls");
  }
  for (int q = 0; q < s->nranks; q++) {
    if (s->gatherSlots[q].size() != bytes)
      return setError(cclInvalidArgument,
                      format("rank %d passed %zu bytes, this rank %zu", q,
                             s->gatherSlots[q].size(), bytes));
  }
  for (int q = 0; q < s->nranks; q++)
    memcpy(static_cast<char *>(recv) + (size_t)q * bytes,
           s->gatherSlots[q].data(), bytes);
  if (--s->gatherLeaving == 0)
    s->gatherCv.notify_all();
  return cclSuccess;
}

void tellPeers(Shared *s) {
  // A kernel of this rank timed out: tell the others once.
  if (!s->boot || !aborted(s) || s->timeoutBroadcast.exchange(true))
    return;
  const ccl_error_record rec = readErrorRecord(s);
  if (rec.state != CCL_ERR_TIMEOUT)
    return; // a remote failure or an abort: already told
  {
    std::lock_guard<std::mutex> lk(s->failMu);
    if (!s->remoteFailure.empty())
      return; // another rank's timeout, copied here
  }
  wire::Abort a;
  a.kind = 1;
  a.rank = rec.rank;
  memcpy(a.record, &rec, sizeof rec);
  a.text = describeAsyncError(s);
  s->boot->broadcastAbort(a);
}

void recordRemoteFailure(Shared *s, const std::string &why,
                         const ccl_error_record *record) {
  std::lock_guard<std::mutex> lk(s->failMu);
  uint32_t expected = CCL_ERR_NONE;
  uint32_t *state = &s->error->state;
  if (__atomic_compare_exchange_n(state, &expected, (uint32_t)CCL_ERR_REMOTE,
                                  false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    if (record && record->state == CCL_ERR_TIMEOUT) {
      s->error->rank = record->rank;
      s->error->block = record->block;
      s->error->op_id = record->op_id;
      s->error->expected = record->expected;
      s->error->observed = record->observed;
      s->error->waited_ns = record->waited_ns;
      s->error->wait = record->wait;
      __atomic_store_n(state, (uint32_t)CCL_ERR_TIMEOUT, __ATOMIC_RELEASE);
    }
    s->remoteFailure = why;
  }
  __atomic_store_n(const_cast<uint32_t *>(s->abortFlag), 1u, __ATOMIC_RELEASE);
  hostRing(); // host kernels sleeping in a wait see it now
  if (s->boot)
    s->boot->fail(why);
  s->gatherCv.notify_all();
}

namespace api {

cclResult_t cclGetVersion(int *version) {
  if (!version)
    return setError(cclInvalidArgument, "cclGetVersion: version is NULL");
  *version = CCL_VERSION_CODE;
  return cclSuccess;
}

cclResult_t cclGetUniqueId(cclUniqueId *id) {
  if (!id)
    return setError(cclInvalidArgument, "cclGetUniqueId: id is NULL");
  wire::UniqueId u;
  if (!startRoot(nullptr, nullptr, &u))
    return setError(cclBootstrapError,
                    std::string("cclGetUniqueId: ") + cclGetLastError());
  wire::encodeId(u, reinterpret_cast<uint8_t *>(id->internal));
  return cclSuccess;
}

cclResult_t cclCommInitRankConfig(cclComm_t *comm, int nranks, cclUniqueId id,
                                  int rank, const cclConfig_t *config) {
  const char *fn = "cclCommInitRank";
  if (!comm)
    return setError(cclInvalidArgument, format("%s: comm is NULL", fn));
  *comm = nullptr;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return setError(cclInvalidArgument,
                    format("%s: rank %d of %d ranks (need 0 <= rank < nranks)",
                           fn, rank, nranks));
  if (nranks > CCL_MAX_RANKS)
    return setError(cclInvalidArgument,
                    format("%s: %d ranks; a communicator has at most %d", fn,
                           nranks, CCL_MAX_RANKS));
  int target, device;
  uint64_t timeoutMs;
  bool deterministic;
  if (cclResult_t r = readConfig(config, fn, &target, &device, &timeoutMs,
                                 &deterministic))
    return r;
  wire::UniqueId u;
  if (!wire::decodeId(reinterpret_cast<const uint8_t *>(id.internal), &u))
    return setError(cclInvalidArgument,
                    format("%s(rank %d): the unique id was not made by "
                           "cclGetUniqueId (wrong magic or version)",
                           fn, rank));
  Shared *s = new Shared();
  s->nranks = nranks;
  s->target = (cclTarget_t)target;
  s->deterministic = deterministic;
  s->local = {rank};
  const uint64_t timeout = defaultTimeoutNs();
  for (int r = 0; r < nranks; r++) {
    s->ranks.push_back(std::make_unique<RankState>());
    s->ranks[r]->rank = r;
    s->ranks[r]->timeoutNs = timeout;
  }
  s->device = createDevice(s);
  auto failed = [&](cclResult_t code, const std::string &msg) {
    destroyShared(s);
    return setError(code, format("%s(rank %d): ", fn, rank) + msg);
  };
  // This rank's device first: a rank that cannot run fails before it
  // joins (the others then report it missing).
  std::vector<int> devices(nranks, -1);
  if (target == cclTargetCuda) {
    if ((devices[rank] = device) < 0 && !currentCudaDevice(&devices[rank]))
      devices[rank] = 0;
  } else if (target == cclTargetHip) {
    if ((devices[rank] = device) < 0 && !currentHipDevice(&devices[rank]))
      devices[rank] = 0;
  }
  {
    CtxGuard guard(s);
    if (cclResult_t r = s->device->init(devices.data()))
      return failed(r, cclGetLastError());
  }
  s->abortFlag = static_cast<volatile uint32_t *>(s->hostMapped);
  s->error = reinterpret_cast<ccl_error_record *>(
      static_cast<char *>(s->hostMapped) + 8);
  if (cclResult_t r = Bootstrap::join(u, rank, nranks, timeoutMs, &s->boot)) {
    std::string msg = cclGetLastError();
    // A root in this process (cclGetUniqueId here) answers every rank
    // before this one returns and perhaps exits.
    if (std::shared_ptr<Root> root = rootInThisProcess(u))
      waitAnswered(root.get());
    return failed(r, msg);
  }
  watch(s);
  // Every rank loaded the same plans (checked again for later ones by
  // cclCommLoadRegisteredPlans).
  std::string err;
  CtxGuard guard(s);
  cclResult_t r = loadPlans(s, &err);
  // The communicator fails when the ranks disagree about their plans or
  // the bootstrap failed (a peer died or aborted while they prepared
  // them); a plan that could not be prepared only fails its launches.
  if (r == cclBootstrapError)
    return failed(r, err);
  std::string broken = s->boot->failure();
  if (!broken.empty())
    return failed(cclRemoteError, broken);
  s->liveHandles = 1;
  *comm = newHandle(s, rank);
  return cclSuccess;
}

cclResult_t cclGetEnvRank(int *rank, int *nranks) {
  if (!rank || !nranks)
    return setError(cclInvalidArgument,
                    "cclGetEnvRank: rank or nranks is NULL");
  const LaunchVars *which;
  std::string err;
  if (!envRank(rank, nranks, &which, &err))
    return setError(cclInvalidArgument, "cclGetEnvRank: " + err);
  if (!which)
    *rank = *nranks = -1;
  return cclSuccess;
}

cclResult_t cclCommInitFromEnv(cclComm_t *comm, const cclConfig_t *config) {
  const char *fn = "cclCommInitFromEnv";
  if (!comm)
    return setError(cclInvalidArgument, format("%s: comm is NULL", fn));
  *comm = nullptr;
  int rank, nranks;
  const LaunchVars *which;
  std::string err;
  if (!envRank(&rank, &nranks, &which, &err))
    return setError(cclInvalidArgument, format("%s: ", fn) + err);
  if (!which)
    return setError(cclInvalidUsage,
                    format("%s: no launcher set this process's rank (CCL_RANK "
                           "and CCL_NRANKS from ccl-run, RANK and WORLD_SIZE "
                           "from torchrun, OMPI_COMM_WORLD_RANK, PMI_RANK or "
                           "SLURM_PROCID and their sizes)",
                           fn));
  cclUniqueId id;
  if (const char *hexId = getenvNonEmpty("CCL_UNIQUE_ID")) {
    if (!wire::unhex(hexId, reinterpret_cast<uint8_t *>(id.internal),
                     sizeof id.internal))
      return setError(cclInvalidArgument,
                      format("%s: CCL_UNIQUE_ID is not %zu hex digits", fn,
                             2 * sizeof id.internal));
    return api::cclCommInitRankConfig(comm, nranks, id, rank, config);
  }
  // The address mode: CCL_COMM_ID=host:port, or torchrun's MASTER_ADDR
  // with a port of our own (MASTER_PORT is held by torchrun's store).
  std::string where;
  if (const char *cid = getenvNonEmpty("CCL_COMM_ID")) {
    where = cid;
  } else if (const char *master = getenvNonEmpty("MASTER_ADDR")) {
    const char *port = getenvNonEmpty("CCL_COMM_PORT");
    int mp;
    std::string p = port ? port
                         : parseInt(getenvNonEmpty("MASTER_PORT"), &mp)
                               ? std::to_string(mp + 1)
                               : std::string();
    if (p.empty())
      return setError(cclInvalidUsage,
                      format("%s: MASTER_ADDR is set but neither CCL_COMM_PORT "
                             "nor MASTER_PORT: set CCL_COMM_PORT to a free "
                             "port for the bootstrap root",
                             fn));
    where = std::string(strchr(master, ':') ? "[" : "") + master +
            (strchr(master, ':') ? "]" : "") + ":" + p;
  } else {
    return setError(cclInvalidUsage,
                    format("%s: %s gave the rank (%d of %d) but nothing "
                           "says where the bootstrap root is: set "
                           "CCL_COMM_ID=host:port (a free port on the host of "
                           "rank 0), or launch with ccl-run",
                           fn, which->launcher, rank, nranks));
  }
  wire::UniqueId u;
  if (!net::parseHostPort(where, &u.root, &err))
    return setError(cclInvalidArgument,
                    format("%s: bootstrap root address: ", fn) + err);
  // The secret: CCL_COMM_SECRET, else one derived from the address and the
  // job's identity (it keeps stray jobs apart; it is no protection against
  // someone who can read this job's environment).
  if (const char *sec = getenvNonEmpty("CCL_COMM_SECRET")) {
    if (!wire::unhex(sec, u.secret, sizeof u.secret))
      return setError(cclInvalidArgument,
                      format("%s: CCL_COMM_SECRET is not 64 hex digits", fn));
  } else {
    Sha256 h;
    h.updateString("cclrt environment secret");
    h.updateString(where.c_str());
    for (const char *v : {"TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
                          "SLURM_STEP_ID", "OMPI_MCA_orte_ess_jobid",
                          "PMI_JOBID", "PMIX_NAMESPACE"})
      h.updateString(getenvNonEmpty(v));
    Digest d = h.finish();
    memcpy(u.secret, d.data(), sizeof u.secret);
  }
  std::shared_ptr<Root> root;
  if (rank == 0 && !startRoot(&u.root, u.secret, &u, &root))
    return setError(cclBootstrapError,
                    format("%s(rank 0): ", fn) + cclGetLastError());
  wire::encodeId(u, reinterpret_cast<uint8_t *>(id.internal));
  cclResult_t r = api::cclCommInitRankConfig(comm, nranks, id, rank, config);
  // The root runs in this process: every rank has its answer before this
  // rank returns (and perhaps exits).
  if (root)
    waitAnswered(root.get());
  return r;
}

cclResult_t cclBootstrapAllGather(cclComm_t comm, const void *sendbuf,
                                  void *recvbuf, size_t bytes) {
  const char *fn = "cclBootstrapAllGather";
  cclResult_t r = checkComm(comm, fn);
  if (r != cclSuccess)
    return r;
  if (bytes && (!sendbuf || !recvbuf))
    return setError(cclInvalidArgument,
                    format("%s(rank %d): NULL %s with %zu bytes", fn,
                           comm->rank, sendbuf ? "recvbuf" : "sendbuf", bytes));
  if (bytes > (64u << 20))
    return setError(cclInvalidArgument,
                    format("%s(rank %d): %zu bytes per rank; at most 64 MiB",
                           fn, comm->rank, bytes));
  Shared *s = comm->shared;
  // An aborted communicator (this rank's timeout, a peer's failure, an
  // abort) exchanges nothing: the other ranks may have left already.
  if (aborted(s)) {
    tellPeers(s);
    return setError(asyncResult(s),
                    format("%s(rank %d): ", fn, comm->rank) +
                        describeAsyncError(s));
  }
  if (!s->boot) {
    if ((r = gatherInProcess(s, comm->rank, sendbuf, recvbuf, bytes)))
      return setError(r, format("%s(rank %d): ", fn, comm->rank) +
                             cclGetLastError());
    return cclSuccess;
  }
  std::vector<std::string> all;
  r = s->boot->allGather(
      std::string(static_cast<const char *>(sendbuf), bytes), &all);
  if (r != cclSuccess)
    return setError(r, format("%s(rank %d): ", fn, comm->rank) +
                           cclGetLastError());
  for (int q = 0; q < s->nranks; q++)
    if (all[q].size() != bytes)
      return setError(cclInvalidArgument,
                      format("%s(rank %d): rank %d passed %zu bytes, this rank "
                             "%zu",
                             fn, comm->rank, q, all[q].size(), bytes));
  for (int q = 0; q < s->nranks; q++)
    memcpy(static_cast<char *>(recvbuf) + (size_t)q * bytes, all[q].data(),
           bytes);
  return cclSuccess;
}

cclResult_t cclCommAbort(cclComm_t comm) {
  cclResult_t r = checkComm(comm, "cclCommAbort");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  std::string why =
      s->boot ? s->boot->describe(rank) + " aborted the communicator "
                                          "(cclCommAbort)"
              : format("rank %d aborted the communicator (cclCommAbort)", rank);
  recordRemoteFailure(s, why, nullptr);
  if (s->boot) {
    wire::Abort a;
    a.kind = 2;
    a.rank = (uint32_t)rank;
    a.text = why;
    s->boot->broadcastAbort(a);
  }
  // Calls in progress in other threads return (their waits see the abort
  // flag) before anything is freed.
  while (s->activeCalls.load() > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return api::cclCommDestroy(comm);
}

} // namespace api

// Checks that every rank of a multi-process communicator registered the
// same plans of its target and puts them in one order (their exchanges
// must pair up). Sets *err and returns cclBootstrapError if not.
cclResult_t agreeOnPlans(Shared *s, std::vector<const ccl_plan *> *todo,
                         std::string *err) {
  std::vector<std::pair<std::string, const ccl_plan *>> keyed;
  std::string mine = versionLine() + "\n" +
                     (s->deterministic ? "D 1\n" : "D 0\n");
  std::vector<std::string> lines;
  TableDigests shared;
  for (const ccl_plan *p : *todo) {
    std::string d = plansDigest(p, shared);
    keyed.emplace_back(planName(p) + " " + d, p);
    if (p->target == (uint32_t)s->target &&
        p->abi_version == CCL_PLAN_ABI_VERSION)
      lines.push_back("P " + planName(p) + " " + d);
  }
  std::sort(lines.begin(), lines.end());
  for (auto &l : lines)
    mine += l + "\n";
  std::vector<std::string> all;
  if (cclResult_t r = s->boot->allGather(mine, &all)) {
    *err = cclGetLastError();
    return r;
  }
  std::string diff = compareLists(all);
  if (!diff.empty()) {
    *err = diff;
    return cclBootstrapError;
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  todo->clear();
  for (auto &k : keyed)
    todo->push_back(k.second);
  return cclSuccess;
}

} // namespace cclrt
