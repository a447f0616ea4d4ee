//===- SyncLayout.cpp - indices of an algorithm's synchronisation objects -===//

#include "compiler/Conversion/CclToLLVM.h"

#include <set>

using namespace mlir;
using namespace ccl;

std::string SyncLayout::barrierKey(int64_t rank, ArrayRef<int64_t> tbs) {
  std::string key = std::to_string(rank) + ":";
  for (size_t i = 0; i < tbs.size(); ++i)
    key += (i ? "," : "") + std::to_string(tbs[i]);
  return key;
}

SyncLayout SyncLayout::of(AlgorithmOp algo) {
  SyncLayout l;
  for (auto ch : algo.getBody().getOps<ChannelOp>())
    l.channels.push_back(
        {ch.getSymName().str(), int64_t(ch.getSrc()), int64_t(ch.getDst()),
         ch.getKind() == ChannelKind::Port, int64_t(ch.getCreditOrZero())});
  for (auto sem : algo.getBody().getOps<SemaphoreOp>())
    l.semaphores.push_back({sem.getSymName().str(), sem.getRankAttr().getInt()});
  std::set<std::string> seen;
  algo.walk([&](TbBarrierOp bar) {
    int64_t rank = bar.getRankAttr().getInt();
    if (seen.insert(barrierKey(rank, bar.getTbs())).second)
      l.barriers.push_back(
          {rank, std::vector<int64_t>(bar.getTbs().begin(), bar.getTbs().end())});
  });
  return l;
}
