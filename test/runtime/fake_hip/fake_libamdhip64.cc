// fake_libamdhip64.cc - a TEST DOUBLE of the HIP runtime (libamdhip64.so)
// for machines without an AMD GPU, loaded by libcclrt through
// CCL_HIP_LIBRARY (test/runtime/hip/). It implements the entry points of
// runtime/src/hip_api.h and nothing else. It CANNOT EXECUTE KERNELS: a
// launch is checked and logged, never run, so nothing a kernel would
// compute or signal happens. Named as a test double in docs/runtime.md.
//
// - "Device memory" is host memory: every hipMalloc / hipExtMallocWithFlags
//   is a memfd mapped here, so that an IPC handle can be opened by another
//   process: the 64-byte handle holds a magic, the owner's pid, the memfd's
//   descriptor number and the size, and hipIpcOpenMemHandle maps
//   /proc/PID/fd/N. Opening a handle in its own process works too (the
//   real runtime's behaviour there is not known to this double).
// - Copies and memsets run at once, on any stream; a stream is a number.
// - hipModuleLoadData takes only an AMDGPU code object (ELF64, EM_AMDGPU
//   224, ET_DYN) for the device's architecture (e_flags' mach field, known
//   for gfx90a and gfx942), and records its kernels: the symbols NAME.kd,
//   whose 64-byte kernel descriptor holds kernarg_size (uint32 at offset 8).
//   hipModuleGetFunction fails with hipErrorNotFound for another name.
// - hipModuleLaunchKernel takes the arguments only through `extra`
//   (HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END); the size must equal the
//   kernel's explicit arguments as the code object's metadata note lists
//   them (amdgpu_metadata.h: HIP itself fills the hidden ones, which the
//   descriptor's kernarg_size also counts), the block 1..1024 threads, the
//   grid at least one block.
//
// Environment: CCL_FAKE_HIP_DEVICES (default 2; 0: hipGetDeviceCount fails
// with hipErrorNoDevice), CCL_FAKE_HIP_ARCH (gcnArchName, default
// "gfx942:sramecc+:xnack-"), CCL_FAKE_HIP_EXTRA_ARCH (a second name in
// the properties), CCL_FAKE_HIP_CUS (compute units, default 304),
// CCL_FAKE_HIP_NO_PEER=1 (hipDeviceCanAccessPeer says no), CCL_FAKE_HIP_LOG
// (a file each allocation and launch is appended to, one line each:
//   alloc pid=P device=D bytes=N finegrained=0|1
//   hostalloc pid=P bytes=N flags=0xF
//   launch pid=P device=D kernel=NAME grid=X,Y,Z block=X,Y,Z kernarg=N
//          segment=M stream=S args=HEX,HEX,...   (N: the buffer's size, M:
//          the descriptor's kernarg_size; the buffer as 64-bit words)
// ).
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "runtime/src/hip_api.h"
#include "test/runtime/fake_hip/amdgpu_metadata.h"

using namespace cclrt;

namespace {

constexpr hipError_t kInvalidHandle = 400;
constexpr hipError_t kInvalidContext = 201;
constexpr char kIpcMagic[8] = {'F', 'K', 'H', 'I', 'P', 'I', 'P', 'C'};

int envInt(const char *name, int dflt) {
  const char *e = getenv(name);
  return e && *e ? atoi(e) : dflt;
}
int deviceCount() { return envInt("CCL_FAKE_HIP_DEVICES", 2); }
std::string archName() {
  const char *e = getenv("CCL_FAKE_HIP_ARCH");
  return e && *e ? e : "gfx942:sramecc+:xnack-";
}

struct Alloc {
  size_t size = 0;
  int fd = -1;         // memfd (device memory); -1 for host or opened memory
  bool host = false;   // hipHostMalloc
  unsigned flags = 0;  // hipHostMalloc's
  bool opened = false; // a peer's, from hipIpcOpenMemHandle
};

struct Kernel {
  std::string name;
  uint32_t kernargSize = 0;  // the descriptor's: explicit and hidden
  uint32_t explicitSize = 0; // the metadata's explicit arguments
  fakehip::KernelMeta meta;  // and the work-group size it allows
};
struct Module {
  int device = 0;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

std::mutex g_mu;
std::map<uintptr_t, Alloc> g_allocs; // by base
std::set<uintptr_t> g_streams;
uintptr_t g_nextStream = 0x5000;
std::set<Module *> g_modules;
std::set<std::pair<int, int>> g_peerEnabled;
thread_local int g_device = 0;

void logLine(const std::string &line) {
  const char *path = getenv("CCL_FAKE_HIP_LOG");
  if (!path || !*path)
    return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  std::string l = line + "\n";
  ssize_t ignored = write(fd, l.data(), l.size());
  (void)ignored;
  close(fd);
}

// The allocation holding [p, p + n), or nullptr (g_mu held).
const Alloc *findAlloc(const void *p, size_t n, uintptr_t *base = nullptr) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin())
    return nullptr;
  --it;
  if (a < it->first || a + n > it->first + it->second.size)
    return nullptr;
  if (base)
    *base = it->first;
  return &it->second;
}

bool streamOk(hipStream_t s) {
  return !s || g_streams.count(reinterpret_cast<uintptr_t>(s));
}

hipError_t deviceAlloc(void **ptr, size_t size, bool fine) {
  if (!ptr)
    return hipErrorInvalidValue;
  int fd = memfd_create("fake-hip", MFD_CLOEXEC);
  if (fd < 0)
    return hipErrorOutOfMemory;
  if (ftruncate(fd, (off_t)size) != 0) {
    close(fd);
    return hipErrorOutOfMemory;
  }
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return hipErrorOutOfMemory;
  }
  {
    std::lock_guard<std::mutex> lk(g_mu);
    Alloc a;
    a.size = size;
    a.fd = fd;
    g_allocs[reinterpret_cast<uintptr_t>(p)] = a;
  }
  *ptr = p;
  char line[160];
  snprintf(line, sizeof line, "alloc pid=%d device=%d bytes=%zu finegrained=%d",
           (int)getpid(), g_device, size, fine ? 1 : 0);
  logLine(line);
  return hipSuccess;
}

// e_flags & EF_AMDGPU_MACH of the architectures this double knows.
int machOf(const std::string &base) {
  if (base == "gfx90a")
    return 0x3f;
  if (base == "gfx942")
    return 0x4c;
  return -1;
}

// Parses an AMDGPU code object; *err says why it is not one.
bool parseCodeObject(const unsigned char *img, Module *m, std::string *err) {
  Elf64_Ehdr eh;
  memcpy(&eh, img, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return *err = "not an ELF file", false;
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return *err = "not a little-endian ELF64 file", false;
  if (eh.e_machine != 224)
    return *err = "e_machine is not EM_AMDGPU (224)", false;
  if (eh.e_type != ET_DYN)
    return *err = "not a shared object (ET_DYN)", false;
  const std::string base = archName().substr(0, archName().find(':'));
  const int want = machOf(base);
  if (want >= 0 && (int)(eh.e_flags & 0xff) != want)
    return *err = "code object for another architecture than " + base, false;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
    return *err = "no section headers", false;
  auto sec = [&](unsigned i) {
    Elf64_Shdr sh;
    memcpy(&sh, img + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
    return sh;
  };
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh = sec(i);
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
      continue;
    Elf64_Shdr strs = sec(sh.sh_link);
    const char *names = reinterpret_cast<const char *>(img + strs.sh_offset);
    for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
      Elf64_Sym sym;
      memcpy(&sym, img + sh.sh_offset + k * sizeof sym, sizeof sym);
      if (sym.st_name >= strs.sh_size)
        continue;
      std::string name = names + sym.st_name;
      if (name.size() < 4 || name.compare(name.size() - 3, 3, ".kd") != 0)
        continue;
      // The section that holds the descriptor: its file offset.
      for (unsigned j = 0; j < eh.e_shnum; j++) {
        Elf64_Shdr d = sec(j);
        if (d.sh_type == SHT_NOBITS || !(d.sh_flags & SHF_ALLOC) ||
            sym.st_value < d.sh_addr ||
            sym.st_value + 64 > d.sh_addr + d.sh_size)
          continue;
        auto k2 = std::make_unique<Kernel>();
        k2->name = name.substr(0, name.size() - 3);
        memcpy(&k2->kernargSize,
               img + d.sh_offset + (sym.st_value - d.sh_addr) + 8, 4);
        m->kernels[k2->name] = std::move(k2);
        break;
      }
    }
  }
  if (m->kernels.empty())
    return *err = "no kernel descriptors (NAME.kd symbols)", false;
  // The explicit arguments, from the metadata note (NT_AMDGPU_METADATA).
  std::map<std::string, fakehip::KernelMeta> explicitBytes;
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh = sec(i);
    for (uint64_t o = 0; sh.sh_type == SHT_NOTE && o + 12 <= sh.sh_size;) {
      uint32_t hdr[3]; // namesz, descsz, type
      memcpy(hdr, img + sh.sh_offset + o, 12);
      const unsigned char *name = img + sh.sh_offset + o + 12;
      const uint64_t descOff = 12 + ((hdr[0] + 3) & ~3u);
      if (o + descOff + hdr[1] > sh.sh_size)
        break;
      if (hdr[2] == 32 && hdr[0] == 7 && memcmp(name, "AMDGPU", 7) == 0 &&
          !fakehip::kernelMetadata(img + sh.sh_offset + o + descOff, hdr[1],
                                   &explicitBytes))
        return *err = "malformed AMDGPU metadata note", false;
      o += descOff + ((hdr[1] + 3) & ~3u);
    }
  }
  for (auto &k : m->kernels) {
    auto it = explicitBytes.find(k.first);
    if (it == explicitBytes.end())
      return *err = "no metadata for kernel " + k.first, false;
    k.second->explicitSize = it->second.explicitBytes;
    k.second->meta = it->second;
  }
  return true;
}

} // namespace

extern "C" {

const char *hipGetErrorName(hipError_t r) {
  switch (r) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNoBinaryForGpu:
    return "hipErrorNoBinaryForGpu";
  case kInvalidContext:
    return "hipErrorInvalidContext";
  case kInvalidHandle:
    return "hipErrorInvalidHandle";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorPeerAccessAlreadyEnabled:
    return "hipErrorPeerAccessAlreadyEnabled";
  case hipErrorNotSupported:
    return "hipErrorNotSupported";
  }
  return "hipErrorUnknown";
}
const char *hipGetErrorString(hipError_t r) {
  return r == hipSuccess ? "no error" : "error (fake HIP runtime)";
}
hipError_t hipInit(unsigned) { return hipSuccess; }
hipError_t hipGetDeviceCount(int *n) {
  *n = deviceCount() > 0 ? deviceCount() : 0;
  return *n ? hipSuccess : hipErrorNoDevice;
}
hipError_t hipGetDevice(int *d) {
  *d = g_device;
  return hipSuccess;
}
hipError_t hipSetDevice(int d) {
  if (d < 0 || d >= deviceCount())
    return hipErrorInvalidDevice;
  g_device = d;
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int *v, int attr, int dev) {
  if (dev < 0 || dev >= deviceCount())
    return hipErrorInvalidDevice;
  switch (attr) {
  case hipDeviceAttributeMultiprocessorCount:
    *v = envInt("CCL_FAKE_HIP_CUS", 304);
    return hipSuccess;
  case hipDeviceAttributeMaxThreadsPerBlock:
    *v = 1024;
    return hipSuccess;
  }
  return hipErrorInvalidValue;
}
// hipDeviceProp_tR0600: the name first; gcnArchName somewhere after it (the
// runtime must not depend on where).
hipError_t hipGetDevicePropertiesR0600(void *p, int dev) {
  if (dev < 0 || dev >= deviceCount())
    return hipErrorInvalidDevice;
  char *c = static_cast<char *>(p);
  memset(c, 0, 1472);
  snprintf(c, 256, "Fake AMD Instinct (device %d)", dev);
  snprintf(c + 1160, 256, "%s", archName().c_str());
  // CCL_FAKE_HIP_EXTRA_ARCH: a second architecture name further on (the
  // runtime must refuse to guess between them).
  if (const char *extra = getenv("CCL_FAKE_HIP_EXTRA_ARCH"); extra && *extra)
    snprintf(c + 1416, 56, "%s", extra);
  return hipSuccess;
}
hipError_t hipDeviceSynchronize() { return hipSuccess; }
hipError_t hipDeviceCanAccessPeer(int *can, int dev, int peer) {
  if (dev < 0 || dev >= deviceCount() || peer < 0 || peer >= deviceCount())
    return hipErrorInvalidDevice;
  *can = dev != peer && envInt("CCL_FAKE_HIP_NO_PEER", 0) == 0;
  return hipSuccess;
}
hipError_t hipDeviceEnablePeerAccess(int peer, unsigned) {
  if (peer < 0 || peer >= deviceCount() || peer == g_device)
    return hipErrorInvalidDevice;
  std::lock_guard<std::mutex> lk(g_mu);
  return g_peerEnabled.insert({g_device, peer}).second
             ? hipSuccess
             : hipErrorPeerAccessAlreadyEnabled;
}
hipError_t hipMalloc(void **p, size_t n) { return deviceAlloc(p, n, false); }
hipError_t hipExtMallocWithFlags(void **p, size_t n, unsigned flags) {
  return deviceAlloc(p, n, flags == hipDeviceMallocFinegrained);
}
hipError_t hipFree(void *p) {
  if (!p)
    return hipSuccess;
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs.end() || it->second.host || it->second.opened)
    return hipErrorInvalidValue;
  munmap(p, it->second.size);
  close(it->second.fd);
  g_allocs.erase(it);
  return hipSuccess;
}
hipError_t hipHostMalloc(void **p, size_t n, unsigned flags) {
  void *m = nullptr;
  if (posix_memalign(&m, 4096, n ? n : 1) != 0)
    return hipErrorOutOfMemory;
  memset(m, 0x5a, n); // not zeroed, as pinned memory is not
  {
    std::lock_guard<std::mutex> lk(g_mu);
    Alloc a;
    a.size = n;
    a.host = true;
    a.flags = flags;
    g_allocs[reinterpret_cast<uintptr_t>(m)] = a;
  }
  *p = m;
  char line[128];
  snprintf(line, sizeof line, "hostalloc pid=%d bytes=%zu flags=0x%x",
           (int)getpid(), n, flags);
  logLine(line);
  return hipSuccess;
}
hipError_t hipHostGetDevicePointer(void **d, void *h, unsigned) {
  std::lock_guard<std::mutex> lk(g_mu);
  const Alloc *a = findAlloc(h, 1);
  if (!a || !a->host || !(a->flags & hipHostMallocMapped))
    return hipErrorInvalidValue;
  *d = h;
  return hipSuccess;
}
hipError_t hipHostFree(void *p) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs.end() || !it->second.host)
    return hipErrorInvalidValue;
  free(p);
  g_allocs.erase(it);
  return hipSuccess;
}
hipError_t hipMemGetAddressRange(void **base, size_t *size, void *p) {
  std::lock_guard<std::mutex> lk(g_mu);
  uintptr_t b = 0;
  const Alloc *a = findAlloc(p, 1, &b);
  if (!a || a->host)
    return hipErrorNotFound;
  *base = reinterpret_cast<void *>(b);
  *size = a->size;
  return hipSuccess;
}
hipError_t hipMemsetAsync(void *p, int v, size_t n, hipStream_t s) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!streamOk(s))
    return kInvalidHandle;
  if (!findAlloc(p, n))
    return hipErrorInvalidValue;
  memset(p, v, n);
  return hipSuccess;
}
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, int kind,
                          hipStream_t s) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!streamOk(s))
    return kInvalidHandle;
  // Device-side ends must lie in memory a device reaches.
  bool dstDev =
      kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice;
  bool srcDev =
      kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice;
  if ((dstDev && !findAlloc(dst, n)) || (srcDev && !findAlloc(src, n)))
    return hipErrorInvalidValue;
  memmove(dst, src, n);
  return hipSuccess;
}
hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned) {
  std::lock_guard<std::mutex> lk(g_mu);
  uintptr_t id = g_nextStream++;
  g_streams.insert(id);
  *s = reinterpret_cast<hipStream_t>(id);
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t s) {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_streams.erase(reinterpret_cast<uintptr_t>(s)) ? hipSuccess
                                                         : kInvalidHandle;
}
hipError_t hipStreamSynchronize(hipStream_t s) {
  std::lock_guard<std::mutex> lk(g_mu);
  return streamOk(s) ? hipSuccess : kInvalidHandle;
}
hipError_t hipStreamWriteValue64(hipStream_t s, void *p, uint64_t v, unsigned) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!streamOk(s))
    return kInvalidHandle;
  if (!findAlloc(p, 8))
    return hipErrorInvalidValue;
  __atomic_store_n(static_cast<uint64_t *>(p), v, __ATOMIC_RELEASE);
  return hipSuccess;
}
hipError_t hipModuleLoadData(hipModule_t *out, const void *image) {
  if (!out || !image)
    return hipErrorInvalidValue;
  auto m = std::make_unique<Module>();
  m->device = g_device;
  std::string err;
  if (!parseCodeObject(static_cast<const unsigned char *>(image), m.get(),
                       &err)) {
    logLine("modulefail pid=" + std::to_string(getpid()) + " " + err);
    return err.find("architecture") != std::string::npos
               ? hipErrorNoBinaryForGpu
               : hipErrorInvalidImage;
  }
  // Loaded: the code object is for this device's architecture.
  logLine("module pid=" + std::to_string(getpid()) +
          " device=" + std::to_string(g_device) +
          " arch=" + archName().substr(0, archName().find(':')) +
          " kernels=" + std::to_string(m->kernels.size()));
  std::lock_guard<std::mutex> lk(g_mu);
  g_modules.insert(m.get());
  *out = reinterpret_cast<hipModule_t>(m.release());
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t mod,
                                const char *name) {
  std::lock_guard<std::mutex> lk(g_mu);
  Module *m = reinterpret_cast<Module *>(mod);
  if (!g_modules.count(m))
    return kInvalidHandle;
  auto it = m->kernels.find(name ? name : "");
  if (it == m->kernels.end())
    return hipErrorNotFound;
  *f = reinterpret_cast<hipFunction_t>(it->second.get());
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t mod) {
  std::lock_guard<std::mutex> lk(g_mu);
  Module *m = reinterpret_cast<Module *>(mod);
  if (!g_modules.erase(m))
    return kInvalidHandle;
  delete m;
  return hipSuccess;
}
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *n,
                                                              hipFunction_t,
                                                              int threads,
                                                              size_t) {
  *n = threads > 0 && threads <= 1024 ? 2048 / threads : 0;
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, hipStream_t s,
                                 void **params, void **extra) {
  std::lock_guard<std::mutex> lk(g_mu);
  const Kernel *k = reinterpret_cast<const Kernel *>(f);
  bool known = false;
  for (Module *m : g_modules)
    for (auto &e : m->kernels)
      known |= e.second.get() == k;
  if (!known || !streamOk(s))
    return kInvalidHandle;
  if (params || !extra || !gx || !gy || !gz || !bx || !by || !bz ||
      (uint64_t)bx * by * bz > 1024)
    return hipErrorInvalidValue;
  const unsigned char *buf = nullptr;
  size_t size = 0;
  bool haveSize = false;
  for (int i = 0; extra[i] != CCLRT_HIP_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CCLRT_HIP_LAUNCH_PARAM_BUFFER_POINTER)
      buf = static_cast<const unsigned char *>(extra[i + 1]);
    else if (extra[i] == CCLRT_HIP_LAUNCH_PARAM_BUFFER_SIZE)
      size = *static_cast<size_t *>(extra[i + 1]), haveSize = true;
    else
      return hipErrorInvalidValue;
  }
  if (!buf || !haveSize || size != k->explicitSize)
    return hipErrorInvalidValue;
  // The work-group size the code was compiled for: HIP refuses a launch
  // above .max_flat_workgroup_size, and a kernel with
  // .reqd_workgroup_size assumes exactly that size.
  const fakehip::KernelMeta &meta = k->meta;
  if (meta.maxFlat && (uint64_t)bx * by * bz > meta.maxFlat)
    return hipErrorInvalidValue;
  if (meta.reqd[0] &&
      (bx != meta.reqd[0] || by != meta.reqd[1] || bz != meta.reqd[2]))
    return hipErrorInvalidValue;
  std::string args;
  for (size_t o = 0; o + 8 <= size; o += 8) {
    uint64_t w;
    memcpy(&w, buf + o, 8);
    char hex[24];
    snprintf(hex, sizeof hex, "%s%" PRIx64, o ? "," : "", w);
    args += hex;
  }
  char line[512];
  snprintf(line, sizeof line,
           "launch pid=%d device=%d kernel=%s grid=%u,%u,%u block=%u,%u,%u "
           "kernarg=%zu segment=%u stream=%" PRIxPTR " args=%s",
           (int)getpid(), g_device, k->name.c_str(), gx, gy, gz, bx, by, bz,
           size, k->kernargSize, reinterpret_cast<uintptr_t>(s), args.c_str());
  logLine(line);
  return hipSuccess;
}
hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *h, void *p) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs.end() || it->second.fd < 0)
    return hipErrorInvalidValue; // only the base of a device allocation
  memset(h, 0, sizeof *h);
  int32_t pid = getpid(), fd = it->second.fd;
  uint64_t size = it->second.size;
  memcpy(h->reserved, kIpcMagic, 8);
  memcpy(h->reserved + 8, &pid, 4);
  memcpy(h->reserved + 12, &fd, 4);
  memcpy(h->reserved + 16, &size, 8);
  return hipSuccess;
}
hipError_t hipIpcOpenMemHandle(void **p, hipIpcMemHandle_t h, unsigned) {
  if (memcmp(h.reserved, kIpcMagic, 8) != 0)
    return hipErrorInvalidValue;
  int32_t pid, fd;
  uint64_t size;
  memcpy(&pid, h.reserved + 8, 4);
  memcpy(&fd, h.reserved + 12, 4);
  memcpy(&size, h.reserved + 16, 8);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
  int f = open(path, O_RDWR | O_CLOEXEC);
  if (f < 0)
    return kInvalidContext;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(f, &st) == 0 && (uint64_t)st.st_size >= size)
    m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close(f);
  if (m == MAP_FAILED)
    return hipErrorInvalidValue;
  std::lock_guard<std::mutex> lk(g_mu);
  Alloc a;
  a.size = size;
  a.opened = true;
  g_allocs[reinterpret_cast<uintptr_t>(m)] = a;
  *p = m;
  return hipSuccess;
}
hipError_t hipIpcCloseMemHandle(void *p) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs.end() || !it->second.opened)
    return hipErrorInvalidValue;
  munmap(p, it->second.size);
  g_allocs.erase(it);
  return hipSuccess;
}

} // extern "C"
