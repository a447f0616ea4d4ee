// ccl-perf - benchmark and correctness checker for cclc-generated libraries,
// in the style of nccl-tests' all_reduce_perf. docs/ccl-perf.md describes
// the flags, the table and how results are checked.
//
// A run goes through its phases in order: the options; the library and the
// target (the plans of the algorithm, the GPUs here); the checks and
// defaults that depend on the plan; the header; the communicator, its ranks
// and buffers; the sweep of cclc (then NCCL's); the summary. Started by a
// launcher, the process is one rank of a job (runOneRank): its
// communicator comes before the library, and rank 0 prints what the ranks
// agree on.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "ccl/ccl.h"
#include "tools/ccl-perf/backend.h"
#include "tools/ccl-perf/env.h"
#include "tools/ccl-perf/gpu.h"
#include "tools/ccl-perf/library.h"
#include "tools/ccl-perf/multiproc.h"
#include "tools/ccl-perf/nccl_loader.h"
#include "tools/ccl-perf/options.h"
#include "tools/ccl-perf/output.h"
#include "tools/ccl-perf/report.h"
#include "tools/ccl-perf/sweep.h"

using namespace cclperf;

namespace {

// Where the run goes and why, and the plan of the algorithm there.
struct Target {
  bool cuda = false;
  std::string why;  // for the header: "--target host", "2 GPU(s) found"
  uint32_t planTarget = CCL_TARGET_HOST;
  const ccl_plan *plan = nullptr;  // null: the library shows no plan
  const Gpus *gpus = nullptr;      // the GPUs (cuda)
};

// The NVLS / multicast rule, before anything is loaded.
void enforceNvlsRule(const Options &opt) {
  std::string why;
  if (opt.compareNccl && !nccl::checkNcclEnvironment(&why)) fatal(why);
}

// Picks the target: --target, else cuda when a GPU is usable and the
// library has a CUDA plan. `lib` is null with one process per rank, where
// the library is loaded after the communicator exists (see runOneRank):
// cuda then when a GPU is usable.
Target chooseTarget(const Options &opt, const Gpus *gpus,
                    const std::string &cudaWhy, const Library *lib) {
  bool haveCudaPlan = false;
  if (lib)
    for (const ccl_plan *p : lib->plans) haveCudaPlan |= p->target == CCL_TARGET_NVPTX;
  Target t;
  if (opt.target == TargetChoice::Cuda) {
    t.cuda = true;
    t.why = "--target cuda";
  } else if (opt.target == TargetChoice::Host) {
    t.why = "--target host";
  } else if (!gpus) {
    t.why = "no usable GPU: " + cudaWhy;
  } else if (lib && !lib->plans.empty() && !haveCudaPlan) {
    t.why = "the library has no CUDA plan for " + opt.algo;
  } else {
    t.cuda = true;
    t.why = std::to_string(gpus->deviceCount) + " GPU(s) found";
    if (!lib) t.why += "; chosen before the library is loaded (--target host to choose)";
  }
  if (t.cuda) t.gpus = gpus;
  t.planTarget = t.cuda ? CCL_TARGET_NVPTX : CCL_TARGET_HOST;
  return t;
}

// The plan of the algorithm for the target; an error when the library has
// plans, but none for the target.
void findPlan(Target &t, const Options &opt, const Library &lib) {
  for (const ccl_plan *p : lib.plans)
    if (p->target == t.planTarget) t.plan = p;
  if (!lib.plans.empty() && !t.plan) {
    std::string have;
    for (const ccl_plan *p : lib.plans) have += std::string(" ") + planTargetName(p->target);
    fatal(opt.lib + " has no " + planTargetName(t.planTarget) + " plan for " + opt.algo +
          " (it has:" + have + ")");
  }
}

// Defaults that run: without -g (or --devices) the plan's smallest rank
// count the machine has; without -b/-e, sizes no larger than the plan's
// largest message. Returns the header lines that say so.
std::string applyPlanDefaults(Options &opt, const Target &t) {
  std::string note;
  if (!opt.coll.empty() && !opt.nranksSet)
    fatal("--coll " + opt.coll + " needs -g (the bundle has algorithms for "
          "several rank counts)");
  const ccl_plan *plan = t.plan;
  if (!opt.nranksSet && plan) {
    int best = -1;
    std::string have;
    for (uint32_t i = 0; i < plan->num_variants; i++) {
      int n = (int)plan->variants[i].nranks;
      have += " " + std::to_string(n);
      if (t.cuda && n > t.gpus->deviceCount) continue;
      if (best < 0 || n < best) best = n;
    }
    if (best < 0)
      fatal("the " + std::string(planTargetName(t.planTarget)) + " plan of " + opt.algo +
            " has no variant for the " + std::to_string(t.gpus->deviceCount) +
            " GPU(s) here (it has:" + have + "); --devices puts several ranks on one GPU");
    opt.nranks = best;
    note += "# ranks     : " + std::to_string(best) +
            ", the smallest rank count of the plan" +
            (t.cuda ? " that the GPUs here can run" : "") + " (-g to choose; it has:" +
            have + ")\n";
  }
  if (plan && plan->max_bytes) {
    bool clipped = false;
    if (!opt.maxBytesSet && opt.maxBytes > plan->max_bytes) {
      opt.maxBytes = plan->max_bytes;
      clipped = true;
    }
    if (!opt.minBytesSet && opt.minBytes > opt.maxBytes) {
      opt.minBytes = opt.maxBytes;
      clipped = true;
    }
    if (clipped)
      note += "# sizes     : " + std::to_string(opt.minBytes) + " to " +
              std::to_string(opt.maxBytes) +
              " bytes: the nccl-tests defaults (-b 32M -e 32M) clipped to "
              "the plan's largest message (-b/-e to choose)\n";
    // Rows above max_bytes are skipped: the buffers need not hold them.
    if (opt.maxBytes > plan->max_bytes) {
      opt.bufferBytes = plan->max_bytes;
      note += "# sizes     : rows above the plan's largest message (" +
              std::to_string(plan->max_bytes) +
              " bytes) are skipped; the "
              "buffers are sized for it, not for -e " +
              std::to_string(opt.maxBytes) + "\n";
    }
  }
  return note;
}

// The checks of the ranks and GPUs against the target.
void checkRanks(const Options &opt, const Target &t) {
  std::string rankError = validateRanks(opt);
  if (!rankError.empty()) fatal(rankError);
  if (opt.compareNccl && !t.cuda)
    fatal("--compare nccl needs the cuda target (" + t.why + ")");
  if (!opt.devices.empty() && !t.cuda)
    fatal("--devices " + joinInts(opt.devices) +
          " is a CUDA option: the host target runs its ranks as threads of this "
          "process (target host: " + t.why + ")");
  if (!t.cuda) return;
  const int gpus = t.gpus->deviceCount;
  if (opt.devices.empty() && opt.nranks > gpus)
    fatal("-g " + std::to_string(opt.nranks) + " needs " + std::to_string(opt.nranks) +
          " GPUs; the CUDA driver sees " + std::to_string(gpus) +
          " (--devices puts several ranks on one GPU)");
  for (int d : opt.devices)
    if (d >= gpus)
      fatal("--devices " + joinInts(opt.devices) + ": GPU " + std::to_string(d) +
            " does not exist; the CUDA driver sees " + std::to_string(gpus));
}

// The collective of the plan (AllReduce without a plan) and its root.
// --coll names it for a bundle; --root gives the root of every call (one
// kernel set serves every root).
void setCollective(Env &env, const ccl_plan *plan) {
  const Options &opt = env.opt;
  std::string collName = !opt.coll.empty() ? opt.coll
                         : plan && plan->collective ? plan->collective
                                                    : "AllReduce";
  env.coll = findCollective(collName);
  if (!env.coll)
    fatal("unknown collective '" + collName + "' in the plan of " + opt.algo +
          " (ccl-perf knows " + collectiveNames() + ")");
  if (env.coll->rooted) {
    env.root = opt.root;
    if (env.root >= opt.nranks)
      fatal("--root " + std::to_string(env.root) + " is not a rank of -g " +
            std::to_string(opt.nranks));
  }
}

// NCCL, early, so that a missing entry point stops the run before it starts.
const nccl::Nccl *loadNcclFor(const Env &env) {
  std::string why;
  const nccl::Nccl *nc = nccl::loadNccl(&why);
  if (!nc) fatal(why);
  if (env.coll->kind == CollKind::AllToAll && !nc->ncclAlltoAll)
    fatal("--compare nccl: NCCL " + nc->versionString() + " (" + nc->path +
          ") has no ncclAlltoAll (added in NCCL 2.28)");
  return nc;
}

// The plan's variant for -g ranks; the --delay blocks must exist in it.
const ccl_variant *findVariant(const Options &opt, const Target &t) {
  const ccl_plan *plan = t.plan;
  if (!plan) return nullptr;
  const ccl_variant *variant = nullptr;
  std::string have;
  for (uint32_t i = 0; i < plan->num_variants; i++) {
    if ((int)plan->variants[i].nranks == opt.nranks) variant = &plan->variants[i];
    have += " " + std::to_string(plan->variants[i].nranks);
  }
  if (!variant)
    fatal("the " + std::string(planTargetName(t.planTarget)) + " plan of " + opt.algo +
          " has no variant for " + std::to_string(opt.nranks) + " ranks (it has:" + have +
          ")");
  for (const Delay &d : opt.delays)
    if (d.block >= (int)variant->nblocks)
      fatal("--delay " + std::to_string(d.rank) + ":" + std::to_string(d.block) + "=" +
            std::to_string(d.us) + ": the " + std::to_string(opt.nranks) +
            "-rank variant of " + opt.algo + " has " + std::to_string(variant->nblocks) +
            " thread blocks per rank");
  return variant;
}

void printHeader(Env &env, const Target &t, const ccl_variant *variant,
                 const std::string &defaultsNote) {
  const Options &opt = env.opt;
  const ccl_plan *plan = t.plan;
  fmt::print("# ccl-perf: benchmark and check of a cclc-generated library\n");
  fmt::print("# library   : {}\n", opt.lib);
  if (!opt.coll.empty())
    fmt::print("# entry     : cclc{}{} (the bundle's NCCL-shaped entry point; its "
               "selection table picks the algorithm of each call, named in the "
               "last column)\n",
               env.coll->name, env.coll->rooted ? ", root " + std::to_string(env.root) : "");
  else if (plan)
    fmt::print("# algorithm : {} ({}{}, {}, {}; source {})\n", opt.algo,
               env.coll->name,
               env.coll->rooted ? " root " + std::to_string(env.root) : "",
               plan->inplace == CCL_INPLACE_BOTH ? "in-place and out-of-place"
               : plan->inplace                   ? "in-place"
                                                 : "out-of-place",
               plan->protocol == CCL_PROTO_LL ? "LL" : "Simple",
               plan->source ? plan->source : "?");
  else
    fmt::print("# algorithm : {} (plan not visible to ccl-perf; assuming {})\n", opt.algo,
               env.coll->name);
  if (variant) {
    fmt::print("# variant   : {} ranks, {} thread blocks x {} threads, {} kernels\n",
               variant->nranks, variant->nblocks, variant->threads_per_block,
               variant->num_kernels);
    // Each thread block occupies one SM while the kernel runs (the blocks of
    // a rank are co-resident); port channels' bytes move without any.
    uint32_t ports = 0;
    for (uint32_t r = 0; r < variant->nranks; r++) {
      uint32_t mine = 0;
      for (uint32_t c = 0; c < variant->num_channels; c++)
        mine += variant->channels[c].kind == CCL_CHANNEL_PORT && variant->channels[c].src == r;
      ports = std::max(ports, mine);
    }
    std::string portNote =
        ports ? fmt::format("; up to {} port channels per rank, whose bytes the proxy moves "
                            "({})",
                            ports, env.cuda ? "on copy engines, no SM" : "with memcpy")
              : "";
    env.smNote = fmt::format("{} per rank ({} thread blocks{})", variant->nblocks,
                             variant->nblocks, portNote);
    fmt::print("# SMs       : {}\n", env.smNote);
  }
  fmt::print("# target    : {} ({})\n", env.cuda ? "cuda" : "host", t.why);
  fmt::print("{}", defaultsNote);
  if (env.cuda) fmt::print("# CUDA driver version {}\n", t.gpus->driverVersion);
  std::string step = opt.stepFactor > 1 ? fmt::format("{:g}(factor)", opt.stepFactor)
                                        : fmt::format("{}(bytes)", opt.stepBytes);
  fmt::print("# nRanks {} minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} "
             "validation: {} graph: {} seed: {} calls: {}\n",
             opt.nranks, opt.minBytes, opt.maxBytes, step, opt.warmup, opt.iters,
             opt.check ? 1 : 0, opt.graphLaunches, opt.seed, opt.calls);
  if (opt.check)
    fmt::print("# check     : K = {} call{} per rank back to back (no host "
               "synchronisation between them), then one check of all {} results; "
               "two buffer modes, #wrong sums both: separate buffers per call, and "
               "the same buffers refilled with cclMemcpyAsync{}\n",
               opt.calls, opt.calls > 1 ? "s" : "", opt.calls,
               env.cuda && opt.graphLaunches > 0 ? "; eager and as a CUDA graph" : "");
  for (const Delay &d : opt.delays) {
    std::string block =
        d.block < 0 ? "every thread block" : "thread block " + std::to_string(d.block);
    fmt::print("# delay     : rank {}, {}: {} us at the start of every checked call "
               "(--delay, cclCommDebugSetDelay); timed calls run without it\n",
               d.rank, block, d.us);
  }
  if (!opt.devices.empty()) {
    fmt::print("# devices   : {} (--devices)\n", joinInts(opt.devices));
    std::string shared = sharedDevices(opt.devices);
    if (!shared.empty())
      fmt::print("# devices   : several ranks share GPU {}: the timings are not link "
                 "timings (the ranks share one GPU's SMs and memory)\n",
                 shared);
  }
  if (!env.cuda && opt.graphLaunches > 0)
    fmt::print("# note: -G {} ignored on the host target (no CUDA graphs)\n",
               opt.graphLaunches);
}

std::string sizeText(uint64_t b) {
  if (b >= (1ull << 30))
    return fmt::format("{:.1f} GiB", b / double(1ull << 30));
  if (b >= (1ull << 20))
    return fmt::format("{:.1f} MiB", b / double(1ull << 20));
  if (b >= (1ull << 10))
    return fmt::format("{:.1f} KiB", b / double(1ull << 10));
  return fmt::format("{} B", b);
}

// The memory the prepared plans hold on this process's first rank
// (cclCommPlanMemory): what a bundle built for large messages costs.
void printPlanMemory(const Env &env) {
  uint64_t scratch = 0, staging = 0;
  int plans = 0;
  if (cclCommPlanMemory(env.comms[env.local.front()], &scratch, &staging,
                        &plans) != cclSuccess)
    return;
  fmt::print(
      "# memory    : {} B of scratch ({}) and {} B of staging buffers ({}) per "
      "rank, {} prepared plan{}\n",
      scratch, sizeText(scratch), staging, sizeText(staging), plans,
      plans == 1 ? "" : "s");
}

// The plans that could not be prepared here (cclCommUnpreparedPlan), one
// line each: a bundle's selection skips them, and test/e2e/check_selection.py
// reads these lines to know which rows it skips.
void printUnpreparedPlans(const Env &env) {
  cclComm_t comm = env.comms[env.local.front()];
  int count = 0;
  if (cclCommUnpreparedPlan(comm, 0, &count, nullptr, nullptr) != cclSuccess)
    return;
  for (int i = 0; i < count; i++) {
    const char *algorithm = nullptr, *why = nullptr;
    if (cclCommUnpreparedPlan(comm, i, nullptr, &algorithm, &why) !=
            cclSuccess ||
        !algorithm)
      continue;
    fmt::print("# unprepared: {}: {}\n", algorithm, why ? why : "");
  }
}

// What the plan supports: its (dtype, op) kernels and its largest message.
RowFilter planFilter(const ccl_plan *plan, const ccl_variant *variant) {
  RowFilter filter;
  if (variant) {
    filter.combo = [variant](DType t, Op op, std::string *why) {
      for (uint32_t k = 0; k < variant->num_kernels; k++)
        if (variant->kernels[k].dtype == (uint32_t)t &&
            variant->kernels[k].redop == (uint32_t)op)
          return true;
      *why = "the plan has no kernel for it";
      return false;
    };
  }
  if (plan && plan->max_bytes) {
    uint64_t maxBytes = plan->max_bytes;
    // max_bytes bounds count * element size (plan.h).
    filter.size = [maxBytes](size_t bytes, std::string *why) {
      if (bytes <= maxBytes) return true;
      *why = "larger than the plan's max_bytes " + std::to_string(maxBytes);
      return false;
    };
  }
  return filter;
}

// ", CUDA graphs x3", ", eager" or "" (host) for a table title.
std::string launchMode(const Env &env) {
  if (!env.cuda) return "";
  return env.opt.graphLaunches > 0 ? ", CUDA graphs x" + std::to_string(env.opt.graphLaunches)
                                   : ", eager";
}

// The sweep of NCCL on the same buffers and streams, over the (dtype, op)
// pairs and sizes cclc ran (a like-for-like table).
// NCCL's communicators for the ranks this process drives, indexed by rank:
// every rank of one process by ncclCommInitAll; with one process per rank,
// rank 0's ncclGetUniqueId reaches the others through an exchange and each
// joins with ncclCommInitRank on its own GPU (as applications do).
std::vector<nccl::ncclComm_t> ncclComms(Env &env, const nccl::Nccl *nc) {
  std::vector<nccl::ncclComm_t> ncomms(env.n, nullptr);
  if (!env.multi) {
    nccl::ncclResult_t nr =
        nc->ncclCommInitAll(ncomms.data(), env.n, env.devices.data());
    if (nr != 0)
      fatal("ncclCommInitAll failed: " + nc->errorText(nr));
    return ncomms;
  }
  nccl::ncclUniqueId id{};
  std::string err;
  if (env.me == 0) {
    nccl::ncclResult_t nr = nc->ncclGetUniqueId(&id);
    if (nr != 0)
      err = "ncclGetUniqueId failed: " + nc->errorText(nr);
  }
  std::vector<std::string> ids;
  if (!agree(env, err.empty(), &err,
             std::string(id.internal, sizeof id.internal), &ids)) {
    reportRunError(env, err);
    exitFailed(env);
  }
  std::memcpy(id.internal, ids[0].data(), sizeof id.internal);
  const int r = env.me;
  if (env.setRank(r, &err)) {
    nccl::ncclResult_t nr = nc->ncclCommInitRank(&ncomms[r], env.n, id, r);
    if (nr != 0)
      err = "ncclCommInitRank on rank " + std::to_string(r) +
            " failed: " + nc->errorText(nr);
  }
  agreeOrExit(env, err);
  return ncomms;
}

SweepResult sweepNccl(Env &env, const nccl::Nccl *nc, const RowFilter &filter) {
  std::vector<nccl::ncclComm_t> ncomms = ncclComms(env, nc);
  fmt::print("#\n# NCCL {} from {} (NCCL_NVLS_ENABLE=0{})\n",
             nc->versionString(), nc->path,
             env.multi ? "; ncclCommInitRank in each rank's process" : "");
  std::unique_ptr<Backend> nb = makeNcclBackend(env, nc, std::move(ncomms));
  std::string title = "NCCL " + std::string(env.coll->name) + " (" +
                      std::to_string(env.n) + " ranks" + launchMode(env) +
                      ", same buffers and streams)";
  return sweep(env, *nb, filter, title.c_str(), false);
}

// The summary below the tables; true when everything was right. Exits 1 at
// once when a sweep stopped at an error (its communicator may be aborted).
bool summarize(Env &env, const SweepResult &mine, const SweepResult *theirs) {
  const bool check = env.opt.check;
  bool ok = !mine.failed && mine.wrong == 0 && (!theirs || (!theirs->failed && theirs->wrong == 0));
  auto measured = [](const SweepResult &r) {
    for (const Row &row : r.rows)
      for (const PlaceResult &p : row.place)
        if (p.ran) return true;
    return false;
  };
  fmt::print("#\n");
  printSummary("", mine, check);
  if (!env.smNote.empty()) fmt::print("# SMs occupied         : {}\n", env.smNote);
  if (!mine.failed && !measured(mine)) {
    fmt::print("# ERROR: nothing was measured (every size or type was skipped)\n");
    ok = false;
  }
  if (theirs) {
    printSummary("NCCL ", *theirs, check);
    // Per-row time ratios, matched by position (same rows in the same order).
    double logSum = 0;
    int k = 0, faster = 0;
    for (size_t i = 0; i < mine.rows.size() && i < theirs->rows.size(); i++)
      for (int p = 0; p < 2; p++) {
        const PlaceResult &a = mine.rows[i].place[p], &b = theirs->rows[i].place[p];
        if (!a.ran || !b.ran || a.us <= 0 || b.us <= 0) continue;
        logSum += std::log(b.us / a.us);
        k++;
        faster += a.us < b.us;
      }
    double nb = theirs->avgBusbw();
    fmt::print("# cclc vs NCCL: avg busbw {:.3f} vs {:.3f} GB/s ({:.2f}x); speedup "
               "(NCCL time / cclc time) geomean {:.2f}x; cclc faster in {} of {} "
               "measurements\n",
               mine.avgBusbw(), nb, nb > 0 ? mine.avgBusbw() / nb : 0.0,
               k ? std::exp(logSum / k) : 0.0, faster, k);
  }
  if (mine.failed || (theirs && theirs->failed)) {
    // The communicator is aborted (or in an unknown state): leave without
    // tearing it down. The error itself was printed where it happened.
    fmt::print("# FAILED: {} stopped at the error above\n",
               mine.failed ? "the cclc run" : "the NCCL run");
    exitFailed(env);
  }
  return ok;
}

// The title of the cclc table.
std::string tableTitle(const Env &env) {
  std::string what = env.opt.coll.empty() ? env.opt.algo : "ccl" + env.opt.coll;
  return "cclc " + what + " (" + env.coll->name + ", " +
         (env.cuda ? "cuda" : "host") + ", " + std::to_string(env.n) + " ranks" +
         launchMode(env) + ")";
}

// ---- One process per rank (docs/ccl-perf.md, "One process per rank") ----

// The options that make no sense for one rank of a job, and -g against the
// job's rank count. Every rank has the same command line: rank 0 reports.
void checkOneRankOptions(Options &opt, const Launch &launch) {
  const std::string mode = "one process per rank, launched by " + launch.launcher;
  if (opt.compareNccl && opt.target == TargetChoice::Host)
    fatal("--compare nccl needs the cuda target (--target host was given)");
  if (!opt.devices.empty())
    fatal("--devices is for one process that drives every rank; with one process "
          "per rank (launched by " + launch.launcher + ") each rank takes the GPU of "
          "its local rank");
  if (opt.nranksSet && opt.nranks != launch.nranks)
    fatal("-g " + std::to_string(opt.nranks) + " does not match the job of " +
          std::to_string(launch.nranks) + " ranks (" + mode + "); give -g " +
          std::to_string(launch.nranks) + " or leave it out");
  opt.nranks = launch.nranks;
  opt.nranksSet = true;
  std::string rankError = validateRanks(opt);
  if (!rankError.empty()) fatal(rankError);
}

// Runs a setup step with fatal() turned into an exception: its message, or
// "" when the step succeeded (agreeOrExit then tells every rank).
template <typename Step>
std::string caught(Step &&step) {
  FatalScope scope;
  try {
    step();
  } catch (const Fatal &f) {
    return f.what();
  }
  return "";
}

// "# ranks : 4 (one process per rank, launched by ccl-run)" and, on CUDA,
// how the rank found its GPU.
std::string ranksNote(const Launch &launch, const Target &t) {
  std::string note = fmt::format("# ranks     : {} (one process per rank, launched by {})\n",
                                 launch.nranks, launch.launcher);
  if (t.cuda)
    note += fmt::format("# devices   : each rank uses GPU (local rank{}) mod {}\n",
                        launch.localVar.empty() ? ": the rank" : " from " + launch.localVar,
                        t.gpus->deviceCount);
  return note;
}

// This process is rank launch.rank of a job of launch.nranks processes.
// The communicator comes first (cclCommInitFromEnv), before the library is
// loaded: from then on every step's failure, on any rank, reaches every
// rank through an exchange and rank 0 reports it (a rank that could not
// load the library would otherwise never join, and its peers would wait
// for it). The library's plans are then prepared with
// cclCommLoadRegisteredPlans. Only rank 0 writes to standard output.
int runOneRank(Options opt, const Launch &launch) {
  checkOneRankOptions(opt, launch);
  enforceNvlsRule(opt);
  std::string cudaWhy;
  const Gpus *gpus = opt.target != TargetChoice::Host ? probeGpus(&cudaWhy) : nullptr;
  if (opt.target == TargetChoice::Cuda && !gpus)
    fatalHere("--target cuda: no usable GPU: " + cudaWhy);
  Target target = chooseTarget(opt, gpus, cudaWhy, nullptr);
  if (opt.compareNccl && !target.cuda)
    fatalHere("--compare nccl needs the cuda target (" + target.why + ")");

  Env env;
  env.opt = opt;
  env.n = launch.nranks;
  env.multi = true;
  env.me = launch.rank;
  env.local = {launch.rank};
  env.cuda = target.cuda;
  if (target.cuda) env.drv = target.gpus->drv;
  createCommunicator(env, target.cuda ? launch.localRank % gpus->deviceCount : -1);

  Library lib;
  agreeOrExit(env, caught([&] { lib = loadLibrary(&opt); }));
  cclResult_t rc = cclCommLoadRegisteredPlans(env.comms[env.me]);
  agreeOrExit(env, rc == cclSuccess ? ""
                                    : cclError("cclCommLoadRegisteredPlans", env.me, rc));
  std::string defaultsNote;
  const ccl_variant *variant = nullptr;
  agreeOrExit(env, caught([&] {
                findPlan(target, opt, lib);
                defaultsNote = applyPlanDefaults(opt, target);
                env.opt = opt;
                setCollective(env, target.plan);
                variant = findVariant(opt, target);
              }));
  printHeader(env, target, variant, ranksNote(launch, target) + defaultsNote);

  std::string err = caught([&] {
    configureCommunicator(env);
    openRanks(env);
  });
  std::vector<std::string> rankLines;
  if (!agree(env, err.empty(), &err, env.rankLine, &rankLines)) {
    reportRunError(env, err);
    exitFailed(env);
  }
  for (const std::string &line : rankLines) fmt::print("{}", line);
  printPlanMemory(env);
  printUnpreparedPlans(env);
  agreeOrExit(env, caught([&] { allocateBuffers(env); }));

  const nccl::Nccl *nc = nullptr;
  if (opt.compareNccl)
    agreeOrExit(env, caught([&] { nc = loadNcclFor(env); }));

  RowFilter filter = planFilter(target.plan, variant);
  std::unique_ptr<Backend> cclc = makeCclBackend(env, lib);
  SweepResult mine = sweep(env, *cclc, filter, tableTitle(env).c_str(), true);
  SweepResult theirs;
  const bool ranNccl = nc && !mine.failed;
  if (ranNccl)
    theirs = sweepNccl(env, nc, filter);
  bool ok = summarize(env, mine, ranNccl ? &theirs : nullptr);
  if (env.me == 0)
    ok &= writeOutputs(env, mine, ranNccl ? &theirs : nullptr);
  std::fflush(stdout);
  // No rank ends the job (a launcher ends the others when one exits
  // non-zero) before rank 0 has printed everything.
  barrier(env);
  closeAll(env);
  return ok ? 0 : 1;
}

// Only rank 0 of a job writes the table: the other ranks' standard output
// goes to /dev/null (what they find reaches rank 0 through the exchanges;
// their errors go to standard error).
void silenceStdout() {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
}

}  // namespace

static int perfMain(int argc, char **argv) {
  // Launched as one rank of a job? Known before the options, so that only
  // rank 0 reports their errors.
  Launch launch = detectLaunch();
  if (launch.multi()) setProcessRank(launch.rank);
  Options opt = parseOptions(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (launch.multi()) {
    if (launch.rank > 0) silenceStdout();
    return runOneRank(opt, launch);
  }
  enforceNvlsRule(opt);

  // The library and the target. The driver is probed first (no context
  // yet); the library is loaded before any communicator exists.
  std::string cudaWhy;
  const Gpus *gpus = opt.target != TargetChoice::Host ? probeGpus(&cudaWhy) : nullptr;
  if (opt.target == TargetChoice::Cuda && !gpus)
    fatal("--target cuda: no usable GPU: " + cudaWhy);
  Library lib = loadLibrary(&opt);
  Target target = chooseTarget(opt, gpus, cudaWhy, &lib);
  findPlan(target, opt, lib);
  std::string defaultsNote = applyPlanDefaults(opt, target);
  checkRanks(opt, target);

  Env env;
  env.opt = opt;
  env.n = opt.nranks;
  for (int r = 0; r < env.n; r++) env.local.push_back(r);
  env.cuda = target.cuda;
  if (target.cuda) env.drv = target.gpus->drv;
  setCollective(env, target.plan);
  const nccl::Nccl *nc = opt.compareNccl ? loadNcclFor(env) : nullptr;
  const ccl_variant *variant = findVariant(opt, target);
  printHeader(env, target, variant, defaultsNote);

  openCommunicator(env);
  openRanks(env);
  printPlanMemory(env);
  printUnpreparedPlans(env);
  allocateBuffers(env);

  RowFilter filter = planFilter(target.plan, variant);
  std::unique_ptr<Backend> cclc = makeCclBackend(env, lib);
  SweepResult mine = sweep(env, *cclc, filter, tableTitle(env).c_str(), true);
  SweepResult theirs;
  const bool ranNccl = nc && !mine.failed;
  if (ranNccl) theirs = sweepNccl(env, nc, filter);

  bool ok = summarize(env, mine, ranNccl ? &theirs : nullptr);
  ok &= writeOutputs(env, mine, ranNccl ? &theirs : nullptr);
  closeAll(env);
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// Every allocation of a size the user chose is checked where it happens
// (allocateBuffers); this is the last word for any other: a message and
// exit status 1, never an abort.
int main(int argc, char **argv) {
  try {
    return perfMain(argc, argv);
  } catch (const std::bad_alloc &) {
    fatalHere("out of host memory (std::bad_alloc)");
  }
}
