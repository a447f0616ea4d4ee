// plan_fuzzer.h - what plan_fuzzer.cc tells plan_replay.cc about the last
// input it ran.
#ifndef CCL_TEST_FUZZ_PLAN_FUZZER_H
#define CCL_TEST_FUZZ_PLAN_FUZZER_H

#include <cstddef>
#include <cstdint>
#include <string>

struct PlanFuzzerStats {
  int plans = 0;          // plans decoded from the input
  int plansLaunched = 0;  // of them, launched by every rank
  int collectives = 0;    // cclrtCollective calls that succeeded
  std::string firstError; // the first launch's error, if any failed
};

// The statistics of the last LLVMFuzzerTestOneInput.
const PlanFuzzerStats &planFuzzerStats();

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif // CCL_TEST_FUZZ_PLAN_FUZZER_H
