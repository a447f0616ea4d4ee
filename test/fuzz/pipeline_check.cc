//===- pipeline_check.cc - run cclc's passes on a module and trap on bugs -===//

#include "test/fuzz/pipeline_check.h"
#include "test/fuzz/fuzz_util.h"

#include "compiler/Driver/Driver.h"

#include "ccl/Dialect/CclDialect.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

using namespace mlir;

namespace ccl::fuzz {
namespace {

/// Diagnostics of known pipeline bugs that are not fixed yet: a failure
/// whose error messages all contain one of these is not reported (unless
/// CCL_FUZZ_STRICT=1). Add an entry with its reproducer in
/// test/fuzz/regressions/ and remove it together with the fix.
const std::vector<std::string> &knownPipelineFailures() {
  static const std::vector<std::string> known = {};
  return known;
}

std::string passName(Pass *pass) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass->printAsTextualPipeline(os);
  return text;
}

void dumpModule(Operation *op) {
  if (verbose()) {
    llvm::errs() << "--- the module ---\n";
    op->print(llvm::errs());
    llvm::errs() << "\n";
  }
}

/// Checks each pass as the pass manager runs it (see pipeline_check.h).
class PassChecker : public PassInstrumentation {
public:
  explicit PassChecker(DiagnosticCounter &diags) : diags(diags) {}

  /// The position in the pipeline of the pass that failed, or -1.
  int failedPass = -1;

  void runBeforePass(Pass *pass, Operation *op) override {
    ++position;
    errorsBefore = diags.errors;
    if (verbose())
      llvm::errs() << "[pass " << passName(pass) << "]\n";
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    if (diags.errors != errorsBefore) {
      printErrors();
      bug("pass " + passName(pass) +
          " succeeded but emitted an error diagnostic");
    }
    // The pass manager's verifier (disabled in runPipelineAndCheck), done
    // here so that a failure names the pass.
    std::vector<std::string> errors;
    LogicalResult verified = success();
    {
      DiagnosticCounter collect(op->getContext(), /*keep=*/true);
      verified = verify(op);
      errors = std::move(collect.messages);
    }
    if (succeeded(verified) || allKnown(errors, knownPipelineFailures()))
      return;
    for (const std::string &e : errors)
      llvm::errs() << "verifier: " << e << "\n";
    dumpModule(op);
    bug("pass " + passName(pass) +
        " succeeded but left a module that fails the MLIR verifier");
  }

  void runAfterPassFailed(Pass *pass, Operation *op) override {
    failedPass = position;
    if (diags.errors == errorsBefore)
      bug("pass " + passName(pass) + " failed without an error diagnostic");
    std::vector<std::string> mine(diags.messages.begin() + errorsBefore,
                                  diags.messages.end());
    bool internal = false;
    for (const std::string &m : mine)
      internal |= m.find("internal compiler error") != std::string::npos;
    if (internal && !allKnown(mine, knownPipelineFailures())) {
      printErrors();
      dumpModule(op);
      bug("pass " + passName(pass) + " reports an internal compiler error");
    }
  }

private:
  void printErrors() const {
    for (size_t i = errorsBefore; i < diags.messages.size(); ++i)
      llvm::errs() << "error: " << diags.messages[i] << "\n";
  }

  DiagnosticCounter &diags;
  unsigned errorsBefore = 0;
  int position = -1;
};

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

} // namespace

PipelineOptions pipelineOptionsFrom(llvm::StringRef text) {
  PipelineOptions options;
  size_t at = text.find("// fuzz:");
  if (at == llvm::StringRef::npos)
    return options;
  llvm::StringRef line = text.substr(at + 8).split('\n').first;
  llvm::SmallVector<llvm::StringRef> words;
  line.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef w : words) {
    auto [key, value] = w.trim().split('=');
    int64_t n = 0;
    if (key == "channel" && (value == "memory" || value == "port"))
      options.channel = value.str();
    else if (key == "tiles" && !value.getAsInteger(10, n) && n >= 1 && n <= 2)
      options.tiles = n;
    else if (key == "instances" && !value.getAsInteger(10, n) && n >= 1 &&
             n <= 2)
      options.instances = n;
  }
  return options;
}

bool withinLimits(ModuleOp module, const PipelineLimits &limits) {
  int64_t ops = 0;
  bool ok = true;
  module.walk([&](Operation *op) {
    if (++ops > limits.maxOps) {
      ok = false;
      return WalkResult::interrupt();
    }
    if (auto algo = dyn_cast<AlgorithmOp>(op)) {
      int64_t ic = algo.getInputChunks().value_or(0);
      int64_t oc = algo.getOutputChunks().value_or(0);
      if (algo.getNranks() > limits.maxRanks ||
          algo.getChunks() > limits.maxChunks || ic > limits.maxChunks ||
          oc > limits.maxChunks || algo.getInstances().value_or(1) > 2) {
        ok = false;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return ok;
}

PipelineResult runPipelineAndCheck(MLIRContext &ctx, ModuleOp module,
                                   const PipelineOptions &options) {
  CompileOptions compile;
  compile.emit = EmitLevel::Kernel; // stop before ccl-lower-to-llvm
  compile.verify = options.verify;
  compile.channel = options.channel;
  compile.tiles = options.tiles;
  compile.instances = options.instances;

  DiagnosticCounter diags(&ctx, /*keep=*/true);
  PassManager pm(&ctx);
  pm.enableVerifier(false); // PassChecker verifies after each pass
  buildCclPipeline(pm, compile);
  auto checker = std::make_unique<PassChecker>(diags);
  PassChecker *check = checker.get();
  pm.addInstrumentation(std::move(checker));
  if (failed(pm.run(module))) {
    // A failure outside any pass (PassChecker checked those).
    if (diags.errors == 0)
      bug("the pass manager failed without an error diagnostic");
    return options.verify && check->failedPass == 0 ? PipelineResult::Rejected
                                                    : PipelineResult::Failed;
  }
  if (diags.errors != 0)
    bug("the pipeline succeeded but emitted an error diagnostic");
  checkRoundTrip(ctx, module, "the scheduled module");
  return PipelineResult::Compiled;
}

void compileBothWays(MLIRContext &ctx, ModuleOp module,
                     PipelineOptions options) {
  options.verify = true;
  OwningOpRef<ModuleOp> copy = module.clone();
  if (runPipelineAndCheck(ctx, *copy, options) != PipelineResult::Rejected)
    return;
  options.verify = false;
  copy = module.clone();
  runPipelineAndCheck(ctx, *copy, options);
}

void checkRoundTrip(MLIRContext &ctx, ModuleOp module, const char *what) {
  const std::string first = print(module);
  DiagnosticCounter diags(&ctx, /*keep=*/true);
  OwningOpRef<ModuleOp> again =
      parseSourceString<ModuleOp>(first, ParserConfig(&ctx));
  if (!again) {
    for (const std::string &e : diags.messages)
      llvm::errs() << "error: " << e << "\n";
    if (verbose())
      llvm::errs() << "--- the printed module ---\n" << first << "\n";
    bug(std::string(what) + " prints as text that does not parse back");
  }
  const std::string second = print(*again);
  if (first != second) {
    if (verbose())
      llvm::errs() << "--- printed ---\n"
                   << first << "\n--- parsed and printed again ---\n"
                   << second << "\n";
    bug(std::string(what) +
        " does not round-trip: parsed back, it prints differently");
  }
}

void setUpContext(MLIRContext &ctx) {
  DialectRegistry registry;
  registerCclDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.getOrLoadDialect<CclDialect>();
}

} // namespace ccl::fuzz
