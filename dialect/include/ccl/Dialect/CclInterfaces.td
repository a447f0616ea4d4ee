//===- CclInterfaces.td - ccl op interfaces ----------------------*- tablegen -*-===//

#ifndef CCL_INTERFACES_TD
#define CCL_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Ccl_InstructionOpInterface : OpInterface<"InstructionOp"> {
  let cppNamespace = "::ccl";
  let description = [{
    An operation that one rank executes (on one thread block, or on a group
    of consecutive thread blocks) and that reads and writes chunks or
    synchronises. Analyses (the chunk DAG, the verifier, the scheduler) see
    every operation of an algorithm through this interface.
  }];
  let methods = [
    InterfaceMethod<"The rank that executes the operation.",
      "int64_t", "getExecRank">,
    InterfaceMethod<"True when the program placed the operation (`tb`); "
                    "otherwise the scheduler chooses.",
      "bool", "isPlaced", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{ return $_op.getTbAttr() != nullptr; }]>,
    InterfaceMethod<"The (first) thread block it is placed on; 0 when not "
                    "placed.",
      "int64_t", "getThreadBlock", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return $_op.getTbAttr() ? $_op.getTbAttr().getInt() : 0;
      }]>,
    InterfaceMethod<"How many consecutive thread blocks share the operation "
                    "(a thread-block group); 1 for a single block.",
      "int64_t", "getGroupSize", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return $_op.getGroupAttr() ? $_op.getGroupAttr().getInt() : 1;
      }]>,
    InterfaceMethod<"The chunk ranges the operation writes.",
      "::llvm::SmallVector<::ccl::ChunkRefAttr, 2>", "getWrittenRefs", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return {$_op.getDst()};
      }]>,
    InterfaceMethod<"The chunk ranges the operation reads (besides the "
                    "written range of an accumulating operation).",
      "::llvm::SmallVector<::ccl::ChunkRefAttr, 2>", "getReadRefs", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return {$_op.getSrc()};
      }]>,
    InterfaceMethod<"True when the written range also keeps its old contents "
                    "(the operation accumulates into it).",
      "bool", "accumulates", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<"True when the operation waits for another rank or "
                    "thread block (it may time out).",
      "bool", "waits", (ins), /*methodBody=*/[{}], /*defaultImplementation=*/[{ return false; }]>,
  ];
}

#endif // CCL_INTERFACES_TD
