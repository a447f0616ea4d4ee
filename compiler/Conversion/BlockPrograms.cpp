//===- BlockPrograms.cpp - thread blocks that share one code path ---------===//
//
// Instances, tiles and (in symmetric algorithms) ranks are copies of one
// block program that differ only in chunk offsets, slot indices, peers and
// the channels, semaphores and barriers they use. Two thread blocks have
// the same shape when their operations are the same kinds with the same
// attributes in the same order, up to integers and up to the names of the
// channels and semaphores (with the same pattern of equal names inside the
// block). The lowering emits one code path per shape; this grouping is what
// `cclc --emit=sched` reports and what decides between one kernel for all
// ranks and one per rank.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace mlir;
using namespace ccl;

namespace {

/// Appends the shape of `attr` to `sig`: integers (other than flags) and
/// symbol names are parameters; everything else is part of the shape.
void encode(Attribute attr, std::vector<uintptr_t> &sig,
            llvm::DenseMap<Attribute, uintptr_t> &symbols) {
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (i.getType().isInteger(1)) { // a flag: part of the shape
      sig.push_back(reinterpret_cast<uintptr_t>(attr.getAsOpaquePointer()));
      return;
    }
    sig.push_back(1); // an integer parameter
    return;
  }
  if (auto ref = dyn_cast<ChunkRefAttr>(attr)) {
    // The buffer decides the addressing (input/output or scratch, padding);
    // rank, index and count are parameters.
    sig.push_back(2);
    sig.push_back(llvm::hash_value(ref.getBuffer()));
    return;
  }
  if (auto sym = dyn_cast<FlatSymbolRefAttr>(attr)) {
    // Which earlier name of the block it equals (one signal per distinct
    // forward channel, for instance, depends on it).
    auto [it, fresh] = symbols.try_emplace(attr, symbols.size());
    sig.push_back(3);
    sig.push_back(it->second);
    return;
  }
  if (auto arr = dyn_cast<ArrayAttr>(attr)) {
    sig.push_back(4);
    sig.push_back(arr.size());
    for (Attribute a : arr)
      encode(a, sig, symbols);
    return;
  }
  if (auto arr = dyn_cast<DenseI64ArrayAttr>(attr)) {
    sig.push_back(5);
    sig.push_back(arr.size());
    return;
  }
  sig.push_back(reinterpret_cast<uintptr_t>(attr.getAsOpaquePointer()));
}

/// Attributes of the analyses (the chunk DAG's ids and dependencies) that
/// code generation does not read.
bool isAnalysisAttr(StringRef name) {
  return name == "ccl.dag_id" || name == "ccl.raw" || name == "ccl.war" ||
         name == "ccl.waw";
}

std::vector<uintptr_t> shapeOf(ThreadBlockOp tb) {
  std::vector<uintptr_t> sig;
  llvm::DenseMap<Attribute, uintptr_t> symbols;
  for (Operation &op : tb.getBody().front()) {
    OperationName name = op.getName();
    sig.push_back(reinterpret_cast<uintptr_t>(name.getAsOpaquePointer()));
    // The attributes without a dictionary (forEachAttr); two blocks are
    // read in the same order, so the shapes that are equal are the same as
    // by getAttrs.
    forEachAttr(&op, [&](StringAttr attrName, Attribute v) {
      if (!v) {
        sig.push_back(0); // absent
        return;
      }
      if (isAnalysisAttr(attrName.getValue()))
        return;
      sig.push_back(reinterpret_cast<uintptr_t>(attrName.getAsOpaquePointer()));
      encode(v, sig, symbols);
    });
  }
  return sig;
}

} // namespace

ProgramSet ProgramSet::of(AlgorithmOp algo) {
  ProgramSet p;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
    if (p.shapes.insert(shapeOf(tb)).second)
      p.ops += static_cast<int64_t>(tb.getBody().front().getOperations().size());
  return p;
}

BlockPrograms BlockPrograms::of(AlgorithmOp algo) {
  BlockPrograms p;
  p.nranks = algo.getNranks();
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>())
    p.nblocks = std::max<int64_t>(p.nblocks, tb.getTb() + 1);
  p.programOf.assign(p.nranks * p.nblocks, -1);
  std::map<std::vector<uintptr_t>, int32_t> shapes;
  for (auto tb : algo.getBody().getOps<ThreadBlockOp>()) {
    auto [it, fresh] =
        shapes.try_emplace(shapeOf(tb), static_cast<int32_t>(shapes.size()));
    p.programOf[tb.getRank() * p.nblocks + tb.getTb()] = it->second;
  }
  p.count = static_cast<int64_t>(shapes.size());
  // One kernel for every rank pays off when the ranks share their programs
  // (in whatever order their blocks run them): all ranks together have at
  // most twice as many as the rank with the most.
  int64_t mostPerRank = 0;
  for (int64_t r = 0; r < p.nranks; ++r) {
    llvm::SmallDenseSet<int32_t> own;
    for (int64_t t = 0; t < p.nblocks; ++t)
      if (p.programOf[r * p.nblocks + t] >= 0)
        own.insert(p.programOf[r * p.nblocks + t]);
    mostPerRank = std::max<int64_t>(mostPerRank, own.size());
  }
  p.rankParametric = p.count <= 2 * mostPerRank;
  return p;
}
