//===- ImageCheck.cpp - every kernel a plan names is in its images --------===//
//
// Before the .so is written: every kernel the plans name (per variant,
// element type and operator, and on GPU targets per rank: `<kernel>_r<R>`
// or `<kernel>`, the runtime's lookup) is defined in each device image the
// library carries: a PTX `.entry`, a symbol of the cubin or AMDGPU code
// object, a defined function of the host object. A missing one is an
// internal compiler error, never a library that fails when it loads.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Codegen.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ccl;

namespace {

/// The functions an ELF image defines.
bool definedSymbols(StringRef image, StringRef what, StringSet<> &out,
                    std::string &error) {
  auto obj = object::ObjectFile::createObjectFile(
      MemoryBufferRef(image, what));
  if (!obj) {
    error = "internal compiler error: the " + what.str() +
            " cclc produced is not an object file it can read: " +
            toString(obj.takeError());
    return false;
  }
  for (const object::SymbolRef &sym : (*obj)->symbols()) {
    Expected<uint32_t> flags = sym.getFlags();
    Expected<StringRef> name = sym.getName();
    if (!flags || !name) {
      consumeError(flags.takeError());
      consumeError(name.takeError());
      continue;
    }
    if (!(*flags & object::SymbolRef::SF_Undefined))
      out.insert(*name);
  }
  return true;
}

/// The `.entry` names of a PTX text.
void ptxEntries(StringRef ptx, StringSet<> &out) {
  for (size_t at = ptx.find(".entry "); at != StringRef::npos;
       at = ptx.find(".entry ", at + 1)) {
    StringRef rest = ptx.substr(at + 7).ltrim();
    out.insert(rest.take_until([](char c) {
      return c == '(' || c == ' ' || c == '\n' || c == '\t';
    }));
  }
}

} // namespace

bool ccl::checkImagesHaveKernels(const PlanInfo &plan,
                                 const TargetArtifacts &art,
                                 std::string &error) {
  struct Image {
    std::string what;
    StringSet<> names;
  };
  std::vector<Image> images;
  std::unique_ptr<TargetInfo> target = createTargetInfo(art.target);
  if (!target) {
    error = "internal compiler error: unknown target '" + art.target + "'";
    return false;
  }
  if (!art.object.empty()) {
    images.push_back({art.target + " object", {}});
    if (!definedSymbols(art.object, images.back().what, images.back().names,
                        error))
      return false;
  }
  if (!art.ptx.empty()) {
    images.push_back({art.target + " PTX", {}});
    ptxEntries(art.ptx, images.back().names);
  }
  if (!art.cubin.empty()) {
    images.push_back({art.target + " cubin", {}});
    if (!definedSymbols(art.cubin, images.back().what, images.back().names,
                        error))
      return false;
  }
  if (!art.hsaco.empty()) {
    images.push_back({art.target + " code object", {}});
    if (!definedSymbols(art.hsaco, images.back().what, images.back().names,
                        error))
      return false;
  }
  for (const Image &image : images)
    for (const AlgorithmInfo &a : plan.algorithms)
      for (const VariantInfo &v : a.variants)
        for (const std::string &d : plan.dtypes)
          for (const std::string &o : plan.redops) {
            std::string name = kernelName(v.kernelOn(*target), d, o);
            for (int64_t r = 0; r < v.nranks; ++r) {
              std::string own = name + "_r" + std::to_string(r);
              if (image.names.contains(own) || image.names.contains(name))
                continue;
              error = "internal compiler error: the plan of algorithm '" +
                      v.symbol + "' (" + std::to_string(v.nranks) +
                      " ranks) names kernel '" + name + "' for rank " +
                      std::to_string(r) + ", which the " + image.what +
                      " does not define (nor '" + own +
                      "'); no library is written";
              return false;
            }
          }
  return true;
}
