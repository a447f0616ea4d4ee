//===- CclDialect.td - the ccl dialect ---------------------------*- tablegen -*-===//
//
// The `ccl` dialect: collective-communication algorithms at two levels, the
// global level (operations in program order, attributed to the rank that runs
// them) and the kernel level (per rank, per thread block instruction lists
// plus the execution plan). See docs/semantics.md and docs/dialect/CclDialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef CCL_DIALECT_TD
#define CCL_DIALECT_TD

include "mlir/IR/OpBase.td"

def Ccl_Dialect : Dialect {
  let name = "ccl";
  let cppNamespace = "::ccl";
  let summary = "Collective-communication algorithms over ranks, chunks and channels";
  let description = [{
    The `ccl` dialect describes a collective-communication algorithm for a
    fixed rank count. A `ccl.algorithm` holds the buffers (`ccl.scratch`) and
    channels (`ccl.channel`) it uses and, at the global level, the data
    movement in program order: every operation names the rank that executes it
    and the thread block it is placed on. Buffers are addressed with
    `#ccl.chunk` references (printed without the prefix inside an operation) (buffer, rank, first chunk, chunk count).

    After scheduling (`--ccl-schedule`) the same operations live inside
    `ccl.thread_block` regions, one per (rank, thread block), in execution
    order, with `ccl.barrier` where a block must synchronise its threads:
    the kernel level that code generation consumes.

    ```mlir
    ccl.algorithm @allpairs_ll_n2 attributes {name = "allpairs_ll",
        collective = #ccl.collective<AllReduce>, nranks = 2 : i64,
        chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
      ccl.scratch @recv slots 2
      ccl.channel @mem_0_1 memory 0 -> 1
      ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    }
    ```
  }];
  // What the passes record on an operation, printed with the `ccl.` prefix
  // (`{ccl.op_id = 3 : i64}`). Read and written through the helpers in
  // CclDialect.h, checked by the dialect's attribute verifier.
  let discardableAttrs = (ins
    // --ccl-schedule: the operation's index in the plan's table of source
    // locations (every instruction and multi-block barrier of the module).
    "::mlir::IntegerAttr":$op_id,
    // --ccl-chunk-dag: the operation's position in program order, and the
    // earlier operations (by dag_id) it reads after they wrote (raw),
    // overwrites after they read (war) or overwrites after they wrote (waw)
    // a common chunk slot.
    "::mlir::IntegerAttr":$dag_id,
    "::mlir::DenseI64ArrayAttr":$raw,
    "::mlir::DenseI64ArrayAttr":$war,
    "::mlir::DenseI64ArrayAttr":$waw
  );
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
}

#endif // CCL_DIALECT_TD
