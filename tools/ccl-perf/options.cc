#include "tools/ccl-perf/options.h"

#include "ccl/ccl.h"

#include <strings.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace cclperf {
namespace {

const char kUsage[] =
    "Usage: ccl-perf --lib LIB.so --algo NAME [options]\n"
    "\n"
    "Benchmarks and checks an algorithm of a cclc-generated library, like\n"
    "nccl-tests' all_reduce_perf. Sizes take K, M, G suffixes (powers of 1024).\n"
    "\n"
    "Required:\n"
    "  --lib PATH                 generated library (.so) to dlopen\n"
    "  --algo NAME                algorithm: calls the entry point ccl_NAME\n"
    "\n"
    "nccl-tests flags:\n"
    "  -b, --minbytes SIZE        smallest message, bytes per rank (default 32M,\n"
    "                             at most the plan's largest message)\n"
    "  -e, --maxbytes SIZE        largest message (default 32M, at most the\n"
    "                             plan's largest message)\n"
    "  -i, --stepbytes SIZE       additive step when -f is not > 1 (default 1M)\n"
    "  -f, --stepfactor F         multiplicative step (default 1: use -i)\n"
    "  -n, --iters N              timed iterations per size (default 20)\n"
    "  -w, --warmup_iters N       warm-up iterations per size (default 5)\n"
    "  -c, --check 0|1            check results against a host reference\n"
    "                             (default 1)\n"
    "  -g, --ngpus N              ranks: GPUs (cuda) or threads (host)\n"
    "                             (default: the plan's smallest rank count\n"
    "                             that the GPUs here can run)\n"
    "  -G, --cudagraph N          capture -n iterations per rank in a CUDA\n"
    "                             graph and replay it N times (0 = eager,\n"
    "                             default); also checks a graph replay\n"
    "  -d, --datatype T           float32|float16|bfloat16|all (also float,\n"
    "                             half, bf16; comma lists ok) (default float32)\n"
    "  -o, --op OP                sum|prod|max|min|all (comma lists ok)\n"
    "                             (default sum)\n"
    "\n"
    "ccl-perf flags:\n"
    "  --target host|cuda         where to run (default: cuda if a GPU is usable\n"
    "                             and the library has a CUDA plan, else host)\n"
    "  --compare nccl             also run NCCL on the same buffers, sizes,\n"
    "                             types and ops (cuda only; NVLS is disabled)\n"
    "  --timeout-ms N             spin-wait timeout (cclCommSetTimeout); 0 =\n"
    "                             none (default: the runtime's)\n"
    "  --skip-rank R              debug: rank R never launches "
    "(cclCommDebugSkipLaunches);\n"
    "                             the run must fail with a timeout report\n"
    "                             (timeout defaults to 2000 ms then)\n"
    "  --seed N                   seed of the test data (default 1)\n"
    "  -k, --calls K              back-to-back check: K calls per rank with no\n"
    "                             host synchronisation between them, then one\n"
    "                             check of all K results (default 8; 1 = one\n"
    "                             call, synchronised, checked)\n"
    "  --check-mem SIZE           device memory per rank for the K buffer pairs\n"
    "                             of the check; K is reduced for rows that do\n"
    "                             not fit (default 1G on cuda, 256M on host)\n"
    "  --delay R[:B]=US           debug: thread block B of rank R (every block\n"
    "                             without :B) spins US microseconds at the start\n"
    "                             of every checked call (cclCommDebugSetDelay);\n"
    "                             repeatable. Makes missing cross-call\n"
    "                             synchronisation show as wrong results\n"
    "  --devices LIST             cuda: GPU ordinal of each rank, e.g. 0,0 (two\n"
    "                             ranks share GPU 0; timings are then not link\n"
    "                             timings). Sets -g when -g is not given\n"
    "                             (default 0,1,...,g-1)\n"
    "  -h, --help                 this text\n"
    "  --version                  the version of ccl-perf\n"
    "\n"
    "Exit status: 0 if every call succeeded and every checked value was right,\n"
    "1 otherwise.\n";

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "ccl-perf: %s\n(try --help)\n", msg.c_str());
  std::exit(1);
}

bool parseInt(const std::string &s, long long lo, long long hi, long long *out) {
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/// Parses a comma-separated list: each item is `all` (which selects `all`
/// and ends the list) or a name `lookup` maps to a value (case-insensitive).
template <typename T, typename Lookup>
bool parseList(const std::string &s, std::vector<T> *out,
               const std::vector<T> &all, Lookup lookup) {
  out->clear();
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string t = s.substr(pos, comma == std::string::npos ? std::string::npos
                                                            : comma - pos);
    if (!strcasecmp(t.c_str(), "all")) {
      *out = all;
      return true;
    }
    T v;
    if (!lookup(t.c_str(), &v))
      return false;
    out->push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return !out->empty();
}

bool anyOf(const char *c, std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (!strcasecmp(c, n))
      return true;
  return false;
}

bool parseDtypes(const std::string &s, std::vector<DType> *out) {
  return parseList(s, out, {DType::F32, DType::F16, DType::BF16},
                   [](const char *c, DType *v) {
                     if (anyOf(c, {"float32", "float", "f32", "fp32"}))
                       *v = DType::F32;
                     else if (anyOf(c, {"float16", "half", "f16", "fp16"}))
                       *v = DType::F16;
                     else if (anyOf(c, {"bfloat16", "bf16"}))
                       *v = DType::BF16;
                     else
                       return false;
                     return true;
                   });
}

bool parseOps(const std::string &s, std::vector<Op> *out) {
  return parseList(s, out, {Op::Sum, Op::Prod, Op::Max, Op::Min},
                   [](const char *c, Op *v) {
                     if (anyOf(c, {"sum"}))
                       *v = Op::Sum;
                     else if (anyOf(c, {"prod"}))
                       *v = Op::Prod;
                     else if (anyOf(c, {"max"}))
                       *v = Op::Max;
                     else if (anyOf(c, {"min"}))
                       *v = Op::Min;
                     else
                       return false;
                     return true;
                   });
}

struct Flag {
  char shortName;  // 0: none
  const char *longName;
  int id;
};

enum {
  kMin, kMax, kStepBytes, kStepFactor, kIters, kWarmup, kCheck, kNgpus,
  kGraph, kDtype, kOp, kLib, kAlgo, kTarget, kCompare, kTimeout, kSkip,
  kSeed, kCalls, kCheckMem, kDelay, kDevices, kHelp, kVersion,
};

const Flag kFlags[] = {
    {'b', "minbytes", kMin},      {'e', "maxbytes", kMax},
    {'i', "stepbytes", kStepBytes}, {'f', "stepfactor", kStepFactor},
    {'n', "iters", kIters},       {'w', "warmup_iters", kWarmup},
    {'c', "check", kCheck},       {'g', "ngpus", kNgpus},
    {'G', "cudagraph", kGraph},   {'d', "datatype", kDtype},
    {'o', "op", kOp},             {0, "lib", kLib},
    {0, "algo", kAlgo},           {0, "target", kTarget},
    {0, "compare", kCompare},     {0, "timeout-ms", kTimeout},
    {0, "skip-rank", kSkip},      {0, "seed", kSeed},
    {'k', "calls", kCalls},       {0, "check-mem", kCheckMem},
    {0, "delay", kDelay},         {0, "devices", kDevices},
    {'h', "help", kHelp},         {0, "version", kVersion},
};

/// "R[:B]=US" -> Delay. false if malformed.
bool parseDelay(const std::string &s, Delay *d) {
  size_t eq = s.find('=');
  if (eq == std::string::npos) return false;
  std::string who = s.substr(0, eq), us = s.substr(eq + 1);
  size_t colon = who.find(':');
  long long v = 0;
  if (!parseInt(who.substr(0, colon), 0, 1 << 20, &v)) return false;
  d->rank = (int)v;
  d->block = -1;
  if (colon != std::string::npos) {
    if (!parseInt(who.substr(colon + 1), 0, 1 << 20, &v)) return false;
    d->block = (int)v;
  }
  // At most one minute per call.
  if (!parseInt(us, 0, 60ll * 1000 * 1000, &v)) return false;
  d->us = (uint64_t)v;
  return true;
}

/// "0,0,1" -> {0, 0, 1}. false if malformed or empty.
bool parseIntList(const std::string &s, std::vector<int> *out) {
  out->clear();
  size_t pos = 0;
  for (;;) {
    size_t comma = s.find(',', pos);
    long long v = 0;
    if (!parseInt(s.substr(pos, comma == std::string::npos ? std::string::npos
                                                           : comma - pos),
                  0, 1 << 20, &v))
      return false;
    out->push_back((int)v);
    if (comma == std::string::npos) return true;
    pos = comma + 1;
  }
}

}  // namespace

std::string joinInts(const std::vector<int> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string sharedDevices(const std::vector<int> &devices) {
  std::vector<int> shared;
  for (size_t i = 0; i < devices.size(); i++) {
    bool repeated = false, seen = false;
    for (size_t j = 0; j < devices.size(); j++) {
      if (j != i && devices[j] == devices[i]) repeated = true;
      if (j < i && devices[j] == devices[i]) seen = true;
    }
    if (repeated && !seen) shared.push_back(devices[i]);
  }
  return joinInts(shared);
}

bool parseSize(const std::string &s, size_t *out) {
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno || end == s.c_str() || s[0] == '-') return false;
  unsigned long long mult = 1;
  std::string suf = end;
  if (!suf.empty() && (suf.back() == 'B' || suf.back() == 'b') && suf.size() == 2)
    suf.pop_back();
  if (suf.empty() || suf == "B" || suf == "b") mult = 1;
  else if (suf == "K" || suf == "k") mult = 1ull << 10;
  else if (suf == "M" || suf == "m") mult = 1ull << 20;
  else if (suf == "G" || suf == "g") mult = 1ull << 30;
  else return false;
  if (v > std::numeric_limits<unsigned long long>::max() / mult) return false;
  *out = (size_t)(v * mult);
  return true;
}

std::vector<size_t> sweepSizes(const Options &o) {
  std::vector<size_t> sizes;
  for (size_t s = o.minBytes; s <= o.maxBytes;) {
    sizes.push_back(s);
    size_t next = o.stepFactor > 1 ? (size_t)((double)s * o.stepFactor)
                                   : s + o.stepBytes;
    if (next <= s) break;  // size 0 with a factor, or overflow
    s = next;
  }
  return sizes;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  bool nranksSet = false;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    const Flag *flag = nullptr;
    std::string value;
    bool haveValue = false;
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      std::string name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        haveValue = true;
      }
      for (const Flag &f : kFlags)
        if (name == f.longName) flag = &f;
    } else if (arg.size() >= 2 && arg[0] == '-') {
      for (const Flag &f : kFlags)
        if (f.shortName && arg[1] == f.shortName) flag = &f;
      if (flag && arg.size() > 2) {
        value = arg.substr(2);
        haveValue = true;
      }
    }
    if (!flag) die("unknown argument '" + arg + "'");
    if (flag->id == kHelp) {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (flag->id == kVersion) {
      std::printf("ccl-perf %s (cclc plan ABI %u)\n", CCL_VERSION_STRING,
                  CCL_PLAN_ABI_VERSION);
      std::exit(0);
    }
    if (!haveValue) {
      if (i + 1 >= argc) die("missing value for '" + arg + "'");
      value = argv[++i];
    }
    long long n = 0;
    std::string what = std::string("--") + flag->longName;
    switch (flag->id) {
      case kMin:
        if (!parseSize(value, &o.minBytes)) die("bad size for " + what + ": " + value);
        o.minBytesSet = true;
        break;
      case kMax:
        if (!parseSize(value, &o.maxBytes)) die("bad size for " + what + ": " + value);
        o.maxBytesSet = true;
        break;
      case kStepBytes:
        if (!parseSize(value, &o.stepBytes)) die("bad size for " + what + ": " + value);
        break;
      case kStepFactor: {
        char *end = nullptr;
        o.stepFactor = std::strtod(value.c_str(), &end);
        if (*end || !(o.stepFactor >= 1)) die("bad " + what + ": " + value);
        break;
      }
      case kIters:
        if (!parseInt(value, 1, 1 << 30, &n)) die("bad " + what + ": " + value);
        o.iters = (int)n;
        break;
      case kWarmup:
        if (!parseInt(value, 0, 1 << 30, &n)) die("bad " + what + ": " + value);
        o.warmup = (int)n;
        break;
      case kCheck:
        if (!parseInt(value, 0, 1, &n)) die("bad " + what + " (0 or 1): " + value);
        o.check = n != 0;
        break;
      case kNgpus:
        if (!parseInt(value, 1, 1024, &n)) die("bad " + what + ": " + value);
        o.nranks = (int)n;
        nranksSet = true;
        break;
      case kGraph:
        if (!parseInt(value, 0, 1 << 30, &n)) die("bad " + what + ": " + value);
        o.graphLaunches = (int)n;
        break;
      case kDtype:
        if (!parseDtypes(value, &o.dtypes)) die("bad " + what + ": " + value);
        break;
      case kOp:
        if (!parseOps(value, &o.ops)) die("bad " + what + ": " + value);
        break;
      case kLib: o.lib = value; break;
      case kAlgo: o.algo = value; break;
      case kTarget:
        if (value == "host") o.target = TargetChoice::Host;
        else if (value == "cuda") o.target = TargetChoice::Cuda;
        else die("bad --target (host or cuda): " + value);
        break;
      case kCompare:
        if (strcasecmp(value.c_str(), "nccl") != 0)
          die("bad --compare (only 'nccl' is supported): " + value);
        o.compareNccl = true;
        break;
      case kTimeout:
        if (!parseInt(value, 0, std::numeric_limits<long long>::max(), &n))
          die("bad " + what + ": " + value);
        o.timeoutMs = (uint64_t)n;
        o.timeoutSet = true;
        break;
      case kSkip:
        if (!parseInt(value, 0, 1 << 20, &n)) die("bad " + what + ": " + value);
        o.skipRank = (int)n;
        break;
      case kSeed:
        if (!parseInt(value, 0, std::numeric_limits<long long>::max(), &n))
          die("bad " + what + ": " + value);
        o.seed = (uint64_t)n;
        break;
      case kCalls:
        if (!parseInt(value, 1, 4096, &n)) die("bad " + what + " (1 to 4096): " + value);
        o.calls = (int)n;
        break;
      case kCheckMem:
        if (!parseSize(value, &o.checkMem) || o.checkMem == 0)
          die("bad size for " + what + ": " + value);
        break;
      case kDelay: {
        Delay d;
        if (!parseDelay(value, &d))
          die("bad " + what + " (RANK[:BLOCK]=MICROSECONDS, e.g. 1=20000 or "
              "1:0=20000): " + value);
        o.delays.push_back(d);
        break;
      }
      case kDevices:
        if (!parseIntList(value, &o.devices) || o.devices.size() > 1024)
          die("bad " + what + " (comma-separated GPU ordinals, e.g. 0,0): " + value);
        break;
    }
  }
  if (o.lib.empty()) die("--lib is required");
  if (o.algo.empty()) die("--algo is required");
  if (o.minBytes > o.maxBytes) die("-b (minbytes) is larger than -e (maxbytes)");
  if (o.stepFactor <= 1 && o.stepBytes == 0) die("-i (stepbytes) must be > 0 when -f is 1");
  if (!o.devices.empty()) {
    if (!nranksSet)
      o.nranks = (int)o.devices.size();
    else if ((int)o.devices.size() != o.nranks)
      die("--devices " + joinInts(o.devices) + " names " +
          std::to_string(o.devices.size()) + " ranks but -g is " +
          std::to_string(o.nranks));
    std::string shared = sharedDevices(o.devices);
    if (o.compareNccl && !shared.empty())
      die("--compare nccl needs one GPU per rank (NCCL cannot run several "
          "ranks on one GPU), but --devices " + joinInts(o.devices) +
          " puts several ranks on GPU " + shared);
  }
  o.nranksSet = nranksSet || !o.devices.empty();
  if (!o.delays.empty() && !o.check)
    die("--delay acts on the checked calls only; it has no effect with -c 0");
  if (o.nranksSet) {
    std::string e = validateRanks(o);
    if (!e.empty()) die(e);
  }
  return o;
}

std::string validateRanks(const Options &o) {
  for (const Delay &d : o.delays)
    if (d.rank >= o.nranks)
      return "--delay " + std::to_string(d.rank) +
             (d.block >= 0 ? ":" + std::to_string(d.block) : "") + "=" +
             std::to_string(d.us) + ": rank " + std::to_string(d.rank) +
             " is not a rank (-g " + std::to_string(o.nranks) + ")";
  if (o.skipRank >= o.nranks)
    return "--skip-rank " + std::to_string(o.skipRank) + " is not a rank (-g " +
           std::to_string(o.nranks) + ")";
  return "";
}

}  // namespace cclperf
