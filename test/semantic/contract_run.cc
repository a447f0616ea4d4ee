// contract_run: runs one algorithm of a generated host-target library and
// checks every output element against a contract given as data, so that
// custom collectives (which ccl-perf does not know) are checked as well as
// the built-in ones.
//
//   contract_run LIB ALGO CONTRACT [--count N] [--calls K] [--delay R=NS]
//                [--root R] [--inplace] [--ints] [--agree] [--seed S]
//                [--cuda [--graph] [--devices D,D,...]]
//
// CONTRACT is a text file written by test/semantic/contract.py (from the
// generator's own model of the program, or from the ccl.ensure operations
// of `cclc --emit=ccl`):
//
//   collective NAME        AllReduce, ..., or a custom collective's name
//   nranks N
//   chunks IN OUT          the chunk counts of input and output
//   plan_root R            the root the algorithm was written for
//   ensure R C = P D [P D ...]   output[R][C] holds the sum (or copy, with
//                                one term) of input[P][D], ...
//
// The buffers follow docs/runtime.md ("In place and out of place"): a
// custom collective is laid out as AllReduce (count elements each). Chunk
// i of a buffer of E elements in k chunks is [floor(i E / k),
// floor((i + 1) E / k)). K calls are issued on every rank without any
// synchronisation, each with its own buffers and its own random data;
// then every rank synchronises and every ensured element of every call is
// compared with the contract evaluated directly from that call's inputs:
// a copy bit for bit, a sum of small integers (--ints) exactly, a sum of
// random floats within a bound of the reference sum and, with --agree
// (AllReduce: semantics.md "Results, bit for bit"), bit for bit across the
// ranks that receive the same terms. With --cuda the library is an NVPTX
// one and every rank runs on a GPU (all on device 0 unless --devices says
// otherwise; ranks sharing a GPU each have a stream of their own): the
// buffers are device memory filled and read back with cclMemcpy*, and with
// --graph each rank's K calls are captured into one CUDA graph per rank,
// then every rank's graph is launched. Prints one line per wrong
// element (at most 20) and "contract_run: N wrong" at the end; exit 1 if
// anything was wrong or a call failed.
#include "ccl/ccl.h"
#include "runtime/src/cuda_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

typedef int (*EntryFn)(cclComm_t, const void *, void *, size_t,
                       cclDataType_t, cclRedOp_t, cclStream_t);
typedef int (*RootedEntryFn)(cclComm_t, const void *, void *, size_t,
                             cclDataType_t, cclRedOp_t, int, cclStream_t);

struct Term {
  int rank, chunk;
};

struct Ensure {
  int rank, chunk;
  std::vector<Term> terms;
};

struct Contract {
  std::string collective;
  int nranks = 0, inChunks = 0, outChunks = 0, planRoot = 0;
  std::vector<Ensure> ensures;
};

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "contract_run: %s\n", msg.c_str());
  std::exit(2);
}

Contract readContract(const std::string &path) {
  std::ifstream in(path);
  if (!in) die("cannot read " + path);
  Contract c;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    std::istringstream s(line);
    std::string key;
    if (!(s >> key) || key[0] == '#') continue;
    bool ok = true;
    if (key == "collective") {
      ok = bool(s >> c.collective);
    } else if (key == "nranks") {
      ok = bool(s >> c.nranks);
    } else if (key == "chunks") {
      ok = bool(s >> c.inChunks >> c.outChunks);
    } else if (key == "plan_root") {
      ok = bool(s >> c.planRoot);
    } else if (key == "ensure") {
      Ensure e;
      std::string eq;
      ok = bool(s >> e.rank >> e.chunk >> eq) && eq == "=";
      Term t;
      while (ok && s >> t.rank >> t.chunk) e.terms.push_back(t);
      ok = ok && !e.terms.empty();
      c.ensures.push_back(e);
    } else {
      ok = false;
    }
    if (!ok)
      die(path + ":" + std::to_string(lineNo) + ": cannot read '" + line + "'");
  }
  if (c.nranks < 1 || c.inChunks < 1 || c.outChunks < 1 || c.ensures.empty())
    die(path + ": needs nranks, chunks and at least one ensure");
  for (const Ensure &e : c.ensures) {
    if (e.rank < 0 || e.rank >= c.nranks || e.chunk < 0 ||
        e.chunk >= c.outChunks)
      die(path + ": ensure of output[" + std::to_string(e.rank) + "][" +
          std::to_string(e.chunk) + "] is out of range");
    for (const Term &t : e.terms)
      if (t.rank < 0 || t.rank >= c.nranks || t.chunk < 0 ||
          t.chunk >= c.inChunks)
        die(path + ": term input[" + std::to_string(t.rank) + "][" +
            std::to_string(t.chunk) + "] is out of range");
  }
  return c;
}

// Elements of each buffer for a count, as docs/runtime.md lays them out.
void bufferElems(const std::string &coll, int n, size_t count, size_t *in,
                 size_t *out) {
  *in = *out = count;
  if (coll == "AllGather") *out = n * count;
  if (coll == "ReduceScatter") *in = n * count;
  if (coll == "AllToAll") *in = *out = n * count;
}

size_t chunkBegin(size_t elems, int chunks, int i) {
  return size_t((unsigned __int128)elems * i / chunks);
}

bool isRooted(const std::string &coll) {
  return coll == "Broadcast" || coll == "Reduce";
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The GPU side of a --cuda run: one context (the device's primary one) and
// one non-blocking stream per rank.
struct Gpu {
  const cclrt::CudaDriver *drv = nullptr;
  std::vector<cclrt::CUcontext> ctxs;
  std::vector<cclrt::CUstream> streams;

  void check(cclrt::CUresult r, const char *what, int rank) const {
    if (r != 0)
      die(std::string(what) + " on rank " + std::to_string(rank) + ": " +
          cclrt::cudaErrorText(r));
  }
  void open(const std::vector<int> &devices) {
    cclrt::CudaLoadError why;
    drv = cclrt::cudaDriver(&why);
    if (!drv) die("--cuda: the CUDA driver cannot be used here");
    int n = int(devices.size());
    ctxs.assign(n, nullptr);
    streams.assign(n, nullptr);
    for (int r = 0; r < n; ++r) {
      cclrt::CUdevice dev;
      check(drv->cuDeviceGet(&dev, devices[r]), "cuDeviceGet", r);
      check(drv->cuDevicePrimaryCtxRetain(&ctxs[r], dev),
            "cuDevicePrimaryCtxRetain", r);
      enter(r);
      check(drv->cuStreamCreate(&streams[r], cclrt::CU_STREAM_NON_BLOCKING),
            "cuStreamCreate", r);
    }
  }
  void enter(int r) const {
    check(drv->cuCtxSetCurrent(ctxs[r]), "cuCtxSetCurrent", r);
  }
};

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: contract_run LIB ALGO CONTRACT [--count N] "
                 "[--calls K] [--delay R=NS] [--root R] [--inplace] [--ints] "
                 "[--seed S] [--cuda [--graph] [--devices D,...]]\n");
    return 2;
  }
  std::string libPath = argv[1], algo = argv[2];
  Contract c = readContract(argv[3]);
  size_t count = 81;
  int calls = 8, root = 0, delayRank = -1;
  uint64_t delayNs = 0, seed = 1;
  bool inplace = false, ints = false, agree = false, cuda = false,
       graph = false;
  std::vector<int> devices;
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--count") count = std::stoull(next());
    else if (a == "--calls") calls = std::stoi(next());
    else if (a == "--root") root = std::stoi(next());
    else if (a == "--seed") seed = std::stoull(next());
    else if (a == "--inplace") inplace = true;
    else if (a == "--ints") ints = true;
    else if (a == "--agree") agree = true;
    else if (a == "--cuda") cuda = true;
    else if (a == "--graph") graph = true;
    else if (a == "--devices") {
      std::stringstream list(next());
      std::string d;
      while (std::getline(list, d, ',')) devices.push_back(std::stoi(d));
    }
    else if (a == "--delay") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos) die("--delay takes RANK=NS");
      delayRank = std::stoi(v.substr(0, eq));
      delayNs = std::stoull(v.substr(eq + 1));
    } else die("unknown option " + a);
  }
  const int n = c.nranks;
  if (root < 0 || root >= n) die("--root out of range");
  if (delayRank >= n) die("--delay rank out of range");
  if (calls < 1) die("--calls must be at least 1");
  if (graph && !cuda) die("--graph needs --cuda");
  if (!cuda && !devices.empty()) die("--devices needs --cuda");
  if (cuda && devices.empty()) devices.assign(n, 0);
  if (cuda && int(devices.size()) != n)
    die("--devices names " + std::to_string(devices.size()) +
        " devices for " + std::to_string(n) + " ranks");

  void *lib = dlopen(libPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) die(std::string("cannot load ") + libPath + ": " + dlerror());
  std::string entryName = "ccl_" + algo;
  void *sym = dlsym(lib, entryName.c_str());
  if (!sym) die(libPath + " has no entry point " + entryName);
  const bool rooted = isRooted(c.collective);

  std::vector<cclComm_t> comms(n);
  Gpu gpu;
  if (cuda) gpu.open(devices);
  if (cclCommInitAllInProcess(comms.data(), n,
                              cuda ? cclTargetCuda : cclTargetHost,
                              cuda ? devices.data() : nullptr) != cclSuccess)
    die(std::string("cclCommInitAllInProcess: ") + cclGetLastError());
  for (int r = 0; r < n; ++r) cclCommSetTimeout(comms[r], 5000);
  if (delayRank >= 0) cclCommDebugSetDelay(comms[delayRank], -1, delayNs);

  size_t inElems, outElems;
  bufferElems(c.collective, n, count, &inElems, &outElems);
  // In place, one buffer per rank and call: the output, with the input at
  // its place in it (docs/runtime.md).
  size_t inOffset = 0, outOffset = 0, bufElems = inElems + outElems;
  if (inplace) {
    if (c.collective == "AllGather") {
      bufElems = outElems;
    } else if (c.collective == "ReduceScatter") {
      bufElems = inElems;
    } else if (c.collective == "AllToAll") {
      die("AllToAll has no in-place form");
    } else {
      bufElems = inElems;
    }
  } else {
    outOffset = inElems;
  }

  std::mt19937_64 rng(seed);
  // bufs[k][r]: call k, rank r; inputs[k][r]: what the input held.
  std::vector<std::vector<std::vector<float>>> bufs(
      calls, std::vector<std::vector<float>>(n));
  std::vector<std::vector<std::vector<float>>> inputs = bufs;
  for (int k = 0; k < calls; ++k)
    for (int r = 0; r < n; ++r) {
      size_t ioff = inOffset;
      if (inplace && c.collective == "AllGather") ioff = r * count;
      std::vector<float> &b = bufs[k][r];
      b.assign(bufElems, std::nanf(""));
      std::vector<float> &x = inputs[k][r];
      x.resize(inElems);
      for (size_t i = 0; i < inElems; ++i) {
        if (ints)
          x[i] = float(int64_t(rng() % 17) - 8);
        else
          x[i] = std::ldexp(float(rng() >> 40) / float(1 << 24) - 0.5f,
                            int(rng() % 9) - 4);
        b[ioff + i] = x[i];
      }
    }

  // Where each call's buffer lives: the host vector itself, or device
  // memory holding a copy of it.
  std::vector<std::vector<float *>> where(calls, std::vector<float *>(n));
  for (int k = 0; k < calls; ++k)
    for (int r = 0; r < n; ++r) {
      where[k][r] = bufs[k][r].data();
      if (!cuda) continue;
      void *d = nullptr;
      size_t bytes = bufElems * sizeof(float);
      if (cclMemAlloc(comms[r], &d, bytes) != cclSuccess ||
          cclMemcpyToDevice(comms[r], d, bufs[k][r].data(), bytes) !=
              cclSuccess)
        die(std::string("device buffer of rank ") + std::to_string(r) +
            ": " + cclGetLastError());
      where[k][r] = static_cast<float *>(d);
    }
  std::vector<cclrt::CUgraph> graphs(n, nullptr);
  std::vector<cclrt::CUgraphExec> execs(n, nullptr);
  if (graph)
    for (int r = 0; r < n; ++r) {
      gpu.enter(r);
      gpu.check(gpu.drv->cuStreamBeginCapture(
                    gpu.streams[r], cclrt::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                "cuStreamBeginCapture", r);
    }

  int failed = 0;
  for (int k = 0; k < calls; ++k)
    for (int r = 0; r < n; ++r) {
      if (cuda) gpu.enter(r);
      float *b = where[k][r];
      const float *in = b + (inplace && c.collective == "AllGather"
                                 ? r * count
                                 : inOffset);
      float *out = b + outOffset;
      if (inplace && c.collective == "ReduceScatter") out = b + r * count;
      int rc = rooted ? reinterpret_cast<RootedEntryFn>(sym)(
                            comms[r], in, out, count, cclFloat32, cclSum,
                            root, cuda ? gpu.streams[r] : nullptr)
                      : reinterpret_cast<EntryFn>(sym)(
                            comms[r], in, out, count, cclFloat32, cclSum,
                            cuda ? gpu.streams[r] : nullptr);
      if (rc != cclSuccess) {
        std::fprintf(stderr, "contract_run: call %d of rank %d: %s\n", k, r,
                     cclGetLastError());
        ++failed;
      }
    }
  if (graph) {
    // Every capture ends before any graph is instantiated (a thread may
    // not instantiate while a stream of its own still captures).
    for (int r = 0; r < n; ++r) {
      gpu.enter(r);
      gpu.check(gpu.drv->cuStreamEndCapture(gpu.streams[r], &graphs[r]),
                "cuStreamEndCapture", r);
    }
    for (int r = 0; r < n; ++r) {
      gpu.enter(r);
      gpu.check(gpu.drv->cuGraphInstantiateWithFlags(&execs[r], graphs[r], 0),
                "cuGraphInstantiate", r);
    }
    for (int r = 0; r < n; ++r) {
      gpu.enter(r);
      gpu.check(gpu.drv->cuGraphLaunch(execs[r], gpu.streams[r]),
                "cuGraphLaunch", r);
    }
  }
  for (int r = 0; r < n; ++r) {
    if (cuda) gpu.enter(r);
    if (cclCommSynchronize(comms[r], cuda ? gpu.streams[r] : nullptr) !=
        cclSuccess) {
      std::fprintf(stderr, "contract_run: rank %d: %s\n", r,
                   cclGetLastError());
      ++failed;
    }
  }
  if (cuda)
    for (int k = 0; k < calls; ++k)
      for (int r = 0; r < n; ++r) {
        size_t bytes = bufElems * sizeof(float);
        if (cclMemcpyFromDevice(comms[r], bufs[k][r].data(), where[k][r],
                                bytes) != cclSuccess ||
            cclMemFree(comms[r], where[k][r]) != cclSuccess)
          die(std::string("device buffer of rank ") + std::to_string(r) +
              ": " + cclGetLastError());
      }
  for (int r = 0; r < n && graph; ++r) {
    gpu.enter(r);
    gpu.drv->cuGraphExecDestroy(execs[r]);
    gpu.drv->cuGraphDestroy(graphs[r]);
  }

  // A rooted plan written for plan_root runs rank q as plan rank
  // (q - root + plan_root) mod n (docs/runtime.md, "Roots").
  auto actual = [&](int planRank) {
    return rooted ? ((planRank - c.planRoot + root) % n + n) % n : planRank;
  };
  long wrong = 0;
  for (int k = 0; k < calls; ++k) {
    // The bits each multiset of terms got, per element: ranks receiving
    // the same reduction must agree.
    std::map<std::string, std::vector<uint32_t>> seen;
    for (const Ensure &e : c.ensures) {
      int dr = actual(e.rank);
      size_t ob = chunkBegin(outElems, c.outChunks, e.chunk);
      size_t oe = chunkBegin(outElems, c.outChunks, e.chunk + 1);
      const float *out = bufs[k][dr].data() + outOffset +
                         (inplace && c.collective == "ReduceScatter"
                              ? dr * count
                              : 0);
      std::vector<std::string> names;
      for (const Term &t : e.terms)
        names.push_back(std::to_string(actual(t.rank)) + ":" +
                        std::to_string(t.chunk));
      std::sort(names.begin(), names.end());
      std::string key;
      for (const std::string &s : names) key += s + " ";
      std::vector<uint32_t> got;
      for (size_t i = ob; i < oe; ++i) {
        double want = 0, mag = 0;
        bool sizeOk = true;
        float copyBits = 0;
        for (const Term &t : e.terms) {
          size_t tb = chunkBegin(inElems, c.inChunks, t.chunk);
          size_t te = chunkBegin(inElems, c.inChunks, t.chunk + 1);
          if (te - tb != oe - ob) sizeOk = false;
          size_t j = tb + (i - ob);
          float v = j < te ? inputs[k][actual(t.rank)][j] : std::nanf("");
          copyBits = v;
          want += v;
          mag += std::fabs(v);
        }
        float g = out[i];
        got.push_back(bits(g));
        bool ok;
        if (!sizeOk)
          ok = false;
        else if (e.terms.size() == 1 || ints)
          ok = e.terms.size() == 1 ? bits(g) == bits(copyBits)
                                   : double(g) == want;
        else
          ok = std::isfinite(g) &&
               std::fabs(double(g) - want) <= 1e-5 * mag + 1e-30;
        if (!ok) {
          if (wrong < 20)
            std::printf("wrong: call %d output[%d][%d] element %zu: got %a, "
                        "want %a%s\n",
                        k, dr, e.chunk, i - ob, double(g), want,
                        sizeOk ? "" : " (chunk sizes differ)");
          ++wrong;
        }
      }
      if (agree && e.terms.size() > 1) {
        auto it = seen.find(key);
        if (it == seen.end()) {
          seen[key] = got;
        } else if (it->second != got) {
          if (wrong < 20)
            std::printf("wrong: call %d output[%d][%d]: other bits than "
                        "another rank's chunk with the same terms\n",
                        k, dr, e.chunk);
          ++wrong;
        }
      }
    }
  }
  for (int r = 0; r < n; ++r) cclCommDestroy(comms[r]);
  std::printf("contract_run: %ld wrong%s\n", wrong,
              failed ? " (and a call failed)" : "");
  return wrong || failed ? 1 : 0;
}
