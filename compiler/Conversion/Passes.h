//===- Passes.h - ccl conversion passes --------------------------*- C++ -*-===//
//
// Declarations and registration of the passes that convert out of the ccl
// dialect (compiler/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_PASSES_H
#define CCL_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace ccl {

#define GEN_PASS_DECL
#include "compiler/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/Passes.h.inc"

} // namespace ccl

#endif // CCL_CONVERSION_PASSES_H
