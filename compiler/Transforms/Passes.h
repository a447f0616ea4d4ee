//===- Passes.h - ccl passes -------------------------------------*- C++ -*-===//
#ifndef CCL_TRANSFORMS_PASSES_H
#define CCL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace ccl {

#define GEN_PASS_DECL
#include "compiler/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Transforms/Passes.h.inc"

} // namespace ccl

#endif // CCL_TRANSFORMS_PASSES_H
