//===- ccl-opt.cpp - run ccl passes over MLIR files ------------------------===//

#include "compiler/Conversion/Passes.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ccl::registerCclDialects(registry);
  ccl::registerCclPasses();
  ccl::registerCclConversionPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ccl optimizer driver\n", registry));
}
