//===- Passes.td - ccl conversion passes -------------------*- tablegen -*-===//
//
// Passes that convert out of the ccl dialect. The passes that transform
// the ccl dialect itself are declared in compiler/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef CCL_CONVERSION_PASSES_TD
#define CCL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def CclLowerToLLVM : Pass<"ccl-lower-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower scheduled algorithms to LLVM dialect kernels";
  let description = [{
    Lowers every thread block of every scheduled `ccl.algorithm`, element
    type and reduction operator into calls into the device primitive
    library (`__ccl_put_packets`, `__ccl_reduce_packets_f32_sum`, ...),
    which is linked and inlined later. Blocks whose code is the same up to
    integer constants (instances, tiles, and the ranks of a symmetric
    algorithm) share one block program that reads the constants they
    differ in (chunk and slot indices, peers, channel indices, op ids) from
    a read-only table row; the kernel dispatches on the program of its
    (rank, block) and passes the row. When the ranks share their programs,
    one kernel `ccl_<name>_nN_<dtype>_<op>` serves every rank and every rank
    count of the algorithm (it reads the rank count from the context);
    otherwise the variant gets `ccl_<name>_n<nranks>_<dtype>_<op>`, on GPU
    targets one per rank with `_r<rank>` appended. Target differences
    (kernel calling convention, how the block index is read, the tables'
    address space) come from the target's `TargetInfo`.

    With `type-generic` (what cclc sets for the host and NVPTX targets,
    except NVPTX with `per-rank-kernels`) every algorithm is lowered once
    for all element types and operators: the block programs take the
    kind (element type code * 4 + operator code, as in `ccl/types.def`)
    as an argument, compute the element size from it and call the device
    library's `_any` forms of the reductions
    (`__ccl_reduce_any`), which dispatch on it; each
    `ccl_<name>_..._<dtype>_<op>` kernel is then only its dispatch, calling
    the shared programs with its own kind.

    Scratch slots are laid out for the largest message (`max-bytes`), so a
    slot's address does not depend on the call's `count` and consecutive
    calls of different sizes use the same slots; an operation that moves
    several chunks from or into scratch is split into one operation per
    chunk first (each chunk goes to the start of its own slot).

    ```mlir
    llvm.func ptx_kernelcc @ccl_allpairs_ll_nN_f32_sum(%ctx: !llvm.ptr, ...)
    llvm.func internal @ccl_allpairs_ll_nN_f32_sum__p0(%ctx: !llvm.ptr, ...,
                                                      %row: !llvm.ptr<1>)
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Target: host, sm_90, gfx942 or gfx90a">,
    Option<"maxBytes", "max-bytes", "uint64_t", /*default=*/"1048576",
           "Largest message the library supports (count times element "
           "size): the scratch layout">,
    ListOption<"dtypes", "dtypes", "std::string",
               "Element types (float32, float16, bfloat16)">,
    ListOption<"redops", "redops", "std::string",
               "Reduction operators (sum, prod, max, min)">,
    Option<"perRankKernels", "per-rank-kernels", "bool", /*default=*/"false",
           "One kernel per algorithm variant (on GPU targets per rank), "
           "never shared between rank counts, its blocks sharing programs "
           "only with blocks of the same kernel">,
    Option<"typeGeneric", "type-generic", "bool", /*default=*/"false",
           "Lower each algorithm once for every element type and operator "
           "(the kind is an argument of its block programs); the kernel of "
           "each type and operator calls them with its own">,
    Option<"testCorrupt", "test-corrupt", "std::string", /*default=*/"\"\"",
           "Test only: damage one table or operand kind of the generated "
           "code (row-entry, program-index, rank-count-select, kernel-name, "
           "chunk-index, scratch-slots, channel-index, wait-ordinal, kind, "
           "kind-row) to show "
           "that the translation validation reports it">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // CCL_CONVERSION_PASSES_TD
