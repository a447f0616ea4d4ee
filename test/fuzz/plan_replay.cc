// plan_replay.cc - runs plan_fuzzer.cc on files, without libFuzzer: the
// test suite's replay of the plan fuzzer's seed corpus and of the inputs
// of fixed bugs (//test/fuzz:plan_replay_test, normal build).
//
//   plan_replay [--accept] PATH... [--any PATH...]
//
// Each PATH is a file or a directory (every file in it). After --accept
// (the default) the files are plans cclc generated (plan_seeds.cc): every
// plan in them must be launched by every rank, or the replay fails with
// the runtime's error (a stale corpus after a plan ABI change says so:
// run test/fuzz/gen_plan_corpus.sh). After --any a file only has to run
// without a crash or a trap.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "plan_fuzzer.h"

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  bool accept = true;
  int files = 0, failures = 0;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--accept" || arg == "--any") {
      accept = arg == "--accept";
      continue;
    }
    std::vector<fs::path> paths;
    if (fs::is_directory(arg)) {
      for (const auto &e : fs::directory_iterator(arg))
        if (e.is_regular_file())
          paths.push_back(e.path());
      std::sort(paths.begin(), paths.end());
    } else {
      paths.push_back(arg);
    }
    for (const fs::path &p : paths) {
      std::ifstream f(p, std::ios::binary);
      if (!f) {
        std::fprintf(stderr, "plan_replay: cannot read %s\n", p.c_str());
        return 2;
      }
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                 std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      files++;
      const PlanFuzzerStats &s = planFuzzerStats();
      if (accept && (s.plans == 0 || s.plansLaunched != s.plans)) {
        std::fprintf(stderr,
                     "plan_replay: %s: %d of its %d plans launched on every "
                     "rank; the runtime said: %s\n(a seed written by "
                     "plan_seeds must be accepted; after a change of "
                     "ccl/plan.h, rerun test/fuzz/gen_plan_corpus.sh)\n",
                     p.c_str(), s.plansLaunched, s.plans,
                     s.firstError.empty() ? "nothing" : s.firstError.c_str());
        failures++;
      }
    }
  }
  std::printf("plan_replay: %d files, %d failed\n", files, failures);
  return failures ? 1 : 0;
}
