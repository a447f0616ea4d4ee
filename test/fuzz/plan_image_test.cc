// plan_image_test.cc - plan_image.h: every seed of the plan fuzzer decodes
// and encodes back to the same bytes, and every prefix of one decodes.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "plan_image.h"

namespace {
void nop(const ccl_dev_ctx *, const void *, void *, uint64_t, uint32_t) {}
} // namespace

int main(int argc, char **argv) {
  int failures = 0;
  const ccl_host_kernel_fn fns[] = {nop};
  for (int i = 1; i < argc; i++) {
    std::ifstream f(argv[i], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)),
                            std::istreambuf_iterator<char>());
    const uint8_t *data = reinterpret_cast<const uint8_t *>(bytes.data());
    ccl_plan plans[4];
    {
      plan_image::Decoded d;
      d.decode(data, bytes.size(), plans, 4, fns, 1);
      std::vector<const ccl_plan *> list;
      for (size_t p = 0; p < d.numPlans; p++)
        list.push_back(&plans[p]);
      const std::string again =
          plan_image::encode(list, d.hasSelection ? &d.selection : nullptr,
                             d.call, d.hasRecord ? &d.record : nullptr);
      if (d.numPlans == 0 || again != bytes) {
        std::fprintf(stderr,
                     "plan_image_test: %s (%zu plans) encodes back to %zu "
                     "bytes, not the same %zu\n",
                     argv[i], d.numPlans, again.size(), bytes.size());
        failures++;
      }
    }
    for (size_t n = 0; n < bytes.size(); n += 7) {
      plan_image::Decoded d;
      d.decode(data, n, plans, 4, fns, 1);
    }
  }
  std::printf("plan_image_test: %d files, %d failed\n", argc - 1, failures);
  return failures ? 1 : 0;
}
