// library.h - the generated library under test (--lib): loaded before any
// communicator exists (its constructor registers its plans with libcclrt),
// its entry point ccl_<algo>, and the plans of the algorithm, found with
// cclPlanLookup (or exported by the library as data symbols).
#ifndef CCL_PERF_LIBRARY_H
#define CCL_PERF_LIBRARY_H

#include <cstdint>
#include <string>
#include <vector>

#include "ccl/ccl.h"
#include "tools/ccl-perf/options.h"

namespace cclperf {

// The prototype of every generated entry point (ccl.h).
typedef int (*EntryFn)(cclComm_t comm, const void *input, void *output,
                       size_t count, cclDataType_t dtype, cclRedOp_t op,
                       cclStream_t stream);

// The entry point of a rooted collective (Broadcast, Reduce): the root is
// a run-time argument.
typedef int (*RootedEntryFn)(cclComm_t comm, const void *input, void *output,
                             size_t count, cclDataType_t dtype, cclRedOp_t op,
                             int root, cclStream_t stream);

struct Library {
  EntryFn entry = nullptr;
  // Set instead of `entry` when the algorithm's collective takes a root.
  RootedEntryFn rootedEntry = nullptr;
  // --coll: the bundle's NCCL-shaped entry point of the collective
  // (cclAllReduce, ...), and its name.
  void *bundleEntry = nullptr;
  std::string entryName;
  // The plans of --algo, one per target the library was compiled for, in
  // registration order (empty: the library shows none).
  std::vector<const ccl_plan *> plans;
};

// Loads opt->lib (a bare file name that exists here becomes "./NAME", so
// that dlopen does not search the library path instead) and finds the entry
// point and plans of opt->algo, or with --coll the bundle's entry point of
// the collective. Exits through fatal() when the library or
// its entry point cannot be loaded.
Library loadLibrary(Options *opt);

// "host", "cuda", "amdgpu" (ccl_plan::target).
const char *planTargetName(uint32_t target);

}  // namespace cclperf

#endif  // CCL_PERF_LIBRARY_H
