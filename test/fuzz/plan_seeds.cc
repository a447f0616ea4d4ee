// plan_seeds.cc - writes the plans that a library cclc generated registers
// as a plan image (plan_image.h): the plan fuzzer's seeds, written by
// test/fuzz/gen_plan_corpus.sh into test/fuzz/plan_corpus/.
//
//   plan_seeds [--report] LIB.so OUT [NRANKS]
//
// The library is loaded with dlopen. This program defines (and exports)
// cclrtRegisterPlan, so the library's constructor registers its plans here
// rather than in libcclrt.so, which the library still loads (put its
// directory in LD_LIBRARY_PATH); a bundle's selection table is caught the
// same way, through cclrtCollective, which its cclAllReduce calls. The
// image's call (PlanCall): NRANKS ranks (default 2, 2..4), the type and
// operator of a kernel of each plan's variant, 16 elements, and for a
// bundle cclrtCollective(AllReduce, float32, sum) with its selection table;
// and an error record for the fuzzer's kernel to report, which it does
// with --report (kCallTimeout) only.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "plan_image.h"

namespace {
std::vector<const ccl_plan *> g_plans;
const ccl_selection *g_selection = nullptr;
} // namespace

extern "C" __attribute__((visibility("default"))) void
cclrtRegisterPlan(const ccl_plan *plan) {
  if (plan)
    g_plans.push_back(plan);
}

extern "C" __attribute__((visibility("default"))) int
cclrtCollective(const ccl_selection *selection, uint32_t, const void *, void *,
                size_t, int, int, int, void *, void *) {
  g_selection = selection;
  return 0;
}

int main(int argc, char **argv) {
  const bool report = argc > 1 && std::string(argv[1]) == "--report";
  if (report) {
    argv++;
    argc--;
  }
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: plan_seeds [--report] LIB.so OUT [NRANKS]\n");
    return 2;
  }
  const int nranks = argc == 4 ? std::atoi(argv[3]) : 2;
  if (nranks < 2 || nranks > 4) {
    std::fprintf(stderr, "plan_seeds: NRANKS must be 2, 3 or 4\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "plan_seeds: %s\n", dlerror());
    return 1;
  }
  if (g_plans.empty()) {
    std::fprintf(stderr, "plan_seeds: %s registered no plan\n", argv[1]);
    return 1;
  }
  using Entry = int (*)(const void *, void *, size_t, int, int, void *, void *);
  if (auto allReduce = reinterpret_cast<Entry>(dlsym(lib, "cclAllReduce")))
    allReduce(nullptr, nullptr, 0, 0, 0, nullptr, nullptr);
  plan_image::PlanCall call{};
  call.nranks = (uint8_t)(nranks - 2);
  call.flags = plan_image::kCallKernelType |
               (g_selection ? plan_image::kCallSelection : 0) |
               (report ? plan_image::kCallTimeout : 0);
  call.count = 16;
  // The error record the fuzzer's kernel reports when a mutation sets
  // kCallTimeout: rank 1 timed out in the first plan's first wait for a
  // signal of its first channel.
  ccl_error_record record{};
  record.rank = 1;
  record.expected = 1;
  record.waited_ns = 1000000000;
  record.channel = 1;
  const ccl_plan &first = *g_plans.front();
  for (uint32_t o = 0; o < first.num_ops && first.ops; o++)
    if (first.ops[o].kind && std::string(first.ops[o].kind) == "wait") {
      record.op_id = o;
      break;
    }
  const std::string image =
      plan_image::encode(g_plans, g_selection, call, &record);
  std::ofstream out(argv[2], std::ios::binary);
  out.write(image.data(), (std::streamsize)image.size());
  if (!out) {
    std::fprintf(stderr, "plan_seeds: cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf("plan_seeds: %s: %zu plans%s, %zu bytes\n", argv[2],
              g_plans.size(), g_selection ? " and a selection table" : "",
              image.size());
  return 0;
}
