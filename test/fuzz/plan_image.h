// plan_image.h - the plan tables of a generated library as bytes: the input
// of plan_fuzzer.cc, and what plan_seeds.cc writes from the plans a library
// that cclc generated registers (its seed corpus, test/fuzz/plan_corpus/).
//
// An image is a sequence of tables, each
//
//   u8 kind (ImageKind, modulo kNumKinds), u8 element size,
//   u16 element count (little endian), then the elements.
//
// An element is the bytes of the struct of ccl/plan.h its kind names
// (ccl_plan, ccl_variant, ccl_channel_info, ...) as this build lays it out.
// The decoder copies each element into that struct, zero-extending a
// shorter element (the structs only grow at their end) and ignoring the
// rest of a longer one, so an image follows the header: a field plan.h
// gains is read from the bytes at its offset. Pointer fields are not
// addresses: their low 32 bits are 0 for NULL, else 1 + the index of a
// table of the kind the field points to, among the tables of that kind
// (modulo their number). The decoder replaces each with the address of a
// copy of that table in its own allocation, with as many elements as the
// struct's count field says (num_channels for channels, ...): elements the
// table lacks are zeroed (a truncated table); a count above kMaxElements is
// replaced by the table's own. Strings are kBytes tables (NUL-terminated
// by the decoder); ccl_image::data is a kBytes table too, its size at most
// the table's. ccl_kernel_info::host_fn picks one of the functions the
// caller gives, ccl_selection_row::plans a kPlanRef table of u32 (0: NULL,
// else 1 + the index of a decoded plan).
//
// The decoded plans are the elements of the first kPlan table (at most as
// many as the caller has room for); the selection table is the first
// element of the first kSelection table, the call (what plan_fuzzer.cc does
// with the plans) that of the first kCall table, the error record a kernel
// reports that of the first kRecord table.
//
// When plan.h gains a pointer field, add it to fieldsOf() (plan_image.cc):
// the decoder would otherwise hand its raw bytes to the runtime as an
// address.
#ifndef CCL_TEST_FUZZ_PLAN_IMAGE_H
#define CCL_TEST_FUZZ_PLAN_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ccl/plan.h"

namespace plan_image {

enum ImageKind : uint8_t {
  kCall,      // PlanCall
  kRecord,    // ccl_error_record
  kPlan,      // ccl_plan
  kVariant,   // ccl_variant
  kScratch,   // ccl_scratch_info
  kKernel,    // ccl_kernel_info
  kChannel,   // ccl_channel_info
  kSemaphore, // ccl_semaphore_info
  kBarrier,   // ccl_barrier_info
  kOp,        // ccl_op_info
  kImage,     // ccl_image
  kSelection, // ccl_selection
  kRow,       // ccl_selection_row
  kPlanRef,   // uint32_t: 0 or 1 + the index of a decoded plan
  kBytes,     // bytes: a string, or an image's data
  kNumKinds,
  kHostFn = kNumKinds, // not a table: a function the caller gives
};

// What plan_fuzzer.cc does with the plans (not part of any library).
struct PlanCall {
  uint8_t nranks;     // the communicator has 2 + nranks % 3 ranks
  uint8_t flags;      // kCall* below
  uint8_t dtype;      // cclDataType_t, unless kCallKernelType
  uint8_t redop;      // cclRedOp_t, unless kCallKernelType
  uint8_t kernel;     // kCallKernelType: this kernel of the plan's variant
  uint8_t collective; // cclrtCollective's collective (modulo 7)
  int8_t root;        // cclrtLaunchRooted's and cclrtCollective's root
  uint8_t reserved;
  uint16_t count; // elements (modulo 65)
  uint16_t reserved2;
};

enum : uint8_t {
  kCallInPlace = 1,    // input and output are one buffer
  kCallKernelType = 2, // dtype and op of a kernel of the variant
  kCallSelection = 4,  // call cclrtCollective with the selection table
  kCallTimeout = 8,    // the kernel reports the record as a timeout
  kCallRooted = 16,    // cclrtLaunchRooted with `root` too
};

// Largest element count a table is given (beyond it, the table's own).
constexpr uint32_t kMaxElements = 4096;
// Largest total of decoded tables; references beyond it decode as NULL.
constexpr size_t kMaxDecodedBytes = 16u << 20;

// One decoded image. Owns every table the plans and the selection point to.
class Decoded {
public:
  Decoded() = default;
  Decoded(const Decoded &) = delete;
  Decoded &operator=(const Decoded &) = delete;

  // Decodes `data` (any bytes decode). The plans go to plans[0 ..
  // numPlans - 1]; plan references of the selection rows point into
  // `plans[0 .. maxPlans - 1]`. ccl_kernel_info::host_fn picks among
  // fns[0 .. nfns - 1] (NULL if nfns is 0).
  void decode(const uint8_t *data, size_t size, ccl_plan *plans,
              size_t maxPlans, const ccl_host_kernel_fn *fns, size_t nfns);

  PlanCall call{};
  bool hasRecord = false;
  ccl_error_record record{};
  size_t numPlans = 0;
  bool hasSelection = false;
  ccl_selection selection{};

private:
  struct Table {
    ImageKind kind;
    size_t esize;
    uint32_t n;
    const uint8_t *bytes;
  };
  const void *resolve(ImageKind kind, uint64_t ref, uint32_t *count,
                      uint64_t *size);
  void fill(ImageKind kind, uint8_t *dst, const uint8_t *src, size_t esize);
  void *allocate(size_t bytes);

  std::vector<Table> tables;
  std::vector<std::vector<size_t>> byKind; // indices into tables
  ccl_plan *planSlots = nullptr;
  size_t maxPlans = 0;
  const ccl_host_kernel_fn *fns = nullptr;
  size_t nfns = 0;
  size_t decodedBytes = 0;
  std::map<std::tuple<int, size_t, uint32_t>, void *> memo;
  std::vector<std::unique_ptr<void, void (*)(void *)>> owned;
};

// Writes an image of `plans` (their tables as they are in memory), the
// selection table `sel` (may be NULL; its plan pointers must be among
// `plans`), `call` and `record` (may be NULL).
std::string encode(const std::vector<const ccl_plan *> &plans,
                   const ccl_selection *sel, const PlanCall &call,
                   const ccl_error_record *record = nullptr);

// The size of the struct of a kind (1 for kBytes, 4 for kPlanRef).
size_t elementSize(ImageKind kind);

} // namespace plan_image

#endif // CCL_TEST_FUZZ_PLAN_IMAGE_H
