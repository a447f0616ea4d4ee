//===- EvalStmts.cpp - statements and user functions ----------------------===//
//
// Blocks and their scopes, `scratch`, `let`, assignment, `for`, `if`,
// `return`, the step bound that stops a program that does not terminate, and
// calls of the program's own functions (inlined at every call).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;
using ast::Stmt;

namespace ccl {
namespace eval {

namespace {
constexpr size_t kMaxCallDepth = 64;
} // namespace

LogicalResult Evaluator::step(ast::Loc l) {
  if (++steps <= stepLimit)
    return success();
  return error(l) << "evaluation did not finish within " << stepLimit
                  << " steps (a loop that does not terminate, or a program "
                     "too large for "
                  << nranks << " ranks)";
}

LogicalResult Evaluator::stmts(const std::vector<std::unique_ptr<Stmt>> &body) {
  scopes.emplace_back();
  for (const auto &s : body) {
    if (failed(stmt(*s))) {
      scopes.pop_back();
      return failure();
    }
    if (returning)
      break;
  }
  scopes.pop_back();
  return success();
}

LogicalResult Evaluator::stmt(const Stmt &s) {
  if (failed(step(s.loc)))
    return failure();
  switch (s.kind) {
  case Stmt::Scratch:
    return scratchStmt(s);
  case Stmt::Let: {
    if (isPredefined(s.name, lookup(s.name)))
      return error(s.nameLoc) << "'" << s.name
                              << "' is predefined; choose another name";
    auto v = expr(*s.expr);
    if (failed(v))
      return failure();
    scopes.back()[s.name] = *v;
    return success();
  }
  case Stmt::Assign: {
    Value *slot = lookup(s.name);
    if (!slot)
      return error(s.nameLoc) << "unknown identifier '" << s.name
                              << "' (declare it with 'let' first)";
    if (isPredefined(s.name, slot))
      return error(s.nameLoc) << "'" << s.name
                              << "' is predefined and cannot be assigned";
    auto v = expr(*s.expr);
    if (failed(v))
      return failure();
    *lookup(s.name) = *v;
    return success();
  }
  case Stmt::For:
    return forStmt(s);
  case Stmt::While:
    // Each iteration is a step: a loop whose condition never turns false
    // ends at the evaluation budget with its line.
    while (true) {
      if (failed(step(s.loc)))
        return failure();
      auto c = condition(*s.expr, "'while' needs a condition, not ");
      if (failed(c))
        return failure();
      if (!*c)
        return success();
      scopes.emplace_back();
      LogicalResult r = stmts(s.body);
      scopes.pop_back();
      if (failed(r))
        return failure();
      if (returning)
        return success();
    }
  case Stmt::If: {
    auto c = condition(*s.expr, "'if' needs a condition, not ");
    if (failed(c))
      return failure();
    return stmts(*c ? s.body : s.elseBody);
  }
  case Stmt::Return: {
    if (callers.empty())
      return error(s.loc) << "'return' outside a function";
    Value v;
    if (s.expr) {
      auto r = expr(*s.expr);
      if (failed(r))
        return failure();
      v = *r;
    }
    returned = v;
    returning = true;
    return success();
  }
  case Stmt::Ensure:
  case Stmt::Require:
    return contractStmt(s);
  case Stmt::ExprStmt: {
    auto v = expr(*s.expr);
    return failure(failed(v));
  }
  }
  return success();
}

LogicalResult Evaluator::scratchStmt(const Stmt &s) {
  if (mode != Mode::Body)
    return error(s.loc) << "scratch buffers belong in an algorithm";
  if (scopes.size() != 2 || !callers.empty())
    return error(s.loc) << "scratch buffers must be declared at the top "
                           "level of the algorithm";
  if (lookup(s.name) && !scratchSlots.count(s.name))
    return error(s.nameLoc) << "'" << s.name << "' is already defined";
  auto slots = integer(*s.expr);
  if (failed(slots))
    return failure();
  if (*slots < 1)
    return error(s.expr->loc) << "scratch buffer '" << s.name
                              << "' needs at least one slot, not " << *slots;
  if (*slots > (int64_t(1) << 20))
    return error(s.expr->loc) << "scratch buffer '" << s.name << "' with "
                              << *slots << " slots is too large";
  if (instance > 0)
    return success(); // declared by instance 0
  if (scratchSlots.count(s.name))
    return error(s.nameLoc) << "scratch buffer '" << s.name
                            << "' is declared twice";
  scopes.front()[s.name] = Value(Buffer{s.name});
  scratchSlots[s.name] = *slots;
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPoint(&algo.getBody().front(),
                            algo.declarationSlot(AlgorithmOp::Decl::Scratch));
  ScratchOp::create(builder, loc(s.nameLoc), s.name, *slots * instances);
  return success();
}

LogicalResult Evaluator::forStmt(const Stmt &s) {
  if (isPredefined(s.name, lookup(s.name)))
    return error(s.nameLoc) << "'" << s.name
                            << "' is predefined; choose another loop variable";
  auto range = expr(*s.expr);
  if (failed(range))
    return failure();
  // A range is iterated lazily.
  const Range *lazy = range->getIf<Range>();
  std::shared_ptr<const std::vector<Value>> items;
  if (const List *list = range->getIf<List>())
    items = list->items;
  else if (!lazy)
    return error(s.expr->loc) << "a for loop iterates over a range ('a..b' "
                                 "or 'ranks') or a list, not "
                              << range->kindName();
  int64_t n = lazy ? std::max<int64_t>(0, lazy->hi - lazy->lo)
                   : int64_t(items->size());
  for (int64_t k = 0; k < n; ++k) {
    if (failed(step(s.loc)))
      return failure();
    scopes.emplace_back();
    scopes.back()[s.name] = lazy ? Value::integer(lazy->lo + k) : (*items)[k];
    bool take = true;
    if (s.filter) {
      auto c = condition(*s.filter, "loop filter must be a condition, not ");
      if (failed(c)) {
        scopes.pop_back();
        return failure();
      }
      take = *c;
    }
    LogicalResult r = take ? stmts(s.body) : success();
    scopes.pop_back();
    if (failed(r))
      return failure();
    if (returning)
      break;
  }
  return success();
}

FailureOr<Value> Evaluator::callFunction(const ast::Function &f,
                                         const Expr &e) {
  for (const auto &kw : e.argNames)
    if (!kw.empty())
      return error(e.loc) << "function '" << f.name
                          << "' takes positional arguments only";
  if (e.operands.size() != f.params.size())
    return error(e.loc) << "function '" << f.name << "' takes "
                        << f.params.size() << " argument"
                        << (f.params.size() == 1 ? "" : "s") << ", not "
                        << e.operands.size();
  if (callers.size() >= kMaxCallDepth)
    return error(e.loc) << "function calls nest deeper than " << kMaxCallDepth
                        << " (recursion without an end?)";
  std::map<std::string, Value> frame;
  for (size_t i = 0; i < f.params.size(); ++i) {
    auto v = expr(*e.operands[i]);
    if (failed(v))
      return failure();
    frame[f.params[i]] = *v;
  }
  // The body sees the algorithm's globals and its parameters only.
  std::deque<std::map<std::string, Value>> saved;
  saved.swap(scopes);
  scopes.push_back(saved.front());
  scopes.push_back(std::move(frame));
  callers.push_back(loc(e.loc));
  const ast::File *savedFile = curFile;
  curFile = f.file;
  LogicalResult r = stmts(f.body);
  curFile = savedFile;
  callers.pop_back();
  // Globals may have gained scratch buffers; keep them.
  saved.front() = scopes.front();
  scopes.swap(saved);
  Value result = returned;
  returning = false;
  returned = Value();
  if (failed(r))
    return failure();
  return result;
}

} // namespace eval
} // namespace ccl
