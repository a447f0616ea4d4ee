// options.cc - ccl-perf's command line: CLI11 reads the flags (short and
// long spellings, "-b1K", "--minbytes=1K"); each flag's value is checked
// and stored as CLI11 reaches it, so the first bad flag on the line is the
// one reported, with the message docs/ccl-perf.md shows.
#include "tools/ccl-perf/options.h"

#include "tools/ccl-perf/check.h"

#include <strings.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

#include "ccl/ccl.h"
#include "tools/ccl-perf/report.h"
#include "tools/support/size.h"

namespace cclperf {
namespace {

const char kUsage[] =
    "Usage: ccl-perf --lib LIB.so (--algo NAME | --coll NAME) [options]\n"
    "\n"
    "Benchmarks and checks an algorithm of a cclc-generated library, like\n"
    "nccl-tests' all_reduce_perf. Sizes take K, M, G suffixes (powers of 1024).\n"
    "\n"
    "Required:\n"
    "  --lib PATH                 generated library (.so) to dlopen\n"
    "  --algo NAME                algorithm: calls the entry point ccl_NAME\n"
    "  --coll NAME                or a bundled library's NCCL-shaped entry\n"
    "                             point of collective NAME (cclAllReduce,\n"
    "                             cclAllGather, ...): the library's selection\n"
    "                             picks the algorithm; the table's last column\n"
    "                             names the one that served each row\n"
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
    "  --bitwise                  reductions get random finite floats of\n"
    "                             mixed sign and magnitude (checked within\n"
    "                             their rounding, not as exact integers), and\n"
    "                             the outputs that several ranks share (an\n"
    "                             AllReduce's) are compared bit for bit between\n"
    "                             the ranks: '#   ranks differ' notes and a\n"
    "                             'Rank differences' total (one process only)\n"
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
    "  --proxy-delay R=US|stall   debug: the proxy of rank R (port channels)\n"
    "                             sleeps US microseconds before each request,\n"
    "                             or takes none (stall); repeatable\n"
    "                             (cclCommDebugSetProxyDelay)\n"
    "  --devices LIST             cuda: GPU ordinal of each rank, e.g. 0,0 (two\n"
    "                             ranks share GPU 0; timings are then not link\n"
    "                             timings). Sets -g when -g is not given\n"
    "                             (default 0,1,...,g-1)\n"
    "  --root R                   Broadcast, Reduce: the root of every call\n"
    "                             (default 0); one kernel set serves every root\n"
    "  --csv FILE                 also write the rows (both backends) as CSV\n"
    "  --plot FILE.png            plot busbw and time against size (cclc beside\n"
    "                             NCCL with --compare); needs python3 with\n"
    "                             matplotlib\n"
    "  -h, --help                 this text\n"
    "  --version                  the version of ccl-perf\n"
    "\n"
    "One process per rank: started by a launcher (ccl-run -n N ccl-perf ...,\n"
    "torchrun, mpirun, srun: the variables cclCommInitFromEnv reads), each\n"
    "process is one rank of the job (-g is the job's rank count or left out);\n"
    "it checks and times its own rank and rank 0 prints the one table.\n"
    "\n"
    "Exit status: 0 if every call succeeded and every checked value was right,\n"
    "1 otherwise.\n";

// With one process per rank every rank parses the same command line, so
// rank 0 alone reports its errors (and prints --help, --version).
bool quiet() { return processRank() > 0; }

[[noreturn]] void die(const std::string &msg) {
  if (quiet()) exitFailure(true);
  fmt::print(stderr, "ccl-perf: {}\n(try --help)\n", msg);
  std::exit(1);
}

// A bad value of a flag, thrown from the flag's callback while CLI11 parses
// (CLI11 passes other exceptions through).
struct BadValue : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "bad --iters: 0", "bad --check (0 or 1): 2".
[[noreturn]] void bad(const char *flag, const std::string &value,
                      const char *hint = nullptr) {
  throw BadValue(std::string("bad ") + flag +
                 (hint ? std::string(" (") + hint + ")" : "") + ": " + value);
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

// A type is named as cclc names it (float32), as nccl-tests does (float,
// half), by its suffix (f32, bf16) or as fp32 / fp16.
bool parseDtypes(const std::string &s, std::vector<DType> *out) {
  std::vector<DType> all;
  for (const ccl::DTypeInfo &d : ccl::kDTypes)
    all.push_back(static_cast<DType>(d.code));
  return parseList(s, out, all, [](const char *c, DType *v) {
    for (const ccl::DTypeInfo &d : ccl::kDTypes) {
      std::string fp = d.suffix[0] == 'f' ? "fp" + std::string(d.suffix + 1) : "";
      if (anyOf(c, {d.name, d.ncclName, d.suffix}) ||
          (!fp.empty() && anyOf(c, {fp.c_str()}))) {
        *v = static_cast<DType>(d.code);
        return true;
      }
    }
    return false;
  });
}

bool parseOps(const std::string &s, std::vector<Op> *out) {
  std::vector<Op> all;
  for (const ccl::RedOpInfo &o : ccl::kRedOps)
    all.push_back(static_cast<Op>(o.code));
  return parseList(s, out, all, [](const char *c, Op *v) {
    for (const ccl::RedOpInfo &o : ccl::kRedOps)
      if (anyOf(c, {o.name})) {
        *v = static_cast<Op>(o.code);
        return true;
      }
    return false;
  });
}

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

std::vector<size_t> sweepSizes(const Options &o) {
  std::vector<size_t> sizes;
  for (size_t s = o.minBytes; s <= o.maxBytes;) {
    sizes.push_back(s);
    size_t next;
    if (o.stepFactor > 1) {
      // In double first: a product beyond -e (or beyond size_t) ends the
      // sweep instead of wrapping.
      double d = (double)s * o.stepFactor;
      if (!(d <= (double)o.maxBytes) || d >= 18446744073709551616.0)
        break;
      next = (size_t)d;
    } else if (__builtin_add_overflow(s, o.stepBytes, &next)) {
      break;
    }
    if (s == 0 && o.stepFactor > 1) next = 1;  // 0, then 1, f, f^2, ...
    if (next <= s) break;  // overflow
    s = next;
  }
  return sizes;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  bool nranksSet = false;
  CLI::App app("ccl-perf");
  app.set_help_flag();  // kUsage instead of CLI11's generated help
  app.allow_extras();   // reported below, as "unknown argument"
  // Every flag acts when CLI11 reaches it, in command-line order: --help
  // and --version end the run there, a value is checked there. A flag given
  // twice keeps its last value (--delay accumulates).
  auto flag = [&](const char *names, std::function<void()> act) {
    app.add_flag_callback(names, std::move(act))->trigger_on_parse();
  };
  auto value = [&](const char *names,
                   std::function<void(const std::string &)> set) {
    app.add_option_function<std::string>(names, std::move(set))
        ->trigger_on_parse();
  };
  auto integer = [](const char *flag, const std::string &v, long long lo,
                    long long hi, const char *hint = nullptr) {
    long long n = 0;
    if (!parseInt(v, lo, hi, &n)) bad(flag, v, hint);
    return n;
  };
  // A byte count (tools/support/size.h); `positive`: 0 is bad too.
  auto size = [](const char *flag, const std::string &v, size_t *out,
                 bool positive = false) {
    uint64_t n = 0;
    std::string why;
    if (!ccl::parseSize(v, &n, &why) || (positive && n == 0))
      throw BadValue(
          std::string("bad size for ") + flag + ": " + v +
          (why == "not a size" || why.empty() ? "" : " (" + why + ")"));
    *out = (size_t)n;
  };
  const long long kMaxLL = std::numeric_limits<long long>::max();

  flag("-h,--help", [] {
    if (!quiet()) std::fputs(kUsage, stdout);
    std::exit(0);
  });
  flag("--bitwise", [&] { o.bitwise = true; });
  flag("--version", [] {
    if (quiet()) std::exit(0);
    fmt::print("ccl-perf {} (cclc plan ABI {})\n", CCL_VERSION_STRING,
               CCL_PLAN_ABI_VERSION);
    std::exit(0);
  });
  value("-b,--minbytes", [&](const std::string &v) {
    size("--minbytes", v, &o.minBytes);
    o.minBytesSet = true;
  });
  value("-e,--maxbytes", [&](const std::string &v) {
    size("--maxbytes", v, &o.maxBytes);
    o.maxBytesSet = true;
  });
  value("-i,--stepbytes",
        [&](const std::string &v) { size("--stepbytes", v, &o.stepBytes); });
  value("-f,--stepfactor", [&](const std::string &v) {
    char *end = nullptr;
    o.stepFactor = std::strtod(v.c_str(), &end);
    if (*end || !(o.stepFactor >= 1)) bad("--stepfactor", v);
  });
  value("-n,--iters", [&](const std::string &v) {
    o.iters = (int)integer("--iters", v, 1, 1 << 30);
  });
  value("-w,--warmup_iters", [&](const std::string &v) {
    o.warmup = (int)integer("--warmup_iters", v, 0, 1 << 30);
  });
  value("-c,--check", [&](const std::string &v) {
    o.check = integer("--check", v, 0, 1, "0 or 1") != 0;
  });
  value("-g,--ngpus", [&](const std::string &v) {
    o.nranks = (int)integer("--ngpus", v, 1, 1024);
    nranksSet = true;
  });
  value("-G,--cudagraph", [&](const std::string &v) {
    o.graphLaunches = (int)integer("--cudagraph", v, 0, 1 << 30);
  });
  value("-d,--datatype", [&](const std::string &v) {
    if (!parseDtypes(v, &o.dtypes)) bad("--datatype", v);
  });
  value("-o,--op", [&](const std::string &v) {
    if (!parseOps(v, &o.ops)) bad("--op", v);
  });
  value("--lib", [&](const std::string &v) { o.lib = v; });
  value("--algo", [&](const std::string &v) { o.algo = v; });
  value("--coll", [&](const std::string &v) {
    const Collective *c = findCollective(v);
    if (!c) bad("--coll", v, collectiveNames().c_str());
    o.coll = c->name;
  });
  value("--root", [&](const std::string &v) {
    o.root = (int)integer("--root", v, 0, 1 << 20);
  });
  value("--csv", [&](const std::string &v) { o.csv = v; });
  value("--plot", [&](const std::string &v) { o.plot = v; });
  value("--target", [&](const std::string &v) {
    if (v == "host") o.target = TargetChoice::Host;
    else if (v == "cuda") o.target = TargetChoice::Cuda;
    else bad("--target", v, "host or cuda");
  });
  value("--compare", [&](const std::string &v) {
    if (strcasecmp(v.c_str(), "nccl") != 0)
      bad("--compare", v, "only 'nccl' is supported");
    o.compareNccl = true;
  });
  value("--timeout-ms", [&](const std::string &v) {
    o.timeoutMs = (uint64_t)integer("--timeout-ms", v, 0, kMaxLL);
    o.timeoutSet = true;
  });
  value("--skip-rank", [&](const std::string &v) {
    o.skipRank = (int)integer("--skip-rank", v, 0, 1 << 20);
  });
  value("--seed", [&](const std::string &v) {
    o.seed = (uint64_t)integer("--seed", v, 0, kMaxLL);
  });
  value("-k,--calls", [&](const std::string &v) {
    o.calls = (int)integer("--calls", v, 1, 4096, "1 to 4096");
  });
  value("--check-mem", [&](const std::string &v) {
    size("--check-mem", v, &o.checkMem, true);
  });
  value("--proxy-delay", [&](const std::string &v) {
    size_t eq = v.find('=');
    const std::string want = "RANK=MICROSECONDS or RANK=stall, e.g. 1=100";
    if (eq == std::string::npos || eq == 0) bad("--proxy-delay", v, want.c_str());
    int rank = (int)integer("--proxy-delay", v.substr(0, eq), 0, 1 << 20);
    std::string d = v.substr(eq + 1);
    uint64_t ns = d == "stall"
                      ? UINT64_MAX
                      : (uint64_t)integer("--proxy-delay", d, 0, 60000000,
                                          "0 to 60000000 microseconds or stall") *
                            1000;
    o.proxyDelays.push_back({rank, ns});
  });
  value("--delay", [&](const std::string &v) {
    Delay d;
    if (!parseDelay(v, &d))
      bad("--delay", v, "RANK[:BLOCK]=MICROSECONDS, e.g. 1=20000 or 1:0=20000");
    o.delays.push_back(d);
  });
  value("--devices", [&](const std::string &v) {
    if (!parseIntList(v, &o.devices) || o.devices.size() > 1024)
      bad("--devices", v, "comma-separated GPU ordinals, e.g. 0,0");
  });

  try {
    app.parse(argc, argv);
  } catch (const BadValue &e) {
    die(e.what());
  } catch (const CLI::ArgumentMismatch &e) {
    // CLI11 names the flag by its long name ("--minbytes: 1 required TEXT
    // missing"); the user's spelling ("-b") is the last argument.
    std::string what = e.what(), name = what.substr(0, what.find(':'));
    const CLI::Option *opt = app.get_option_no_throw(name);
    if (opt && argc > 1 && opt->check_name(argv[argc - 1])) name = argv[argc - 1];
    die("missing value for '" + name + "'");
  } catch (const CLI::ParseError &e) {
    die(e.what());
  }
  if (!app.remaining().empty())
    die("unknown argument '" + app.remaining().front() + "'");
  if (o.lib.empty()) die("--lib is required");
  if (o.algo.empty() && o.coll.empty())
    die("--algo NAME (an algorithm's entry point) or --coll NAME (a bundle's "
        "entry point) is required");
  if (!o.algo.empty() && !o.coll.empty())
    die("--algo and --coll exclude each other: --algo runs one algorithm, "
        "--coll the bundle's selection");
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
  // Outputs the user asked for: their folder must take a file before any
  // call runs (a sweep's results are not lost at its end).
  for (const std::string *out : {&o.csv, &o.plot}) {
    if (out->empty()) continue;
    size_t slash = out->find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : out->substr(0, slash);
    if (access(dir.c_str(), W_OK) != 0)
      die(std::string(out == &o.csv ? "--csv " : "--plot ") + *out + ": cannot write into " +
          dir + ": " + std::strerror(errno));
  }
  if (o.skipRank >= 0 && o.timeoutSet && o.timeoutMs == 0)
    die("--skip-rank " + std::to_string(o.skipRank) +
        " makes that rank never launch, so the others wait for it; with "
        "--timeout-ms 0 (no timeout) they would wait forever: give a timeout");
  if (o.bitwise && !o.check)
    die("--bitwise acts on the checked calls only; it has no effect with -c 0");
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
  for (const auto &[rank, ns] : o.proxyDelays)
    if (rank >= o.nranks)
      return "--proxy-delay " + std::to_string(rank) + ": rank " +
             std::to_string(rank) + " is not a rank (-g " +
             std::to_string(o.nranks) + ")";
  if (o.skipRank >= o.nranks)
    return "--skip-rank " + std::to_string(o.skipRank) + " is not a rank (-g " +
           std::to_string(o.nranks) + ")";
  return "";
}

}  // namespace cclperf
