// library.cc - loading the library under test (library.h).
#include "tools/ccl-perf/library.h"

#include <dlfcn.h>
#include <unistd.h>

#include "tools/ccl-perf/check.h"
#include "tools/ccl-perf/report.h"

namespace cclperf {
namespace {

// The plans libcclrt has registered for `algo`.
std::vector<const ccl_plan *> registeredPlans(const std::string &algo) {
  size_t n = 0;
  cclResult_t rc = cclPlanLookup(algo.c_str(), nullptr, 0, &n);
  std::vector<const ccl_plan *> plans(n);
  if (rc == cclSuccess && n)
    rc = cclPlanLookup(algo.c_str(), plans.data(), n, &n);
  if (rc != cclSuccess) fatal(cclError("cclPlanLookup", -1, rc));
  plans.resize(n);
  return plans;
}

// Plans a library exports as data symbols instead.
std::vector<const ccl_plan *> exportedPlans(void *lib, const std::string &algo) {
  std::vector<const ccl_plan *> out;
  const std::string names[] = {"ccl_plan_" + algo, "ccl_" + algo + "_plan",
                               algo + "_plan"};
  for (const std::string &n : names)
    if (void *p = dlsym(lib, n.c_str())) out.push_back((const ccl_plan *)p);
  return out;
}

}  // namespace

Library loadLibrary(Options *opt) {
  if (opt->lib.find('/') == std::string::npos && access(opt->lib.c_str(), F_OK) == 0)
    opt->lib = "./" + opt->lib;
  // A file cut short would kill the process with SIGBUS when loaded.
  if (cclCheckLibraryFile(opt->lib.c_str()) != cclSuccess)
    fatal(std::string("cannot load --lib ") + cclGetLastError());
  void *handle = dlopen(opt->lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = dlerror();
    fatal("cannot load --lib " + opt->lib + ": " + (e ? e : "?"));
  }
  Library lib;
  if (!opt->coll.empty()) {
    lib.entryName = "ccl" + opt->coll;
    lib.bundleEntry = dlsym(handle, lib.entryName.c_str());
    if (!lib.bundleEntry)
      fatal(opt->lib + " has no entry point " + lib.entryName +
            " (--coll: a bundled library, compiled from a file with `select` "
            "items, exports cclAllReduce, cclAllGather, ...)");
    return lib;
  }
  lib.entryName = "ccl_" + opt->algo;
  void *sym = dlsym(handle, lib.entryName.c_str());
  if (!sym)
    fatal(opt->lib + " has no entry point " + lib.entryName + " (--algo " + opt->algo + ")");
  lib.plans = registeredPlans(opt->algo);
  if (lib.plans.empty()) lib.plans = exportedPlans(handle, opt->algo);
  const Collective *coll = lib.plans.empty() || !lib.plans.front()->collective
                               ? nullptr
                               : findCollective(lib.plans.front()->collective);
  if (coll && coll->rooted)
    lib.rootedEntry = reinterpret_cast<RootedEntryFn>(sym);
  else
    lib.entry = reinterpret_cast<EntryFn>(sym);
  return lib;
}

const char *planTargetName(uint32_t target) {
  switch (target) {
    case CCL_TARGET_HOST: return "host";
    case CCL_TARGET_NVPTX: return "cuda";
    case CCL_TARGET_AMDGPU: return "amdgpu";
  }
  return "?";
}

}  // namespace cclperf
