// registry.cc - the process-global registry of plans: generated libraries
// register theirs from a static constructor (cclrtRegisterPlan),
// communicators prepare them, tools look them up by name (cclPlanLookup).
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace cclrt {

namespace {
// Never destroyed: libraries may register (and tools look up) from static
// constructors and destructors.
std::mutex &registryMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}
std::vector<const ccl_plan *> &registry() {
  static std::vector<const ccl_plan *> *r = new std::vector<const ccl_plan *>();
  return *r;
}
} // namespace

std::vector<const ccl_plan *> registeredPlans() {
  std::lock_guard<std::mutex> lk(registryMutex());
  return registry();
}

bool isRegistered(const ccl_plan *plan) {
  std::lock_guard<std::mutex> lk(registryMutex());
  for (const ccl_plan *p : registry())
    if (p == plan)
      return true;
  return false;
}

namespace api {

cclResult_t cclPlanLookup(const char *algorithm, const ccl_plan **plans,
                          size_t capacity, size_t *count) {
  const char *fn = "cclPlanLookup";
  if (!algorithm)
    return setError(cclInvalidArgument, format("%s: algorithm is NULL", fn));
  if (!count)
    return setError(cclInvalidArgument,
                    format("%s(algorithm %s): count is NULL", fn, algorithm));
  if (!plans && capacity)
    return setError(cclInvalidArgument,
                    format("%s(algorithm %s): plans is NULL with capacity %zu",
                           fn, algorithm, capacity));
  std::lock_guard<std::mutex> lk(registryMutex());
  size_t n = 0;
  for (const ccl_plan *p : registry()) {
    if (!p->algorithm || strcmp(p->algorithm, algorithm) != 0)
      continue;
    if (n < capacity)
      plans[n] = p;
    n++;
  }
  *count = n;
  return cclSuccess;
}

} // namespace api
} // namespace cclrt

extern "C" void cclrtRegisterPlan(const ccl_plan *plan) {
  if (!plan)
    return;
  try {
    std::lock_guard<std::mutex> lk(cclrt::registryMutex());
    for (const ccl_plan *p : cclrt::registry())
      if (p == plan)
        return;
    cclrt::registry().push_back(plan);
  } catch (const std::exception &e) {
    // Called from a library's static constructor: nobody to return to.
    fprintf(stderr,
            "libcclrt: could not register the plan of algorithm %s: %s\n",
            plan->algorithm ? plan->algorithm : "?", e.what());
  }
}
