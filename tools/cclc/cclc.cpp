//===- cclc.cpp - the cclc compiler driver ---------------------------------===//
//
// Thin: option parsing and diagnostics setup; the pipeline is in
// compiler/Driver.
//
//===----------------------------------------------------------------------===//

#include "ccl/Dialect/CclDialect.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/Output.h"
#include "compiler/Support/MemoryGuard.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/frontend/Source.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "ccl/ccl.h"
#include "ccl/plan.h"
#include "ccl/types.h"
#include "llvm/Config/llvm-config.h"
#include "tools/support/size.h"

#include <exception>
#include <new>
#include <unistd.h>

using namespace llvm;

static cl::OptionCategory cat("cclc options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .ccl>"),
                                      cl::init("-"), cl::cat(cat));
static cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' = stdout)"),
                                       cl::value_desc("file"), cl::cat(cat));
static cl::opt<std::string>
    targets("target",
            cl::desc("Targets, comma-separated: host, sm_90, gfx942, gfx90a "
                     "(default host)"),
            cl::init("host"), cl::cat(cat));
static cl::opt<std::string>
    nranks("nranks",
           cl::desc("Rank counts: values and ranges, e.g. 2,3,4,8 or 2..16 "
                    "(default 2..8)"),
           cl::init("2..8"), cl::cat(cat));
// The element types and operators come from the one table, ccl/types.def.
static const std::string dtypeHelp =
    "Element types: " + ccl::allDTypeNames(", ") + " (default all)";
static const std::string redopHelp = "Reduction operators: " +
                                     ccl::allRedOpNames(", ") +
                                     " (default sum)";
static cl::opt<std::string> dtypes("dtype", cl::desc(dtypeHelp),
                                   cl::init(ccl::allDTypeNames()),
                                   cl::cat(cat));
static cl::opt<std::string> redops("op", cl::desc(redopHelp), cl::init("sum"),
                                   cl::cat(cat));
static cl::opt<ccl::EmitLevel> emit(
    "emit", cl::desc("How far to compile (default so)"),
    cl::values(
        clEnumValN(ccl::EmitLevel::AST, "ast", "the syntax tree"),
        clEnumValN(ccl::EmitLevel::CCL, "ccl",
                   "the verified global-level ccl dialect"),
        clEnumValN(
            ccl::EmitLevel::Sched, "sched",
            "the schedule: per rank and thread block, the operations in order"),
        clEnumValN(ccl::EmitLevel::Kernel, "kernel",
                   "the kernel-level ccl dialect (the schedule as MLIR)"),
        clEnumValN(ccl::EmitLevel::LLVM, "llvm",
                   "optimized LLVM IR with the device library linked"),
        clEnumValN(ccl::EmitLevel::Asm, "asm", "PTX, AMDGCN or host assembly"),
        clEnumValN(ccl::EmitLevel::Obj, "obj",
                   "one target's device image or object: an AMDGPU code "
                   "object (gfx942, gfx90a), a cubin (sm_90, with ptxas), "
                   "an ELF object (host)"),
        clEnumValN(ccl::EmitLevel::SO, "so",
                   "a shared library for libcclrt, plus a header")),
    cl::init(ccl::EmitLevel::SO), cl::cat(cat));
static cl::list<std::string> defines("D", cl::desc("Compile-time parameter name=value"),
                                     cl::value_desc("name=value"), cl::Prefix,
                                     cl::cat(cat));
static cl::list<std::string> includeDirs("I", cl::desc("Directory searched by 'import' (after the importing file's own)"),
                                         cl::value_desc("dir"), cl::Prefix,
                                         cl::cat(cat));
static cl::opt<std::string> channelKind(
    "channel", cl::desc("Channel kind for chunk-level transfers of Simple algorithms: memory or port"),
    cl::init("memory"), cl::cat(cat));
static cl::opt<std::string> crossCallSync(
    "cross-call-sync",
    cl::desc("Testing only: 'none' leaves the compiler's transfer slots "
             "unprotected across calls (the verifier then rejects the "
             "program; with --no-verify it compiles and races)"),
    cl::init("ack"), cl::Hidden, cl::cat(cat));
static cl::opt<std::string> testCorrupt(
    "test-corrupt",
    cl::desc("Testing only: damage one table or operand kind of the "
             "generated code (ccl-lower-to-llvm's test-corrupt values, "
             "image-kernel, plan-peer, plan-scratch-slots, plan-root, "
             "plan-kernel-record or plan-kernel-record-missing) to "
             "show that cclc reports it instead of writing a library"),
    cl::init(""), cl::Hidden, cl::cat(cat));
static cl::opt<std::string> kernels(
    "kernels",
    cl::desc("shared (default): one kernel for all ranks and rank counts "
             "whose blocks run the same programs, reading offsets and peers "
             "from tables; per-rank: one kernel per rank count (per rank on "
             "GPUs) with every constant inlined: lowest latency, more code"),
    cl::init("shared"), cl::cat(cat));
static cl::opt<int64_t> instances(
    "instances", cl::desc("Copies of each algorithm laid side by side, each on 1/k of the data (more thread blocks)"),
    cl::init(1), cl::cat(cat));
static cl::opt<int64_t> tiles(
    "tiles", cl::desc("Split every chunk into this many tiles, pipelined on the same thread blocks"),
    cl::init(1), cl::cat(cat));
static cl::opt<bool> noVerify("no-verify",
                              cl::desc("Skip the correctness proof (ccl-verify)"),
                              cl::cat(cat));
static cl::opt<std::string>
    maxBytes("max-bytes",
             cl::desc("Largest message in input bytes per rank (default 1M; "
                      "K/M/G suffixes)"),
             cl::init("1M"), cl::cat(cat));
static cl::opt<std::string> runtimeLib("runtime-lib",
                                       cl::desc("libcclrt.so to link against"),
                                       cl::cat(cat));
static cl::opt<bool> printSelectionOpt(
    "print-selection",
    cl::desc("Print the selection table of the file's `select` items (the "
             "algorithm a bundled library's cclAllReduce, ... picks) and stop"),
    cl::cat(cat));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* comments in the input"),
    cl::cat(cat));
static cl::opt<std::string> maxMemory(
    "max-memory",
    cl::desc("Stop with an error when the compile's resident memory passes "
             "SIZE (K, M, G suffixes; default: 90% of the memory available "
             "when cclc starts; 0: no limit)"),
    cl::value_desc("SIZE"), cl::cat(cat));
static cl::opt<bool> timeReport(
    "time-report",
    cl::desc("Print each stage's time and the peak memory after it on "
             "standard error"),
    cl::cat(cat));
static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Compile each '// -----' separated chunk of the input on its own"),
    cl::cat(cat));

static int fail(const Twine &msg) {
  errs() << "cclc: error: " << msg << "\n";
  return 1;
}

static bool parseList(StringRef text, ArrayRef<StringRef> allowed,
                      std::vector<std::string> &out, StringRef what,
                      std::string &error) {
  out.clear();
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    p = p.trim();
    if (!llvm::is_contained(allowed, p)) {
      error = ("unknown " + what + " '" + p + "'; expected one of " +
               join(allowed, ", "))
                  .str();
      return false;
    }
    if (llvm::is_contained(out, p.str())) {
      error = ("--" + what + ": '" + p + "' is listed twice").str();
      return false;
    }
    out.push_back(p.str());
  }
  if (out.empty()) {
    error = ("empty " + what + " list").str();
    return false;
  }
  return true;
}

/// "-o" or "--emit": the option as it is spelled on the command line.
static std::string spelling(const cl::Option &o) {
  return (o.ArgStr.size() == 1 ? "-" : "--") + o.ArgStr.str();
}

/// Whether a diagnostic at `loc` may show its source line: only a line of
/// .ccl text (or of standard input). MLIR's handler would otherwise print a
/// line of any file a location names, and a line of a binary file as it
/// is. cclc refuses imports that are not .ccl text before reading them;
/// this covers the main file.
static bool showsSource(mlir::Location loc, SourceMgr &sm) {
  auto file = loc->findInstanceOf<mlir::FileLineColLoc>();
  if (!file)
    return true;
  StringRef name = file.getFilename().getValue();
  if (!name.ends_with(".ccl") && name != "<stdin>")
    return false;
  for (unsigned i = 1; i <= sm.getNumBuffers(); ++i) {
    const MemoryBuffer *buffer = sm.getMemoryBuffer(i);
    if (buffer->getBufferIdentifier() != name)
      continue;
    SMLoc at = sm.FindLocForLineAndColumn(i, file.getLine(), 1);
    if (!at.isValid())
      return true;
    StringRef rest(at.getPointer(), buffer->getBufferEnd() - at.getPointer());
    ccl::NotText notText;
    return ccl::checkSourceText(rest.split('\n').first, notText);
  }
  return true;
}

static int compileMain(int argc, char **argv);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Out of memory anywhere (LLVM's new handler reports it here): a message
  // and exit status 1, not an abort.
  install_bad_alloc_error_handler([](void *, const char *reason, bool) {
    static const char msg[] = "cclc: error: out of memory\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)reason;
    ::_exit(1);
  });
  try {
    return compileMain(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  } catch (const std::exception &e) {
    return fail(Twine("internal error: ") + e.what());
  }
}

static int compileMain(int argc, char **argv) {
  cl::HideUnrelatedOptions(cat);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "cclc " << CCL_VERSION_STRING << " (plan ABI "
       << CCL_PLAN_ABI_VERSION << "; LLVM and MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  if (argc == 1) {
    errs() << "cclc: error: no input file\n"
              "usage: cclc IN.ccl -o OUT.so [options]   (cclc --help lists "
              "them; '-' reads standard input)\n";
    return 1;
  }
  const std::string overview =
      "cclc: compile .ccl collective-communication algorithms\n\n"
      "  cclc IN.ccl -o OUT.so [--target=host,sm_90,gfx942,gfx90a]\n"
      "       [--nranks=2..8]\n"
      "       [--dtype=" +
      ccl::allDTypeNames() +
      "] [--op=sum] [--emit=ast|ccl|sched|llvm|asm|obj|so]\n"
      "       [-D name=value] [--no-verify]\n";
  cl::ParseCommandLineOptions(argc, argv, overview);
  // Each option once: a second value would silently replace the first (-D
  // and -I are lists; a name given twice to -D is checked below).
  for (const cl::Option *o : std::initializer_list<const cl::Option *>{
           &outputFile, &targets, &nranks, &dtypes, &redops, &emit,
           &channelKind, &crossCallSync, &kernels, &instances, &tiles,
           &noVerify, &maxBytes, &runtimeLib, &printSelectionOpt,
           &verifyDiagnostics, &splitInputFile, &timeReport, &maxMemory,
           &testCorrupt})
    if (o->getNumOccurrences() > 1)
      return fail(spelling(*o) + " is given " + Twine(o->getNumOccurrences()) +
                  " times; give it once");

  ccl::CompileOptions options;
  options.argv0 = argv[0];
  options.emit = emit;
  options.verify = !noVerify;
  if (channelKind != "memory" && channelKind != "port")
    return fail("--channel must be memory or port, not '" + channelKind + "'");
  if (instances < 1 || instances > ccl::kMaxInstances)
    return fail("--instances: " + Twine(instances) + " is outside 1.." +
                Twine(ccl::kMaxInstances) +
                " (every instance takes a thread block of each rank, and a "
                "rank has at most 132)");
  options.channel = channelKind;
  if (crossCallSync != "ack" && crossCallSync != "none")
    return fail("--cross-call-sync must be ack or none, not '" + crossCallSync +
                "'");
  options.crossCall = crossCallSync;
  if (kernels != "shared" && kernels != "per-rank")
    return fail("--kernels must be shared or per-rank, not '" + kernels + "'");
  options.kernels = kernels;
  options.instances = instances;
  if (tiles < 1 || tiles > ccl::kMaxTiles)
    return fail("--tiles: " + Twine(tiles) + " is outside 1.." +
                Twine(ccl::kMaxTiles) +
                " (every tile repeats the operations the verifier and the "
                "code generator handle; see docs/compiler.md, \"Limits\")");
  options.tiles = tiles;
  options.runtimeLib = runtimeLib;
  std::string error;
  if (!parseList(targets, ccl::targetNames(), options.targets, "target", error))
    return fail(error);
  if (options.emit == ccl::EmitLevel::Obj && options.targets.size() != 1)
    return fail("--emit=obj writes one target's code object; give one "
                "--target, not " +
                Twine(options.targets.size()));
  int64_t badRanks = 0;
  if (!ccl::parseIntList(nranks, options.nranks, error, 1, ccl::kMaxNranks,
                         &badRanks)) {
    if (badRanks > ccl::kMaxNranks)
      error += " (cclc compiles for at most " +
               std::to_string(ccl::kMaxNranks) +
               " ranks: verification time and memory grow as the fourth "
               "power of the rank count; see docs/compiler.md, \"Limits\")";
    return fail("--nranks: " + error);
  }
  SmallVector<StringRef> dtypeNames, redopNames;
  for (const ccl::DTypeInfo &d : ccl::kDTypes)
    dtypeNames.push_back(d.name);
  for (const ccl::RedOpInfo &o : ccl::kRedOps)
    redopNames.push_back(o.name);
  if (!parseList(dtypes, dtypeNames, options.dtypes, "dtype", error))
    return fail(error);
  if (!parseList(redops, redopNames, options.redops, "op", error))
    return fail(error);
  // At most CCL_MAX_PLAN_BYTES (1 TiB): libcclrt refuses larger plans.
  static_assert(CCL_MAX_PLAN_BYTES == uint64_t(1) << 40, "1024G below");
  const std::string planLimit =
      "the largest message a plan supports is 1024G (" +
      std::to_string(CCL_MAX_PLAN_BYTES) + " bytes)";
  std::string why;
  if (!ccl::parseSize(maxBytes.getValue(), &options.maxBytes, &why)) {
    if (why == "not a size")
      return fail("--max-bytes: '" + maxBytes + "' is not a positive size");
    return fail("--max-bytes: '" + maxBytes + "' is " + why + "; " + planLimit);
  }
  if (options.maxBytes == 0)
    return fail("--max-bytes: '" + maxBytes + "' is not a positive size");
  if (options.maxBytes > CCL_MAX_PLAN_BYTES)
    return fail("--max-bytes: '" + maxBytes + "' is " +
                Twine(options.maxBytes) + " bytes; " + planLimit);
  for (const std::string &d : defines) {
    auto [name, value] = StringRef(d).split('=');
    int64_t v;
    if (name.empty() || value.getAsInteger(10, v))
      return fail("-D expects name=integer, not '" + d + "'");
    if (options.defines.count(name))
      return fail("-D " + name + " is given twice (" +
                  Twine(options.defines.lookup(name)) + " and " + value +
                  "); give it once");
    options.defines[name] = v;
  }
  for (const std::string &d : includeDirs)
    options.includeDirs.push_back(d);
  options.printSelection = printSelectionOpt;
  options.timeReport = timeReport;
  options.testCorrupt = testCorrupt;
  // Options that cannot go together: what would be written is not what
  // was asked for.
  if (options.printSelection && emit.getNumOccurrences())
    return fail("--print-selection prints the selection table and stops; it "
                "does not go with --emit (run cclc twice)");
  bool textual = options.emit != ccl::EmitLevel::SO || options.printSelection;
  if (splitInputFile && !options.printSelection &&
      (options.emit == ccl::EmitLevel::SO || options.emit == ccl::EmitLevel::Obj))
    return fail("--split-input-file compiles each '// -----' chunk on its "
                "own, and a library holds one compile: use it with a text "
                "--emit level (ast, ccl, kernel, sched, llvm, asm), or put "
                "the algorithms in one file");
  if (outputFile.empty())
    outputFile = textual ? "-" : "";
  if (!textual && (outputFile.empty() || outputFile == "-"))
    return fail("--emit=so needs an output file: -o NAME.so");
  options.output = outputFile;

  // The outputs: never an input, never one file twice.
  std::vector<std::string> outputs = ccl::outputFiles(options);
  if (outputs.size() == 2 && ccl::sameFile(outputs[0], outputs[1]))
    return fail("-o " + outputFile +
                ": the library and its header would both be " + outputs[1] +
                " (the header is the -o name with the extension .h); name "
                "the library NAME.so");
  if (inputFile != "-")
    for (size_t i = 0; i < outputs.size(); ++i)
      if (ccl::sameFile(outputs[i], inputFile))
        return fail((i == 0 ? "-o " + outputs[i]
                            : "the header " + outputs[i] +
                                  " (the -o name with the extension .h)") +
                    " would overwrite the input file " + inputFile);

  // Memory: a compile that would pass it stops with an error naming what
  // it was doing (compiler/Support/MemoryGuard.h), not by the OOM killer.
  uint64_t memoryLimit = 0;
  std::string memoryWhy;
  if (maxMemory.getNumOccurrences()) {
    if (!ccl::parseSize(maxMemory.getValue(), &memoryLimit, &why))
      return fail("--max-memory: '" + maxMemory + "' is not a size");
    memoryWhy = "--max-memory=" + maxMemory;
  } else if (uint64_t avail = ccl::MemoryGuard::availableBytes()) {
    memoryLimit = ccl::MemoryGuard::residentBytes() + avail / 10 * 9;
    memoryWhy = "90% of the memory available when cclc started; "
                "--max-memory sets the limit";
  }
  ccl::MemoryGuard memoryGuard(memoryLimit, memoryWhy);

  // The input, read with a bound (compiler/frontend/Source.h).
  std::unique_ptr<MemoryBuffer> input = ccl::readSourceFile(inputFile, error);
  if (!input)
    return fail((inputFile == "-" ? std::string("standard input")
                                  : inputFile.getValue()) +
                " " + error);
  // Text levels with -o FILE are kept in memory and written at the end
  // (through a temporary file); standard output is streamed.
  const bool toFile = textual && outputFile != "-";
  std::string text;
  raw_string_ostream textStream(text);
  raw_ostream &os = toFile ? static_cast<raw_ostream &>(textStream) : outs();

  mlir::DialectRegistry registry;
  ccl::registerCclDialects(registry);
  auto process = [&](std::unique_ptr<MemoryBuffer> buffer,
                     raw_ostream &out) -> mlir::LogicalResult {
    mlir::MLIRContext ctx(registry);
    // Diagnostics point at source lines; an IR dump of the op helps nobody
    // writing .ccl.
    ctx.printOpOnDiagnostic(false);
    ctx.loadAllAvailableDialects();
    SourceMgr sm;
    const MemoryBuffer &ref = *buffer;
    sm.AddNewSourceBuffer(std::move(buffer), SMLoc());
    if (verifyDiagnostics) {
      mlir::SourceMgrDiagnosticVerifierHandler handler(sm, &ctx);
      (void)ccl::compileSource(ctx, ref, options, out);
      return handler.verify();
    }
    mlir::SourceMgrDiagnosticHandler handler(sm, &ctx);
    // A diagnostic in a file that is not .ccl, or at a line that is not
    // text: without its source line.
    mlir::ScopedDiagnosticHandler filter(
        &ctx, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
          bool all = showsSource(d.getLocation(), sm);
          for (mlir::Diagnostic &note : d.getNotes())
            all &= showsSource(note.getLocation(), sm);
          if (all)
            return mlir::failure(); // the SourceMgr handler prints it
          handler.emitDiagnostic(d.getLocation(), d.str(), d.getSeverity(),
                                 showsSource(d.getLocation(), sm));
          for (mlir::Diagnostic &note : d.getNotes())
            handler.emitDiagnostic(note.getLocation(), note.str(),
                                   note.getSeverity(),
                                   showsSource(note.getLocation(), sm));
          return mlir::success();
        });
    return mlir::success(ccl::compileSource(ctx, ref, options, out));
  };
  mlir::LogicalResult result =
      splitInputFile ? mlir::splitAndProcessBuffer(
                           std::move(input),
                           [&](std::unique_ptr<MemoryBuffer> chunk,
                               raw_ostream &out) { return process(std::move(chunk), out); },
                           os, mlir::kDefaultSplitMarker, mlir::kDefaultSplitMarker)
                     : process(std::move(input), os);
  if (mlir::failed(result))
    return 1;
  if (toFile && !ccl::writeOutputFile(outputFile, textStream.str(), error))
    return fail(error);
  return 0;
}
