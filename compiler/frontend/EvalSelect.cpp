//===- EvalSelect.cpp - selection tables of a bundled library -------------===//
//
// `select COLLECTIVE { ALGORITHM min_ranks(A) max_ranks(B) max_bytes(C); ... }`
// in the main file makes the library a bundle: its NCCL-shaped entry point
// for the collective (cclAllReduce, ...) serves a call with the first row
// whose rank range and byte bound hold the call and whose algorithm has a
// kernel for it (docs/language.md, "Selection tables"). `select COLLECTIVE
// deterministic { ... }` is the table a communicator asks for with
// CCL_DETERMINISTIC=1: its algorithms promise bits(deterministic). The rows
// become the module attribute `cclc.selection`; an algorithm a row names
// that lives in an imported file is compiled too.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace ccl;

namespace ccl {
namespace eval {

namespace {
/// What a row says once its clauses are evaluated.
struct Row {
  const ast::SelectRow *row;
  int64_t minRanks = 1, maxRanks = -1; ///< -1: no bound
  int64_t maxBytes = -1;               ///< -1: no bound
  /// Whether this row takes every call that `later` would.
  bool covers(const Row &later) const {
    bool ranks = minRanks <= later.minRanks &&
                 (maxRanks < 0 || (later.maxRanks >= 0 &&
                                   later.maxRanks <= maxRanks));
    bool bytes = maxBytes < 0 || (later.maxBytes >= 0 &&
                                  later.maxBytes <= maxBytes);
    return ranks && bytes;
  }
};
} // namespace

LogicalResult Evaluator::selections(const ast::File &main, ModuleOp module) {
  llvm::StringMap<const ast::Select *> seen;
  SmallVector<Attribute> rows;
  Builder b(ctx);
  for (const auto &sel : main.selects) {
    curFile = &main;
    if (!collectives.count(sel->collective))
      return error(sel->loc) << "unknown collective '" << sel->collective
                             << "' in a selection table";
    const bool deterministic = !sel->table.empty();
    if (deterministic && sel->table != "deterministic")
      return error(sel->tableLoc)
             << "unknown selection table '" << sel->table
             << "'; a collective has its default table (`select "
             << sel->collective << " { ... }`) and may have a deterministic "
                "one (`select " << sel->collective
             << " deterministic { ... }`)";
    if (deterministic && sel->collective != "AllReduce" &&
        sel->collective != "ReduceScatter" && sel->collective != "Reduce")
      return error(sel->tableLoc)
             << sel->collective
             << " reduces nothing, so every algorithm of it gives the same "
                "bits: only AllReduce, ReduceScatter and Reduce have a "
                "deterministic table (a deterministic communicator's "
             << sel->collective << " calls use the default one)";
    auto [it, inserted] =
        seen.try_emplace(sel->collective + " " + sel->table, sel.get());
    if (!inserted) {
      InFlightDiagnostic d = error(sel->loc)
                             << "a second " << (deterministic ? "deterministic " : "")
                             << "selection table for "
                             << sel->collective;
      d.attachNote(fileLoc(&main, it->second->loc))
          << "the first one is here";
      return failure();
    }
    if (sel->rows.empty())
      return error(sel->loc) << "the selection table for " << sel->collective
                             << " has no rows";
    std::vector<Row> done;
    for (const ast::SelectRow &r : sel->rows) {
      const ast::Algorithm *a = findAlgorithm(r.algorithm);
      if (!a)
        return error(r.loc) << "no algorithm '" << r.algorithm
                            << "' in this file or the files it imports";
      if (a->collective != sel->collective)
        return error(r.loc) << "algorithm '" << r.algorithm
                            << "' implements " << a->collective << ", not "
                            << sel->collective;
      // The verifier proves the promise; the table takes only algorithms
      // that make it.
      if (deterministic &&
          llvm::none_of(a->clauses, [](const ast::Clause &c) {
            return c.name == "bits" && c.value &&
                   c.value->kind == ast::Expr::Ident &&
                   symbolizeBits(c.value->name) == Bits::Deterministic;
          })) {
        InFlightDiagnostic d =
            error(r.loc) << "algorithm '" << r.algorithm
                         << "' does not promise bits(deterministic), which "
                            "every algorithm of a deterministic table must "
                            "(declare it, and the verifier proves it)";
        d.attachNote(fileLoc(a->file, a->loc)) << "the algorithm is here";
        return failure();
      }
      Row row{&r};
      llvm::StringSet<> given;
      scopes.clear();
      scopes.emplace_back();
      mode = Mode::Clause;
      for (const ast::Clause &c : r.clauses) {
        if (c.name != "min_ranks" && c.name != "max_ranks" &&
            c.name != "max_bytes")
          return error(c.loc) << "unknown clause '" << c.name
                              << "' of a selection row; expected min_ranks, "
                                 "max_ranks or max_bytes";
        if (!given.insert(c.name).second)
          return error(c.loc) << "clause '" << c.name << "' is given twice";
        if (c.rhs)
          return error(c.loc) << "clause '" << c.name
                              << "' takes one integer";
        FailureOr<int64_t> v = integer(*c.value);
        if (failed(v))
          return failure();
        int64_t least = c.name == "max_bytes" ? 0 : 1;
        if (*v < least)
          return error(c.value->loc)
                 << c.name << " must be at least " << least << ", not " << *v;
        (c.name == "min_ranks"   ? row.minRanks
         : c.name == "max_ranks" ? row.maxRanks
                                 : row.maxBytes) = *v;
      }
      if (row.maxRanks >= 0 && row.maxRanks < row.minRanks)
        return error(r.loc) << "the row serves no rank count: min_ranks("
                            << row.minRanks << ") is above max_ranks("
                            << row.maxRanks << ")";
      // A row covered by an earlier row of another algorithm is a
      // fallback: it serves when that algorithm's plan cannot (it could not
      // be prepared on the machine, e.g. its thread blocks do not fit). Of
      // the same algorithm it is never chosen.
      for (const Row &earlier : done)
        if (earlier.covers(row) && earlier.row->algorithm == r.algorithm) {
          InFlightDiagnostic d =
              error(r.loc) << "this row is never chosen: the row of '"
                           << earlier.row->algorithm
                           << "' above takes every call it would";
          d.attachNote(fileLoc(&main, earlier.row->loc))
              << "that row is here";
          return failure();
        }
      done.push_back(row);
      SmallVector<NamedAttribute> fields{
          b.getNamedAttr("collective", b.getStringAttr(sel->collective)),
          b.getNamedAttr("algorithm", b.getStringAttr(r.algorithm)),
          b.getNamedAttr("min_ranks", b.getI64IntegerAttr(row.minRanks)),
          b.getNamedAttr("max_ranks", b.getI64IntegerAttr(row.maxRanks)),
          b.getNamedAttr("max_bytes", b.getI64IntegerAttr(row.maxBytes)),
          b.getNamedAttr("loc", b.getStringAttr(
                                    main.path + ":" + std::to_string(r.loc.line) +
                                    ":" + std::to_string(r.loc.col))),
      };
      if (deterministic)
        fields.push_back(
            b.getNamedAttr("table", b.getStringAttr(sel->table)));
      rows.push_back(b.getDictionaryAttr(fields));
    }
  }
  scopes.clear();
  if (rows.empty())
    return success();
  module->setAttr("cclc.selection", b.getArrayAttr(rows));
  // A bundle: every imported algorithm, after the file's own, in the order
  // the files were loaded (a name of the file's own wins).
  for (const ast::Algorithm *a : importedInOrder)
    if (!findMainAlgorithm(a->name))
      algorithms.push_back(a);
  return success();
}

const ast::Algorithm *
Evaluator::findMainAlgorithm(llvm::StringRef name) const {
  for (const ast::Algorithm *a : algorithms)
    if (a->name == name)
      return a;
  return nullptr;
}

const ast::Algorithm *Evaluator::findAlgorithm(llvm::StringRef name) const {
  if (const ast::Algorithm *a = findMainAlgorithm(name))
    return a;
  auto it = importedAlgorithms.find(name);
  return it == importedAlgorithms.end() ? nullptr : it->second;
}

} // namespace eval
} // namespace ccl
