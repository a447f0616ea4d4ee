//===- Parser.cpp - .ccl parser (ANTLR boundary) ----------------------------===//
//
// Compiled with exceptions: the ANTLR runtime throws. Everything ANTLR
// reports becomes an ast::Diagnostic with a 1-based location, nothing is
// printed to the console, and no exception leaves this file.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Ast.h"

#include "compiler/frontend/CclLexer.h"
#include "compiler/frontend/CclParser.h"
#include "antlr4-runtime.h"

#include <sstream>

using namespace ccl::ast;
using antlr4::Token;
using ccl_antlr::CclLexer;
using ccl_antlr::CclParser;

namespace {

Loc locOf(const Token *tok) {
  if (!tok)
    return {};
  return {static_cast<unsigned>(tok->getLine()),
          static_cast<unsigned>(tok->getCharPositionInLine()) + 1};
}

Loc locOf(antlr4::ParserRuleContext *ctx) {
  return ctx ? locOf(ctx->getStart()) : Loc{};
}

/// Collects the first syntax error; later ones are usually consequences.
class CollectingErrorListener : public antlr4::BaseErrorListener {
public:
  explicit CollectingErrorListener(std::vector<Diagnostic> &diags)
      : diags(diags) {}
  void syntaxError(antlr4::Recognizer *, Token *offending, size_t line,
                   size_t col, const std::string &msg,
                   std::exception_ptr) override {
    if (failed)
      return;
    failed = true;
    std::string text = msg;
    if (offending && offending->getType() == Token::EOF)
      text = "unexpected end of file";
    diags.push_back({{static_cast<unsigned>(line),
                      static_cast<unsigned>(col) + 1},
                     "syntax error: " + text});
  }
  bool failed = false;

private:
  std::vector<Diagnostic> &diags;
};

/// Nesting limits: deeper programs are rejected with a diagnostic instead
/// of overflowing the stack of the parser or the evaluator.
constexpr int kMaxNesting = 200;
constexpr int kMaxExprDepth = 256;

/// Checks bracket nesting and runs of prefix operators on the token stream,
/// before the (recursive) parser sees it.
bool checkNesting(antlr4::CommonTokenStream &tokens,
                  std::vector<Diagnostic> &diags) {
  int depth = 0, unary = 0;
  for (Token *t : tokens.getTokens()) {
    const std::string text = t->getType() == Token::EOF ? "" : t->getText();
    if (text == "(" || text == "[" || text == "{") {
      if (++depth > kMaxNesting) {
        diags.push_back({locOf(t), "brackets and blocks nest deeper than " +
                                       std::to_string(kMaxNesting) +
                                       " levels"});
        return false;
      }
    } else if (text == ")" || text == "]" || text == "}") {
      --depth;
    }
    if (text == "-" || text == "!") {
      if (++unary > kMaxNesting) {
        diags.push_back({locOf(t), "more than " + std::to_string(kMaxNesting) +
                                       " operators '-'/'!' in a row"});
        return false;
      }
    } else {
      unary = 0;
    }
  }
  return true;
}

class Builder {
public:
  /// The first limit exceeded while building, if any.
  std::vector<Diagnostic> errors;

  std::unique_ptr<Expr> expr(CclParser::ExprContext *ctx);
  std::vector<std::unique_ptr<Stmt>> block(CclParser::BlockContext *ctx);
  std::unique_ptr<Stmt> stmt(CclParser::StmtContext *ctx);
  std::unique_ptr<Stmt> ifStmt(CclParser::IfStatementContext *ctx);
  void item(CclParser::ItemContext *ctx, File &file);

private:
  int exprDepth = 0;
  void args(Expr &e, CclParser::ArgListContext *list);
  std::vector<Arg> headArgs(CclParser::ArgListContext *list);
  std::vector<Clause> clauses(const std::vector<CclParser::ClauseContext *> &list);
};

void Builder::args(Expr &e, CclParser::ArgListContext *list) {
  if (!list)
    return;
  for (auto *a : list->arg()) {
    e.argNames.push_back(a->name ? a->name->getText() : "");
    e.operands.push_back(expr(a->expr()));
  }
}

std::unique_ptr<Expr> Builder::expr(CclParser::ExprContext *ctx) {
  struct Depth {
    int &d;
    explicit Depth(int &d) : d(++d) {}
    ~Depth() { --d; }
  } guard(exprDepth);
  if (exprDepth > kMaxExprDepth) {
    if (errors.empty())
      errors.push_back({locOf(ctx), "expression nested deeper than " +
                                        std::to_string(kMaxExprDepth) +
                                        " levels; split it with 'let'"});
    return std::make_unique<Expr>(Expr::Int, locOf(ctx));
  }
  if (auto *c = dynamic_cast<CclParser::CallExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Call, locOf(c->fn));
    e->name = c->fn->getText();
    args(*e, c->argList());
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::IntExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Int, locOf(ctx));
    const std::string text = c->INT()->getText();
    // Saturate; the evaluator rejects values this large.
    e->intValue = text.size() > 18 ? INT64_MAX : std::stoll(text);
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::IdExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Ident, locOf(ctx));
    e->name = c->ID()->getText();
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::ParenExprContext *>(ctx))
    return expr(c->expr());
  if (auto *c = dynamic_cast<CclParser::MethodExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Method, locOf(c->method));
    e->name = c->method->getText();
    e->operands.push_back(expr(c->base));
    args(*e, c->argList());
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::IndexExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Index, locOf(ctx));
    e->operands.push_back(expr(c->base));
    e->operands.push_back(expr(c->index));
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::UnaryExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Unary, locOf(c->op));
    e->name = c->op->getText();
    e->operands.push_back(expr(c->operand));
    return e;
  }
  if (auto *c = dynamic_cast<CclParser::BinaryExprContext *>(ctx)) {
    auto e = std::make_unique<Expr>(Expr::Binary, locOf(c->op));
    e->name = c->op->getText();
    e->operands.push_back(expr(c->lhs));
    e->operands.push_back(expr(c->rhs));
    return e;
  }
  // Only reachable on a tree the parser marked as erroneous.
  return std::make_unique<Expr>(Expr::Int, locOf(ctx));
}

std::vector<std::unique_ptr<Stmt>>
Builder::block(CclParser::BlockContext *ctx) {
  std::vector<std::unique_ptr<Stmt>> out;
  if (ctx)
    for (auto *s : ctx->stmt())
      out.push_back(stmt(s));
  return out;
}

std::unique_ptr<Stmt> Builder::ifStmt(CclParser::IfStatementContext *c) {
  auto s = std::make_unique<Stmt>(Stmt::If, locOf(c));
  s->expr = expr(c->cond);
  s->body = block(c->then);
  if (c->elseBlock)
    s->elseBody = block(c->elseBlock);
  else if (c->elseIf)
    s->elseBody.push_back(ifStmt(c->elseIf));
  return s;
}

std::unique_ptr<Stmt> Builder::stmt(CclParser::StmtContext *ctx) {
  if (auto *c = dynamic_cast<CclParser::ScratchStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Scratch, locOf(ctx));
    s->name = c->name->getText();
    s->nameLoc = locOf(c->name);
    s->expr = expr(c->expr());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::LetStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Let, locOf(ctx));
    s->name = c->name->getText();
    s->nameLoc = locOf(c->name);
    s->expr = expr(c->expr());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::AssignStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Assign, locOf(ctx));
    s->name = c->name->getText();
    s->nameLoc = locOf(c->name);
    s->expr = expr(c->expr());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::ForStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::For, locOf(ctx));
    s->name = c->var->getText();
    s->nameLoc = locOf(c->var);
    s->expr = expr(c->iter);
    if (c->cond)
      s->filter = expr(c->cond);
    s->body = block(c->block());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::WhileStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::While, locOf(ctx));
    s->expr = expr(c->cond);
    s->body = block(c->block());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::IfStmtContext *>(ctx))
    return ifStmt(c->ifStatement());
  if (auto *c = dynamic_cast<CclParser::ReturnStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Return, locOf(ctx));
    if (c->expr())
      s->expr = expr(c->expr());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::EnsureStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Ensure, locOf(ctx));
    s->expr = expr(c->expr());
    return s;
  }
  if (auto *c = dynamic_cast<CclParser::RequireStmtContext *>(ctx)) {
    auto s = std::make_unique<Stmt>(Stmt::Require, locOf(ctx));
    s->expr = expr(c->expr());
    return s;
  }
  auto *c = dynamic_cast<CclParser::ExprStmtContext *>(ctx);
  auto s = std::make_unique<Stmt>(Stmt::ExprStmt, locOf(ctx));
  if (c)
    s->expr = expr(c->expr());
  else
    s->expr = std::make_unique<Expr>(Expr::Int, locOf(ctx));
  return s;
}

std::vector<Arg> Builder::headArgs(CclParser::ArgListContext *list) {
  std::vector<Arg> out;
  if (!list)
    return out;
  for (auto *a : list->arg()) {
    Arg arg;
    arg.name = a->name ? a->name->getText() : "";
    arg.loc = a->name ? locOf(a->name) : locOf(a->expr());
    arg.value = expr(a->expr());
    out.push_back(std::move(arg));
  }
  return out;
}

std::vector<Clause>
Builder::clauses(const std::vector<CclParser::ClauseContext *> &list) {
  std::vector<Clause> out;
  for (auto *cl : list) {
    Clause clause;
    clause.name = cl->name->getText();
    clause.loc = locOf(cl->name);
    clause.value = expr(cl->value);
    if (cl->rhs)
      clause.rhs = expr(cl->rhs);
    out.push_back(std::move(clause));
  }
  return out;
}

void Builder::item(CclParser::ItemContext *ctx, File &file) {
  if (auto *c = dynamic_cast<CclParser::ImportItemContext *>(ctx)) {
    std::string text = c->path->getText();
    file.imports.push_back({text.substr(1, text.size() - 2), locOf(c->path)});
    return;
  }
  if (auto *c = dynamic_cast<CclParser::FnItemContext *>(ctx)) {
    auto f = std::make_unique<Function>();
    f->name = c->name->getText();
    f->loc = locOf(c->name);
    for (Token *p : c->params)
      f->params.push_back(p->getText());
    f->body = block(c->block());
    f->file = &file;
    file.functions.push_back(std::move(f));
    return;
  }
  if (auto *c = dynamic_cast<CclParser::CollectiveItemContext *>(ctx)) {
    auto k = std::make_unique<Collective>();
    k->name = c->name->getText();
    k->loc = locOf(c->name);
    k->params = headArgs(c->argList());
    k->clauses = clauses(c->clause());
    k->body = block(c->block());
    k->file = &file;
    file.collectives.push_back(std::move(k));
    return;
  }
  if (auto *c = dynamic_cast<CclParser::SelectItemContext *>(ctx)) {
    auto sel = std::make_unique<Select>();
    sel->collective = c->collective->getText();
    sel->loc = locOf(c->collective);
    if (c->table) {
      sel->table = c->table->getText();
      sel->tableLoc = locOf(c->table);
    }
    for (auto *row : c->selectRow()) {
      SelectRow r;
      r.algorithm = row->algorithm->getText();
      r.loc = locOf(row->algorithm);
      r.clauses = clauses(row->clause());
      sel->rows.push_back(std::move(r));
    }
    sel->file = &file;
    file.selects.push_back(std::move(sel));
    return;
  }
  auto *c = dynamic_cast<CclParser::AlgorithmItemContext *>(ctx);
  if (!c)
    return;
  auto a = std::make_unique<Algorithm>();
  a->loc = locOf(c->name);
  a->name = c->name->getText();
  a->collective = c->collective->getText();
  a->collectiveLoc = locOf(c->collective);
  a->args = headArgs(c->argList());
  a->clauses = clauses(c->clause());
  a->body = block(c->block());
  a->file = &file;
  file.algorithms.push_back(std::move(a));
}

} // namespace

std::unique_ptr<File> ccl::ast::parse(const std::string &source,
                                      const std::string &path,
                                      std::vector<Diagnostic> &diags) {
  try {
    antlr4::ANTLRInputStream input(source);
    CclLexer lexer(&input);
    CollectingErrorListener listener(diags);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&listener);
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    if (listener.failed)
      return nullptr;
    if (!checkNesting(tokens, diags))
      return nullptr;
    CclParser parser(&tokens);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    CclParser::FileContext *tree = parser.file();
    if (listener.failed)
      return nullptr;
    auto file = std::make_unique<File>();
    file->path = path;
    Builder builder;
    for (auto *item : tree->item())
      builder.item(item, *file);
    if (!builder.errors.empty()) {
      diags.push_back(builder.errors.front());
      return nullptr;
    }
    return file;
  } catch (const std::exception &e) {
    diags.push_back({{1, 1}, std::string("internal parser error: ") + e.what()});
  } catch (...) {
    diags.push_back({{1, 1}, "internal parser error"});
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Printing (--emit=ast)
//===----------------------------------------------------------------------===//

namespace {

void printExpr(const Expr &e, std::ostream &os) {
  auto printArgs = [&](size_t first) {
    os << "(";
    for (size_t i = first; i < e.operands.size(); ++i) {
      if (i != first)
        os << ", ";
      const std::string &kw = e.argNames[i - first];
      if (!kw.empty())
        os << kw << " = ";
      printExpr(*e.operands[i], os);
    }
    os << ")";
  };
  switch (e.kind) {
  case Expr::Int:
    os << e.intValue;
    break;
  case Expr::Ident:
    os << e.name;
    break;
  case Expr::Call:
    os << e.name;
    printArgs(0);
    break;
  case Expr::Method:
    printExpr(*e.operands[0], os);
    os << "." << e.name;
    printArgs(1);
    break;
  case Expr::Index:
    printExpr(*e.operands[0], os);
    os << "[";
    printExpr(*e.operands[1], os);
    os << "]";
    break;
  case Expr::Unary:
    os << "(" << e.name;
    printExpr(*e.operands[0], os);
    os << ")";
    break;
  case Expr::Binary:
    os << "(";
    printExpr(*e.operands[0], os);
    os << " " << e.name << " ";
    printExpr(*e.operands[1], os);
    os << ")";
    break;
  }
}

void printStmts(const std::vector<std::unique_ptr<Stmt>> &stmts, int indent,
                std::ostream &os) {
  for (const auto &s : stmts) {
    os << std::string(indent, ' ') << s->loc.line << ":" << s->loc.col << " ";
    switch (s->kind) {
    case Stmt::Scratch:
      os << "scratch " << s->name << "[";
      printExpr(*s->expr, os);
      os << "]\n";
      break;
    case Stmt::Let:
    case Stmt::Assign:
      os << (s->kind == Stmt::Let ? "let " : "assign ") << s->name << " = ";
      printExpr(*s->expr, os);
      os << "\n";
      break;
    case Stmt::For:
      os << "for " << s->name << " in ";
      printExpr(*s->expr, os);
      if (s->filter) {
        os << " if ";
        printExpr(*s->filter, os);
      }
      os << "\n";
      printStmts(s->body, indent + 2, os);
      break;
    case Stmt::While:
      os << "while ";
      printExpr(*s->expr, os);
      os << "\n";
      printStmts(s->body, indent + 2, os);
      break;
    case Stmt::If:
      os << "if ";
      printExpr(*s->expr, os);
      os << "\n";
      printStmts(s->body, indent + 2, os);
      if (!s->elseBody.empty()) {
        os << std::string(indent, ' ') << "else\n";
        printStmts(s->elseBody, indent + 2, os);
      }
      break;
    case Stmt::ExprStmt:
    case Stmt::Ensure:
    case Stmt::Require:
      os << (s->kind == Stmt::ExprStmt ? "expr "
             : s->kind == Stmt::Ensure ? "ensure "
                                       : "require ");
      printExpr(*s->expr, os);
      os << "\n";
      break;
    case Stmt::Return:
      os << "return";
      if (s->expr) {
        os << " ";
        printExpr(*s->expr, os);
      }
      os << "\n";
      break;
    }
  }
}

} // namespace

namespace {
void printHead(const std::vector<Arg> &args, const std::vector<Clause> &clauses,
               std::ostream &os) {
  if (!args.empty()) {
    os << "(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i)
        os << ", ";
      if (!args[i].name.empty())
        os << args[i].name << " = ";
      printExpr(*args[i].value, os);
    }
    os << ")";
  }
  for (const auto &c : clauses) {
    os << " " << c.name << "(";
    printExpr(*c.value, os);
    if (c.rhs) {
      os << " = ";
      printExpr(*c.rhs, os);
    }
    os << ")";
  }
  os << "\n";
}
} // namespace

void ccl::ast::print(const File &file, std::ostream &os) {
  os << "file " << file.path << "\n";
  for (const auto &i : file.imports)
    os << i.loc.line << ":" << i.loc.col << " import \"" << i.path << "\"\n";
  for (const auto &f : file.functions) {
    os << f->loc.line << ":" << f->loc.col << " fn " << f->name << "(";
    for (size_t i = 0; i < f->params.size(); ++i)
      os << (i ? ", " : "") << f->params[i];
    os << ")\n";
    printStmts(f->body, 2, os);
  }
  for (const auto &k : file.collectives) {
    os << k->loc.line << ":" << k->loc.col << " collective " << k->name;
    printHead(k->params, k->clauses, os);
    printStmts(k->body, 2, os);
  }
  for (const auto &a : file.algorithms) {
    os << a->loc.line << ":" << a->loc.col << " algorithm " << a->name
       << " implements " << a->collective;
    printHead(a->args, a->clauses, os);
    printStmts(a->body, 2, os);
  }
  for (const auto &sel : file.selects) {
    os << sel->loc.line << ":" << sel->loc.col << " select " << sel->collective
       << "\n";
    for (const auto &r : sel->rows) {
      os << "  " << r.loc.line << ":" << r.loc.col << " " << r.algorithm;
      printHead({}, r.clauses, os);
    }
  }
}
