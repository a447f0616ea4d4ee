//===- VerifyExprs.cpp - reduction expressions of the machine -------------===//
//
// The interned reduction expressions the symbolic machine (VerifyMachine.cpp)
// carries beside each chunk's multiset of inputs, and their renderings for
// the rank-consistency and size-invariance messages (VerifyReport.cpp;
// docs/semantics.md, "Rank-consistent results").
//
//===----------------------------------------------------------------------===//

#include "compiler/Transforms/VerifyMachineImpl.h"

using namespace mlir;

namespace ccl {
namespace verify {
namespace detail {

int32_t Exprs::leaf(const Term &t) {
  auto [it, inserted] = leaves.try_emplace(t, int32_t(nodes.size()));
  if (inserted) {
    Node n;
    n.leaf = t;
    nodes.push_back(std::move(n));
  }
  return it->second;
}

int32_t Exprs::combine(int32_t a, int32_t b, Operation *op) {
  if (a < 0 || b < 0)
    return -1;
  auto [it, inserted] = pairs.try_emplace({std::min(a, b), std::max(a, b)},
                                          int32_t(nodes.size()));
  if (inserted) {
    Node n;
    n.a = a;
    n.b = b;
    n.op = op;
    nodes.push_back(std::move(n));
  }
  return it->second;
}

int32_t Exprs::opaque(Operation *op, const Value &terms) {
  Node n;
  n.op = op;
  n.opaque = true;
  n.terms = terms;
  nodes.push_back(std::move(n));
  return int32_t(nodes.size() - 1);
}

std::string Exprs::render(int32_t e, int call) const {
  if (e < 0)
    return "an unknown order";
  const Node &n = nodes[e];
  if (n.opaque)
    return "the switch's reduction of " + verify::render(n.terms, call) +
           " (" + lineOf(n.op) + ")";
  if (n.a < 0)
    return verify::render(Value{{n.leaf, 1}}, call);
  auto operand = [&](int32_t x) {
    std::string r = render(x, call);
    return nodes[x].a >= 0 && !nodes[x].opaque ? "(" + r + ")" : r;
  };
  return operand(n.a) + " + " + operand(n.b);
}

std::string Exprs::shape(int32_t e) const {
  if (e < 0)
    return "?";
  const Node &n = nodes[e];
  if (n.opaque)
    return "switch#" + std::to_string(e);
  if (n.a < 0)
    return "x" + std::to_string(n.leaf.rank);
  std::string a = shape(n.a), b = shape(n.b);
  if (b < a)
    std::swap(a, b);
  return "(" + a + " + " + b + ")";
}

void Exprs::innerNodes(int32_t e, std::vector<int32_t> &out) const {
  if (e < 0 || nodes[e].a < 0)
    return;
  innerNodes(nodes[e].a, out);
  innerNodes(nodes[e].b, out);
  out.push_back(e);
}

} // namespace detail
} // namespace verify
} // namespace ccl
