#include "tools/ccl-perf/nccl_loader.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cclperf {
namespace nccl {

std::string Nccl::versionString() const {
  // NCCL >= 2.9 encodes X*10000 + Y*100 + Z, older X*1000 + Y*100 + Z.
  int major, minor, patch;
  if (version >= 10000) {
    major = version / 10000;
    minor = (version % 10000) / 100;
  } else {
    major = version / 1000;
    minor = (version % 1000) / 100;
  }
  patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}

std::string Nccl::errorText(ncclResult_t r) const {
  const char *s = ncclGetErrorString ? ncclGetErrorString(r) : nullptr;
  return "ncclResult " + std::to_string(r) + (s ? std::string(" (") + s + ")" : "");
}

bool checkNcclEnvironment(std::string *why) {
  const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (nvls && std::strcmp(nvls, "0") != 0) {
    *why = std::string("NCCL_NVLS_ENABLE=") + nvls +
           " is set: ccl-perf never runs NCCL with NVLS/multicast (it can take "
           "a shared NVSwitch host out of service). Unset it or set it to 0.";
    return false;
  }
  if (std::getenv("CCL_ALLOW_MULTICAST")) {
    *why = "CCL_ALLOW_MULTICAST is set: ccl-perf's NCCL comparison refuses to "
           "run when multicast is allowed. Unset it for --compare nccl.";
    return false;
  }
  return true;
}

namespace {

std::vector<std::string> candidatePaths() {
  std::vector<std::string> paths;
  if (const char *p = std::getenv("CCL_NCCL_LIBRARY"))
    if (*p) paths.push_back(p);
  paths.push_back("libnccl.so.2");
  const char *patterns[] = {
      "/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
      "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
      "/usr/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
      "/usr/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
      "/opt/*/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
      "/opt/*/*/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
      "/root/.local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
  };
  for (const char *pat : patterns) {
    glob_t g;
    if (glob(pat, 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; i++) paths.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  if (const char *venv = std::getenv("VIRTUAL_ENV")) {
    std::string pat = std::string(venv) +
                      "/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2";
    glob_t g;
    if (glob(pat.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; i++) paths.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return paths;
}

template <typename F>
bool sym(void *h, F *slot, const char *name, std::string *why) {
  *slot = reinterpret_cast<F>(dlsym(h, name));
  if (!*slot) *why = std::string("libnccl has no ") + name;
  return *slot != nullptr;
}

}  // namespace

const Nccl *loadNccl(std::string *why) {
  static Nccl n;
  static bool loaded = false;
  if (loaded) return &n;
  if (!checkNcclEnvironment(why)) return nullptr;
  // Before libnccl is loaded: NCCL reads its environment at init.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  std::string tried;
  void *h = nullptr;
  for (const std::string &p : candidatePaths()) {
    h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      n.path = p;
      break;
    }
    const char *e = dlerror();
    tried += "\n  " + p + ": " + (e ? e : "?");
  }
  if (!h) {
    *why = "cannot load NCCL; tried (set CCL_NCCL_LIBRARY to its path):" + tried;
    return nullptr;
  }
  if (!(sym(h, &n.ncclGetVersion, "ncclGetVersion", why) &&
        sym(h, &n.ncclCommInitAll, "ncclCommInitAll", why) &&
        sym(h, &n.ncclCommDestroy, "ncclCommDestroy", why) &&
        sym(h, &n.ncclGetUniqueId, "ncclGetUniqueId", why) &&
        sym(h, &n.ncclCommInitRank, "ncclCommInitRank", why) &&
        sym(h, &n.ncclAllReduce, "ncclAllReduce", why) &&
        sym(h, &n.ncclAllGather, "ncclAllGather", why) &&
        sym(h, &n.ncclReduceScatter, "ncclReduceScatter", why) &&
        sym(h, &n.ncclBroadcast, "ncclBroadcast", why) &&
        sym(h, &n.ncclReduce, "ncclReduce", why) &&
        sym(h, &n.ncclGroupStart, "ncclGroupStart", why) &&
        sym(h, &n.ncclGroupEnd, "ncclGroupEnd", why) &&
        sym(h, &n.ncclGetErrorString, "ncclGetErrorString", why)))
    return nullptr;
  n.ncclAlltoAll = reinterpret_cast<decltype(n.ncclAlltoAll)>(
      dlsym(h, "ncclAlltoAll"));  // optional (NCCL >= 2.28)
  n.ncclGetVersion(&n.version);
  loaded = true;
  return &n;
}

}  // namespace nccl
}  // namespace cclperf
