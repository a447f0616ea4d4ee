// real.cc - the real NCCL behind libcclnccl.so: loading it (with NVLS
// off), its entry points, the shadow communicators that forwarded calls
// run on, and the unique id that carries both the cclc and the real id.
#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "shim.h"

namespace cclnccl {
namespace {

// NCCL_NVLS_ENABLE=0 before the first real call, unless the user allowed
// multicast with CCL_ALLOW_MULTICAST=1 (then their NCCL_NVLS_ENABLE stands).
void disableNvls() {
  const char *allow = getenv("CCL_ALLOW_MULTICAST");
  const char *nvls = getenv("NCCL_NVLS_ENABLE");
  if (allow && strcmp(allow, "1") == 0) {
    if (!nvls)
      setenv("NCCL_NVLS_ENABLE", "0", 1);
    else
      logLine(1, "CCL_ALLOW_MULTICAST=1: NCCL_NVLS_ENABLE=%s is kept", nvls);
    return;
  }
  if (nvls && strcmp(nvls, "0") != 0)
    logLine(1,
            "NCCL_NVLS_ENABLE=%s is overridden with 0: the shim never lets "
            "NCCL create multicast (NVLS) objects unless "
            "CCL_ALLOW_MULTICAST=1",
            nvls);
  setenv("NCCL_NVLS_ENABLE", "0", 1);
}

// Whether `h` is libcclnccl.so itself (installed as libnccl.so.2, or named
// by CCL_NCCL_LIBRARY): forwarding to ourselves would recurse forever.
bool isShim(void *h) { return dlsym(h, "cclncclShimVersion") != nullptr; }

Real load() {
  Real r;
  disableNvls();
  const char *env = getenv("CCL_NCCL_LIBRARY");
  std::string tried;
  auto attempt = [&](const char *path, int flags, const char *what) -> bool {
    dlerror();
    void *h = dlopen(path, flags);
    if (!h) {
      const char *e = dlerror();
      tried += format("%s%s: %s", tried.empty() ? "" : "; ", what,
                      e ? e : "not found");
      return false;
    }
    if (isShim(h)) {
      tried += format("%s%s: is libcclnccl.so itself, not the real NCCL",
                      tried.empty() ? "" : "; ", what);
      dlclose(h);
      return false;
    }
    r.handle = h;
    r.path = path;
    return true;
  };
  if (env && *env) {
    if (!attempt(env, RTLD_NOW | RTLD_LOCAL,
                 format("CCL_NCCL_LIBRARY=%s", env).c_str()))
      r.error = "no loadable NCCL: " + tried;
    return r;
  }
  if (attempt("libnccl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD,
              "the process's own libnccl.so.2") ||
      attempt("libnccl.so.2", RTLD_NOW | RTLD_LOCAL,
              "dlopen(\"libnccl.so.2\")"))
    return r;
  r.error = "no loadable NCCL (set CCL_NCCL_LIBRARY to the real "
            "libnccl.so.2): " +
            tried;
  return r;
}

std::mutex symMu;
std::unordered_map<std::string, void *> syms;

} // namespace

const Real &real() {
  static const Real r = [] {
    Real loaded = load();
    if (loaded.handle)
      logLine(2, "real NCCL: %s", loaded.path.c_str());
    else
      logLine(1, "forwarding disabled: %s", loaded.error.c_str());
    return loaded;
  }();
  return r;
}

void *realSymbol(const char *name, std::string *why) {
  const Real &r = real();
  if (!r.handle) {
    if (why)
      *why = r.error;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(symMu);
  auto it = syms.find(name);
  if (it != syms.end() && it->second)
    return it->second;
  void *p = dlsym(r.handle, name);
  syms[name] = p;
  if (!p && why)
    *why = format("the real NCCL (%s) has no %s", r.path.c_str(), name);
  return p;
}

std::string realLastError(void *realComm) {
  auto fn = REAL(ncclGetLastError, nullptr);
  const char *s = fn ? fn((ncclComm_t)realComm) : nullptr;
  return s ? s : "";
}

std::string realIdWhy(uint8_t state) {
  switch (state) {
  case kRealIdPresent:
    return "";
  case kRealIdNoNccl:
    return "the rank that called ncclGetUniqueId had no loadable NCCL, so "
           "the unique id carries no real NCCL id (see that rank's log)";
  case kRealIdFailed:
    return "the real ncclGetUniqueId failed on the rank that made the unique "
           "id (see that rank's log)";
  case kRealIdTooLarge:
    return "the real NCCL's unique id does not fit beside the cclc id";
  default:
    return format("the unique id's real-NCCL state %u is unknown", state);
  }
}

ncclResult_t packId(const cclUniqueId &ccl, const ncclUniqueId *realId,
                    RealIdState state, ncclUniqueId *out) {
  static_assert(sizeof(cclUniqueId) == sizeof(ncclUniqueId), "128 bytes");
  for (size_t i = kCclIdBytes; i < sizeof(ccl.internal); i++)
    if (ccl.internal[i])
      return fail(ncclInternalError,
                  format("ncclGetUniqueId: the cclc id uses byte %zu, but "
                         "the shim keeps only its first %zu bytes",
                         i, kCclIdBytes));
  memset(out, 0, sizeof(*out));
  memcpy(out->internal, ccl.internal, kCclIdBytes);
  const uint32_t magic = 0x314e4343; // "CCN1"
  memcpy(out->internal + kCclIdBytes, &magic, 4);
  if (state == kRealIdPresent) {
    for (size_t i = kRealIdBytes; i < sizeof(realId->internal); i++)
      if (realId->internal[i]) {
        state = kRealIdTooLarge;
        logLine(1,
                "ncclGetUniqueId: the real NCCL id uses byte %zu, more than "
                "the %zu bytes the shim's id has room for: forwarded calls "
                "will fail",
                i, kRealIdBytes);
        break;
      }
    if (state == kRealIdPresent)
      memcpy(out->internal + kRealIdOffset, realId->internal, kRealIdBytes);
  }
  out->internal[kCclIdBytes + 4] = (char)state;
  return ncclSuccess;
}

ncclResult_t unpackId(const ncclUniqueId &in, PackedId *out) {
  uint32_t magic;
  memcpy(&magic, in.internal + kCclIdBytes, 4);
  if (magic != 0x314e4343)
    return fail(ncclInvalidArgument,
                "the unique id was not made by libcclnccl.so's "
                "ncclGetUniqueId (a real NCCL id, or garbage?): every rank "
                "of a job must load the shim");
  *out = PackedId{};
  memcpy(out->ccl.internal, in.internal, kCclIdBytes);
  out->realState = (uint8_t)in.internal[kCclIdBytes + 4];
  if (out->realState == kRealIdPresent)
    memcpy(out->realId.internal, in.internal + kRealIdOffset, kRealIdBytes);
  return ncclSuccess;
}

void ensureShadows(const std::vector<ncclComm *> &comms) {
  // The comms without a shadow, and the locks held while making them (in
  // address order: another thread may make an overlapping set).
  std::vector<ncclComm *> todo;
  for (ncclComm *c : comms) {
    bool seen = false;
    for (ncclComm *t : todo)
      seen |= t == c;
    if (!seen)
      todo.push_back(c);
    if (c->clique)
      for (ncclComm *m : c->clique->comms) {
        bool have = false;
        for (ncclComm *t : todo)
          have |= t == m;
        if (!have)
          todo.push_back(m);
      }
  }
  std::sort(todo.begin(), todo.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (ncclComm *c : todo)
    locks.emplace_back(c->shadow.mu);
  std::vector<ncclComm *> make;
  for (ncclComm *c : todo)
    if (c->shadow.state == Shadow::kNone)
      make.push_back(c);
  if (make.empty())
    return;
  auto failAll = [&](const std::vector<ncclComm *> &which, ncclResult_t r,
                     const std::string &why) {
    for (ncclComm *c : which) {
      c->shadow.state = Shadow::kFailed;
      c->shadow.error = r;
      c->shadow.why = why;
      logLine(1, "rank %d/%d: forwarding disabled: %s", c->rank, c->nranks,
              why.c_str());
    }
  };
  std::string why;
  auto start = REAL(ncclGroupStart, &why);
  auto end = REAL(ncclGroupEnd, &why);
  auto initAll = REAL(ncclCommInitAll, &why);
  auto initRank = REAL(ncclCommInitRankConfig, &why);
  if (!start || !end || !initAll || !initRank) {
    failAll(make, ncclSystemError, why);
    return;
  }
  // Ranks of one ncclCommInitAll: the real ncclCommInitAll, once per clique.
  std::vector<ncclComm *> ranks;
  for (ncclComm *c : make) {
    if (!c->clique || !c->clique->initAll) {
      ranks.push_back(c);
      continue;
    }
    if (c->shadow.state != Shadow::kNone)
      continue;
    Clique &q = *c->clique;
    std::vector<ncclComm_t> out(q.comms.size(), nullptr);
    ncclResult_t r = initAll(out.data(), (int)q.comms.size(),
                             q.devices.empty() ? nullptr : q.devices.data());
    if (r != ncclSuccess) {
      failAll(q.comms, r,
              format("creating the shadow NCCL communicators (the real "
                     "ncclCommInitAll of %zu ranks) failed: %s: %s",
                     q.comms.size(), ncclGetErrorString(r),
                     realLastError(nullptr).c_str()));
      continue;
    }
    for (size_t i = 0; i < q.comms.size(); i++) {
      registerRealComm(out[i]);
      q.comms[i]->shadow.real = out[i];
      q.comms[i]->shadow.state = Shadow::kReady;
    }
    logLine(2,
            "shadow NCCL communicators of %zu ranks created (ncclCommInitAll)",
            q.comms.size());
  }
  // Ranks of ncclCommInitRank: the real ncclCommInitRankConfig in one group.
  std::vector<ncclComm *> init;
  for (ncclComm *c : ranks) {
    if (!c->hasRealId) {
      failAll({c}, ncclInvalidUsage,
              c->realIdState ? realIdWhy(c->realIdState)
                             : "this communicator has no real NCCL id");
      continue;
    }
    init.push_back(c);
  }
  if (init.empty())
    return;
  ncclResult_t r = init.size() > 1 ? start() : ncclSuccess;
  std::vector<ncclResult_t> each(init.size(), ncclSuccess);
  for (size_t i = 0; i < init.size() && r == ncclSuccess; i++) {
    ncclComm *c = init[i];
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    if (c->hasConfig)
      cfg = c->config;
    each[i] = initRank(&c->shadow.real, c->nranks, c->realId, c->rank, &cfg);
  }
  if (init.size() > 1 && r == ncclSuccess)
    r = end();
  for (size_t i = 0; i < init.size(); i++) {
    ncclComm *c = init[i];
    ncclResult_t ri = each[i] != ncclSuccess ? each[i] : r;
    if (ri != ncclSuccess || !c->shadow.real) {
      if (ri == ncclSuccess)
        ri = ncclInternalError;
      failAll({c}, ri,
              format("creating the shadow NCCL communicator (the real "
                     "ncclCommInitRankConfig of rank %d of %d) failed: %s: %s",
                     c->rank, c->nranks, ncclGetErrorString(ri),
                     realLastError(nullptr).c_str()));
      continue;
    }
    registerRealComm(c->shadow.real);
    c->shadow.state = Shadow::kReady;
    logLine(2, "rank %d/%d: shadow NCCL communicator created", c->rank,
            c->nranks);
  }
}

} // namespace cclnccl
