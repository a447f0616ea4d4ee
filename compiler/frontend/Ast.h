//===- Ast.h - syntax tree of the .ccl language ------------------*- C++ -*-===//
//
// Plain C++17 (no LLVM): this header is shared by the parser library, which
// is compiled with exceptions because the ANTLR runtime throws, and by the
// evaluator, which is compiled without. Locations are 1-based.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_FRONTEND_AST_H
#define CCL_FRONTEND_AST_H

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ccl {
namespace ast {

struct Loc {
  unsigned line = 0, col = 0; // 1-based; 0 = unknown
};

struct Expr {
  enum Kind { Int, Ident, Call, Method, Index, Unary, Binary };
  Kind kind;
  Loc loc;
  int64_t intValue = 0;
  /// Int: unused. Ident: the name. Call: the function. Method: the method.
  /// Unary/Binary: the operator spelling.
  std::string name;
  /// Method: the receiver first, then the arguments. Index: base, index.
  /// Call: the arguments. Unary: operand. Binary: lhs, rhs.
  std::vector<std::unique_ptr<Expr>> operands;
  /// For Call and Method: the keyword of each argument ("" if positional),
  /// parallel to the arguments (not including a Method's receiver).
  std::vector<std::string> argNames;

  Expr(Kind kind, Loc loc) : kind(kind), loc(loc) {}
};

struct Stmt {
  enum Kind {
    Scratch,
    Let,
    Assign,
    For,
    While,
    If,
    ExprStmt,
    Return,
    Ensure,
    Require
  };
  Kind kind;
  Loc loc;
  std::string name; ///< scratch/let/assign target, for-loop variable
  Loc nameLoc;
  /// Scratch: slot count. Let/Assign: value. For: iterated range.
  /// If: condition. ExprStmt, Ensure, Require: the expression. Return: the
  /// value (null for a bare `return;`).
  std::unique_ptr<Expr> expr;
  std::unique_ptr<Expr> filter; ///< For: optional `if` filter
  std::vector<std::unique_ptr<Stmt>> body;
  std::vector<std::unique_ptr<Stmt>> elseBody;

  Stmt(Kind kind, Loc loc) : kind(kind), loc(loc) {}
};

/// `name(value)` or `name(value = rhs)` after an algorithm or collective head.
struct Clause {
  std::string name;
  Loc loc;
  std::unique_ptr<Expr> value;
  std::unique_ptr<Expr> rhs; ///< only for `name(value = rhs)`
};

/// An argument in `implements X(...)` or a parameter in `collective X(...)`:
/// `name = value` or, positionally, just `value`.
struct Arg {
  std::string name; ///< "" when positional
  Loc loc;
  std::unique_ptr<Expr> value;
};

struct File;

struct Algorithm {
  std::string name, collective;
  Loc loc, collectiveLoc;
  std::vector<Arg> args; ///< `implements C(inplace, root = 1)`
  std::vector<Clause> clauses;
  std::vector<std::unique_ptr<Stmt>> body;
  const File *file = nullptr;
};

/// `collective NAME(param = default, ...) input(E) output(E) inplace(A = B) {
/// require ...; ensure ...; }`
struct Collective {
  std::string name;
  Loc loc;
  std::vector<Arg> params;
  std::vector<Clause> clauses;
  std::vector<std::unique_ptr<Stmt>> body;
  const File *file = nullptr;
};

/// `fn NAME(a, b) { ... }`, inlined at every call.
struct Function {
  std::string name;
  Loc loc;
  std::vector<std::string> params;
  std::vector<std::unique_ptr<Stmt>> body;
  const File *file = nullptr;
};

/// One row of `select C { ALGORITHM clause*; ... }`.
struct SelectRow {
  std::string algorithm;
  Loc loc;
  std::vector<Clause> clauses; ///< nranks(...), max_bytes(...)
};

/// `select COLLECTIVE [TABLE] { rows }`: which algorithm of a bundled
/// library serves a call of the collective (the first row that matches);
/// TABLE is empty for the default table, else `deterministic`.
struct Select {
  std::string collective;
  std::string table;
  Loc loc, tableLoc;
  std::vector<SelectRow> rows;
  const File *file = nullptr;
};

struct Import {
  std::string path; ///< as written, without quotes
  Loc loc;
};

struct File {
  std::string path;
  std::vector<Import> imports;
  std::vector<std::unique_ptr<Algorithm>> algorithms;
  std::vector<std::unique_ptr<Collective>> collectives;
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<std::unique_ptr<Select>> selects;
};

struct Diagnostic {
  Loc loc;
  std::string message;
};

/// Parses `source`. On a syntax error returns null and appends the error to
/// `diags`. Never throws.
std::unique_ptr<File> parse(const std::string &source, const std::string &path,
                            std::vector<Diagnostic> &diags);

/// Prints the tree in a readable indented form (`cclc --emit=ast`).
void print(const File &file, std::ostream &os);

} // namespace ast
} // namespace ccl

#endif // CCL_FRONTEND_AST_H
