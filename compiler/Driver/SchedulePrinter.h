//===- SchedulePrinter.h - readable schedules (cclc --emit=sched) -*- C++ -*-===//
#ifndef CCL_DRIVER_SCHEDULEPRINTER_H
#define CCL_DRIVER_SCHEDULEPRINTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace ccl {

/// Prints every scheduled algorithm of `module` as a table: per rank, per
/// thread block, the operations in order with their op id, operands and
/// source location.
void printSchedule(mlir::ModuleOp module, llvm::raw_ostream &os,
                   bool perRankKernels = false);

} // namespace ccl

#endif // CCL_DRIVER_SCHEDULEPRINTER_H
