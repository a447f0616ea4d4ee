//===- CclInterfaces.td - ccl op interfaces ----------------------*- tablegen -*-===//

#ifndef CCL_INTERFACES_TD
#define CCL_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Ccl_InstructionOpInterface : OpInterface<"InstructionOp"> {
  let cppNamespace = "::ccl";
  let description = [{
    An operation that one rank executes on one thread block and that reads
    and writes chunks. Analyses (the chunk DAG, the verifier, the scheduler)
    see every data-moving operation through this interface.
  }];
  let methods = [
    InterfaceMethod<"The rank that executes the operation.",
      "int64_t", "getExecRank">,
    InterfaceMethod<"The thread block it is placed on.",
      "int64_t", "getThreadBlock", (ins), [{ return $_op.getTb(); }]>,
    InterfaceMethod<"The chunk range the operation writes.",
      "::ccl::ChunkRefAttr", "getWrittenRef", (ins), [{ return $_op.getDst(); }]>,
    InterfaceMethod<"The chunk range the operation reads.",
      "::ccl::ChunkRefAttr", "getReadRef", (ins), [{ return $_op.getSrc(); }]>,
    InterfaceMethod<"True when the written range also keeps its old contents "
                    "(the operation accumulates into it).",
      "bool", "accumulates">,
    InterfaceMethod<"True when the operation waits for data sent by another "
                    "rank (it may time out).",
      "bool", "waits">,
  ];
}

#endif // CCL_INTERFACES_TD
