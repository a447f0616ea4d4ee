// cuda_memory.cc - GPU memory that other processes map (one process per
// rank; docs/runtime.md, "CUDA target"): physical memory from cuMemCreate
// with a POSIX file-descriptor handle type, mapped at a reserved address
// range here; the descriptor goes to the ranks of this host over the
// bootstrap (SCM_RIGHTS), which import it, map it and grant their GPU
// access. Unmapped and released with the plan, on destroy and on abort.
#include <cstring>
#include <unistd.h>

#include "cuda_device.h"

namespace cclrt {
namespace {

CUmemAllocationProp shareableProp(CUdevice dev) {
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  return prop;
}

size_t roundUp(size_t x, size_t g) { return (x + g - 1) / g * g; }

} // namespace

cclResult_t CudaDevice::shareableGranularity(int rank, size_t *granularity) {
  const Rank &rs = ranks_[rank];
  const int dev = ordinal(rank);
  int vmm = 0, fd = 0;
  CUresult cr = d_->cuDeviceGetAttribute(
      &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, rs.cuDev);
  if (cr == CUDA_SUCCESS)
    cr = d_->cuDeviceGetAttribute(
        &fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
        rs.cuDev);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuDeviceGetAttribute", cr,
                  format("(memory sharing of device %d)", dev));
  if (!vmm || !fd)
    return setError(cclUnsupported,
                    format("device %d cannot share memory with other "
                           "processes: %s; one process per rank needs it on "
                           "the CUDA target (use cclCommInitAllInProcess)",
                           dev,
                           !vmm ? "it does not support the virtual memory "
                                  "management API"
                                : "it cannot export memory as a POSIX file "
                                  "descriptor "
                                  "(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_"
                                  "FILE_DESCRIPTOR_SUPPORTED is 0)"));
  CUmemAllocationProp prop = shareableProp(rs.cuDev);
  cr = d_->cuMemGetAllocationGranularity(granularity, &prop,
                                         CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemGetAllocationGranularity", cr,
                  format("(device %d)", dev));
  return cclSuccess;
}

cclResult_t CudaDevice::mapHandle(int rank, CUmemGenericAllocationHandle h,
                                  size_t size, void **ptr, const char *what) {
  const int dev = ordinal(rank);
  CUdeviceptr va = 0;
  CUresult cr = d_->cuMemAddressReserve(&va, size, 0, 0, 0);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemAddressReserve", cr,
                  format("(%zu bytes for %s, device %d)", size, what, dev));
  if ((cr = d_->cuMemMap(va, size, 0, h, 0)) != CUDA_SUCCESS) {
    d_->cuMemAddressFree(va, size);
    return cuFail("cuMemMap", cr,
                  format("(%zu bytes for %s, device %d)", size, what, dev));
  }
  CUmemAccessDesc access;
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = ranks_[rank].cuDev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if ((cr = d_->cuMemSetAccess(va, size, &access, 1)) != CUDA_SUCCESS) {
    d_->cuMemUnmap(va, size);
    d_->cuMemAddressFree(va, size);
    return cuFail("cuMemSetAccess", cr,
                  format("(%zu bytes for %s, device %d)", size, what, dev));
  }
  *ptr = reinterpret_cast<void *>(va);
  std::lock_guard<std::mutex> lk(mapMu_);
  mappings_[*ptr] = Mapping{h, size};
  return cclSuccess;
}

void CudaDevice::unmapAddress(int rank, void *ptr) {
  Mapping m;
  {
    std::lock_guard<std::mutex> lk(mapMu_);
    auto it = mappings_.find(ptr);
    if (it == mappings_.end())
      return;
    m = it->second;
    mappings_.erase(it);
  }
  if (setCurrent(rank, "cclCommDestroy") != cclSuccess)
    return;
  CUdeviceptr va = reinterpret_cast<CUdeviceptr>(ptr);
  d_->cuMemUnmap(va, m.size);
  d_->cuMemAddressFree(va, m.size);
  d_->cuMemRelease(m.handle);
}

bool CudaDevice::isMapping(void *ptr) {
  std::lock_guard<std::mutex> lk(mapMu_);
  return mappings_.count(ptr) != 0;
}

// With one process per rank, cclMemAlloc gives memory that registrations
// share without staging (exported as a descriptor when registered); in
// one process, plain cuMemAlloc (peer access covers the other GPUs).
cclResult_t CudaDevice::allocateUser(int rank, size_t bytes, void **ptr) {
  size_t g = 0;
  if (!s_->boot || setCurrent(rank, "cclMemAlloc") != cclSuccess ||
      shareableGranularity(rank, &g) != cclSuccess)
    return allocate(rank, bytes, ptr, "cclMemAlloc");
  int fd = -1;
  cclResult_t res = allocateExportable(rank, bytes, ptr, &fd, "cclMemAlloc");
  if (fd >= 0)
    close(fd); // exported again when registered
  return res;
}

cclResult_t CudaDevice::allocateExportable(int rank, size_t bytes, void **ptr,
                                           int *fd, const char *what) {
  *ptr = nullptr;
  *fd = -1;
  cclResult_t res = setCurrent(rank, "cclCommInit");
  if (res != cclSuccess)
    return res;
  size_t g = 0;
  if ((res = shareableGranularity(rank, &g)) != cclSuccess)
    return res;
  const size_t size = roundUp(bytes ? bytes : 1, g);
  const int dev = ordinal(rank);
  CUmemAllocationProp prop = shareableProp(ranks_[rank].cuDev);
  CUmemGenericAllocationHandle h = 0;
  CUresult cr = d_->cuMemCreate(&h, size, &prop, 0);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemCreate", cr,
                  format("(%zu bytes for %s, device %d)", size, what, dev));
  int exported = -1;
  cr = d_->cuMemExportToShareableHandle(
      &exported, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  if (cr != CUDA_SUCCESS) {
    d_->cuMemRelease(h);
    return cuFail("cuMemExportToShareableHandle", cr,
                  format("(%s, device %d)", what, dev));
  }
  if ((res = mapHandle(rank, h, size, ptr, what)) != cclSuccess) {
    close(exported);
    d_->cuMemRelease(h);
    return res;
  }
  if ((res = zero(rank, *ptr, size)) != cclSuccess) {
    releaseExportable(rank, *ptr, size, exported);
    *ptr = nullptr;
    return res;
  }
  *fd = exported;
  return cclSuccess;
}

void CudaDevice::releaseExportable(int rank, void *ptr, size_t bytes,
                                   int fd) {
  if (ptr)
    unmapAddress(rank, ptr);
  if (fd >= 0)
    close(fd);
}

cclResult_t CudaDevice::mapPeer(int rank, int fd, size_t bytes, void **ptr,
                                const char *what) {
  *ptr = nullptr;
  cclResult_t res = setCurrent(rank, "cclCommInit");
  if (res != cclSuccess)
    return res;
  size_t g = 0;
  if ((res = shareableGranularity(rank, &g)) != cclSuccess)
    return res;
  return importFd(rank, fd, roundUp(bytes ? bytes : 1, g), ptr, what);
}

cclResult_t CudaDevice::importFd(int rank, int fd, size_t size, void **ptr,
                                 const char *what) {
  CUmemGenericAllocationHandle h = 0;
  CUresult cr = d_->cuMemImportFromShareableHandle(
      &h, reinterpret_cast<void *>(static_cast<uintptr_t>(fd)),
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemImportFromShareableHandle", cr,
                  format("(%s, device %d)", what, ordinal(rank)));
  cclResult_t res = mapHandle(rank, h, size, ptr, what);
  if (res != cclSuccess)
    d_->cuMemRelease(h);
  return res;
}

void CudaDevice::unmapPeer(int rank, void *ptr, size_t bytes) {
  unmapAddress(rank, ptr);
}

// User buffers: a virtual-memory allocation (cuMemRetainAllocationHandle
// knows it) goes as a file descriptor when its handle type allows, else
// not at all; other device memory (cuMemAlloc, cudaMalloc) as an IPC
// handle.
cclResult_t CudaDevice::exportUserBuffer(int rank, void *buf, UserExport *out,
                                         int *fd) {
  *out = UserExport();
  *fd = -1;
  cclResult_t res = setCurrent(rank, "cclCommRegister");
  if (res != cclSuccess)
    return res;
  CUdeviceptr base = 0;
  size_t size = 0;
  CUresult cr = d_->cuMemGetAddressRange(&base, &size,
                                         reinterpret_cast<CUdeviceptr>(buf));
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemGetAddressRange", cr,
                  format("(%p is not device memory of device %d?)", buf,
                         ordinal(rank)));
  out->allocBase = reinterpret_cast<void *>(base);
  out->allocSize = size;
  CUmemGenericAllocationHandle h = 0;
  if (d_->cuMemRetainAllocationHandle(&h, reinterpret_cast<void *>(base)) ==
      CUDA_SUCCESS) {
    int exported = -1;
    if (d_->cuMemExportToShareableHandle(
            &exported, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
        CUDA_SUCCESS) {
      out->kind = cclRegVmmFd;
      *fd = exported;
    } // else staged: its handle type does not allow a descriptor
    d_->cuMemRelease(h); // the retain's reference
    return cclSuccess;
  }
  CUipcMemHandle ipc;
  if (d_->cuIpcGetMemHandle(&ipc, base) == CUDA_SUCCESS) {
    out->kind = cclRegIpc;
    memcpy(out->ipc, ipc.reserved, sizeof out->ipc);
  }
  return cclSuccess;
}

cclResult_t CudaDevice::importUserBuffer(int rank, const UserExport &e, int fd,
                                         void **base) {
  *base = nullptr;
  cclResult_t res = setCurrent(rank, "cclCommRegister");
  if (res != cclSuccess)
    return res;
  if (e.kind == cclRegIpc) {
    CUipcMemHandle ipc;
    memcpy(ipc.reserved, e.ipc, sizeof ipc.reserved);
    CUdeviceptr p = 0;
    CUresult cr = d_->cuIpcOpenMemHandle(&p, ipc,
                                         CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuIpcOpenMemHandle", cr,
                    format("(device %d)", ordinal(rank)));
    *base = reinterpret_cast<void *>(p);
    return cclSuccess;
  }
  if (e.kind != cclRegVmmFd || fd < 0)
    return setError(cclInternalError, "no descriptor for a virtual-memory "
                                      "buffer");
  return importFd(rank, fd, e.allocSize, base, "a peer's buffer");
}

void CudaDevice::releaseUserImport(int rank, int kind, void *base,
                                   uint64_t size) {
  if (kind == cclRegIpc) {
    if (setCurrent(rank, "cclCommDeregister") == cclSuccess)
      d_->cuIpcCloseMemHandle(reinterpret_cast<CUdeviceptr>(base));
  } else if (kind == cclRegVmmFd) {
    unmapAddress(rank, base);
  }
}

} // namespace cclrt
