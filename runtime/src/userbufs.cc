// userbufs.cc - user buffers shared with the other ranks (cclCommRegister;
// docs/runtime.md, "Registering user buffers"): each rank says how its
// buffer's allocation can be shared (Device::exportUserBuffer), the ranks
// exchange that (with a file descriptor for virtual-memory allocations),
// and each maps its peers' allocations once (Device::importUserBuffer),
// counted by the registrations that use them.
#include <cstring>

#include "bootstrap.h"
#include "device.h"

struct cclRegistration {
  cclrt::Shared *s;
  int rank;
  std::vector<void *> peerBuf;          // by rank; null: staged
  std::vector<int> kind;                // cclRegKind_t by rank
  std::vector<cclrt::UserMappingKey> keys; // the imports it holds
};

namespace cclrt {
namespace {

// What a rank sends about its buffer.
struct Record {
  uint32_t kind;
  uint32_t pad;
  uint64_t allocBase, allocSize, offset, bytes;
  uint64_t buf; // the buffer in the sender's address space
  char ipc[64];
};

cclResult_t gather(Shared *s, int rank, const Record &mine, int fd,
                   std::vector<Record> *all, std::vector<net::Fd> *fds) {
  all->assign(s->nranks, Record());
  std::string blob(reinterpret_cast<const char *>(&mine), sizeof mine);
  std::vector<std::string> got;
  if (s->boot) {
    if (cclResult_t r = s->boot->allGather(blob, &got, fd, fds))
      return r;
  } else {
    std::vector<char> buf((size_t)s->nranks * sizeof mine);
    if (cclResult_t r = gatherInProcess(s, rank, &mine, buf.data(),
                                        sizeof mine))
      return r;
    for (int q = 0; q < s->nranks; q++)
      got.emplace_back(buf.data() + (size_t)q * sizeof mine, sizeof mine);
  }
  for (int q = 0; q < s->nranks; q++) {
    if (got[q].size() != sizeof(Record))
      return setError(cclInternalError,
                      format("rank %d sent a malformed registration", q));
    memcpy(&(*all)[q], got[q].data(), sizeof(Record));
  }
  return cclSuccess;
}

// Drops one use of each import of `reg` (regMu held).
void dropImports(Shared *s, cclRegistration *reg) {
  for (const UserMappingKey &k : reg->keys) {
    auto it = s->userImports.find(k);
    if (it == s->userImports.end() || --it->second.refs > 0)
      continue;
    s->device->releaseUserImport(reg->rank, it->second.kind, it->second.base,
                                 it->second.size);
    s->userImports.erase(it);
  }
  reg->keys.clear();
}

bool ownRegistration(cclComm_t comm, cclRegHandle_t h) {
  std::lock_guard<std::mutex> lk(comm->shared->regMu);
  return h && comm->shared->registrations.count(h) && h->rank == comm->rank;
}

/// The checks every call on a registration starts with: a usable
/// communicator and a handle this rank registered on it.
cclResult_t checkRegistration(cclComm_t comm, cclRegHandle_t h,
                              const char *fn) {
  cclResult_t r = checkComm(comm, fn);
  if (r != cclSuccess)
    return r;
  if (!ownRegistration(comm, h))
    return setError(cclInvalidArgument,
                    format("%s(rank %d): not a registration of this rank's "
                           "communicator",
                           fn, comm->rank));
  return cclSuccess;
}

} // namespace

void releaseUserBuffers(Shared *s) {
  std::lock_guard<std::mutex> lk(s->regMu);
  for (cclRegistration *reg : s->registrations) {
    dropImports(s, reg);
    delete reg;
  }
  s->registrations.clear();
}

namespace api {

cclResult_t cclCommRegister(cclComm_t comm, void *buf, size_t bytes,
                            cclRegHandle_t *handle) {
  const char *fn = "cclCommRegister";
  cclResult_t r = checkComm(comm, fn);
  if (r != cclSuccess)
    return r;
  const int rank = comm->rank;
  if (!handle || !buf || !bytes)
    return setError(cclInvalidArgument,
                    format("%s(rank %d): %s", fn, rank,
                           !handle ? "handle is NULL"
                           : !buf  ? "buf is NULL"
                                   : "bytes is 0"));
  *handle = nullptr;
  Shared *s = comm->shared;
  if (aborted(s))
    return setError(asyncResult(s), format("%s(rank %d): ", fn, rank) +
                                        describeAsyncError(s));
  CtxGuard guard(s);
  Device &dev = *s->device;
  Device::UserExport e;
  int fd = -1;
  if ((r = dev.exportUserBuffer(rank, buf, &e, &fd)) != cclSuccess)
    return setError(r, format("%s(rank %d): ", fn, rank) + cclGetLastError());
  net::Fd ownFd(fd); // closed once sent
  Record mine{};
  mine.kind = (uint32_t)e.kind;
  mine.allocBase = reinterpret_cast<uint64_t>(e.allocBase);
  mine.allocSize = e.allocSize;
  mine.offset = e.allocBase ? reinterpret_cast<uint64_t>(buf) -
                                  reinterpret_cast<uint64_t>(e.allocBase)
                            : 0;
  mine.bytes = bytes;
  mine.buf = reinterpret_cast<uint64_t>(buf);
  memcpy(mine.ipc, e.ipc, sizeof mine.ipc);
  std::vector<Record> all;
  std::vector<net::Fd> fds;
  if ((r = gather(s, rank, mine, e.kind == cclRegVmmFd ? fd : -1, &all,
                  &fds)) != cclSuccess)
    return setError(r, format("%s(rank %d): ", fn, rank) + cclGetLastError());
  auto reg = std::make_unique<cclRegistration>();
  reg->s = s;
  reg->rank = rank;
  reg->peerBuf.assign(s->nranks, nullptr);
  reg->kind.assign(s->nranks, cclRegStaged);
  reg->peerBuf[rank] = buf;
  reg->kind[rank] = cclRegLocal;
  std::string err;
  {
    std::lock_guard<std::mutex> lk(s->regMu);
    for (int q = 0; q < s->nranks && err.empty(); q++) {
      if (q == rank)
        continue;
      const Record &p = all[q];
      if (!s->boot) { // a rank of this process: its pointer as it is
        reg->peerBuf[q] = reinterpret_cast<void *>(p.buf);
        reg->kind[q] = cclRegLocal;
        continue;
      }
      if (p.kind == cclRegStaged || !s->boot->sameHost(q))
        continue;
      UserMappingKey key{q, p.allocBase};
      auto it = s->userImports.find(key);
      if (it == s->userImports.end()) {
        Device::UserExport pe;
        pe.kind = (int)p.kind;
        pe.allocBase = reinterpret_cast<void *>(p.allocBase);
        pe.allocSize = p.allocSize;
        memcpy(pe.ipc, p.ipc, sizeof pe.ipc);
        void *base = nullptr;
        if (dev.importUserBuffer(rank, pe, fds.empty() ? -1 : fds[q].get(),
                                 &base) != cclSuccess) {
          err = format("mapping rank %d's buffer: ", q) + cclGetLastError();
          break;
        }
        it = s->userImports
                 .emplace(key, UserImport{(int)p.kind, base, p.allocSize, 0})
                 .first;
      }
      it->second.refs++;
      reg->keys.push_back(key);
      reg->peerBuf[q] = static_cast<char *>(it->second.base) + p.offset;
      reg->kind[q] = (int)p.kind;
    }
    if (!err.empty())
      dropImports(s, reg.get());
  }
  // Every rank takes the same decision.
  std::string why;
  if (s->boot && !agree(s, err, &why))
    return setError(err.empty() ? cclRemoteError : cclDriverError,
                    format("%s(rank %d): ", fn, rank) + why);
  if (!err.empty())
    return setError(cclDriverError, format("%s(rank %d): ", fn, rank) + err);
  std::lock_guard<std::mutex> lk(s->regMu);
  s->registrations.insert(reg.get());
  *handle = reg.release();
  return cclSuccess;
}

cclResult_t cclCommDeregister(cclComm_t comm, cclRegHandle_t handle) {
  cclResult_t r = checkRegistration(comm, handle, "cclCommDeregister");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  CtxGuard guard(s);
  std::lock_guard<std::mutex> lk(s->regMu);
  dropImports(s, handle);
  s->registrations.erase(handle);
  delete handle;
  return cclSuccess;
}

cclResult_t cclCommRegisteredPeer(cclComm_t comm, cclRegHandle_t handle,
                                  int peer, void **peerBuf, int *kind) {
  cclResult_t r = checkRegistration(comm, handle, "cclCommRegisteredPeer");
  if (r != cclSuccess)
    return r;
  if (peer < 0 || peer >= comm->shared->nranks || !peerBuf || !kind)
    return setError(cclInvalidArgument,
                    format("cclCommRegisteredPeer(rank %d): %s", comm->rank,
                           !peerBuf || !kind ? "peer_buf or kind is NULL"
                                             : "peer is not a rank"));
  *peerBuf = handle->peerBuf[peer];
  *kind = handle->kind[peer];
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
