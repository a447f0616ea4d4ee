// bundle_api.cc - checks of a bundled library's NCCL-shaped entry points
// on the host target that ccl-perf does not make (stdlib_bundle_api_test):
//   roots   cclBroadcast and cclReduce with a different root on every call,
//           issued back to back without synchronisation, every result right;
//   types   AllGather, AllToAll and Broadcast of NCCL's other data types
//           (int8 .. float64) served by size, bit-exact; a reduction of one
//           is refused; an odd byte count is refused with the reason;
//   errors  the message of an unserved call names what the library serves
//           (a size above every row, a rank count it was not compiled for);
//           overlapping buffers are an invalid argument;
//   forced  CCL_ALGO forces the algorithm (cclCommLastAlgorithm says which
//           served), and a bad CCL_ALGO is an error that says why.
// Usage: bundle_api CHECK [NRANKS]; exits 1 with a message on failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "libccl_stdlib.h"

namespace {

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "bundle_api: FAILED: %s\n", what.c_str());
  std::exit(1);
}

void ok(cclResult_t r, const char *what) {
  if (r != cclSuccess)
    fail(std::string(what) + ": " + cclGetErrorString(r) + ": " + cclGetLastError());
}

// The communicator of n host ranks and one thread per rank running fn(r).
struct Job {
  int n;
  std::vector<cclComm_t> comms;
  explicit Job(int n) : n(n), comms(n) {
    ok(cclCommInitAllInProcess(comms.data(), n, cclTargetHost, nullptr), "init");
  }
  ~Job() {
    for (cclComm_t c : comms) cclCommDestroy(c);
  }
  void run(const std::function<void(int)> &fn) {
    std::vector<std::thread> ts;
    for (int r = 0; r < n; r++) ts.emplace_back(fn, r);
    for (auto &t : ts) t.join();
  }
};

float valueOf(int rank, int call, size_t i) {
  return (float)((rank * 7 + call * 3 + (int)(i % 5)) % 9 - 4);
}

// Every call has its own root; 24 calls per rank back to back, then one
// synchronisation and a check of every result.
void roots(int n) {
  Job job(n);
  const int calls = 24;
  const size_t counts[] = {1, 1000, 70001};  // tree, tree, chain (> 256 KiB)
  for (size_t count : counts) {
    std::vector<std::vector<float *>> in(n), out(n);
    job.run([&](int r) {
      cclComm_t c = job.comms[r];
      for (int k = 0; k < calls; k++) {
        void *a, *b;
        ok(cclMemAlloc(c, &a, count * 4), "alloc");
        ok(cclMemAlloc(c, &b, count * 4), "alloc");
        std::vector<float> h(count);
        for (size_t i = 0; i < count; i++) h[i] = valueOf(r, k, i);
        ok(cclMemcpyToDevice(c, a, h.data(), count * 4), "copy");
        in[r].push_back((float *)a);
        out[r].push_back((float *)b);
      }
    });
    job.run([&](int r) {
      cclComm_t c = job.comms[r];
      for (int k = 0; k < calls; k++) {
        int root = (k * 5 + 1) % n;
        if (k % 2)
          ok(cclBroadcast(in[r][k], out[r][k], count, cclFloat32, root, c, nullptr),
             "cclBroadcast");
        else
          ok(cclReduce(in[r][k], out[r][k], count, cclFloat32, cclSum, root, c, nullptr),
             "cclReduce");
      }
      ok(cclCommSynchronize(c, nullptr), "synchronize");
    });
    for (int r = 0; r < n; r++)
      for (int k = 0; k < calls; k++) {
        int root = (k * 5 + 1) % n;
        if (k % 2 == 0 && r != root) continue;  // Reduce: the root's output only
        for (size_t i = 0; i < count; i++) {
          float want = 0;
          if (k % 2)
            want = valueOf(root, k, i);
          else
            for (int p = 0; p < n; p++) want += valueOf(p, k, i);
          float got = out[r][k][i];  // host target: device memory is host memory
          if (got != want)
            fail("call " + std::to_string(k) + (k % 2 ? " (cclBroadcast" : " (cclReduce") +
                 ", root " + std::to_string(root) + ", count " + std::to_string(count) +
                 "): rank " + std::to_string(r) + " element " + std::to_string(i) + " is " +
                 std::to_string(got) + ", not " + std::to_string(want));
        }
      }
    job.run([&](int r) {
      for (int k = 0; k < calls; k++) {
        cclMemFree(job.comms[r], in[r][k]);
        cclMemFree(job.comms[r], out[r][k]);
      }
    });
  }
  std::printf("ok: roots (%d ranks, Broadcast and Reduce, a new root every call)\n", n);
}

unsigned char byteOf(int rank, size_t i) { return (unsigned char)(rank * 37 + i * 11 + 5); }

void types(int n) {
  Job job(n);
  struct T {
    cclDataType_t t;
    size_t size;
    const char *name;
  } kinds[] = {{cclInt8, 1, "int8"},       {cclUint8, 1, "uint8"},
               {cclInt32, 4, "int32"},     {cclUint32, 4, "uint32"},
               {cclInt64, 8, "int64"},     {cclUint64, 8, "uint64"},
               {cclFloat64, 8, "float64"}, {cclFloat8e4m3, 1, "float8e4m3"}};
  for (const T &k : kinds) {
    if (cclDataTypeSize(k.t) != k.size) fail(std::string("cclDataTypeSize of ") + k.name);
    const size_t count = k.size == 1 ? 1002 : 333;  // an even byte count
    const size_t bytes = count * k.size;
    std::vector<unsigned char *> in(n), ag(n), a2a(n), bc(n);
    job.run([&](int r) {
      cclComm_t c = job.comms[r];
      void *p;
      ok(cclMemAlloc(c, &p, bytes * n), "alloc");
      in[r] = (unsigned char *)p;
      for (size_t i = 0; i < bytes * n; i++) in[r][i] = byteOf(r, i);
      ok(cclMemAlloc(c, &p, bytes * n), "alloc");
      ag[r] = (unsigned char *)p;
      ok(cclMemAlloc(c, &p, bytes * n), "alloc");
      a2a[r] = (unsigned char *)p;
      ok(cclMemAlloc(c, &p, bytes), "alloc");
      bc[r] = (unsigned char *)p;
      ok(cclAllGather(in[r], ag[r], count, k.t, c, nullptr), "cclAllGather");
      ok(cclAllToAll(in[r], a2a[r], count, k.t, c, nullptr), "cclAllToAll");
      ok(cclBroadcast(in[r], bc[r], count, k.t, n - 1, c, nullptr), "cclBroadcast");
      ok(cclCommSynchronize(c, nullptr), "synchronize");
    });
    for (int r = 0; r < n; r++)
      for (int p = 0; p < n; p++)
        for (size_t i = 0; i < bytes; i++) {
          if (ag[r][p * bytes + i] != byteOf(p, i))
            fail(std::string("cclAllGather of ") + k.name + ": rank " + std::to_string(r));
          if (a2a[r][p * bytes + i] != byteOf(p, r * bytes + i))
            fail(std::string("cclAllToAll of ") + k.name + ": rank " + std::to_string(r));
          if (p == 0 && bc[r][i] != byteOf(n - 1, i))
            fail(std::string("cclBroadcast of ") + k.name + ": rank " + std::to_string(r));
        }
    // A reduction of a type that has no kernels, and an odd byte count.
    job.run([&](int r) {
      cclComm_t c = job.comms[r];
      if (r == 0) {
        cclResult_t e = cclAllReduce(in[r], ag[r], count, k.t, cclSum, c, nullptr);
        std::string msg = cclGetLastError();
        if (e != cclUnsupported ||
            msg.find(std::string("AllReduce reduces float32, float16 and bfloat16 data, not ") +
                     k.name) == std::string::npos)
          fail("cclAllReduce of " + std::string(k.name) + " returned " + cclGetErrorString(e) +
               ": " + msg);
        if (k.size == 1) {
          e = cclAllGather(in[r], ag[r], 3, k.t, c, nullptr);
          msg = cclGetLastError();
          if (e != cclUnsupported || msg.find("3 bytes is odd") == std::string::npos)
            fail("an odd AllGather of " + std::string(k.name) + " returned " +
                 cclGetErrorString(e) + ": " + msg);
        }
      }
    });
    job.run([&](int r) {
      for (unsigned char *p : {in[r], ag[r], a2a[r], bc[r]}) cclMemFree(job.comms[r], p);
    });
  }
  std::printf("ok: types (%d ranks; int8 .. float64 by size, bit-exact)\n", n);
}

// The error of a call on rank 0 (other ranks do not call: the call must fail
// before anything is launched).
std::string errorOf(cclResult_t want, const std::function<cclResult_t()> &call,
                    const char *what) {
  cclResult_t e = call();
  std::string msg = cclGetLastError();
  if (e != want)
    fail(std::string(what) + " returned " + cclGetErrorString(e) + ", not " +
         cclGetErrorString(want) + ": " + msg);
  return msg;
}

void expectIn(const std::string &msg, const std::string &part, const char *what) {
  if (msg.find(part) == std::string::npos)
    fail(std::string(what) + ": the message does not say \"" + part + "\": " + msg);
}

void errors(int n) {
  Job job(n);
  cclComm_t c = job.comms[0];
  void *a, *b;
  const size_t big = size_t(5) << 20;  // above the library's 4 MiB
  ok(cclMemAlloc(c, &a, big), "alloc");
  ok(cclMemAlloc(c, &b, big), "alloc");
  std::string m = errorOf(
      cclUnsupported,
      [&] { return cclAllReduce(a, b, big / 4, cclFloat32, cclSum, c, nullptr); },
      "a 5 MiB cclAllReduce");
  expectIn(m, "cclAllReduce(rank 0): no algorithm of this library serves 1310720 float32 "
              "elements (5242880 bytes), sum on " + std::to_string(n) + " ranks",
           "a 5 MiB cclAllReduce");
  expectIn(
      m,
      "it serves AllReduce: allpairs_ll (1..2 ranks, up to 8192 bytes), "
      "allpairs_ll (1.. ranks, up to 4096 bytes), "
      "allpairs_ll_wide (1.. ranks, up to 262144 bytes), "
      "allpairs_ll_split_wide (1..2 ranks, up to 1048576 bytes), allpairs_2p (3.. "
      "ranks, up to 262144 bytes), ring_oop_wide "
      "(1.. ranks, up to 4194304 bytes), ring_oop_wide_tiled (1.. ranks, any "
      "size)",
      "a 5 MiB cclAllReduce");
  expectIn(m, "ring_oop_wide_tiled (row ", "a 5 MiB cclAllReduce");
  expectIn(m, "5242880 bytes is above its limit of 4194304", "a 5 MiB cclAllReduce");
  m = errorOf(cclInvalidArgument,
              [&] { return cclBroadcast(a, b, 16, cclFloat32, n, c, nullptr); },
              "cclBroadcast to a root that is no rank");
  expectIn(m, "root " + std::to_string(n) + " is not a rank", "cclBroadcast's root");
  m = errorOf(cclInvalidArgument,
              [&] {
                return cclAllGather((char *)b + 4, b, 16, cclFloat32, c, nullptr);
              },
              "an overlapping cclAllGather");
  expectIn(m, "overlap", "an overlapping cclAllGather");
  m = errorOf(cclInvalidArgument,
              [&] { return cclAllReduce(a, b, 16, cclFloat32, (cclRedOp_t)9, c, nullptr); },
              "cclAllReduce with a bad operator");
  expectIn(m, "unknown reduction operator 9", "a bad operator");
  cclMemFree(c, a);
  cclMemFree(c, b);
  std::printf("ok: errors (%d ranks)\n", n);
}

// A rank count the library was not compiled for.
void unservedRanks(int n) {
  Job job(n);
  void *a, *b;
  ok(cclMemAlloc(job.comms[0], &a, 64), "alloc");
  ok(cclMemAlloc(job.comms[0], &b, 64), "alloc");
  std::string m = errorOf(
      cclUnsupported,
      [&] { return cclAllGather(a, b, 4, cclFloat32, job.comms[0], nullptr); },
      "cclAllGather on a rank count the library lacks");
  expectIn(m, "no algorithm of this library serves 4 float32 elements (16 bytes) on " +
                  std::to_string(n) + " ranks",
           "an unserved rank count");
  expectIn(m, "has no kernel for " + std::to_string(n) + " ranks", "an unserved rank count");
  cclMemFree(job.comms[0], a);
  cclMemFree(job.comms[0], b);
  std::printf("ok: unserved rank count (%d ranks)\n", n);
}

// CCL_ALGO (read once per process: one setting per run of this program).
void forced(int n, const char *expect) {
  Job job(n);
  const size_t count = 64;
  std::vector<float *> in(n), out(n);
  std::vector<std::string> served(n), errs(n);
  job.run([&](int r) {
    cclComm_t c = job.comms[r];
    void *a, *b;
    ok(cclMemAlloc(c, &a, count * 4 * n), "alloc");
    ok(cclMemAlloc(c, &b, count * 4 * n), "alloc");
    in[r] = (float *)a;
    out[r] = (float *)b;
    for (size_t i = 0; i < count; i++) in[r][i] = valueOf(r, 0, i);
    cclResult_t e = cclAllReduce(a, b, count, cclFloat32, cclSum, c, nullptr);
    if (e != cclSuccess) {
      errs[r] = cclGetLastError();
      return;
    }
    ok(cclCommSynchronize(c, nullptr), "synchronize");
    const char *name = nullptr;
    ok(cclCommLastAlgorithm(c, &name), "cclCommLastAlgorithm");
    served[r] = name ? name : "(none)";
  });
  if (std::string(expect).rfind("error:", 0) == 0) {
    for (int r = 0; r < n; r++)
      expectIn(errs[r], expect + 6, "a bad CCL_ALGO");
    std::printf("ok: CCL_ALGO=%s is refused\n", getenv("CCL_ALGO"));
    return;
  }
  for (int r = 0; r < n; r++) {
    if (!errs[r].empty()) fail("cclAllReduce under CCL_ALGO: " + errs[r]);
    if (served[r] != expect)
      fail("CCL_ALGO=" + std::string(getenv("CCL_ALGO") ? getenv("CCL_ALGO") : "") +
           ": served by " + served[r] + ", not " + expect);
    for (size_t i = 0; i < count; i++) {
      float want = 0;
      for (int p = 0; p < n; p++) want += valueOf(p, 0, i);
      if (out[r][i] != want) fail("cclAllReduce under CCL_ALGO: a wrong sum");
    }
  }
  std::printf("ok: CCL_ALGO=%s: served by %s\n", getenv("CCL_ALGO") ? getenv("CCL_ALGO") : "",
              expect);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) fail("usage: bundle_api roots|types|errors|unserved|forced [NRANKS] [EXPECT]");
  std::string what = argv[1];
  int n = argc > 2 ? std::atoi(argv[2]) : 3;
  if (what == "roots") roots(n);
  else if (what == "types") types(n);
  else if (what == "errors") errors(n);
  else if (what == "unserved") unservedRanks(n);
  else if (what == "forced") forced(n, argc > 3 ? argv[3] : "");
  else fail("unknown check " + what);
  return 0;
}
