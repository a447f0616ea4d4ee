//===- EvalDecls.cpp - files, declarations and algorithms -----------------===//
//
// Loading a file and its imports (functions, collectives, algorithms and the
// checks on their names), and evaluating one algorithm for one rank count:
// its predefined names, the collective it implements and that collective's
// parameters, its clauses, the `ccl.algorithm` op, the contract and the body.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Evaluator.h"
#include "compiler/frontend/Source.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace ccl;
using ast::Expr;

namespace ccl {
namespace eval {

LogicalResult Evaluator::load(const ast::File &file, bool isMain,
                              llvm::StringSet<> &seen) {
  for (const auto &imp : file.imports) {
    // Only .ccl files: an import never reads (or echoes, in a diagnostic)
    // a file that is not a program.
    if (!llvm::StringRef(imp.path).ends_with(".ccl"))
      return emitError(fileLoc(&file, imp.loc))
             << "cannot import '" << imp.path
             << "': only .ccl files can be imported (the name must end in "
                "'.ccl')";
    llvm::SmallString<256> path;
    bool found = false;
    std::vector<std::string> dirs;
    dirs.push_back(llvm::sys::path::parent_path(file.path).str());
    for (const auto &d : options.includeDirs)
      dirs.push_back(d);
    for (const auto &dir : dirs) {
      path = dir;
      llvm::sys::path::append(path, imp.path);
      if (llvm::sys::fs::exists(path)) {
        found = true;
        break;
      }
    }
    if (!found)
      return emitError(fileLoc(&file, imp.loc))
             << "cannot find imported file '" << imp.path
             << "' (searched next to " << file.path
             << (options.includeDirs.empty() ? "" : " and in the -I directories")
             << ")";
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      real = path;
    // A link named .ccl to a file that is not: refused the same way.
    if (!real.str().ends_with(".ccl"))
      return emitError(fileLoc(&file, imp.loc))
             << "cannot import '" << imp.path << "': it is a link to '" << real
             << "', and only .ccl files can be imported";
    if (!seen.insert(real).second)
      continue; // imported already (or an import cycle): nothing new
    // Read with the limits of any source file (Source.h): bounded, and
    // text; what is wrong is said at the import.
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> buffer = readSourceFile(path, error);
    NotText notText;
    if (buffer && !checkSourceText(buffer->getBuffer(), notText)) {
      error = notText.message;
      buffer.reset();
    }
    if (!buffer)
      return emitError(fileLoc(&file, imp.loc))
             << "imported file '" << path << "' " << error;
    if (options.importedFiles)
      options.importedFiles->push_back(
          {real.str().str(), fileLoc(&file, imp.loc)});
    auto parsed = parseSource(ctx, buffer->getBuffer(), path);
    if (!parsed)
      return failure();
    owned.push_back(std::move(parsed));
    const ast::File &imported = *owned.back();
    if (failed(load(imported, /*isMain=*/false, seen)))
      return failure();
  }
  for (const auto &f : file.functions) {
    if (findBuiltin(f->name))
      return emitError(fileLoc(&file, f->loc))
             << "'" << f->name << "' is a built-in function; give yours "
                "another name";
    auto [it, inserted] = functions.try_emplace(f->name, f.get());
    if (!inserted) {
      InFlightDiagnostic d = emitError(fileLoc(&file, f->loc))
                             << "function '" << f->name << "' is defined twice";
      d.attachNote(fileLoc(it->second->file, it->second->loc))
          << "the other definition is here";
      return failure();
    }
  }
  for (const auto &c : file.collectives) {
    if (builtinCollectives.count(c->name) && c->file != owned.front().get())
      return emitError(fileLoc(&file, c->loc))
             << "collective '" << c->name
             << "' is built in; give yours another name";
    auto [it, inserted] = collectives.try_emplace(c->name, c.get());
    if (!inserted) {
      InFlightDiagnostic d = emitError(fileLoc(&file, c->loc))
                             << "collective '" << c->name
                             << "' is defined twice";
      d.attachNote(fileLoc(it->second->file, it->second->loc))
          << "the other definition is here";
      return failure();
    }
  }
  if (!isMain)
    for (const auto &a : file.algorithms)
      if (importedAlgorithms.try_emplace(a->name, a.get()).second)
        importedInOrder.push_back(a.get());
  if (isMain) {
    llvm::StringMap<const ast::Algorithm *> names;
    for (const auto &a : file.algorithms) {
      auto [it, inserted] = names.try_emplace(a->name, a.get());
      if (!inserted) {
        InFlightDiagnostic d = emitError(fileLoc(&file, a->loc))
                               << "algorithm '" << a->name
                               << "' is defined twice";
        d.attachNote(fileLoc(&file, it->second->loc))
            << "the other definition is here";
        return failure();
      }
      algorithms.push_back(a.get());
    }
  }
  return success();
}

/// Resets the per-algorithm state and binds the predefined names: the
/// built-ins, then every -D.
LogicalResult Evaluator::beginAlgorithm(const ast::Algorithm &a, int64_t n) {
  curFile = a.file;
  callers.clear();
  mode = Mode::Clause;
  nranks = n;
  chunks = 1;
  instances = 1;
  tiles = 1;
  instance = 0;
  tbStride = 0;
  maxTb = -1;
  aliasing.reset();
  steps = 0;
  // A program in the global view does work per pair of ranks (all-pairs
  // algorithms): the budget grows with nranks^2 beyond the fixed one.
  stepLimit = std::max<int64_t>(options.maxSteps, 8 * n * n);
  scopes.clear();
  scratchSlots.clear();
  symbols.clear();
  credits.clear();
  semaphores = 0;
  writes.clear();
  returning = false;

  scopes.emplace_back();
  auto &globals = scopes.back();
  globals["nranks"] = Value::integer(n);
  globals["ranks"] = Value(Range{0, n});
  globals["true"] = Value::boolean(true);
  globals["false"] = Value::boolean(false);
  globals["chunks"] = Value::integer(1); // until a chunks(...) clause
  for (const char *buf : {"input", "output"})
    globals[buf] = Value(Buffer{buf});
  static const char *const kBuiltins[] = {"nranks", "ranks", "input", "output",
                                          "chunks", "true", "false"};
  for (const auto &d : options.defines) {
    if (llvm::is_contained(kBuiltins, d.getKey()))
      return error(a.loc) << "-D " << d.getKey()
                          << " would redefine a built-in name"
                          << (d.getKey() == "nranks" ? "; use --nranks" : "");
    globals[d.getKey().str()] = Value::integer(d.getValue());
  }
  return success();
}

/// The collective `a` implements; sets `inplace` and `outofplace` (the
/// forms it names) and collects the arguments it gives to the collective's
/// parameters.
FailureOr<const ast::Collective *>
Evaluator::collectiveOf(const ast::Algorithm &a, bool &inplace,
                        bool &outofplace,
                        std::map<std::string, const ast::Arg *> &given) {
  auto collIt = collectives.find(a.collective);
  if (collIt == collectives.end()) {
    InFlightDiagnostic d = error(a.collectiveLoc)
                           << "unknown collective '" << a.collective
                           << "'; expected AllReduce, AllGather, ReduceScatter, "
                              "AllToAll, Broadcast, Reduce";
    for (const auto &c : collectives)
      if (!builtinCollectives.count(c.getKey()))
        d << ", " << c.getKey();
    d << " (or declare it with 'collective " << a.collective << " ...')";
    return failure();
  }
  const ast::Collective &coll = *collIt->second;
  for (const ast::Arg &arg : a.args) {
    if (arg.name.empty()) {
      if (arg.value->kind != Expr::Ident ||
          (arg.value->name != "inplace" && arg.value->name != "outofplace"))
        return error(arg.value->loc)
               << "unknown collective variant; expected 'inplace', "
                  "'outofplace' or a parameter 'name = value'";
      bool &form = arg.value->name == "inplace" ? inplace : outofplace;
      if (form)
        return error(arg.value->loc)
               << "'" << arg.value->name << "' is given twice";
      form = true;
      continue;
    }
    bool known = llvm::any_of(coll.params, [&](const ast::Arg &p) {
      return p.name == arg.name;
    });
    if (!known) {
      InFlightDiagnostic d = error(arg.loc) << "collective '" << coll.name
                                            << "' has no parameter '"
                                            << arg.name << "'";
      if (!coll.params.empty()) {
        d << "; its parameters are";
        for (const auto &p : coll.params)
          d << " " << p.name;
      }
      return failure();
    }
    given[arg.name] = &arg;
  }
  return &coll;
}

/// The algorithm's clauses, left to right: `chunks`, `instances` (or
/// `parallel`), `tiles`, `protocol`, `channel` and `bits`.
LogicalResult Evaluator::clauses(const ast::Algorithm &a, std::string &protocol,
                                 std::optional<ChannelKind> &channelKind,
                                 std::optional<Bits> &bits) {
  for (const auto &c : a.clauses) {
    if (c.rhs)
      return error(c.loc) << "'" << c.name << "(...)' takes one value";
    if (c.name == "bits") {
      std::optional<Bits> b;
      if (c.value->kind == Expr::Ident)
        b = symbolizeBits(c.value->name);
      if (!b)
        return error(c.value->loc)
               << "bits must be rank_consistent (every rank that receives a "
                  "reduced element gets the same bits), size_invariant (and "
                  "an element's bits do not depend on the count), "
                  "deterministic (every reduced element is the left fold of "
                  "its inputs in rank order) or any (no promise)";
      if (bits)
        return error(c.loc) << "a second 'bits(...)' clause";
      bits = b;
      continue;
    }
    if (c.name == "channel") {
      if (c.value->kind != Expr::Ident ||
          (c.value->name != "memory" && c.value->name != "port"))
        return error(c.value->loc)
               << "channel must be memory or port (the kind of the channels "
                  "the compiler places for chunk-level transfers)";
      if (channelKind)
        return error(c.loc) << "a second 'channel(...)' clause";
      channelKind = *symbolizeChannelKind(c.value->name);
      continue;
    }
    if (c.name == "protocol") {
      if (c.value->kind != Expr::Ident ||
          (c.value->name != "LL" && c.value->name != "Simple"))
        return error(c.value->loc) << "protocol must be LL or Simple";
      protocol = c.value->name;
      continue;
    }
    if (c.name == "chunks" || c.name == "instances" || c.name == "parallel") {
      auto v = integer(*c.value);
      if (failed(v))
        return failure();
      if (*v < 1)
        return error(c.value->loc)
               << c.name << " must be at least 1, not " << *v;
      if (*v > (int64_t(1) << 20))
        return error(c.value->loc) << c.name << "(" << *v << ") is too large";
      if (c.name == "chunks") {
        chunks = *v;
        scopes.front()["chunks"] = Value::integer(chunks);
      } else {
        instances = *v;
      }
      continue;
    }
    if (c.name == "tiles") {
      auto v = integer(*c.value);
      if (failed(v))
        return failure();
      if (*v < 1 || *v > kMaxTiles)
        return error(c.value->loc)
               << "tiles must be in 1.." << kMaxTiles << ", not " << *v
               << " (tiles are unrolled in the block programs)";
      tiles = *v;
      continue;
    }
    return error(c.loc) << "unknown clause '" << c.name
                        << "'; expected chunks, protocol, channel, instances, "
                           "parallel, tiles or bits";
  }
  return success();
}

/// Binds the collective's parameters: an argument, else -D, else the
/// default. Each becomes an attribute of the algorithm too.
LogicalResult
Evaluator::parameters(const ast::Algorithm &a, const ast::Collective &coll,
                      const std::map<std::string, const ast::Arg *> &given,
                      SmallVectorImpl<NamedAttribute> &attrs) {
  for (const ast::Arg &p : coll.params) {
    if (p.name.empty())
      return emitError(fileLoc(coll.file, p.loc))
             << "a collective parameter needs a default: 'name = value'";
    Value v;
    if (auto it = given.find(p.name); it != given.end()) {
      auto r = expr(*it->second->value);
      if (failed(r))
        return failure();
      v = *r;
    } else if (options.defines.count(p.name)) {
      v = Value::integer(options.defines.lookup(p.name));
    } else {
      const ast::File *saved = curFile;
      curFile = coll.file;
      auto r = expr(*p.value);
      curFile = saved;
      if (failed(r))
        return failure();
      v = *r;
    }
    const Int *i = v.getIf<Int>();
    if (!i)
      return error(a.loc) << "parameter '" << p.name
                          << "' must be an integer, not " << v.kindName();
    scopes.front()[p.name] = v;
    attrs.push_back(
        builder.getNamedAttr(p.name, builder.getI64IntegerAttr(i->value)));
  }
  return success();
}

LogicalResult Evaluator::algorithm(const ast::Algorithm &a, int64_t n,
                                   ModuleOp module) {
  if (failed(beginAlgorithm(a, n)))
    return failure();
  bool inplace = false, outofplace = false;
  std::map<std::string, const ast::Arg *> given;
  auto collOr = collectiveOf(a, inplace, outofplace, given);
  if (failed(collOr))
    return failure();
  // Both forms: the program is evaluated out of place, and the verifier
  // proves it again with the buffers aliased as the in-place form has them.
  bool bothForms = inplace && outofplace;
  if (bothForms)
    inplace = false;
  const ast::Collective &coll = **collOr;
  std::string protocol = "Simple";
  std::optional<ChannelKind> channelKind;
  std::optional<Bits> bits;
  if (failed(clauses(a, protocol, channelKind, bits)))
    return failure();
  SmallVector<NamedAttribute> paramAttrs;
  if (failed(parameters(a, coll, given, paramAttrs)))
    return failure();

  // Buffer sizes and in-place layout, in the program's view (per instance).
  if (failed(sizes(coll, chunks, inChunks, outChunks)))
    return failure();
  // The in-place layout: in the program's view (per instance) for the
  // in-place form, whose references the evaluation moves; over the whole
  // buffers (all instances) for an algorithm of both forms, whose
  // references the verifier moves.
  DictionaryAttr alsoInplace;
  if (inplace || bothForms) {
    int64_t factor = inplace ? chunks : chunks * instances;
    int64_t in = inChunks, out = outChunks;
    if (bothForms && failed(sizes(coll, factor, in, out)))
      return failure();
    auto al = alias(coll, factor, in, out);
    if (failed(al))
      return failure();
    if (!*al)
      return error(a.collectiveLoc)
             << "collective '" << coll.name
             << "' has no in-place form (its declaration has no "
                "'inplace(...)' clause)";
    if (inplace)
      aliasing = **al;
    else
      alsoInplace = builder.getDictionaryAttr(
          {builder.getNamedAttr("from", builder.getStringAttr((*al)->from)),
           builder.getNamedAttr("to", builder.getStringAttr((*al)->to)),
           builder.getNamedAttr("offsets",
                                builder.getDenseI64ArrayAttr((*al)->offsets))});
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto optI64 = [&](int64_t v, int64_t dflt) -> IntegerAttr {
    return v == dflt ? IntegerAttr() : builder.getI64IntegerAttr(v);
  };
  // A built-in collective is one of the dialect's kinds; any other is
  // custom and keeps its declared name.
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(coll.name);
  bool builtin = kind && *kind != CollectiveKind::Custom;
  algo = AlgorithmOp::create(
      builder, fileLoc(curFile, a.loc),
      builder.getStringAttr(a.name + "_n" + std::to_string(n)),
      builder.getStringAttr(a.name),
      CollectiveKindAttr::get(ctx, builtin ? *kind : CollectiveKind::Custom),
      builtin ? StringAttr() : builder.getStringAttr(coll.name),
      builder.getBoolAttr(inplace), builder.getI64IntegerAttr(n),
      builder.getI64IntegerAttr(chunks * instances),
      ProtocolAttr::get(ctx, *symbolizeProtocol(protocol)),
      /*scheduled=*/nullptr, optI64(inChunks * instances, chunks * instances),
      optI64(outChunks * instances, chunks * instances), optI64(instances, 1),
      /*params=*/nullptr, /*channel_kind=*/nullptr, optI64(tiles, 1),
      alsoInplace, bits ? BitsAttr::get(ctx, *bits) : BitsAttr());
  if (channelKind)
    algo.setChannelKindAttr(ChannelKindAttr::get(ctx, *channelKind));
  if (!paramAttrs.empty())
    algo.setParamsAttr(builder.getDictionaryAttr(paramAttrs));
  algo.getBody().emplaceBlock();
  builder.setInsertionPointToEnd(&algo.getBody().front());
  // Declarations are only added from here on: look them up (and find
  // where the next goes) by hash.
  DeclarationIndex index(algo);

  // The contract, over the whole (refined) buffers.
  Contract con;
  if (failed(contract(coll, con)))
    return failure();

  // The program, once per instance.
  mode = Mode::Body;
  curFile = a.file;
  for (instance = 0; instance < instances; ++instance) {
    writes.clear();
    semaphores = 0;
    scopes.resize(1);
    if (instance == 1)
      tbStride = maxTb + 1;
    if (failed(stmts(a.body)))
      return failure();
  }
  instance = 0;
  emitContract(con);
  return success();
}

} // namespace eval
} // namespace ccl
