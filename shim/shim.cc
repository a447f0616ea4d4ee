// shim.cc - libcclnccl.so: NCCL's API (nccl.h), served by the cclc stdlib
// bundle where its selection table serves the call and forwarded to the
// real NCCL on a shadow communicator otherwise (docs/nccl-shim.md). No
// function throws: every entry point catches at the boundary.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>
#include <unordered_set>

#include "runtime/src/cuda_driver.h"
#include "shim.h"

// Found by real.cc's check that CCL_NCCL_LIBRARY is not the shim itself.
extern "C" {
__attribute__((visibility("default"))) int cclncclShimVersion = 1;
}

namespace cclnccl {

std::string format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof buf)
    return buf;
  std::string s(n + 1, '\0');
  va_start(ap, fmt);
  vsnprintf(&s[0], s.size(), fmt, ap);
  va_end(ap);
  s.resize(n);
  return s;
}

int logLevel() {
  static const int level = [] {
    const char *e = getenv("CCL_NCCL_LOG");
    return e && *e ? atoi(e) : 1;
  }();
  return level;
}

void logLine(int level, const char *fmt, ...) {
  if (logLevel() < level)
    return;
  va_list ap;
  va_start(ap, fmt);
  char buf[2048];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  // One write per line, so lines of several threads do not mix.
  std::string line = format("cclnccl[%d]: %s\n", (int)getpid(), buf);
  fwrite(line.data(), 1, line.size(), stderr);
}

bool hostMode() {
  static const bool host = [] {
    const char *e = getenv("CCL_NCCL_TARGET");
    return e && strcmp(e, "host") == 0;
  }();
  return host;
}

namespace {
thread_local std::string tlsError;
}

void setLastError(const std::string &message) { tlsError = message; }
const char *lastError() { return tlsError.c_str(); }

ncclResult_t fail(ncclResult_t r, const std::string &message) {
  tlsError = message;
  logLine(2, "error: %s", message.c_str());
  return r;
}

// --- The bundle ------------------------------------------------------------

namespace {
std::string shimDirectory() {
  Dl_info info;
  if (dladdr((void *)&cclncclShimVersion, &info) && info.dli_fname) {
    std::string p = info.dli_fname;
    size_t slash = p.rfind('/');
    if (slash != std::string::npos)
      return p.substr(0, slash);
  }
  return ".";
}

Bundle loadBundle() {
  Bundle b;
  const char *env = getenv("CCL_NCCL_BUNDLE");
  b.path = env && *env ? env : shimDirectory() + "/libccl_stdlib.so";
  // A file cut short would kill the process with SIGBUS when loaded.
  if (cclCheckLibraryFile(b.path.c_str()) != cclSuccess) {
    b.error = format("the cclc bundle%s could not be loaded: %s",
                     env && *env ? " (CCL_NCCL_BUNDLE)" : "",
                     cclGetLastError());
    return b;
  }
  dlerror();
  void *h = dlopen(b.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    b.error =
        format("the cclc bundle %s%s could not be loaded: %s", b.path.c_str(),
               env && *env ? " (CCL_NCCL_BUNDLE)" : "", e ? e : "?");
    return b;
  }
  auto sym = [&](const char *name, auto *fn) {
    *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(dlsym(h, name));
    if (!*fn && b.error.empty())
      b.error = format("the cclc bundle %s has no %s (not a bundle of the "
                       "stdlib?)",
                       b.path.c_str(), name);
  };
  sym("cclAllReduce", &b.allReduce);
  sym("cclAllGather", &b.allGather);
  sym("cclReduceScatter", &b.reduceScatter);
  sym("cclAllToAll", &b.allToAll);
  sym("cclBroadcast", &b.broadcast);
  sym("cclReduce", &b.reduce);
  b.ok = b.error.empty();
  return b;
}
} // namespace

const Bundle &bundle() {
  static const Bundle b = [] {
    Bundle loaded = loadBundle();
    if (loaded.ok)
      logLine(2, "cclc bundle: %s", loaded.path.c_str());
    else
      logLine(1, "%s: every call is forwarded", loaded.error.c_str());
    return loaded;
  }();
  return b;
}

// --- The rank counts the bundle serves ------------------------------------

namespace {
// The algorithms of the bundle at `path`: its exported functions
// ccl_<algorithm> (the generated entry points), read from its dynamic
// symbol table.
bool bundleAlgorithms(const std::string &path, std::vector<std::string> *out,
                      std::string *why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = format("%s: %s", path.c_str(), strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    *why = format("%s: not an ELF file (too small)", path.c_str());
    close(fd);
    return false;
  }
  const size_t size = (size_t)st.st_size;
  void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    *why = format("%s: mmap: %s", path.c_str(), strerror(errno));
    return false;
  }
  const auto *base = static_cast<const unsigned char *>(map);
  const auto *eh = reinterpret_cast<const Elf64_Ehdr *>(base);
  bool ok = false;
  auto inside = [&](uint64_t off, uint64_t bytes) {
    return off <= size && bytes <= size - off;
  };
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))) {
    *why =
        format("%s: not a 64-bit ELF file with section headers", path.c_str());
  } else {
    const auto *sh = reinterpret_cast<const Elf64_Shdr *>(base + eh->e_shoff);
    bool found = false;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
      if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
        continue;
      const Elf64_Shdr &strs = sh[sh[i].sh_link];
      if (!inside(sh[i].sh_offset, sh[i].sh_size) ||
          !inside(strs.sh_offset, strs.sh_size))
        continue;
      found = true;
      const auto *sym =
          reinterpret_cast<const Elf64_Sym *>(base + sh[i].sh_offset);
      const char *names = reinterpret_cast<const char *>(base + strs.sh_offset);
      for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
        if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
            sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= strs.sh_size)
          continue;
        const char *name = names + sym[k].st_name;
        size_t len = strnlen(name, strs.sh_size - sym[k].st_name);
        if (len > 4 && len < strs.sh_size - sym[k].st_name &&
            strncmp(name, "ccl_", 4) == 0)
          out->push_back(std::string(name + 4, len - 4));
      }
    }
    ok = found;
    if (!found)
      *why = format("%s has no dynamic symbol table", path.c_str());
  }
  munmap(map, size);
  return ok;
}

// "2..8", "2, 4, 8".
std::string rankList(const std::set<int> &ranks) {
  std::string s;
  for (auto it = ranks.begin(); it != ranks.end();) {
    int lo = *it, hi = lo;
    while (++it != ranks.end() && *it == hi + 1)
      hi++;
    s += s.empty() ? "" : ", ";
    s += hi > lo + 1 ? format("%d..%d", lo, hi)
         : hi > lo   ? format("%d, %d", lo, hi)
                     : format("%d", lo);
  }
  return s;
}

struct ServedRanks {
  std::set<int> ranks; // the rank counts of its plans for our target
  std::string error;   // why none is known
};

ServedRanks findServedRanks() {
  ServedRanks s;
  const Bundle &b = bundle(); // loading it registers its plans
  if (!b.ok) {
    s.error = b.error;
    return s;
  }
  std::vector<std::string> algorithms;
  std::string why;
  if (!bundleAlgorithms(b.path, &algorithms, &why)) {
    s.error = "the algorithms of the cclc bundle could not be read: " + why;
    return s;
  }
  const uint32_t target = hostMode() ? CCL_TARGET_HOST : CCL_TARGET_NVPTX;
  for (const std::string &a : algorithms) {
    size_t n = 0;
    if (cclPlanLookup(a.c_str(), nullptr, 0, &n) != cclSuccess || !n)
      continue;
    std::vector<const ccl_plan *> plans(n);
    if (cclPlanLookup(a.c_str(), plans.data(), n, &n) != cclSuccess)
      continue;
    for (size_t i = 0; i < n && i < plans.size(); i++) {
      const ccl_plan *p = plans[i];
      if (!p || p->target != target || !p->variants)
        continue;
      for (uint32_t v = 0; v < p->num_variants; v++)
        s.ranks.insert((int)p->variants[v].nranks);
    }
  }
  if (s.ranks.empty())
    s.error = format("the cclc bundle %s has no kernel for the %s target",
                     b.path.c_str(), hostMode() ? "host" : "CUDA");
  return s;
}
} // namespace

// Whether the bundle has kernels for `nranks` ranks (a rank count one of its
// plans was compiled for); *why says why not.
bool bundleServesRanks(int nranks, std::string *why) {
  static const ServedRanks served = findServedRanks();
  if (!served.error.empty()) {
    *why = served.error;
    return false;
  }
  if (served.ranks.count(nranks))
    return true;
  *why = format("the stdlib does not serve %d rank%s: the bundle's plans "
                "are compiled for %s ranks",
                nranks, nranks == 1 ? "" : "s", rankList(served.ranks).c_str());
  return false;
}

// --- Handles ---------------------------------------------------------------

namespace {
std::mutex registryMu;
std::unordered_set<const ncclComm *> &registry() {
  static auto *r = new std::unordered_set<const ncclComm *>;
  return *r;
}
} // namespace

void registerComm(ncclComm *c) {
  std::lock_guard<std::mutex> lock(registryMu);
  registry().insert(c);
}
void unregisterComm(ncclComm *c) {
  std::lock_guard<std::mutex> lock(registryMu);
  registry().erase(c);
}
bool liveComm(const ncclComm *c) {
  std::lock_guard<std::mutex> lock(registryMu);
  return registry().count(c) != 0;
}

thread_local int insideReal = 0;

namespace {
std::atomic<size_t> realCommCount{0};
std::unordered_set<const void *> &realComms() {
  static auto *r = new std::unordered_set<const void *>;
  return *r;
}
} // namespace

void registerRealComm(const void *real) {
  std::lock_guard<std::mutex> lock(registryMu);
  if (realComms().insert(real).second)
    realCommCount.fetch_add(1, std::memory_order_release);
}
bool isRealComm(const void *comm) {
  // Without a shadow (every served call) no lock is taken.
  if (realCommCount.load(std::memory_order_acquire) == 0)
    return false;
  std::lock_guard<std::mutex> lock(registryMu);
  return registry().count(static_cast<const ncclComm *>(comm)) == 0 &&
         realComms().count(comm) != 0;
}

namespace {

// --- Types -----------------------------------------------------------------

const char *const kTypeNames[] = {
    "int8",    "uint8",   "int32",   "uint32",   "int64",      "uint64",
    "float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"};

bool cclType(ncclDataType_t t, cclDataType_t *out) {
  switch (t) {
  case ncclInt8:
    *out = cclInt8;
    return true;
  case ncclUint8:
    *out = cclUint8;
    return true;
  case ncclInt32:
    *out = cclInt32;
    return true;
  case ncclUint32:
    *out = cclUint32;
    return true;
  case ncclInt64:
    *out = cclInt64;
    return true;
  case ncclUint64:
    *out = cclUint64;
    return true;
  case ncclFloat16:
    *out = cclFloat16;
    return true;
  case ncclFloat32:
    *out = cclFloat32;
    return true;
  case ncclFloat64:
    *out = cclFloat64;
    return true;
  case ncclBfloat16:
    *out = cclBfloat16;
    return true;
  case ncclFloat8e4m3:
    *out = cclFloat8e4m3;
    return true;
  case ncclFloat8e5m2:
    *out = cclFloat8e5m2;
    return true;
  default:
    return false;
  }
}

std::string typeName(ncclDataType_t t) {
  return t >= 0 && t < ncclNumTypes ? kTypeNames[t] : format("type %d", (int)t);
}

std::string opName(ncclRedOp_t op) {
  switch (op) {
  case ncclSum:
    return "sum";
  case ncclProd:
    return "prod";
  case ncclMax:
    return "max";
  case ncclMin:
    return "min";
  case ncclAvg:
    return "avg";
  default:
    return format("op %d", (int)op);
  }
}

ncclResult_t toNccl(cclResult_t r) {
  switch (r) {
  case cclSuccess:
    return ncclSuccess;
  case cclInvalidArgument:
    return ncclInvalidArgument;
  case cclInvalidUsage:
  case cclUnsupported:
    return ncclInvalidUsage;
  case cclNoDevice:
  case cclDriverError:
    return ncclUnhandledCudaError;
  case cclRemoteError:
    return ncclRemoteError;
  case cclTimeout:
  case cclSystemError:
  case cclBootstrapError:
    return ncclSystemError;
  default:
    return ncclInternalError;
  }
}

// --- Calls -----------------------------------------------------------------

enum class Call {
  AllReduce,
  AllGather,
  ReduceScatter,
  AlltoAll,
  Broadcast,
  Reduce,
  Gather,
  Scatter,
  Send,
  Recv
};
const char *callName(Call c) {
  static const char *const names[] = {
      "ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll",
      "ncclBroadcast", "ncclReduce",    "ncclGather",        "ncclScatter",
      "ncclSend",      "ncclRecv"};
  return names[(int)c];
}
bool servable(Call c) { return c <= Call::Reduce; }
bool reduces(Call c) {
  return c == Call::AllReduce || c == Call::ReduceScatter || c == Call::Reduce;
}
bool rooted(Call c) {
  return c == Call::Broadcast || c == Call::Reduce || c == Call::Gather ||
         c == Call::Scatter;
}

struct Op {
  Call call;
  const void *send;
  void *recv;
  size_t count;
  ncclDataType_t type;
  ncclRedOp_t op;
  int root; // or the peer of Send / Recv
  ncclComm *comm;
  cudaStream_t stream;
  std::string why; // why it is forwarded
};

std::string describe(const Op &o) {
  std::string s =
      format("rank %d/%d %s(count=%zu, %s", o.comm->rank, o.comm->nranks,
             callName(o.call), o.count, typeName(o.type).c_str());
  if (reduces(o.call))
    s += ", " + opName(o.op);
  if (rooted(o.call))
    s += format(", root=%d", o.root);
  if (o.call == Call::Send || o.call == Call::Recv)
    s += format(", peer=%d", o.root);
  return s + ")";
}

enum class Served { kYes, kForward, kError };

// Runs `o` on the cclc side if the bundle serves it. kForward with *why
// when it does not, kError (*err, the thread's last error set) when the
// call is wrong.
Served tryServe(const Op &o, std::string *why, ncclResult_t *err) {
  ncclComm *c = o.comm;
  const Bundle &b = bundle();
  if (!b.ok) {
    *why = b.error;
    return Served::kForward;
  }
  if (!c->ccl) {
    *why = "no cclc communicator: " + c->noCclWhy;
    return Served::kForward;
  }
  cclDataType_t t;
  if (!cclType(o.type, &t)) {
    *err = fail(ncclInvalidArgument, format("%s: invalid data type %d",
                                            describe(o).c_str(), (int)o.type));
    return Served::kError;
  }
  cclRedOp_t op = cclSum;
  if (reduces(o.call)) {
    switch (o.op) {
    case ncclSum:
      op = cclSum;
      break;
    case ncclProd:
      op = cclProd;
      break;
    case ncclMax:
      op = cclMax;
      break;
    case ncclMin:
      op = cclMin;
      break;
    case ncclAvg:
      *why = "ncclAvg: the stdlib has no average";
      return Served::kForward;
    default:
      *why = format("operator %d is a PreMulSum (ncclRedOpCreatePreMulSum) "
                    "of the real NCCL",
                    (int)o.op);
      return Served::kForward;
    }
  }
  if (hostMode() && o.stream) {
    *err = fail(ncclInvalidArgument,
                format("%s: CCL_NCCL_TARGET=host takes NULL streams only, "
                       "not %p",
                       describe(o).c_str(), (void *)o.stream));
    return Served::kError;
  }
  cclStream_t s = (cclStream_t)o.stream;
  cclResult_t r = cclInternalError;
  switch (o.call) {
  case Call::AllReduce:
    r = b.allReduce(o.send, o.recv, o.count, t, op, c->ccl, s);
    break;
  case Call::AllGather:
    r = b.allGather(o.send, o.recv, o.count, t, c->ccl, s);
    break;
  case Call::ReduceScatter:
    r = b.reduceScatter(o.send, o.recv, o.count, t, op, c->ccl, s);
    break;
  case Call::AlltoAll:
    r = b.allToAll(o.send, o.recv, o.count, t, c->ccl, s);
    break;
  case Call::Broadcast:
    r = b.broadcast(o.send, o.recv, o.count, t, o.root, c->ccl, s);
    break;
  case Call::Reduce:
    r = b.reduce(o.send, o.recv, o.count, t, op, o.root, c->ccl, s);
    break;
  default:
    break;
  }
  if (r == cclSuccess) {
    const char *algo = nullptr;
    cclCommLastAlgorithm(c->ccl, &algo);
    logLine(2, "%s: cclc (%s)", describe(o).c_str(), algo ? algo : "?");
    return Served::kYes;
  }
  if (r == cclUnsupported) {
    *why = format("the stdlib does not serve it: %s", cclGetLastError());
    return Served::kForward;
  }
  *err =
      fail(toNccl(r), format("%s: %s", describe(o).c_str(), cclGetLastError()));
  return Served::kError;
}

ncclResult_t callReal(const Op &o, std::string *why) {
  ncclComm_t s = o.comm->shadow.real;
  switch (o.call) {
  case Call::AllReduce:
    if (auto f = REAL(ncclAllReduce, why))
      return f(o.send, o.recv, o.count, o.type, o.op, s, o.stream);
    break;
  case Call::AllGather:
    if (auto f = REAL(ncclAllGather, why))
      return f(o.send, o.recv, o.count, o.type, s, o.stream);
    break;
  case Call::ReduceScatter:
    if (auto f = REAL(ncclReduceScatter, why))
      return f(o.send, o.recv, o.count, o.type, o.op, s, o.stream);
    break;
  case Call::AlltoAll:
    if (auto f = REAL(ncclAlltoAll, why))
      return f(o.send, o.recv, o.count, o.type, s, o.stream);
    break;
  case Call::Broadcast:
    if (auto f = REAL(ncclBroadcast, why))
      return f(o.send, o.recv, o.count, o.type, o.root, s, o.stream);
    break;
  case Call::Reduce:
    if (auto f = REAL(ncclReduce, why))
      return f(o.send, o.recv, o.count, o.type, o.op, o.root, s, o.stream);
    break;
  case Call::Gather:
    if (auto f = REAL(ncclGather, why))
      return f(o.send, o.recv, o.count, o.type, o.root, s, o.stream);
    break;
  case Call::Scatter:
    if (auto f = REAL(ncclScatter, why))
      return f(o.send, o.recv, o.count, o.type, o.root, s, o.stream);
    break;
  case Call::Send:
    if (auto f = REAL(ncclSend, why))
      return f(o.send, o.count, o.type, o.root, s, o.stream);
    break;
  case Call::Recv:
    if (auto f = REAL(ncclRecv, why))
      return f(o.recv, o.count, o.type, o.root, s, o.stream);
    break;
  }
  return ncclSystemError;
}

// Forwards `ops` (in order) to the real NCCL, in one real group when there
// are several.
ncclResult_t forwardOps(std::vector<Op> &ops) {
  std::vector<ncclComm *> comms;
  for (const Op &o : ops)
    comms.push_back(o.comm);
  ensureShadows(comms);
  ncclResult_t first = ncclSuccess;
  auto keep = [&](ncclResult_t r, const std::string &msg) {
    if (first == ncclSuccess) {
      first = r;
      setLastError(msg);
    }
  };
  std::string why;
  const bool group = ops.size() > 1;
  auto start = REAL(ncclGroupStart, &why);
  auto end = REAL(ncclGroupEnd, &why);
  bool started = false;
  for (const Op &o : ops) {
    logLine(2, "%s: forwarded to NCCL: %s", describe(o).c_str(), o.why.c_str());
    Shadow &sh = o.comm->shadow;
    if (sh.state != Shadow::kReady) {
      std::string msg =
          format("%s is forwarded to NCCL (%s), but forwarding "
                 "is disabled: %s",
                 describe(o).c_str(), o.why.c_str(), sh.why.c_str());
      logLine(2, "%s: failed: forwarding is disabled", describe(o).c_str());
      keep(sh.error != ncclSuccess ? sh.error : ncclInvalidUsage, msg);
      continue;
    }
    if (group && !started && start) {
      ncclResult_t r = start();
      if (r != ncclSuccess) {
        keep(r, format("the real ncclGroupStart failed: %s",
                       realLastError(nullptr).c_str()));
        return first;
      }
      started = true;
    }
    std::string w;
    ncclResult_t r = callReal(o, &w);
    if (r != ncclSuccess)
      keep(r, format("%s (forwarded: %s): the real NCCL failed: %s: %s",
                     describe(o).c_str(), o.why.c_str(), ncclGetErrorString(r),
                     w.empty() ? realLastError(sh.real).c_str() : w.c_str()));
  }
  if (started && end) {
    ncclResult_t r = end();
    if (r != ncclSuccess)
      keep(r, format("the real ncclGroupEnd failed: %s: %s",
                     ncclGetErrorString(r), realLastError(nullptr).c_str()));
  }
  return first;
}

// Runs a group's calls in order: each served call on the cclc side, runs of
// forwarded calls in one real group each. A group with a point-to-point
// call is forwarded whole, so its sends and receives stay in one NCCL group.
ncclResult_t runOps(std::vector<Op> &ops) {
  bool p2p = false;
  for (const Op &o : ops)
    p2p |= o.call == Call::Send || o.call == Call::Recv;
  ncclResult_t first = ncclSuccess;
  std::string firstMsg;
  auto keep = [&](ncclResult_t r) {
    if (r != ncclSuccess && first == ncclSuccess) {
      first = r;
      firstMsg = lastError();
    }
  };
  std::vector<Op> batch;
  auto flush = [&] {
    if (!batch.empty())
      keep(forwardOps(batch));
    batch.clear();
  };
  for (Op &o : ops) {
    if (o.comm->pendingInit || !o.comm->initError.empty()) {
      keep(fail(o.comm->initResult != ncclSuccess ? o.comm->initResult
                                                  : ncclInvalidUsage,
                format("%s: the communicator's initialisation failed: %s",
                       describe(o).c_str(), o.comm->initError.c_str())));
      continue;
    }
    if (o.comm->revoked) {
      keep(fail(ncclInvalidUsage,
                format("%s: the communicator was revoked (ncclCommRevoke)",
                       describe(o).c_str())));
      continue;
    }
    if (!servable(o.call)) {
      o.why = o.call == Call::Send || o.call == Call::Recv
                  ? "the stdlib has no point-to-point calls"
                  : format("the stdlib has no %s", callName(o.call) + 4);
    } else if (p2p) {
      o.why = "in a group with point-to-point calls, which are forwarded "
              "(the group stays one NCCL group)";
    } else {
      flush();
      ncclResult_t err = ncclSuccess;
      Served s = tryServe(o, &o.why, &err);
      if (s == Served::kYes)
        continue;
      if (s == Served::kError) {
        keep(err);
        continue;
      }
    }
    batch.push_back(o);
  }
  flush();
  if (first != ncclSuccess)
    setLastError(firstMsg);
  return first;
}

// --- Groups ----------------------------------------------------------------

struct PendingInit {
  ncclComm *comm;
  PackedId id;
};

// The CUDA device current on the calling thread (cudaSetDevice's), or -1
// (none current, or the host target): the device of a rank created here.
int currentDevice() {
  if (hostMode())
    return -1;
  const cclrt::CudaDriver *d = cclrt::cudaDriver();
  cclrt::CUcontext ctx = nullptr;
  cclrt::CUdevice dev = -1;
  if (!d || d->cuCtxGetCurrent(&ctx) != cclrt::CUDA_SUCCESS || !ctx ||
      d->cuCtxGetDevice(&dev, nullptr) != cclrt::CUDA_SUCCESS)
    return -1;
  return (int)dev;
}
thread_local int groupDepth = 0;
thread_local std::vector<Op> groupOps;
thread_local std::vector<PendingInit> groupInits;

ncclResult_t checkComm(const ncclComm *c, const char *fn) {
  if (!c)
    return fail(ncclInvalidArgument, format("%s: comm is NULL", fn));
  if (!liveComm(c))
    return fail(ncclInvalidArgument,
                format("%s: %p is not a communicator of libcclnccl.so (a "
                       "destroyed one, or one of another NCCL)",
                       fn, (const void *)c));
  return ncclSuccess;
}

ncclResult_t enqueue(Op o) {
  ncclResult_t r = checkComm(o.comm, callName(o.call));
  if (r != ncclSuccess)
    return r;
  if (o.type < 0 || o.type >= ncclNumTypes)
    return fail(ncclInvalidArgument, format("%s: invalid data type %d",
                                            callName(o.call), (int)o.type));
  if (groupDepth > 0) {
    groupOps.push_back(std::move(o));
    return ncclSuccess;
  }
  std::vector<Op> one{std::move(o)};
  return runOps(one);
}

// Makes the cclc side of rank `c` (blocking until every rank joined).
ncclResult_t initRank(ncclComm *c, const PackedId &id,
                      const char *fn = "ncclCommInitRank") {
  const Bundle &b = bundle(); // loaded first: its plans are then prepared
  c->realIdState = id.realState;
  c->hasRealId = id.realState == kRealIdPresent;
  c->realId = id.realId;
  cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
  cfg.target = hostMode() ? cclTargetHost : cclTargetCuda;
  // The device the application set (recorded at the call: inside a group
  // the rank is made at ncclGroupEnd, in a thread of its own).
  cfg.device = c->device;
  cclResult_t r =
      cclCommInitRankConfig(&c->ccl, c->nranks, id.ccl, c->rank, &cfg);
  if (r != cclSuccess) {
    std::string msg = format("%s(rank %d of %d): the cclc "
                             "communicator could not be made: %s",
                             fn, c->rank, c->nranks, cclGetLastError());
    c->ccl = nullptr;
    if (hostMode())
      return fail(toNccl(r), msg);
    c->noCclWhy = msg;
    logLine(1, "%s: every call of this rank is forwarded", msg.c_str());
  } else {
    cclCommDevice(c->ccl, &c->device);
    if (!b.ok)
      c->noCclWhy = b.error;
  }
  logLine(2, "rank %d/%d: communicator created (cclc side: %s)", c->rank,
          c->nranks, c->ccl ? "yes" : "no");
  return ncclSuccess;
}

ncclResult_t initRankConfig(ncclComm_t *out, int nranks, ncclUniqueId id,
                            int rank, ncclConfig_t *config, const char *fn) {
  if (!out)
    return fail(ncclInvalidArgument, format("%s: comm is NULL", fn));
  *out = nullptr;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument,
                format("%s: rank %d of %d ranks is invalid", fn, rank, nranks));
  PackedId pid;
  ncclResult_t r = unpackId(id, &pid);
  if (r != ncclSuccess)
    return fail(r,
                format("%s(rank %d of %d): %s", fn, rank, nranks, lastError()));
  auto c = std::make_unique<ncclComm>();
  c->rank = rank;
  c->nranks = nranks;
  c->device = currentDevice();
  if (config) {
    if (config->magic != 0xcafebeef || config->size > sizeof(ncclConfig_t))
      return fail(ncclInvalidArgument,
                  format("%s: config was not initialised with "
                         "NCCL_CONFIG_INITIALIZER",
                         fn));
    memcpy(&c->config, config, config->size);
    c->hasConfig = true;
  }
  if (groupDepth > 0) {
    c->pendingInit = true;
    groupInits.push_back({c.get(), pid});
  } else {
    r = initRank(c.get(), pid);
    if (r != ncclSuccess)
      return r;
  }
  registerComm(c.get());
  *out = c.release();
  return ncclSuccess;
}

// --- Split -----------------------------------------------------------------

const char *errorString(ncclResult_t r);

// A new unique id of the shim (ncclGetUniqueId): the cclc id and, where a
// real NCCL is loadable, a real one, packed.
ncclResult_t makeUniqueId(ncclUniqueId *out, const char *fn) {
  cclUniqueId cid;
  cclResult_t cr = cclGetUniqueId(&cid);
  if (cr != cclSuccess)
    return fail(toNccl(cr),
                format("%s: the cclc id: %s", fn, cclGetLastError()));
  std::string why;
  ncclUniqueId rid;
  memset(&rid, 0, sizeof rid);
  RealIdState state = kRealIdPresent;
  if (auto f = REAL(ncclGetUniqueId, &why)) {
    ncclResult_t r = f(&rid);
    if (r != ncclSuccess) {
      state = kRealIdFailed;
      logLine(1,
              "%s: the real ncclGetUniqueId failed (%s: %s): forwarded calls "
              "will fail",
              fn, errorString(r), realLastError(nullptr).c_str());
    }
  } else {
    state = kRealIdNoNccl;
  }
  return packId(cid, &rid, state, out);
}

// Makes `c` a forward-only communicator: `real` is the real NCCL's (made by
// the real ncclCommSplit / ncclCommShrink from the parent's shadow).
void setForwardOnly(ncclComm *c, ncclComm_t real, const std::string &why) {
  std::string w;
  if (auto f = REAL(ncclCommUserRank, &w))
    f(real, &c->rank);
  if (auto f = REAL(ncclCommCount, &w))
    f(real, &c->nranks);
  if (auto f = REAL(ncclCommCuDevice, &w))
    f(real, &c->device);
  c->ccl = nullptr;
  c->noCclWhy = why;
  c->shadow.state = Shadow::kReady;
  c->shadow.real = real;
  registerRealComm(real);
}

// One rank's ncclCommSplit. Every rank of the parent takes part in two
// all-gathers over the parent's cclc bootstrap: (color, key, rank), then
// the unique id of each group the stdlib serves, made by the group's first
// rank; each rank of such a group then makes its cclc communicator from it
// (cclCommInitRankConfig, blocking until the group's ranks joined), with a
// fresh real NCCL id for its shadow. When a group is not served (or the
// parent has no cclc side), every rank of the parent joins the real
// ncclCommSplit on the parent's shadow (NCCL's split is collective): the
// forwarded groups with their color, the others with NCCL_SPLIT_NOCOLOR.
struct PendingSplit {
  ncclComm *parent = nullptr;
  int color = 0, key = 0;
  ncclComm *out = nullptr; // the new handle; nullptr: NCCL_SPLIT_NOCOLOR
  // splitCcl's results.
  bool cclDone = false;  // out was made from a cclc id
  bool needReal = false; // a group is forwarded: the real split runs
  int newRank = -1, newRanks = 0;
  std::string why; // why out is forwarded
  ncclResult_t result = ncclSuccess;
  std::string error;
};

std::string describeSplit(const PendingSplit &s) {
  return format("rank %d/%d ncclCommSplit(color=%s, key=%d)", s.parent->rank,
                s.parent->nranks,
                s.color == NCCL_SPLIT_NOCOLOR ? "NCCL_SPLIT_NOCOLOR"
                                              : format("%d", s.color).c_str(),
                s.key);
}

// The cclc part of a split (blocking: every rank of the parent calls it at
// the same time). Sets s.result / s.error on failure.
void splitCcl(PendingSplit &s) {
  ncclComm *p = s.parent;
  const std::string what = describeSplit(s);
  auto failed = [&](ncclResult_t r, const std::string &msg) {
    s.result = fail(r, msg);
    s.error = msg;
  };
  if (!p->initError.empty())
    return failed(ncclInvalidUsage,
                  format("%s: the parent communicator's initialisation "
                         "failed: %s",
                         what.c_str(), p->initError.c_str()));
  if (!p->ccl) {
    s.needReal = true;
    s.why = "the parent has no cclc communicator: " + p->noCclWhy;
    return;
  }
  struct Entry {
    int32_t color, key, rank;
  };
  Entry mine{s.color, s.key, p->rank};
  std::vector<Entry> all(p->nranks);
  cclResult_t cr =
      cclBootstrapAllGather(p->ccl, &mine, all.data(), sizeof mine);
  if (cr != cclSuccess)
    return failed(toNccl(cr), format("%s: exchanging the ranks' colors and "
                                     "keys failed: %s",
                                     what.c_str(), cclGetLastError()));
  // Each color's ranks, in (key, parent rank) order.
  std::map<int, std::vector<Entry>> groups;
  for (const Entry &e : all) {
    if (e.color == NCCL_SPLIT_NOCOLOR)
      continue;
    if (e.color < 0)
      return failed(ncclInvalidArgument,
                    format("%s: rank %d passed color %d: a color is >= 0 or "
                           "NCCL_SPLIT_NOCOLOR",
                           what.c_str(), e.rank, e.color));
    groups[e.color].push_back(e);
  }
  std::map<int, bool> served;
  for (auto &g : groups) {
    std::stable_sort(g.second.begin(), g.second.end(),
                     [](const Entry &a, const Entry &b) {
                       return a.key != b.key ? a.key < b.key : a.rank < b.rank;
                     });
    std::string why;
    served[g.first] = bundleServesRanks((int)g.second.size(), &why);
    if (!served[g.first])
      s.needReal = true;
    if (g.first == s.color)
      s.why = why;
  }
  int leader = -1;
  if (s.color != NCCL_SPLIT_NOCOLOR) {
    const std::vector<Entry> &g = groups[s.color];
    for (size_t i = 0; i < g.size(); i++)
      if (g[i].rank == p->rank)
        s.newRank = (int)i;
    s.newRanks = (int)g.size();
    leader = g[0].rank;
  }
  bool anyServed = false;
  for (auto &g : served)
    anyServed |= g.second;
  if (!anyServed)
    return;
  // The ids, each made by the first rank of its served group.
  struct IdMsg {
    int32_t ok;
    ncclUniqueId id;
  };
  IdMsg msg;
  memset(&msg, 0, sizeof msg);
  const bool mineServed = s.color != NCCL_SPLIT_NOCOLOR && served[s.color];
  ncclResult_t idResult = ncclSuccess;
  std::string idError;
  if (mineServed && leader == p->rank) {
    idResult = makeUniqueId(&msg.id, "ncclCommSplit");
    if (idResult == ncclSuccess)
      msg.ok = 1;
    else
      idError = lastError();
  }
  std::vector<IdMsg> ids(p->nranks);
  cr = cclBootstrapAllGather(p->ccl, &msg, ids.data(), sizeof msg);
  if (cr != cclSuccess)
    return failed(toNccl(cr), format("%s: exchanging the new communicators' "
                                     "unique ids failed: %s",
                                     what.c_str(), cclGetLastError()));
  if (!mineServed)
    return;
  if (idResult != ncclSuccess)
    return failed(idResult, format("%s: %s", what.c_str(), idError.c_str()));
  if (!ids[leader].ok)
    return failed(ncclSystemError,
                  format("%s: rank %d, the first of the new communicator, "
                         "could not make its unique id",
                         what.c_str(), leader));
  PackedId pid;
  ncclResult_t r = unpackId(ids[leader].id, &pid);
  if (r != ncclSuccess)
    return failed(r, format("%s: %s", what.c_str(), lastError()));
  ncclComm *c = s.out;
  c->rank = s.newRank;
  c->nranks = s.newRanks;
  c->device = p->device;
  r = initRank(c, pid, "ncclCommSplit");
  if (r != ncclSuccess)
    return failed(r, lastError());
  s.cclDone = true;
}

// The real ncclCommSplit of the splits that need it (one rank each; several
// ranks driven by this thread: in one real group).
void splitReal(const std::vector<PendingSplit *> &splits) {
  std::vector<PendingSplit *> todo;
  std::vector<ncclComm *> parents;
  for (PendingSplit *s : splits)
    if (s->result == ncclSuccess && s->needReal) {
      todo.push_back(s);
      parents.push_back(s->parent);
    }
  if (todo.empty())
    return;
  ensureShadows(parents);
  std::string why;
  auto split = REAL(ncclCommSplit, &why);
  auto start = REAL(ncclGroupStart, &why);
  auto end = REAL(ncclGroupEnd, &why);
  // A rank whose new communicator is forwarded joins with its color, the
  // others with NCCL_SPLIT_NOCOLOR.
  auto forwarded = [](const PendingSplit *s) {
    return s->color != NCCL_SPLIT_NOCOLOR && !s->cclDone;
  };
  std::vector<size_t> run;
  for (size_t i = 0; i < todo.size(); i++)
    if (todo[i]->parent->shadow.state == Shadow::kReady)
      run.push_back(i);
  std::vector<ncclComm_t> outs(todo.size(), nullptr);
  std::vector<ncclResult_t> res(todo.size(), ncclSuccess);
  ncclResult_t groupResult = ncclSuccess;
  if (split && !run.empty()) {
    const bool group = run.size() > 1 && start && end;
    if (group)
      groupResult = start();
    for (size_t i : run) {
      if (groupResult != ncclSuccess)
        break;
      PendingSplit *s = todo[i];
      ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
      if (s->out)
        cfg = s->out->config;
      res[i] = split(s->parent->shadow.real,
                     forwarded(s) ? s->color : NCCL_SPLIT_NOCOLOR, s->key,
                     &outs[i], s->out && s->out->hasConfig ? &cfg : nullptr);
    }
    if (group && groupResult == ncclSuccess)
      groupResult = end();
  }
  for (size_t i = 0; i < todo.size(); i++) {
    PendingSplit *s = todo[i];
    const std::string what = describeSplit(*s);
    const Shadow &psh = s->parent->shadow;
    ncclResult_t r = res[i] != ncclSuccess ? res[i] : groupResult;
    std::string problem;
    ncclResult_t code = ncclSuccess;
    if (psh.state != Shadow::kReady) {
      problem = "forwarding is disabled: " + psh.why;
      code = psh.error != ncclSuccess ? psh.error : ncclInvalidUsage;
    } else if (!split) {
      problem = why;
      code = ncclSystemError;
    } else if (r != ncclSuccess) {
      problem = format("the real ncclCommSplit failed: %s: %s", errorString(r),
                       realLastError(nullptr).c_str());
      code = r;
    } else if (forwarded(s) && !outs[i]) {
      problem = "the real ncclCommSplit made no communicator";
      code = ncclInternalError;
    }
    if (!forwarded(s)) {
      if (!problem.empty())
        logLine(2,
                "%s: the real ncclCommSplit (which every rank joins, since a "
                "new communicator is forwarded): %s",
                what.c_str(), problem.c_str());
      continue;
    }
    if (!problem.empty()) {
      std::string msg = format("%s: the new communicator is forwarded to "
                               "NCCL (%s), but: %s",
                               what.c_str(), s->why.c_str(), problem.c_str());
      s->result = fail(code, msg);
      s->error = msg;
      continue;
    }
    setForwardOnly(s->out, outs[i],
                   "made by the real ncclCommSplit: " + s->why);
  }
}

// Logs what a split made, and returns its result.
ncclResult_t finishSplit(PendingSplit &s) {
  const std::string what = describeSplit(s);
  if (s.result != ncclSuccess) {
    logLine(2, "%s: failed", what.c_str());
    setLastError(s.error);
    return s.result;
  }
  if (!s.out)
    logLine(2, "%s: no new communicator (NCCL_SPLIT_NOCOLOR)", what.c_str());
  else if (s.cclDone)
    logLine(2, "%s: new communicator rank %d/%d: cclc", what.c_str(),
            s.out->rank, s.out->nranks);
  else
    logLine(2, "%s: new communicator rank %d/%d: forwarded to NCCL: %s",
            what.c_str(), s.out->rank, s.out->nranks, s.why.c_str());
  return ncclSuccess;
}

thread_local std::vector<PendingSplit> groupSplits;

// Runs splits whose ranks this thread drives together (a group): the cclc
// part of each in a thread of its own (its all-gathers block until every
// rank of the parent takes part), then the real splits in one real group.
void runSplits(std::vector<PendingSplit> &splits) {
  if (splits.size() == 1) {
    splitCcl(splits[0]);
  } else {
    std::vector<std::thread> threads;
    for (PendingSplit &s : splits)
      threads.emplace_back([&s] {
        try {
          splitCcl(s);
        } catch (const std::exception &e) {
          s.result = ncclInternalError;
          s.error = format("ncclCommSplit: %s", e.what());
        }
      });
    for (auto &t : threads)
      t.join();
  }
  std::vector<PendingSplit *> all;
  for (PendingSplit &s : splits)
    all.push_back(&s);
  splitReal(all);
}

// The outermost ncclGroupEnd: the communicators created in the group (each
// in a thread of its own: cclCommInitRank blocks until all ranks joined),
// the communicators split in it (the same), then the calls.
ncclResult_t endGroup() {
  std::vector<PendingInit> inits;
  inits.swap(groupInits);
  std::vector<Op> ops;
  ops.swap(groupOps);
  ncclResult_t first = ncclSuccess;
  std::string firstMsg;
  if (!inits.empty()) {
    std::vector<ncclResult_t> res(inits.size(), ncclSuccess);
    std::vector<std::string> msgs(inits.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < inits.size(); i++)
      threads.emplace_back([&, i] {
        res[i] = initRank(inits[i].comm, inits[i].id);
        if (res[i] != ncclSuccess)
          msgs[i] = lastError();
      });
    for (auto &t : threads)
      t.join();
    // Ranks one thread made in one group share their shadows' creation.
    auto clique = std::make_shared<Clique>();
    clique->initAll = false;
    for (size_t i = 0; i < inits.size(); i++) {
      ncclComm *c = inits[i].comm;
      c->pendingInit = false;
      if (res[i] != ncclSuccess) {
        c->initError = msgs[i];
        c->initResult = res[i];
        if (first == ncclSuccess) {
          first = res[i];
          firstMsg = msgs[i];
        }
      }
      clique->comms.push_back(c);
    }
    if (inits.size() > 1)
      for (ncclComm *c : clique->comms)
        c->clique = clique;
  }
  // Then the communicators split in the group (their parents may be some of
  // the above).
  std::vector<PendingSplit> splits;
  splits.swap(groupSplits);
  if (!splits.empty()) {
    runSplits(splits);
    for (PendingSplit &s : splits) {
      ncclResult_t r = finishSplit(s);
      if (s.out) {
        s.out->pendingInit = false;
        if (r != ncclSuccess) {
          s.out->initError = s.error;
          s.out->initResult = r;
        }
      }
      if (r != ncclSuccess && first == ncclSuccess) {
        first = r;
        firstMsg = s.error;
      }
    }
  }
  ncclResult_t r = runOps(ops);
  if (r != ncclSuccess && first == ncclSuccess) {
    first = r;
    firstMsg = lastError();
  }
  if (first != ncclSuccess)
    setLastError(firstMsg);
  return first;
}

const char *errorString(ncclResult_t r) {
  switch (r) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError:
    return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  default:
    return "unknown result code";
  }
}

// Destroys both sides of `c` (abort: cclCommAbort and the real abort).
ncclResult_t destroy(ncclComm *c, bool abort, const char *fn) {
  ncclResult_t r = checkComm(c, fn);
  if (r != ncclSuccess)
    return r;
  unregisterComm(c);
  ncclResult_t first = ncclSuccess;
  if (c->ccl) {
    cclResult_t cr = abort ? cclCommAbort(c->ccl) : cclCommDestroy(c->ccl);
    if (cr != cclSuccess)
      first = fail(toNccl(cr),
                   format("%s(rank %d): %s", fn, c->rank, cclGetLastError()));
  }
  {
    std::lock_guard<std::mutex> lock(c->shadow.mu);
    if (c->shadow.state == Shadow::kReady) {
      std::string why;
      auto f = abort ? REAL(ncclCommAbort, &why) : REAL(ncclCommDestroy, &why);
      ncclResult_t rr = f ? f(c->shadow.real) : ncclSystemError;
      if (rr != ncclSuccess && first == ncclSuccess)
        first =
            fail(rr, format("%s(rank %d): the shadow NCCL communicator: "
                            "%s",
                            fn, c->rank,
                            f ? realLastError(nullptr).c_str() : why.c_str()));
    }
  }
  if (c->clique) {
    std::lock_guard<std::mutex> lock(c->clique->mu);
    auto &v = c->clique->comms;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (*it == c) {
        v.erase(it);
        break;
      }
  }
  delete c;
  return first;
}

// Runs `f` and turns an exception into ncclInternalError: no C++
// exception leaves the library.
template <typename F> ncclResult_t guard(const char *fn, F &&f) {
  try {
    ncclResult_t r = f();
    // CCL_NCCL_LOG=3: every entry point the application called, served by
    // the shim (collectives: the level-2 line says which side).
    logLine(3, "%s: %s", fn, errorString(r));
    return r;
  } catch (const std::exception &e) {
    return fail(ncclInternalError, format("%s: %s", fn, e.what()));
  } catch (...) {
    return fail(ncclInternalError, format("%s: unknown exception", fn));
  }
}

// A forwarded call that is not a collective: on the shadow of `comm`.
template <typename F>
ncclResult_t onShadow(ncclComm *comm, const char *fn, const std::string &what,
                      F &&f) {
  ncclResult_t r = checkComm(comm, fn);
  if (r != ncclSuccess)
    return r;
  ensureShadows({comm});
  if (comm->shadow.state != Shadow::kReady) {
    logLine(2,
            "rank %d/%d %s: forwarded to NCCL (%s): failed: forwarding "
            "is disabled",
            comm->rank, comm->nranks, fn, what.c_str());
    return fail(comm->shadow.error != ncclSuccess ? comm->shadow.error
                                                  : ncclInvalidUsage,
                format("%s(rank %d) is forwarded to NCCL (%s), but "
                       "forwarding is disabled: %s",
                       fn, comm->rank, what.c_str(), comm->shadow.why.c_str()));
  }
  logLine(2, "rank %d/%d %s: forwarded to NCCL (%s)", comm->rank, comm->nranks,
          fn, what.c_str());
  r = f(comm->shadow.real);
  if (r != ncclSuccess)
    return fail(r, format("%s(rank %d) (forwarded): the real NCCL failed: "
                          "%s: %s",
                          fn, comm->rank, errorString(r),
                          realLastError(comm->shadow.real).c_str()));
  return ncclSuccess;
}

// A communicator made by the real NCCL from a parent's shadow (split,
// shrink): forward-only.
ncclComm *forwardOnly(ncclComm_t real, const std::string &why) {
  auto c = std::make_unique<ncclComm>();
  setForwardOnly(c.get(), real, why);
  registerComm(c.get());
  return c.release();
}

} // namespace
} // namespace cclnccl

using namespace cclnccl;

// --- The API (nccl.h) ------------------------------------------------------
// Every function of nccl.h, in its order. The pnccl* profiling names are
// aliases (at the end).

#define API extern "C" __attribute__((visibility("default")))

API ncclResult_t ncclMemAlloc(void **ptr, size_t size) {
  RETURN_IF_REAL_OWN_CALL(nullptr, ncclMemAlloc, ptr, size);
  return guard("ncclMemAlloc", [&]() -> ncclResult_t {
    if (!ptr)
      return fail(ncclInvalidArgument, "ncclMemAlloc: ptr is NULL");
    if (hostMode()) {
      *ptr = size ? malloc(size) : nullptr;
      return size && !*ptr
                 ? fail(ncclSystemError,
                        format("ncclMemAlloc: malloc(%zu) failed", size))
                 : ncclSuccess;
    }
    std::string why;
    auto f = REAL(ncclMemAlloc, &why);
    if (!f)
      return fail(ncclSystemError,
                  "ncclMemAlloc is forwarded to NCCL, but: " + why);
    return f(ptr, size);
  });
}

API ncclResult_t ncclMemFree(void *ptr) {
  RETURN_IF_REAL_OWN_CALL(nullptr, ncclMemFree, ptr);
  return guard("ncclMemFree", [&]() -> ncclResult_t {
    if (hostMode()) {
      free(ptr);
      return ncclSuccess;
    }
    std::string why;
    auto f = REAL(ncclMemFree, &why);
    if (!f)
      return fail(ncclSystemError,
                  "ncclMemFree is forwarded to NCCL, but: " + why);
    return f(ptr);
  });
}

API ncclResult_t ncclGetVersion(int *version) {
  RETURN_IF_REAL_OWN_CALL(nullptr, ncclGetVersion, version);
  if (!version)
    return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
  *version = NCCL_VERSION_CODE; // the nccl.h the shim was built against
  return ncclSuccess;
}

API ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) {
  RETURN_IF_REAL_OWN_CALL(nullptr, ncclGetUniqueId, uniqueId);
  return guard("ncclGetUniqueId", [&]() -> ncclResult_t {
    if (!uniqueId)
      return fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    return makeUniqueId(uniqueId, "ncclGetUniqueId");
  });
}

API ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                        ncclUniqueId commId, int rank,
                                        ncclConfig_t *config) {
  return guard("ncclCommInitRankConfig", [&] {
    return initRankConfig(comm, nranks, commId, rank, config,
                          "ncclCommInitRankConfig");
  });
}

API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                  ncclUniqueId commId, int rank) {
  return guard("ncclCommInitRank", [&] {
    return initRankConfig(comm, nranks, commId, rank, nullptr,
                          "ncclCommInitRank");
  });
}

API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev,
                                 const int *devlist) {
  return guard("ncclCommInitAll", [&]() -> ncclResult_t {
    if (!comms || ndev < 1)
      return fail(
          ncclInvalidArgument,
          format("ncclCommInitAll: comms %p, ndev %d", (void *)comms, ndev));
    const Bundle &b = bundle();
    std::vector<cclComm_t> cc(ndev, nullptr);
    cclResult_t cr = cclCommInitAllInProcess(
        cc.data(), ndev, hostMode() ? cclTargetHost : cclTargetCuda,
        hostMode() ? nullptr : devlist);
    std::string noCcl;
    if (cr != cclSuccess) {
      noCcl = format("ncclCommInitAll(%d ranks): the cclc communicator "
                     "could not be made: %s",
                     ndev, cclGetLastError());
      if (hostMode())
        return fail(toNccl(cr), noCcl);
      logLine(1, "%s: every call is forwarded", noCcl.c_str());
      std::fill(cc.begin(), cc.end(), nullptr);
    } else if (!b.ok) {
      noCcl = b.error;
    }
    auto clique = std::make_shared<Clique>();
    if (devlist && !hostMode())
      clique->devices.assign(devlist, devlist + ndev);
    for (int i = 0; i < ndev; i++) {
      auto *c = new ncclComm;
      c->rank = i;
      c->nranks = ndev;
      c->ccl = cc[i];
      c->noCclWhy = noCcl;
      if (c->ccl)
        cclCommDevice(c->ccl, &c->device);
      c->clique = clique;
      clique->comms.push_back(c);
      registerComm(c);
      comms[i] = c;
    }
    logLine(2, "ncclCommInitAll: %d ranks created", ndev);
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return guard("ncclCommFinalize", [&]() -> ncclResult_t {
    ncclResult_t r = checkComm(comm, "ncclCommFinalize");
    if (r != ncclSuccess)
      return r;
    // The host target: wait for the rank's queued calls (its stream).
    if (comm->ccl && hostMode()) {
      cclResult_t cr = cclCommSynchronize(comm->ccl, nullptr);
      if (cr != cclSuccess)
        return fail(toNccl(cr), format("ncclCommFinalize(rank %d): %s",
                                       comm->rank, cclGetLastError()));
    }
    std::lock_guard<std::mutex> lock(comm->shadow.mu);
    if (comm->shadow.state == Shadow::kReady) {
      std::string why;
      auto f = REAL(ncclCommFinalize, &why);
      return f ? f(comm->shadow.real) : fail(ncclSystemError, why);
    }
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  return guard("ncclCommDestroy",
               [&] { return destroy(comm, false, "ncclCommDestroy"); });
}

API ncclResult_t ncclCommAbort(ncclComm_t comm) {
  return guard("ncclCommAbort",
               [&] { return destroy(comm, true, "ncclCommAbort"); });
}

API ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags) {
  return guard("ncclCommRevoke", [&]() -> ncclResult_t {
    ncclResult_t r = checkComm(comm, "ncclCommRevoke");
    if (r != ncclSuccess)
      return r;
    comm->revoked = true;
    std::lock_guard<std::mutex> lock(comm->shadow.mu);
    if (comm->shadow.state == Shadow::kReady) {
      std::string why;
      auto f = REAL(ncclCommRevoke, &why);
      return f ? f(comm->shadow.real, revokeFlags) : fail(ncclSystemError, why);
    }
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                               ncclComm_t *newcomm, ncclConfig_t *config) {
  return guard("ncclCommSplit", [&]() -> ncclResult_t {
    if (!newcomm)
      return fail(ncclInvalidArgument, "ncclCommSplit: newcomm is NULL");
    *newcomm = nullptr;
    ncclResult_t r = checkComm(comm, "ncclCommSplit");
    if (r != ncclSuccess)
      return r;
    PendingSplit s;
    s.parent = comm;
    s.color = color;
    s.key = key;
    std::unique_ptr<ncclComm> out;
    if (color != NCCL_SPLIT_NOCOLOR) {
      out = std::make_unique<ncclComm>();
      out->device = comm->device;
      if (config) {
        if (config->magic != 0xcafebeef || config->size > sizeof(ncclConfig_t))
          return fail(ncclInvalidArgument,
                      "ncclCommSplit: config was not initialised with "
                      "NCCL_CONFIG_INITIALIZER");
        memcpy(&out->config, config, config->size);
        out->hasConfig = true;
      } else { // as NCCL: the parent's
        out->config = comm->config;
        out->hasConfig = comm->hasConfig;
      }
      s.out = out.get();
    }
    if (groupDepth > 0) { // made at ncclGroupEnd
      if (out) {
        out->pendingInit = true;
        registerComm(out.get());
        *newcomm = out.release();
      }
      groupSplits.push_back(std::move(s));
      return ncclSuccess;
    }
    splitCcl(s);
    splitReal({&s});
    r = finishSplit(s);
    if (r != ncclSuccess)
      return r;
    if (out) {
      registerComm(out.get());
      *newcomm = out.release();
    }
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList,
                                int excludeRanksCount, ncclComm_t *newcomm,
                                ncclConfig_t *config, int shrinkFlags) {
  return guard("ncclCommShrink", [&]() -> ncclResult_t {
    if (!newcomm)
      return fail(ncclInvalidArgument, "ncclCommShrink: newcomm is NULL");
    *newcomm = nullptr;
    ncclComm_t out = nullptr;
    ncclResult_t r = onShadow(
        comm, "ncclCommShrink", "the new communicator is a forwarded one",
        [&](ncclComm_t real) {
          std::string why;
          auto f = REAL(ncclCommShrink, &why);
          return f ? f(real, excludeRanksList, excludeRanksCount, &out, config,
                       shrinkFlags)
                   : ncclSystemError;
        });
    if (r != ncclSuccess)
      return r;
    if (out)
      *newcomm = forwardOnly(out, "made by ncclCommShrink (forwarded)");
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks,
                                          int myrank, int nId,
                                          ncclUniqueId *commIds,
                                          ncclConfig_t *config) {
  return guard("ncclCommInitRankScalable", [&]() -> ncclResult_t {
    if (!commIds || nId < 1)
      return fail(ncclInvalidArgument,
                  "ncclCommInitRankScalable: no unique ids");
    // Every id of the shim's carries a whole job's rendezvous: the first.
    return initRankConfig(newcomm, nranks, commIds[0], myrank, config,
                          "ncclCommInitRankScalable");
  });
}

API const char *ncclGetErrorString(ncclResult_t result) {
  if (realOwnCall(nullptr)) { // the real NCCL's own call (shim.h)
    std::string why;
    if (auto f = REAL(ncclGetErrorString, &why))
      return f(result);
  }
  return errorString(result);
}

API const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm;
  return lastError();
}

API void ncclResetDebugInit() {
  std::string why;
  if (real().handle)
    if (auto f = REAL(ncclResetDebugInit, &why))
      f();
}

API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm,
                                       ncclResult_t *asyncError) {
  RETURN_IF_REAL_OWN_CALL(comm, ncclCommGetAsyncError, comm, asyncError);
  return guard("ncclCommGetAsyncError", [&]() -> ncclResult_t {
    ncclResult_t r = checkComm(comm, "ncclCommGetAsyncError");
    if (r != ncclSuccess)
      return r;
    if (!asyncError)
      return fail(ncclInvalidArgument,
                  "ncclCommGetAsyncError: asyncError is NULL");
    *asyncError = ncclSuccess;
    if (comm->pendingInit) {
      *asyncError = ncclInProgress;
      return ncclSuccess;
    }
    if (!comm->initError.empty()) {
      *asyncError = comm->initResult;
      setLastError(comm->initError);
      return ncclSuccess;
    }
    if (comm->ccl) {
      // The host target has no stream to synchronise: this waits for the
      // rank's queued calls (docs/nccl-shim.md).
      cclResult_t e = cclSuccess;
      cclResult_t cr = hostMode() ? cclCommSynchronize(comm->ccl, nullptr)
                                  : cclCommGetAsyncError(comm->ccl, &e);
      if (cr != cclSuccess)
        e = cr;
      if (e != cclSuccess) {
        *asyncError = toNccl(e);
        setLastError(format("rank %d: %s", comm->rank, cclGetLastError()));
        return ncclSuccess;
      }
    }
    std::lock_guard<std::mutex> lock(comm->shadow.mu);
    if (comm->shadow.state == Shadow::kReady) {
      std::string why;
      if (auto f = REAL(ncclCommGetAsyncError, &why))
        return f(comm->shadow.real, asyncError);
    }
    return ncclSuccess;
  });
}

namespace {
// ncclCommCount, ncclCommCuDevice, ncclCommUserRank: one field of `comm`.
ncclResult_t commField(const ncclComm *comm, int *out, int value,
                       const char *fn, const char *what) {
  ncclResult_t r = checkComm(comm, fn);
  if (r != ncclSuccess)
    return r;
  if (!out)
    return fail(ncclInvalidArgument, format("%s: %s is NULL", fn, what));
  *out = value;
  return ncclSuccess;
}
} // namespace

API ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  return commField(comm, count, comm ? comm->nranks : 0, "ncclCommCount",
                   "count");
}

API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  return commField(comm, device, comm ? comm->device : 0, "ncclCommCuDevice",
                   "device");
}

API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  return commField(comm, rank, comm ? comm->rank : 0, "ncclCommUserRank",
                   "rank");
}

namespace {
// A registration: the real NCCL's handle when the shadow was up (cclc
// collectives stage through scratch and need none).
struct RegHandle {
  uint64_t magic = 0x63636c7265673031ull;
  void *real = nullptr;
};
} // namespace

API ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff,
                                  size_t size, void **handle) {
  RETURN_IF_REAL_OWN_CALL(comm, ncclCommRegister, comm, buff, size, handle);
  return guard("ncclCommRegister", [&]() -> ncclResult_t {
    ncclResult_t r = checkComm(comm, "ncclCommRegister");
    if (r != ncclSuccess)
      return r;
    if (!handle)
      return fail(ncclInvalidArgument, "ncclCommRegister: handle is NULL");
    auto h = std::make_unique<RegHandle>();
    std::lock_guard<std::mutex> lock(comm->shadow.mu);
    if (comm->shadow.state == Shadow::kReady) {
      std::string why;
      if (auto f = REAL(ncclCommRegister, &why)) {
        r = f(comm->shadow.real, buff, size, &h->real);
        if (r != ncclSuccess)
          return fail(r, format("ncclCommRegister (forwarded): %s",
                                realLastError(comm->shadow.real).c_str()));
      }
    }
    *handle = h.release();
    return ncclSuccess;
  });
}

API ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle) {
  RETURN_IF_REAL_OWN_CALL(comm, ncclCommDeregister, comm, handle);
  return guard("ncclCommDeregister", [&]() -> ncclResult_t {
    ncclResult_t r = checkComm(comm, "ncclCommDeregister");
    if (r != ncclSuccess)
      return r;
    auto *h = static_cast<RegHandle *>(handle);
    if (!h || h->magic != RegHandle().magic)
      return fail(ncclInvalidArgument,
                  "ncclCommDeregister: not a handle of ncclCommRegister");
    if (h->real) {
      std::lock_guard<std::mutex> lock(comm->shadow.mu);
      std::string why;
      auto f = REAL(ncclCommDeregister, &why);
      r = f && comm->shadow.state == Shadow::kReady
              ? f(comm->shadow.real, h->real)
              : ncclSuccess;
    }
    h->magic = 0;
    delete h;
    return r;
  });
}

API ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff,
                                        size_t size, ncclWindow_t *win,
                                        int winFlags) {
  return guard("ncclCommWindowRegister", [&]() -> ncclResult_t {
    return onShadow(
        comm, "ncclCommWindowRegister", "symmetric windows are the real NCCL's",
        [&](ncclComm_t real) {
          std::string why;
          auto f = REAL(ncclCommWindowRegister, &why);
          return f ? f(real, buff, size, win, winFlags) : ncclSystemError;
        });
  });
}

API ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) {
  RETURN_IF_REAL_OWN_CALL(comm, ncclCommWindowDeregister, comm, win);
  return guard("ncclCommWindowDeregister", [&]() -> ncclResult_t {
    return onShadow(comm, "ncclCommWindowDeregister",
                    "symmetric windows are the real NCCL's",
                    [&](ncclComm_t real) {
                      std::string why;
                      auto f = REAL(ncclCommWindowDeregister, &why);
                      return f ? f(real, win) : ncclSystemError;
                    });
  });
}

API ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar,
                                          ncclDataType_t datatype,
                                          ncclScalarResidence_t residence,
                                          ncclComm_t comm) {
  return guard("ncclRedOpCreatePreMulSum", [&]() -> ncclResult_t {
    return onShadow(
        comm, "ncclRedOpCreatePreMulSum",
        "PreMulSum operators are the real NCCL's", [&](ncclComm_t real) {
          std::string why;
          auto f = REAL(ncclRedOpCreatePreMulSum, &why);
          return f ? f(op, scalar, datatype, residence, real) : ncclSystemError;
        });
  });
}

API ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  return guard("ncclRedOpDestroy", [&]() -> ncclResult_t {
    return onShadow(comm, "ncclRedOpDestroy",
                    "PreMulSum operators are the real NCCL's",
                    [&](ncclComm_t real) {
                      std::string why;
                      auto f = REAL(ncclRedOpDestroy, &why);
                      return f ? f(op, real) : ncclSystemError;
                    });
  });
}

#define COLL(...) guard(__func__, [&] { return enqueue(Op{__VA_ARGS__}); })

API ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                            ncclDataType_t datatype, ncclRedOp_t op, int root,
                            ncclComm_t comm, cudaStream_t stream) {
  return COLL(Call::Reduce, sendbuff, recvbuff, count, datatype, op, root, comm,
              stream, {});
}

API ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  return COLL(Call::Broadcast, buff, buff, count, datatype, ncclSum, root, comm,
              stream, {});
}

API ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff,
                               size_t count, ncclDataType_t datatype, int root,
                               ncclComm_t comm, cudaStream_t stream) {
  RETURN_IF_REAL_OWN_CALL(comm, ncclBroadcast, sendbuff, recvbuff, count,
                          datatype, root, comm, stream);
  return COLL(Call::Broadcast, sendbuff, recvbuff, count, datatype, ncclSum,
              root, comm, stream, {});
}

API ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff,
                               size_t count, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  return COLL(Call::AllReduce, sendbuff, recvbuff, count, datatype, op, 0, comm,
              stream, {});
}

API ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                                   size_t recvcount, ncclDataType_t datatype,
                                   ncclRedOp_t op, ncclComm_t comm,
                                   cudaStream_t stream) {
  return COLL(Call::ReduceScatter, sendbuff, recvbuff, recvcount, datatype, op,
              0, comm, stream, {});
}

API ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                               size_t sendcount, ncclDataType_t datatype,
                               ncclComm_t comm, cudaStream_t stream) {
  return COLL(Call::AllGather, sendbuff, recvbuff, sendcount, datatype, ncclSum,
              0, comm, stream, {});
}

API ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff,
                              size_t count, ncclDataType_t datatype,
                              ncclComm_t comm, cudaStream_t stream) {
  return COLL(Call::AlltoAll, sendbuff, recvbuff, count, datatype, ncclSum, 0,
              comm, stream, {});
}

API ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
                            ncclDataType_t datatype, int root, ncclComm_t comm,
                            cudaStream_t stream) {
  return COLL(Call::Gather, sendbuff, recvbuff, count, datatype, ncclSum, root,
              comm, stream, {});
}

API ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                             ncclDataType_t datatype, int root, ncclComm_t comm,
                             cudaStream_t stream) {
  return COLL(Call::Scatter, sendbuff, recvbuff, count, datatype, ncclSum, root,
              comm, stream, {});
}

API ncclResult_t ncclSend(const void *sendbuff, size_t count,
                          ncclDataType_t datatype, int peer, ncclComm_t comm,
                          cudaStream_t stream) {
  return COLL(Call::Send, sendbuff, nullptr, count, datatype, ncclSum, peer,
              comm, stream, {});
}

API ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                          int peer, ncclComm_t comm, cudaStream_t stream) {
  return COLL(Call::Recv, nullptr, recvbuff, count, datatype, ncclSum, peer,
              comm, stream, {});
}

API ncclResult_t ncclGroupStart() {
  groupDepth++;
  return ncclSuccess;
}

API ncclResult_t ncclGroupEnd() {
  return guard("ncclGroupEnd", []() -> ncclResult_t {
    if (groupDepth == 0)
      return fail(ncclInvalidUsage, "ncclGroupEnd: not inside ncclGroupStart");
    if (--groupDepth > 0)
      return ncclSuccess;
    return endGroup();
  });
}

API ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t *simInfo) {
  return guard("ncclGroupSimulateEnd", []() -> ncclResult_t {
    // Ends the group without running its calls; the shim has no cost
    // model, so simInfo's estimate stays undefined (NCCL_UNDEF_FLOAT).
    if (groupDepth == 0)
      return fail(ncclInvalidUsage,
                  "ncclGroupSimulateEnd: not inside ncclGroupStart");
    if (--groupDepth == 0) {
      groupOps.clear();
      if (!groupInits.empty() || !groupSplits.empty())
        return endGroup();
    }
    return ncclSuccess;
  });
}

// The profiling names (PMPI style): the same functions.
#define PNCCL(name)                                                            \
  extern "C" __attribute__((visibility("default"),                             \
                            alias(#name))) decltype(name) p##name;
PNCCL(ncclMemAlloc)
PNCCL(ncclMemFree)
PNCCL(ncclGetVersion)
PNCCL(ncclGetUniqueId)
PNCCL(ncclCommInitRankConfig)
PNCCL(ncclCommInitRank)
PNCCL(ncclCommInitAll)
PNCCL(ncclCommFinalize)
PNCCL(ncclCommDestroy)
PNCCL(ncclCommAbort)
PNCCL(ncclCommRevoke)
PNCCL(ncclCommSplit)
PNCCL(ncclCommShrink)
PNCCL(ncclCommInitRankScalable)
PNCCL(ncclGetErrorString)
PNCCL(ncclGetLastError)
PNCCL(ncclResetDebugInit)
PNCCL(ncclCommGetAsyncError)
PNCCL(ncclCommCount)
PNCCL(ncclCommCuDevice)
PNCCL(ncclCommUserRank)
PNCCL(ncclCommRegister)
PNCCL(ncclCommDeregister)
PNCCL(ncclCommWindowRegister)
PNCCL(ncclCommWindowDeregister)
PNCCL(ncclRedOpCreatePreMulSum)
PNCCL(ncclRedOpDestroy)
PNCCL(ncclReduce)
PNCCL(ncclBcast)
PNCCL(ncclBroadcast)
PNCCL(ncclAllReduce)
PNCCL(ncclReduceScatter)
PNCCL(ncclAllGather)
PNCCL(ncclAlltoAll)
PNCCL(ncclGather)
PNCCL(ncclScatter)
PNCCL(ncclSend)
PNCCL(ncclRecv)
PNCCL(ncclGroupStart)
PNCCL(ncclGroupEnd)
PNCCL(ncclGroupSimulateEnd)
