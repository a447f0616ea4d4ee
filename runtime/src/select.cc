// select.cc - a bundle's NCCL-shaped entry points (cclrtCollective): which
// algorithm of the library's selection table serves a call, CCL_ALGO, and
// the error that says what the library serves when none does
// (docs/runtime.md, "Bundles and selection").
//
// The choice depends only on what every rank of a call passes alike (the
// collective, count, data type, operator, root and the rank count) and on
// the library, never on the rank's buffers: ranks that chose differently
// would run different algorithms and wait for each other forever.
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "device.h"

namespace cclrt {
namespace {

const char *const kCollectives[CCL_COLL_COUNT] = {
    "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "Broadcast",
    "Reduce"};
const char *const kEntries[CCL_COLL_COUNT] = {
    "cclAllReduce", "cclAllGather", "cclReduceScatter",
    "cclAllToAll",  "cclBroadcast", "cclReduce"};

bool reduces(uint32_t c) {
  return c == CCL_COLL_ALLREDUCE || c == CCL_COLL_REDUCESCATTER ||
         c == CCL_COLL_REDUCE;
}
bool rooted(uint32_t c) {
  return c == CCL_COLL_BROADCAST || c == CCL_COLL_REDUCE;
}

// CCL_ALGO=collective=algorithm,...: read once per process.
struct Forced {
  std::string algorithm[CCL_COLL_COUNT];
  std::string error; // set when the variable does not parse
};

Forced parseForced(const char *env) {
  Forced f;
  if (!env || !*env)
    return f;
  std::string text = env;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty())
      continue;
    size_t eq = item.find('=');
    std::string coll = item.substr(0, eq);
    int found = -1;
    for (int c = 0; c < CCL_COLL_COUNT; c++)
      if (strcasecmp(coll.c_str(), kCollectives[c]) == 0)
        found = c;
    if (eq == std::string::npos || eq + 1 == item.size() || found < 0) {
      f.error = format("CCL_ALGO=\"%s\": '%s' is not COLLECTIVE=ALGORITHM "
                       "with a collective of allreduce, allgather, "
                       "reducescatter, alltoall, broadcast, reduce (e.g. "
                       "CCL_ALGO=allreduce=ring,allgather=ag_ring)",
                       env, item.c_str());
      return f;
    }
    f.algorithm[found] = item.substr(eq + 1);
  }
  return f;
}

const Forced &forced() {
  static const Forced f = parseForced(getenv("CCL_ALGO"));
  return f;
}

// How a row's algorithm runs a call: its prepared plan (for the call's
// root), the kernel of its variant and the count in that kernel's elements
// (a collective that only moves bytes runs any data type as the widest
// kernel type that divides its bytes).
struct Choice {
  PreparedPlan *pp = nullptr;
  size_t kernel = 0;
  size_t count = 0;
};

// The index of the variant's kernel for (dtype, op), or num_kernels.
size_t kernelFor(const ccl_variant *v, uint32_t dtype, uint32_t op) {
  for (uint32_t k = 0; k < v->num_kernels; k++)
    if (v->kernels[k].dtype == dtype && v->kernels[k].redop == op)
      return k;
  return v->num_kernels;
}

// Whether `row` serves the call; *why says why not.
bool serves(Shared *s, const ccl_selection_row &row, uint32_t coll,
            size_t count, cclDataType_t dtype, cclRedOp_t op, int root,
            uint64_t bytes, Choice *c, std::string *why) {
  const ccl_plan *plan = nullptr;
  for (uint32_t i = 0; i < row.num_plans && row.plans; i++)
    if (row.plans[i] && row.plans[i]->target == (uint32_t)s->target)
      plan = row.plans[i];
  if (!plan) {
    *why = format("no %s plan", targetName(s->target));
    return false;
  }
  PreparedPlan *pp = findPrepared(s, plan, root);
  if (!pp) {
    *why = "the library was registered after the communicator was created "
           "(call cclCommLoadRegisteredPlans)";
    return false;
  }
  if (pp->status != PreparedPlan::kReady) {
    *why = pp->message;
    return false;
  }
  if (bytes > plan->max_bytes) {
    *why = format("%" PRIu64 " bytes is above its limit of %" PRIu64,
                  bytes, plan->max_bytes);
    return false;
  }
  const ccl_variant *v = pp->variant;
  c->pp = pp;
  if (reduces(coll)) {
    c->kernel = kernelFor(v, dtype, op);
    if (c->kernel == v->num_kernels) {
      *why = format("no %s/%s kernel", dtypeName(dtype), opName(op));
      return false;
    }
    c->count = count;
    return true;
  }
  // Moves bytes: the widest kernel element that divides them.
  for (size_t width : {4, 2}) {
    if (bytes % width)
      continue;
    for (uint32_t k = 0; k < v->num_kernels; k++)
      if (dtypeSize(v->kernels[k].dtype) == width) {
        c->kernel = k;
        c->count = bytes / width;
        return true;
      }
  }
  *why = bytes % 2 ? format("%" PRIu64 " bytes is odd; its kernels move "
                            "2- and 4-byte elements", bytes)
                   : std::string("no kernel");
  return false;
}

std::string bound(uint64_t bytes) {
  return bytes == UINT64_MAX ? std::string("any size")
                             : format("up to %" PRIu64 " bytes", bytes);
}

// A row's algorithm, for messages.
const char *algorithmOf(const ccl_selection_row &r) {
  return r.algorithm ? r.algorithm : "(unnamed)";
}

std::string ranks(const ccl_selection_row &r) {
  return r.max_ranks ? format("%u..%u ranks", r.min_ranks, r.max_ranks)
                     : format("%u.. ranks", r.min_ranks);
}

} // namespace

bool deterministicFromEnv(bool *on, std::string *err) {
  const char *v = getenv("CCL_DETERMINISTIC");
  *on = false;
  if (!v || !*v || strcmp(v, "0") == 0)
    return true;
  if (strcmp(v, "1") == 0) {
    *on = true;
    return true;
  }
  *err = format("CCL_DETERMINISTIC is '%s'; it must be 1 (the deterministic "
                "selection table) or 0",
                v);
  return false;
}

namespace api {

cclResult_t cclrtCollective(const ccl_selection *sel, uint32_t coll,
                            const void *send, void *recv, size_t count,
                            cclDataType_t dtype, cclRedOp_t op, int root,
                            cclComm_t comm, cclStream_t stream) {
  if (coll >= CCL_COLL_COUNT)
    return setError(cclInvalidArgument,
                    format("cclrtCollective: unknown collective %u", coll));
  const char *entry = kEntries[coll];
  cclResult_t r = checkComm(comm, entry);
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  auto where = [&] { return format("%s(rank %d)", entry, rank); };
  if (aborted(s))
    return abortedError(s, where());
  if (!sel || sel->abi_version != CCL_SELECTION_ABI_VERSION)
    return setError(cclInvalidUsage,
                    where() + ": the library's selection table is missing or "
                              "of another version; rebuild it with a cclc "
                              "that matches this libcclrt");
  if ((sel->num_rows && !sel->rows) ||
      (sel->num_algorithms && !sel->algorithms))
    return setError(cclInvalidUsage,
                    format("%s: the library's selection table is corrupt: "
                           "its %s table is NULL although its count is %u",
                           where().c_str(),
                           sel->num_rows && !sel->rows ? "row" : "algorithm",
                           sel->num_rows && !sel->rows ? sel->num_rows
                                                       : sel->num_algorithms));
  const size_t esize = dtypeSize(dtype);
  if (!esize)
    return setError(cclInvalidArgument,
                    format("%s: unknown data type %d", where().c_str(),
                           (int)dtype));
  if (reduces(coll)) {
    if (op != cclSum && op != cclProd && op != cclMax && op != cclMin)
      return setError(cclInvalidArgument,
                      format("%s: unknown reduction operator %d",
                             where().c_str(), (int)op));
    if (!isKernelType(dtype))
      return setError(cclUnsupported,
                      format("%s: %s reduces float32, float16 and bfloat16 "
                             "data, not %s",
                             where().c_str(), kCollectives[coll],
                             dtypeName(dtype)));
  }
  if (rooted(coll) && (root < 0 || root >= s->nranks))
    return setError(cclInvalidArgument,
                    format("%s: root %d is not a rank of the %d-rank "
                           "communicator",
                           where().c_str(), root, s->nranks));
  uint64_t bytes;
  if (__builtin_mul_overflow((uint64_t)count, (uint64_t)esize, &bytes))
    return setError(cclInvalidArgument,
                    format("%s: %zu elements of %s are too many bytes",
                           where().c_str(), count, dtypeName(dtype)));
  const Forced &f = forced();
  if (!f.error.empty())
    return setError(cclInvalidArgument, where() + ": " + f.error);
  const std::string &force = f.algorithm[coll];
  // A deterministic communicator's reducing calls: the deterministic table
  // only (CCL_ALGO may force one of its algorithms).
  const bool det = s->deterministic && reduces(coll);
  if (det && !sel->num_deterministic_rows)
    return setError(cclUnsupported,
                    format("%s: the communicator asks for deterministic "
                           "results (CCL_DETERMINISTIC=1 or cclConfig_t::"
                           "deterministic), and this library has no "
                           "deterministic table (`select %s deterministic` "
                           "in %s)",
                           where().c_str(), kCollectives[coll],
                           sel->source ? sel->source : "?"));
  if (sel->num_deterministic_rows && !sel->deterministic_rows)
    return setError(cclInvalidUsage,
                    format("%s: the library's selection table is corrupt: "
                           "its deterministic row table is NULL although its "
                           "count is %u",
                           where().c_str(), sel->num_deterministic_rows));
  if (det && !force.empty()) {
    bool member = false;
    for (uint32_t i = 0; i < sel->num_deterministic_rows; i++) {
      const ccl_selection_row &row = sel->deterministic_rows[i];
      member |= row.collective == coll && row.algorithm && force == row.algorithm;
    }
    if (!member)
      return setError(cclInvalidArgument,
                      format("%s: CCL_ALGO forces %s=%s, which is not of the "
                             "library's deterministic %s table that this "
                             "communicator asks for (CCL_DETERMINISTIC=1 or "
                             "cclConfig_t::deterministic)",
                             where().c_str(), kCollectives[coll], force.c_str(),
                             kCollectives[coll]));
  }
  const ccl_selection_row *rows =
      !force.empty() ? sel->algorithms
                     : det ? sel->deterministic_rows : sel->rows;
  const uint32_t nrows = !force.empty() ? sel->num_algorithms
                         : det          ? sel->num_deterministic_rows
                                        : sel->num_rows;
  std::string rejected;
  bool known = false;
  for (uint32_t i = 0; i < nrows; i++) {
    const ccl_selection_row &row = rows[i];
    if (row.collective != coll)
      continue;
    if (!force.empty()) {
      if (!row.algorithm || force != row.algorithm)
        continue;
    } else if ((uint32_t)s->nranks < row.min_ranks ||
               (row.max_ranks && (uint32_t)s->nranks > row.max_ranks) ||
               bytes > row.max_bytes) {
      continue;
    }
    known = true;
    Choice c;
    std::string why;
    if (!serves(s, row, coll, count, dtype, op, root, bytes, &c, &why)) {
      rejected +=
          format("; %s (row %s): %s", algorithmOf(row),
                 row.where && *row.where ? row.where : "CCL_ALGO", why.c_str());
      continue;
    }
    return queueLaunch(s, rank, c.pp, c.kernel, send, recv, c.count, bytes,
                       stream, entry);
  }
  // Nothing serves the call: say what the library serves.
  std::string have;
  for (uint32_t i = 0; i < nrows; i++) {
    const ccl_selection_row &row = rows[i];
    if (row.collective != coll)
      continue;
    have += have.empty() ? "" : ", ";
    have += force.empty()
                ? format("%s (%s, %s)", algorithmOf(row), ranks(row).c_str(),
                         bound(row.max_bytes).c_str())
                : std::string(algorithmOf(row));
  }
  const std::string call =
      format("%zu %s elements (%" PRIu64 " bytes)%s%s on %d ranks", count,
             dtypeName(dtype), bytes, reduces(coll) ? ", " : "",
             reduces(coll) ? opName(op) : "", s->nranks);
  if (!force.empty() && !known)
    return setError(cclInvalidArgument,
                    format("%s: CCL_ALGO forces %s=%s, but this library's "
                           "%s algorithms are: %s",
                           where().c_str(), kCollectives[coll], force.c_str(),
                           kCollectives[coll],
                           have.empty() ? "none" : have.c_str()));
  if (have.empty())
    return setError(cclUnsupported,
                    format("%s: this library has no %s%s algorithm (library "
                           "built from %s)",
                           where().c_str(), det ? "deterministic " : "",
                           kCollectives[coll],
                           sel->source ? sel->source : "?"));
  return setError(cclUnsupported,
                  format("%s: no algorithm of this library serves %s; it "
                         "serves %s: %s%s",
                         where().c_str(), call.c_str(), kCollectives[coll],
                         have.c_str(), rejected.c_str()));
}

cclResult_t cclCommLastAlgorithm(cclComm_t comm, const char **algorithm) {
  cclResult_t r = checkComm(comm, "cclCommLastAlgorithm");
  if (r != cclSuccess)
    return r;
  if (!algorithm)
    return setError(cclInvalidArgument,
                    "cclCommLastAlgorithm: algorithm is NULL");
  const ccl_plan *p = comm->shared->ranks[comm->rank]->lastPlan.load();
  *algorithm = p ? p->algorithm : nullptr;
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
