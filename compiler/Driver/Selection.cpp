//===- Selection.cpp - a bundled library's selection table ---------------===//
//
// The rows of `select` items (module attribute `cclc.selection`, written by
// the frontend), the largest message each algorithm's plan must support,
// and the table as `cclc --print-selection` prints it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Codegen.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;
using namespace ccl;

std::vector<SelectionRow> ccl::selectionOf(ModuleOp module) {
  std::vector<SelectionRow> rows;
  auto table = module->getAttrOfType<ArrayAttr>("cclc.selection");
  if (!table)
    return rows;
  for (Attribute a : table) {
    auto d = cast<DictionaryAttr>(a);
    SelectionRow r;
    r.collective = d.getAs<StringAttr>("collective").str();
    r.algorithm = d.getAs<StringAttr>("algorithm").str();
    r.minRanks = d.getAs<IntegerAttr>("min_ranks").getInt();
    r.maxRanks = d.getAs<IntegerAttr>("max_ranks").getInt();
    r.maxBytes = d.getAs<IntegerAttr>("max_bytes").getInt();
    r.where = d.getAs<StringAttr>("loc").str();
    if (auto t = d.getAs<StringAttr>("table"))
      r.deterministic = t.getValue() == "deterministic";
    rows.push_back(r);
  }
  return rows;
}

void ccl::setAlgorithmMaxBytes(ModuleOp module, uint64_t maxBytes) {
  // Per algorithm: the largest bound of its rows, or none when a row has
  // none (or no row names it: it serves only through CCL_ALGO).
  llvm::StringMap<uint64_t> bound;
  llvm::StringSet<> unbounded;
  for (const SelectionRow &r : selectionOf(module)) {
    if (r.maxBytes < 0) {
      unbounded.insert(r.algorithm);
      continue;
    }
    uint64_t &b = bound[r.algorithm];
    b = std::max<uint64_t>(b, (uint64_t)r.maxBytes);
  }
  Builder b(module.getContext());
  SmallVector<NamedAttribute> limits;
  llvm::StringSet<> done;
  for (AlgorithmOp algo : module.getOps<AlgorithmOp>()) {
    StringRef name = algo.getName();
    if (!done.insert(name).second)
      continue;
    uint64_t limit = maxBytes;
    auto it = bound.find(name);
    if (it != bound.end() && !unbounded.count(name))
      limit = std::min<uint64_t>(maxBytes, std::max<uint64_t>(it->second, 1));
    limits.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(limit)));
  }
  module->setAttr("cclc.max_bytes", b.getDictionaryAttr(limits));
}

std::string ccl::bitsOf(AlgorithmOp algo) {
  if (algo.requiresRankOrderFold())
    return "deterministic";
  if (algo.requiresSizeInvariance())
    return "size_invariant";
  return algo.requiresRankConsistency() ? "rank_consistent" : "any";
}

void ccl::printSelection(const std::vector<SelectionRow> &rows,
                         const std::vector<AlgorithmInfo> &algorithms,
                         llvm::raw_ostream &os) {
  if (rows.empty()) {
    os << "# no selection table: the library is not a bundle (add `select` "
          "items)\n";
    return;
  }
  // The algorithm column fits the longest name.
  size_t width = 20;
  for (const SelectionRow &r : rows)
    width = std::max(width, r.algorithm.size());
  os << "# selection table: the first row that holds the call and whose "
        "algorithm has a kernel for it serves it\n"
     << "# collective      ranks     max-bytes  "
     << llvm::left_justify("algorithm", width)
     << "  plan-max-bytes  bits             row\n";
  auto print = [&](const SelectionRow &r) {
    std::string ranks = std::to_string(r.minRanks) + ".." +
                        (r.maxRanks < 0 ? std::string("") :
                                          std::to_string(r.maxRanks));
    std::string bytes = r.maxBytes < 0 ? "any" : std::to_string(r.maxBytes);
    uint64_t planMax = 0;
    std::string bits = "any";
    for (const AlgorithmInfo &a : algorithms)
      if (a.name == r.algorithm) {
        planMax = a.maxBytes;
        bits = a.bits;
      }
    os << llvm::left_justify(r.collective, 16) << "  "
       << llvm::left_justify(ranks, 8) << "  " << llvm::right_justify(bytes, 12)
       << "  " << llvm::left_justify(r.algorithm, width) << "  "
       << llvm::right_justify(std::to_string(planMax), 14) << "  "
       << llvm::left_justify(bits, 15) << "  " << r.where << "\n";
  };
  for (const SelectionRow &r : rows)
    if (!r.deterministic)
      print(r);
  if (llvm::any_of(rows, [](const SelectionRow &r) { return r.deterministic; })) {
    os << "# deterministic table (CCL_DETERMINISTIC=1, cclConfig_t::"
          "deterministic): AllReduce, ReduceScatter and Reduce; the others "
          "use the table above\n";
    for (const SelectionRow &r : rows)
      if (r.deterministic)
        print(r);
  }
  std::string others;
  for (const AlgorithmInfo &a : algorithms)
    if (llvm::none_of(rows, [&](const SelectionRow &r) {
          return r.algorithm == a.name;
        }))
      others += " " + a.name;
  if (!others.empty())
    os << "# in the library without a row (CCL_ALGO can force them):" << others
       << "\n";
}
