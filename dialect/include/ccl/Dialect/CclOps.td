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
    (`#ccl.collective<AllReduce>`, ...; `#ccl.collective<custom>` for one
    the program declared, whose name is `custom_collective`); `inplace`
    whether output aliases input; `chunks` the number of chunks input and
    output are split into; `protocol` is `#ccl.protocol<LL>` or
    `#ccl.protocol<Simple>`. `input_chunks` and `output_chunks` give the number of chunks of
    `input` and `output` when they differ from `chunks` (AllGather's output
    has `nranks * chunks`); `instances` records how many copies of the
    program were laid side by side (`instances(k)`); `params` holds the
    values of the collective's parameters (`{root = 1 : i64}`);
    `channel_kind` the kind of the channels `--ccl-lower-chunks` creates for
    the algorithm's chunk-level transfers (the program's `channel(port)`
    clause; without it the pass's `channel` option decides); `tiles` the
    tiles per chunk the program asks for (its `tiles(k)` clause), which
    `--ccl-replicate{share-blocks}` applies and then drops.
    `also_inplace`, on an out-of-place algorithm (`implements
    C(inplace, outofplace)`), says that its code also serves in-place
    calls, and how the buffers then alias: `{from = "output", to =
    "input", offsets = array<i64: 0, 0>}` (chunk `i` of `from` on rank `r`
    is chunk `offsets[r] + i` of `to`); `--ccl-verify` proves the algorithm
    under that aliasing too. `bits` is what the algorithm promises about
    the bits of its reduced results (its `bits(...)` clause):
    `#ccl.bits<rank_consistent>` (every rank that receives a reduced
    element gets the same reduction expression, so the same bits; the
    default of an AllReduce), `#ccl.bits<size_invariant>` (rank-consistent,
    and all reduced chunks of a rank's buffer have the same expression over
    the ranks, so an element's bits do not depend on the count),
    `#ccl.bits<deterministic>` (every reduced element is the left fold of
    its inputs in rank order, on every rank at every count, so every
    algorithm that promises it gives the same bits) or
    `#ccl.bits<any>` (no promise; the default of every other collective);
    `--ccl-verify` proves the promise. The
    collective's contract is the `ccl.require` and `ccl.ensure` operations
    in the body. The symbol name
    is `<name>_n<nranks>`, so one module can hold an
    algorithm for several rank counts. At the global level the body holds
    instruction operations in program order; once `scheduled` is set it
    holds `ccl.thread_block` regions instead.

    ```mlir
    ccl.algorithm @allpairs_ll_n2 attributes {name = "allpairs_ll",
        collective = #ccl.collective<AllReduce>, nranks = 2 : i64,
        chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
      ccl.scratch @recv slots 2
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$name,
      Ccl_CollectiveKindAttr:$collective,
      OptionalAttr<StrAttr>:$custom_collective,
      DefaultValuedAttr<BoolAttr, "false">:$inplace,
      ConfinedAttr<I64Attr, [IntMinValue<1>]>:$nranks,
      ConfinedAttr<I64Attr, [IntMinValue<1>]>:$chunks,
      Ccl_ProtocolAttr:$protocol, UnitAttr:$scheduled,
      OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$input_chunks,
      OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$output_chunks,
      OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$instances,
      OptionalAttr<DictionaryAttr>:$params,
      OptionalAttr<Ccl_ChannelKindAttr>:$channel_kind,
      OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$tiles,
      OptionalAttr<DictionaryAttr>:$also_inplace,
      OptionalAttr<Ccl_BitsAttr>:$bits);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of chunks of a buffer (`input`, `output` or a scratch symbol);
    /// -1 when the buffer does not exist.
    int64_t getBufferChunks(::llvm::StringRef buffer);
    /// The scratch buffer, channel, switch channel or semaphore named
    /// `name`, or null. Declarations precede everything else in the body.
    ::mlir::Operation *lookupDeclaration(::llvm::StringRef name);
    /// Kinds of declaration, in the order they appear in the body.
    enum class Decl : unsigned { Scratch, Channel, SwitchChannel, Semaphore, All };
    /// Where a new declaration of `kind` goes: after the declarations of
    /// that kind and of the kinds before it (`All`: after every declaration,
    /// before the contract and the operations).
    ::mlir::Block::iterator declarationSlot(Decl kind);
    bool isLL() { return getProtocol() == ::ccl::Protocol::LL; }
    /// Whether every rank that receives a reduced element must get the
    /// same bits: the `bits` attribute, else true for an AllReduce.
    bool requiresRankConsistency() {
      if (auto b = getBitsAttr())
        return b.getValue() != ::ccl::Bits::Any;
      return getCollective() == ::ccl::CollectiveKind::AllReduce;
    }
    /// Whether the reduced chunks of each rank's buffer must all have the
    /// same expression over the ranks (`bits(size_invariant)`, and
    /// `bits(deterministic)`, which implies it).
    bool requiresSizeInvariance() {
      auto b = getBitsAttr();
      return b && (b.getValue() == ::ccl::Bits::SizeInvariant ||
                   b.getValue() == ::ccl::Bits::Deterministic);
    }
    /// Whether every reduced element must be the left fold of its inputs
    /// in rank order (`bits(deterministic)`).
    bool requiresRankOrderFold() {
      auto b = getBitsAttr();
      return b && b.getValue() == ::ccl::Bits::Deterministic;
    }
    /// Where `ref` lives when an algorithm of both forms (`also_inplace`) is
    /// called in place: a reference to the aliased buffer moved into the
    /// other at its rank's offset; every other reference as it is. Analyses
    /// that order accesses compare these, so that they also order what
    /// conflicts only in place.
    ::ccl::ChunkRefAttr inPlaceRef(::ccl::ChunkRefAttr ref);
    /// The collective's name: a built-in's (`AllReduce`) or the declared
    /// name of a custom one.
    ::llvm::StringRef getCollectiveName() {
      return getCollective() == ::ccl::CollectiveKind::Custom
                 ? getCustomCollective().value_or("")
                 : stringifyCollectiveKind(getCollective());
    }
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
  let summary = "A memory or port channel from one rank to another";
  let description = [{
    Declares a channel of kind `memory` (peer loads and stores) or `port`
    (requests executed by a proxy with DMA or RDMA) from rank `src` to rank
    `dst`. `put`, `get`, `signal` and `flush` on the channel run on `src`,
    `wait` runs on `dst`. A channel connecting a rank set through a switch
    is a `ccl.switch_channel`.

    `credit n` starts the channel with `n` signals before the first call:
    the k-th wait on it (counted over all calls) matches signal `k - n`, so
    the first `n` waits return at once. Signals are then the receiver's
    acknowledgements: a sender that waits on a credited channel before it
    reuses a slot waits for the acknowledgement of an earlier call's use.
    Such a channel ends every call with `n` signals not yet waited for.

    ```mlir
    ccl.channel @mem_0_1 memory 0 -> 1
    ccl.channel @ack_1_0 memory 1 -> 0 credit 1
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Ccl_ChannelKindAttr:$kind,
                       I64Attr:$src, I64Attr:$dst,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$credit);
  let assemblyFormat = "$sym_name custom<ChannelKind>($kind) $src `->` $dst (`credit` $credit^)? attr-dict";
  let extraClassDeclaration = [{
    /// Signals the channel holds before the first call (0 without credit).
    int64_t getCreditOrZero() { return getCredit() ? *getCredit() : 0; }
  }];
  let hasVerifier = 1;
}

def Ccl_SwitchChannelOp : Ccl_Op<"switch_channel", [Symbol, HasParent<"AlgorithmOp">]> {
  let summary = "A switch (multicast) channel over a set of ranks";
  let description = [{
    Declares a channel through an NVSwitch over the ranks `ranks` (at least
    two, distinct, ascending). `ccl.multimem_reduce` and
    `ccl.multimem_broadcast` use it. Code for it is only generated behind an
    explicit opt-in (docs/semantics.md).

    ```mlir
    ccl.switch_channel @sw ranks [0, 1, 2, 3]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$ranks);
  let assemblyFormat = "$sym_name `ranks` $ranks attr-dict";
  let hasVerifier = 1;
}

def Ccl_SemaphoreOp : Ccl_Op<"semaphore", [Symbol, HasParent<"AlgorithmOp">]> {
  let summary = "A counting semaphore shared by the thread blocks of one rank";
  let description = [{
    Declares a semaphore on rank `rank`, zero at the start of every call.
    `ccl.release` adds one, `ccl.acquire` waits until it is positive and
    subtracts one. It orders operations of different thread blocks of the
    same rank.

    ```mlir
    ccl.semaphore @sem_0_0 rank 0
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$rank);
  let assemblyFormat = "$sym_name `rank` $rank attr-dict";
  let hasVerifier = 1;
}

def Ccl_RequireOp : Ccl_Op<"require", [HasParent<"AlgorithmOp">]> {
  let summary = "Precondition: a chunk holds one input chunk at the start";
  let description = [{
    Part of the collective's contract: at the start of a call, chunk `at`
    (one chunk) holds the data of input chunk `value`. Chunks no
    `ccl.require` mentions hold nothing defined. For an out-of-place
    collective `at` and `value` are the same chunk of `input`; in place,
    `at` is where the input lives inside the aliased buffer.

    ```mlir
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ```
  }];
  let arguments = (ins Ccl_ChunkRefAttr:$at, Ccl_ChunkRefAttr:$value);
  let assemblyFormat = "$at `holds` $value attr-dict";
  let hasVerifier = 1;
}

def Ccl_EnsureOp : Ccl_Op<"ensure", [HasParent<"AlgorithmOp">]> {
  let summary = "Postcondition: a chunk holds a combination of input chunks";
  let description = [{
    Part of the collective's contract: at the end of a call, chunk `at`
    (one chunk) holds the reduction of the input chunks `terms`, each counted
    as often as it appears (one term: a copy of it). The verifier compares
    the symbolic final state with every `ccl.ensure`.

    ```mlir
    ccl.ensure <"output"[0] [0 : 1]> = [<"input"[0] [0 : 1]>, <"input"[1] [0 : 1]>]
    ```
  }];
  let arguments = (ins Ccl_ChunkRefAttr:$at,
                       TypedArrayAttrBase<Ccl_ChunkRefAttr, "chunk references">:$terms);
  let assemblyFormat = "$at `=` $terms attr-dict";
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

class Ccl_InstructionOp<string mnemonic, list<string> overridden = [],
                        list<Trait> traits = []>
    : Ccl_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<Ccl_InstructionOpInterface,
                                  !listconcat(["getExecRank"], overridden)>])> {
  let hasVerifier = 1;
}

// Placement: `tb T` pins the operation to thread block T, `group G` spreads
// it over thread blocks T .. T+G-1. Without `tb` the scheduler places it.
defvar Ccl_Placement = (ins OptionalAttr<I64Attr>:$tb, OptionalAttr<I64Attr>:$group);
defvar Ccl_PlacementFormat = "(`tb` $tb^)? (`group` $group^)?";

// Forwarding, produced by fusion (--ccl-fuse): after computing its result,
// the operation also sends it to `fwd_dsts[i]` over channel
// `fwd_channels[i]` (a put of the result, in the same pass over the data).
defvar Ccl_ChunkRefArray = TypedArrayAttrBase<Ccl_ChunkRefAttr, "chunk references">;
defvar Ccl_Forward = (ins OptionalAttr<Ccl_ChunkRefArray>:$fwd_dsts,
                          OptionalAttr<FlatSymbolRefArrayAttr>:$fwd_channels);
defvar Ccl_ForwardFormat = "(`forward` $fwd_dsts^ `via` $fwd_channels)?";

def Ccl_PutOp : Ccl_InstructionOp<"put", ["getWrittenRefs"]> {
  let summary = "Write chunks into a peer's buffer over a channel";
  let description = [{
    Runs on the channel's source rank: copies `src` (on that rank) into `dst`
    (on the channel's destination rank). Over a memory channel the threads
    store into peer memory; over a port channel a proxy moves the data with
    DMA or RDMA. The destination may read the data only after a `ccl.wait`
    that matches a later `ccl.signal` on the same channel. `signal` fuses
    that signal into the put (put_with_signal); `flush` also waits until
    the source may be reused (port channels only).

    ```mlir
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal flush
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src,
                            UnitAttr:$with_signal, UnitAttr:$with_flush),
                       Ccl_Forward);
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " $dst `=` $src ", Ccl_ForwardFormat, " (`signal` $with_signal^)? (`flush` $with_flush^)? attr-dict");
}

def Ccl_GetOp : Ccl_InstructionOp<"get"> {
  let summary = "Read chunks from a peer's buffer over a channel";
  let description = [{
    Runs on the channel's source rank: copies `src`, on the channel's
    destination rank, into `dst` on the source rank. The peer's data must be
    ready: the reading rank learns that through a `ccl.wait` on a channel
    in the other direction.

    ```mlir
    ccl.get @mem_0_1 tb 0 <"output"[0] [1 : 1]> = <"input"[1] [1 : 1]>
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src));
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " $dst `=` $src attr-dict");
}

def Ccl_SignalOp : Ccl_InstructionOp<"signal", ["getWrittenRefs", "getReadRefs"]> {
  let summary = "Tell the channel's destination that earlier puts arrived";
  let description = [{
    Runs on the channel's source rank. The k-th `ccl.wait` on the channel
    returns after the k-th signal, and then every put on the channel issued
    earlier by the signalling thread block is visible. `relaxed` drops that
    ordering (the signal only counts).

    ```mlir
    ccl.signal @mem_0_1 tb 0
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins UnitAttr:$relaxed));
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " (`relaxed` $relaxed^)? attr-dict");
}

def Ccl_WaitOp : Ccl_InstructionOp<"wait", ["getWrittenRefs", "getReadRefs", "waits"]> {
  let summary = "Wait for the matching signal on a channel";
  let description = [{
    Runs on the channel's destination rank: the k-th wait on a channel
    returns once the k-th `ccl.signal` on it was issued, and makes the puts
    that signal covers visible to the waiting thread block.

    ```mlir
    ccl.wait @mem_0_1 tb 0
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins UnitAttr:$relaxed));
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " (`relaxed` $relaxed^)? attr-dict");
}

def Ccl_FlushOp : Ccl_InstructionOp<"flush", ["getWrittenRefs", "getReadRefs", "waits"]> {
  let summary = "Wait until earlier port-channel puts no longer need their source";
  let description = [{
    Runs on the source rank of a port channel: returns once every earlier put
    of the thread block on the channel has read its source, so the source
    may be overwritten.

    ```mlir
    ccl.flush @port_0_1 tb 0
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement);
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " attr-dict");
}

def Ccl_PutPacketsOp : Ccl_InstructionOp<"put_packets", ["getWrittenRefs"]> {
  let summary = "Send chunks as LL packets into a peer's scratch buffer";
  let description = [{
    Runs on the channel's source rank: reads `src` on that rank and writes
    it as LL16 packets (8 payload bytes and two copies of the call's flag
    per 16-byte store) into `dst`, a scratch buffer on the channel's
    destination rank. The data and the flag arrive together, so no separate
    signal is needed.

    ```mlir
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src), Ccl_Forward);
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " $dst `=` $src ", Ccl_ForwardFormat, " attr-dict");
}

def Ccl_PackPacketsOp : Ccl_InstructionOp<"pack_packets"> {
  let summary = "Write local chunks as LL packets into a scratch buffer of the same rank";
  let description = [{
    The local counterpart of `ccl.put_packets`: runs on the rank that owns
    both `src` and `dst`, reads `src` (plain data, not scratch) and writes
    it as LL16 packets carrying the current call's flag into `dst`, a
    scratch buffer of the same rank, where the packet reads
    (`ccl.reduce_packets`, `ccl.unpack_packets`, `ccl.copy_packets`) take
    it as they take a peer's. A rank keeps its own contribution this way
    when its output aliases its input, for example to add all inputs in
    one order on every rank.

    ```mlir
    ccl.pack_packets tb 0 <"recv"[2] [2 : 1]> from <"input"[2] [0 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $src attr-dict");
}

def Ccl_CopyOp : Ccl_InstructionOp<"copy", ["getWrittenRefs"]> {
  let summary = "Copy chunks (chunk level: possibly across ranks)";
  let description = [{
    `dst = src`, element for element. When both are on one rank this is a
    local copy run by that rank. When they are on different ranks it is a
    chunk-level copy: it belongs to the destination's rank, and the
    chunk-lowering pass turns it into one-sided operations with the
    synchronisation they need.

    ```mlir
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy <"input"[2] [1 : 1]> = <"input"[1] [1 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src), Ccl_Forward,
                       (ins UnitAttr:$fwd_signal));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `=` $src ", Ccl_ForwardFormat, " (`signal` $fwd_signal^)? attr-dict");
  let extraClassDeclaration = [{
    bool isCrossRank() { return getDst().getRank() != getSrc().getRank(); }
  }];
}

def Ccl_ReduceOp : Ccl_InstructionOp<"reduce", ["accumulates", "getWrittenRefs", "getReadRefs"]> {
  let summary = "Reduce chunks into chunks (chunk level: possibly across ranks)";
  let description = [{
    `dst = dst OP src`, where OP is the reduction operator the kernel is
    specialised for. On one rank it is a local reduction; across ranks a
    chunk-level reduction that belongs to the destination's rank until the
    chunk-lowering pass splits it. Fusion may add more local sources
    (`and [...]`: an n-ary reduction in one pass) and forwarding of the result
    (`forward [...] via [...]`, with `signal` after the sends), or a
    `base` on the destination's rank: `dst = base OP src`, a local copy of
    `base` into `dst` folded into the reduction, which then reads `base`
    instead of `dst` (one pass over the data instead of two).

    ```mlir
    ccl.reduce <"input"[1] [0 : 1]> from <"input"[0] [0 : 1]>
    ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> base <"input"[0] [0 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src,
                            OptionalAttr<Ccl_ChunkRefArray>:$more,
                            OptionalAttr<Ccl_ChunkRefAttr>:$base),
                       Ccl_Forward, (ins UnitAttr:$fwd_signal));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $src (`and` $more^)? (`base` $base^)? ", Ccl_ForwardFormat, " (`signal` $fwd_signal^)? attr-dict");
  let extraClassDeclaration = [{
    bool isCrossRank() { return getDst().getRank() != getSrc().getRank(); }
  }];
}

def Ccl_ReadReduceOp : Ccl_InstructionOp<"read_reduce", ["getReadRefs", "accumulates"]> {
  let summary = "Reduce chunks read directly from several peers";
  let description = [{
    Runs on the rank that owns `dst`: `dst = dst OP srcs[0] OP srcs[1] ...`,
    loading each `srcs[i]` from its rank's memory through memory channel
    `channels[i]`, which goes from `dst`'s rank to that rank. The peers'
    data must be ready (a wait that matches their signal).

    ```mlir
    ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [<"input"[1] [0 : 1]>, <"input"[2] [0 : 1]>] via [@mem_0_1, @mem_0_2]
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst,
                            TypedArrayAttrBase<Ccl_ChunkRefAttr, "chunk references">:$srcs,
                            FlatSymbolRefArrayAttr:$channels));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $srcs `via` $channels attr-dict");
}

def Ccl_CopyPacketsOp : Ccl_InstructionOp<"copy_packets", ["waits"]> {
  let summary = "Copy received LL packets into another scratch buffer";
  let description = [{
    Runs on the rank that owns both scratch buffers: waits for the packets of
    the current call in `src` and writes them, still as packets, into `dst`
    (for example to forward them later).

    ```mlir
    ccl.copy_packets tb 0 <"fwd"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $src attr-dict");
}

def Ccl_UnpackPacketsOp : Ccl_InstructionOp<"unpack_packets", ["waits", "getWrittenRefs"]> {
  let summary = "Unpack received LL packets into plain data";
  let description = [{
    Runs on the rank that owns `dst`: waits for the packets of the current
    call in `src` (scratch on the same rank) and stores their payload into
    `dst`.

    ```mlir
    ccl.unpack_packets tb 0 <"output"[0] [1 : 1]> from <"recv"[0] [1 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src), Ccl_Forward,
                       (ins UnitAttr:$fwd_signal));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $src ", Ccl_ForwardFormat, " (`signal` $fwd_signal^)? attr-dict");
}

def Ccl_ReducePacketsOp : Ccl_InstructionOp<"reduce_packets", ["accumulates", "waits", "getWrittenRefs"]> {
  let summary = "Reduce LL packets received in scratch into chunks";
  let description = [{
    Runs on the rank that owns `dst`: waits for the packets of the current
    call in `src` (a scratch buffer on the same rank, written by a peer's
    `ccl.put_packets`) and sets `dst = dst OP payload`, where OP is the
    reduction operator the kernel is specialised for.

    ```mlir
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ```
  }];
  let arguments = !con(Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src), Ccl_Forward,
                       (ins UnitAttr:$fwd_signal));
  let assemblyFormat = !strconcat(Ccl_PlacementFormat, " $dst `from` $src ", Ccl_ForwardFormat, " (`signal` $fwd_signal^)? attr-dict");
}

def Ccl_MultimemReduceOp : Ccl_InstructionOp<"multimem_reduce", ["getReadRefs", "getWrittenRefs"]> {
  let summary = "Load-reduce one chunk from every rank of a switch channel";
  let description = [{
    Runs on the rank that owns `dst`: through switch channel `channel`, loads
    the chunk named by `src` (same buffer and index) from every rank of the
    channel, reduced by the switch, and stores the result into `dst`. `src`
    is written with `dst`'s rank; it stands for that chunk on every member.

    ```mlir
    ccl.multimem_reduce @sw tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src,
                            UnitAttr:$broadcast));
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " $dst `=` $src (`broadcast` $broadcast^)? attr-dict");
}

def Ccl_MultimemBroadcastOp : Ccl_InstructionOp<"multimem_broadcast", ["getWrittenRefs"]> {
  let summary = "Store one chunk into every rank of a switch channel";
  let description = [{
    Runs on the rank that owns `src`: through switch channel `channel`,
    stores `src` into the chunk named by `dst` on every rank of the channel.
    `dst` is written with `src`'s rank; it stands for that chunk on every
    member.

    ```mlir
    ccl.multimem_broadcast @sw tb 0 <"output"[1] [1 : 1]> = <"output"[1] [1 : 1]>
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$channel), Ccl_Placement,
                       (ins Ccl_ChunkRefAttr:$dst, Ccl_ChunkRefAttr:$src));
  let assemblyFormat = !strconcat("$channel ", Ccl_PlacementFormat, " $dst `=` $src attr-dict");
}

def Ccl_ReleaseOp : Ccl_InstructionOp<"release", ["getWrittenRefs", "getReadRefs"]> {
  let summary = "Release a cross-thread-block semaphore";
  let description = [{
    Runs on the semaphore's rank: after the thread block's earlier
    operations completed (and their writes are visible on the rank), adds one
    to `semaphore`.

    ```mlir
    ccl.release @sem_0_0 tb 1
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$semaphore), Ccl_Placement);
  let assemblyFormat = !strconcat("$semaphore ", Ccl_PlacementFormat, " attr-dict");
}

def Ccl_AcquireOp : Ccl_InstructionOp<"acquire", ["getWrittenRefs", "getReadRefs", "waits"]> {
  let summary = "Acquire a cross-thread-block semaphore";
  let description = [{
    Runs on the semaphore's rank: waits until `semaphore` is positive and
    subtracts one. The k-th acquire on a semaphore is matched with its k-th
    release; operations after it see the writes made before that release.

    ```mlir
    ccl.acquire @sem_0_0 tb 0
    ```
  }];
  let arguments = !con((ins FlatSymbolRefAttr:$semaphore), Ccl_Placement);
  let assemblyFormat = !strconcat("$semaphore ", Ccl_PlacementFormat, " attr-dict");
}

def Ccl_TbBarrierOp : Ccl_Op<"tb_barrier"> {
  let summary = "Barrier among several thread blocks of one rank";
  let description = [{
    Every thread block in `tbs` of rank `rank` reaches the barrier before any
    of them goes past it; writes made before it are visible after it. At
    the global level it stands once in program order; scheduling puts a
    copy into each participating thread block.

    ```mlir
    ccl.tb_barrier rank 0 tbs [0, 1, 2, 3]
    ```
  }];
  let arguments = (ins I64Attr:$rank, DenseI64ArrayAttr:$tbs);
  let assemblyFormat = "`rank` $rank `tbs` $tbs attr-dict";
  let hasVerifier = 1;
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
