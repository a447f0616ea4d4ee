// library_file.cc - cclCheckLibraryFile: is a file a complete shared
// library for this machine, before anyone maps it (ccl/ccl.h).
//
// dlopen maps a library's segments from the file: one cut short (a partial
// copy, a failed download) maps pages past its end, and the first touch of
// them kills the process with SIGBUS. So the headers are read with read(),
// never mapped, and every segment and table they name must lie within the
// file.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"

namespace cclrt {
namespace {

#if defined(__x86_64__)
constexpr unsigned kMachine = EM_X86_64;
constexpr const char *kMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr unsigned kMachine = EM_AARCH64;
constexpr const char *kMachineName = "AArch64";
#else
#error "cclCheckLibraryFile: add this machine's ELF machine number"
#endif

const char *machineName(unsigned m) {
  switch (m) {
  case EM_X86_64: return "x86-64";
  case EM_AARCH64: return "AArch64";
  case EM_AMDGPU: return "AMDGPU (a device code object, not a host library)";
  case EM_CUDA: return "CUDA (a cubin, not a host library)";
  case EM_386: return "i386";
  case EM_PPC64: return "ppc64";
  }
  return nullptr;
}

// Reads exactly n bytes at off; false on a short read or an error.
bool readAt(int fd, void *buf, size_t n, off_t off) {
  char *p = static_cast<char *>(buf);
  while (n) {
    ssize_t got = pread(fd, p, n, off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= size_t(got);
    off += got;
  }
  return true;
}

std::string bytes(uint64_t n) { return std::to_string(n) + " bytes"; }

} // namespace

namespace api {

cclResult_t cclCheckLibraryFile(const char *path) {
  if (!path || !*path)
    return setError(cclInvalidArgument, "cclCheckLibraryFile: path is empty");
  const std::string what = std::string(path);
  auto bad = [&](const std::string &why) {
    return setError(cclInvalidArgument, what + ": " + why);
  };
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return bad(std::string("cannot be opened: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0)
    return bad(std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return bad("not a regular file");
  const uint64_t size = uint64_t(st.st_size);
  Elf64_Ehdr eh;
  if (size < sizeof eh || !readAt(fd, &eh, sizeof eh, 0) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return bad("not a shared library (no ELF header" +
               std::string(size < sizeof eh ? ": the file has " + bytes(size)
                                            : "") +
               ")");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return bad("not a 64-bit little-endian ELF file, as this process is");
  if (eh.e_machine != kMachine) {
    const char *m = machineName(eh.e_machine);
    return bad("built for " +
               (m ? std::string(m)
                  : "ELF machine " + std::to_string(eh.e_machine)) +
               ", and this process runs on " + kMachineName);
  }
  if (eh.e_type != ET_DYN)
    return bad("not a shared library (ELF type " +
               std::to_string(eh.e_type) + ")");
  auto table = [&](uint64_t off, uint64_t count, uint64_t entry,
                   const char *name) -> std::string {
    uint64_t end = off + count * entry;
    if (count && (entry == 0 || end < off || end > size))
      return std::string("cut short: its ") + name + " ends at byte " +
             std::to_string(end) + " but the file has " + bytes(size) +
             " (a partial copy?)";
    return "";
  };
  if (eh.e_phentsize != sizeof(Elf64_Phdr))
    return bad("program headers of an unexpected size");
  if (std::string e = table(eh.e_phoff, eh.e_phnum, eh.e_phentsize,
                            "program header table");
      !e.empty())
    return bad(e);
  if (std::string e = table(eh.e_shoff, eh.e_shnum, eh.e_shentsize,
                            "section header table");
      !e.empty())
    return bad(e);
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (eh.e_phnum &&
      !readAt(fd, ph.data(), ph.size() * sizeof(Elf64_Phdr), off_t(eh.e_phoff)))
    return bad("cannot be read (its program headers)");
  for (size_t i = 0; i < ph.size(); ++i) {
    const Elf64_Phdr &p = ph[i];
    if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC)
      continue;
    uint64_t end = p.p_offset + p.p_filesz;
    if (end < p.p_offset || end > size)
      return bad("cut short: its segment " + std::to_string(i) +
                 " ends at byte " + std::to_string(end) + " but the file has " +
                 bytes(size) + " (a partial copy?)");
  }
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
