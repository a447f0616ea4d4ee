//===- ccl-opt.cpp - run ccl passes over MLIR files ------------------------===//
//
// mlir-opt with the ccl dialects and passes, which first refuses input
// nested deeper than MLIR's parser can take (compiler/Support/InputLimits.h)
// rather than overflowing its stack.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Support/InputLimits.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ccl::registerCclDialects(registry);
  ccl::registerCclPasses();
  ccl::registerCclConversionPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "ccl optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "ccl-opt: " << error << "\n";
    return 1;
  }
  if (std::optional<size_t> at = ccl::firstTooDeep(file->getBuffer())) {
    llvm::SourceMgr sm;
    llvm::StringRef text = file->getBuffer();
    sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sm.PrintMessage(llvm::SMLoc::getFromPointer(text.data() + *at),
                    llvm::SourceMgr::DK_Error,
                    "brackets nest deeper than " +
                        std::to_string(ccl::kMaxMlirNesting) +
                        " levels, more than MLIR's parser takes; the input "
                        "is refused");
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "ccl-opt: " << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(file), registry,
                                     config)))
    return 1;
  out->keep();
  return 0;
}
