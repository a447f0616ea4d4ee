//===- CclOps.td - ccl operations --------------------------------*- tablegen -*-===//

#ifndef CCL_OPS_TD
#define CCL_OPS_TD

include "ccl/Dialect/CclDialect.td"
include "ccl/Dialect/CclAttrs.td"
include "ccl/Dialect/CclInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Ccl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ccl_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Ccl_AlgorithmOp : Ccl_Op<"algorithm", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "One algorithm specialised for one rank count";
  let description = [{
    Holds the scratch buffers, channels and operations of algorithm `name`
    for `nranks` ranks. `collective` is the collective it implements
    (`AllReduce`, ...); `inplace` whether output aliases input; `chunks` the
    number of chunks input and output are split into; `protocol` is `LL` or
    `Simple`. The symbol name is `<name>_n<nranks>`, so one module can hold an
    algorithm for several rank counts. At the global level the body holds
    instruction operations in program order; once `scheduled` is set it
    holds `ccl.thread_block` regions instead.

    ```mlir
    ccl.algorithm @allpairs_ll_n2 {name = "allpairs_ll", collective = "AllReduce",
        nranks = 2 : i64, chunks = 1 : i64, protocol = "LL"} {
      ccl.scratch @recv slots 2
      ...
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    StrAttr:$name,
    StrAttr:$collective,
    DefaultValuedAttr<BoolAttr, "false">:$inplace,
    ConfinedAttr<I64Attr, [IntMinValue<1>]>:$nranks,
    ConfinedAttr<I64Attr, [IntMinValue<1>]>:$chunks,
    StrAttr:$protocol,
    UnitAttr:$scheduled
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of chunks of a buffer (`input`, `output` or a scratch symbol);
    /// -1 when the buffer does not exist.
    int64_t getBufferChunks(::llvm::StringRef buffer);
    bool isLL() { return getProtocol() == "LL"; }
  }];
}

def Ccl_ScratchOp : Ccl_Op<"scratch", [Symbol, HasParent<"AlgorithmOp">]> {
  let summary = "A scratch buffer present on every rank";
  let description = [{
    Declares scratch buffer `sym_name` with `slots` chunks on every rank. One
    slot holds one chunk unit of the input (`ceil(count / chunks)` elements);
    in an `LL` algorithm it holds that data as LL packets, and the buffer is
    double-buffered by call parity.

    ```mlir
    ccl.scratch @recv slots 4
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$slots);
  let assemblyFormat = "$sym_name `slots` $slots attr-dict";
}

def Ccl_ChannelOp : Ccl_Op<"channel", [Symbol, HasParent<"AlgorithmOp">]> {
  let summary = "A channel from one rank to another";
  let description = [{
    Declares a channel of kind `memory` (peer loads and stores), `port`
    (requests executed by a proxy with DMA or RDMA) or `switch` from rank
    `src` to rank `dst`. Operations that send on the channel run on `src`.

    ```mlir
    ccl.channel @mem_0_1 "memory" 0 -> 1
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind,
                       I64Attr:$src, I64Attr:$dst);
  let assemblyFormat = "$sym_name $kind $src `->` $dst attr-dict";
  let hasVerifier = 1;
}

def Ccl_ThreadBlockOp : Ccl_Op<"thread_block", [
    HasParent<"AlgorithmOp">, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "The instruction list of one thread block of one rank";
  let description = [{
    Kernel level: the operations that thread block `tb` of rank `rank`
    executes, in order. Produced by `--ccl-schedule`.

    ```mlir
    ccl.thread_block rank 0 tb 0 {
      ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
      ccl.barrier
      ...
    }
    ```
  }];
  let arguments = (ins I64Attr:$rank, I64Attr:$tb);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`rank` $rank `tb` $tb attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

class Ccl_InstructionOp<string mnemonic, list<Trait> traits = []>
    : Ccl_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<Ccl_InstructionOpInterface,
                                  ["getExecRank", "accumulates", "waits"]>])> {
  let hasVerifier = 1;
}

def Ccl_PutPacketsOp : Ccl_InstructionOp<"put_packets"> {
  let summary = "Send chunks as LL packets into a peer's scratch buffer";
  let description = [{
    Runs on the channel's source rank, on thread block `tb`: reads `src` on
    that rank and writes it as LL16 packets (8 payload bytes and two copies
    of the call's flag per 16-byte store) into `dst`, a scratch buffer on the
    channel's destination rank. The data and the flag arrive together, so no
    separate signal is needed.

    ```mlir
    ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$channel, I64Attr:$tb,
                       Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src);
  let assemblyFormat = "$channel `tb` $tb $dst `=` $src attr-dict";
}

def Ccl_CopyOp : Ccl_InstructionOp<"copy"> {
  let summary = "Copy chunks on one rank";
  let description = [{
    Runs on the rank that owns `dst` (which must also own `src`), on thread
    block `tb`: `dst = src`, element for element.

    ```mlir
    ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
    ```
  }];
  let arguments = (ins I64Attr:$tb, Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src);
  let assemblyFormat = "`tb` $tb $dst `=` $src attr-dict";
}

def Ccl_ReducePacketsOp : Ccl_InstructionOp<"reduce_packets"> {
  let summary = "Reduce LL packets received in scratch into chunks";
  let description = [{
    Runs on the rank that owns `dst`, on thread block `tb`: waits for the
    packets of the current call in `src` (a scratch buffer on the same rank,
    written by a peer's `ccl.put_packets`) and sets `dst = dst OP payload`,
    where OP is the reduction operator the kernel is specialised for.

    ```mlir
    ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]>
    ```
  }];
  let arguments = (ins I64Attr:$tb, Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src);
  let assemblyFormat = "`tb` $tb $dst `from` $src attr-dict";
}

def Ccl_BarrierOp : Ccl_Op<"barrier", [HasParent<"ThreadBlockOp">]> {
  let summary = "Barrier among the threads of one thread block";
  let description = [{
    Kernel level: every thread of the enclosing thread block finishes the
    operations before it (and their memory effects become visible to the
    block) before any thread starts the operations after it. Inserted by
    `--ccl-schedule` where consecutive operations of a block depend on each
    other's data.

    ```mlir
    ccl.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // CCL_OPS_TD
