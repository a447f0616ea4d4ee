// amdgpu_metadata.h - part of the HIP test double (fake_libamdhip64.cc):
// the size of each kernel's explicit arguments, read from an AMDGPU code
// object's metadata note (NT_AMDGPU_METADATA, a MessagePack map whose
// "amdhsa.kernels" list the kernels with their ".args": ".offset", ".size",
// ".value_kind"), and their work-group size limits. The hidden arguments
// ("hidden_*": block counts, group sizes, ...) are filled in by HIP itself, so
// a launch passes only the explicit ones; the kernel descriptor's kernarg_size
// counts both.
#ifndef CCL_TEST_FAKE_HIP_AMDGPU_METADATA_H
#define CCL_TEST_FAKE_HIP_AMDGPU_METADATA_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace fakehip {

// What a launch of one kernel must match.
struct KernelMeta {
  uint32_t explicitBytes = 0; // the end of the last explicit argument
  uint32_t maxFlat = 0;       // .max_flat_workgroup_size (0: not given)
  uint32_t reqd[3] = {};      // .reqd_workgroup_size (0s: not given)
};

// Kernel name -> its KernelMeta, for every kernel of the note's descriptor
// `desc` (its MessagePack bytes). False when the bytes are not such a map.
bool kernelMetadata(const unsigned char *desc, size_t size,
                    std::map<std::string, KernelMeta> *out);

} // namespace fakehip

#endif // CCL_TEST_FAKE_HIP_AMDGPU_METADATA_H
