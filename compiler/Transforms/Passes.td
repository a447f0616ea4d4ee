//===- Passes.td - ccl passes ------------------------------------*- tablegen -*-===//

#ifndef CCL_PASSES_TD
#define CCL_PASSES_TD

include "mlir/Pass/PassBase.td"

def CclVerify : Pass<"ccl-verify", "mlir::ModuleOp"> {
  let summary = "Prove that each algorithm implements its collective";
  let description = [{
    Executes every `ccl.algorithm` symbolically, at the global level (one
    queue per rank and thread block, in program order; unplaced operations
    on thread block 0) and at the kernel level (the `ccl.thread_block`
    regions of a scheduled algorithm), and proves it against its own
    contract: `ccl.require` seeds the initial state (every other chunk is
    undefined), `ccl.ensure` is the postcondition, a multiset of input
    chunks per location. An algorithm without `ccl.ensure` is rejected.
    Every operation of the dialect has its data semantics (put, get, copy,
    reduce, read_reduce, the packet operations, multimem reduce and
    broadcast; multi-chunk references element by element) and its
    synchronisation (signal/wait matched by count, LL packet flags, flush,
    semaphores, thread-block barriers; chunk-level copy/reduce ordered after
    the earlier operations they conflict with). Vector clocks per thread
    block decide happens-before.

    The machine runs several calls back to back (`calls`; by default one
    more than the number of calls after which a location is reused: 2, or
    3 when LL scratch alternates between two copies): a rank starts its
    next call as soon as its own thread blocks have finished the previous
    one, the caller reads each call's results when the rank's call returns
    and refills its input, and signal and semaphore counters carry over
    from call to call (they are never reset). So a scratch slot that the
    next call overwrites before a peer has read it, a peer's buffer read
    while the next call rewrites it, a semaphore released more often than
    it is acquired, or an LL sender that runs two calls ahead of its
    receiver is a compile error naming the calls involved.

    An algorithm of both forms (`also_inplace`, from `implements
    C(inplace, outofplace)`) is proved a second time on a copy whose every
    chunk reference is moved where it lives when the call is in place
    (`output[r]` into `input[r]` for AllReduce); its errors begin `called
    in place (output aliasing input, ...)`.

    Rejected, with rank, buffer and chunk, the source lines of both
    operations and a counterexample trace: a wrong final value (missing and
    double-counted terms), a read of undefined data, a read of data a put
    wrote before a signal and a matching wait made it visible, data races
    (read-write, write-write, write-after-read), a port-channel put source
    overwritten before a flush or never flushed, a wait, acquire or packet
    read that nothing satisfies, cyclic waits (deadlock), a signal no wait
    consumes, two packet writes into one slot in one call, a channel end or
    semaphore end used by two thread blocks, more thread blocks per rank
    than `max-blocks-per-rank`, and (kernel level) two dependent operations
    of a block without a `ccl.barrier` between them. docs/semantics.md
    ("Verification") has the exact rules.

    Every error says for which rank counts the algorithm fails, once for
    all of them (the details are those of the smallest). Example: an
    AllReduce that forgets the contribution of rank 2 fails at its
    `ccl.ensure` with `with 3 ranks: AllReduce postcondition fails:
    output[0][0] (rank 0, chunk 0) holds input[0][0] + input[1][0] but must
    hold input[0][0] + input[1][0] + input[2][0] (missing: input[2][0])`.
  }];
  let options = [
    Option<"maxBlocksPerRank", "max-blocks-per-rank", "int64_t",
           /*default=*/"132",
           "Most thread blocks a rank may use (they must be co-resident; 132 "
           "is the SM count of an H100/H200)">,
    Option<"calls", "calls", "int64_t", /*default=*/"0",
           "Consecutive calls to run (0: as many as prove any number of "
           "calls)">,
    Option<"compiled", "compiled", "bool", /*default=*/"false",
           "The algorithms are the compiler's lowering of programs that "
           "verified: report a failure as a compiler error">,
  ];
}

def CclChunkDag : Pass<"ccl-chunk-dag", "mlir::ModuleOp"> {
  let summary = "Make data dependencies between operations explicit";
  let description = [{
    Numbers the operations of each global-level algorithm in program order
    (`ccl.dag_id`) and records, per operation, the earlier operations it
    depends on through a common chunk slot: `ccl.raw` (it reads what they
    wrote), `ccl.war` (it overwrites what they read) and `ccl.waw` (it
    overwrites what they wrote).
    Only the latest writer and the readers since it count, so the edges form
    the transitive reduction per slot. An accumulating operation (`reduce`,
    `reduce_packets`) reads and writes its destination; a fused forward
    writes its forward destinations; a multimem operation touches the chunk
    on every member. Thread-block barriers depend on nothing by data. In an
    algorithm of both forms (`also_inplace`) slots are compared where they
    live in place, so a write of `output[r][c]` also depends on an earlier
    read of `input[r][c]` of an AllReduce.
    Later passes and tools read the edges; the pass changes no semantics and
    running it twice gives the same result.

    ```mlir
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.dag_id = 0 : i64}
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
        {ccl.dag_id = 2 : i64, ccl.raw = array<i64: 0, 1>, ccl.waw = array<i64: 0>}
    ```
  }];
}

def CclLowerChunks : Pass<"ccl-lower-chunks", "mlir::ModuleOp"> {
  let summary = "Turn chunk-level copy/reduce into one-sided operations";
  let description = [{
    A `ccl.copy` or `ccl.reduce` whose source and destination are on
    different ranks carries implicit synchronisation (docs/semantics.md,
    ordering rule 9). This pass makes it explicit. The source's rank sends
    the data into a fresh slot of a transfer scratch buffer `xfer` on the
    destination's rank over the channel `src -> dst` and signals; the
    destination's rank waits and then copies or reduces the slot into the
    destination. In an LL algorithm the send is `put_packets` and the
    receive `unpack_packets`/`reduce_packets`, which need no signal. A copy
    into a scratch buffer (Simple) lands there directly. Each transfer gets
    its own slots, so no slot is reused within a call.

    Operations without a thread block (`tb`) are placed automatically. They
    are split into lanes: operations linked (transitively) by a dependency
    of the chunk DAG (`--ccl-chunk-dag`; without it, by touching a common
    chunk) share a lane; operations of different lanes are independent.
    Each lane runs on its own thread block (lane modulo `max-blocks`, after
    the blocks the program placed itself) with its own channels, so
    independent chains (the chunks of a ring) proceed in parallel. Within a
    lane, every rank runs its operations in program order, which is
    deadlock free because every wait follows its send in that order. When
    lanes share a block (more lanes than `max-blocks`), the operations are
    first put in priority order: depth in the chunk DAG, then reverse depth
    (critical path first), then program order; so a block starts every
    chain's first hop before any chain's second one instead of running one
    chain to its end first (needs `--ccl-chunk-dag` and a program with no
    placed operations). Two exceptions keep fusable pairs together: a
    cross-rank copy or reduce that sends the result of a local copy or
    reduce follows it directly once its other predecessors have run, so
    the root of a chain whose chunks share a block copies and sends chunk
    by chunk and `ccl-fuse` makes each pair one pass; and a local copy
    `D = B` goes down to just before the reduce into D that consumes it
    (unless another operation that depends on the copy comes first), so
    `ccl-fuse` folds it into the reduce (`base`) instead of the block
    copying every chunk ahead. Programs without chunk-level or unplaced
    operations are left alone.

    Consecutive calls: a rank starts its next call as soon as its own blocks
    are done, so the next call's put into a transfer slot could overwrite
    data the destination has not consumed yet. The pass proves, from the
    ordering of one call (what each rank's end of call waits for), which
    transfers are safe anyway (as in a ring AllReduce, where every rank
    hears from every other one before it finishes) and acknowledges the
    others: the destination signals a credited acknowledgement channel
    (`ack_D_S_bT`, one credit per acknowledgement of a call, two for LL
    slots, which alternate between calls) after it consumed the slot, and
    the source waits on it before it fills the slot again; the first call
    finds the credit. A copy that would land directly in the destination's
    scratch goes through a transfer slot instead when its landing is not
    safe. The acknowledgement signal is placed after the block's
    non-blocking operations that follow the consumption and the wait before
    those that precede the put, so fusion still sees recv-copy-send chains;
    the signal stops before a local copy that the next reduce of the block
    (only waits between) will absorb.
    `cross-call=none` leaves transfers unprotected (for testing the
    verifier, which then rejects the program).

    ```mlir
    // before (rank 1 reduces rank 0's chunk into its own)
    ccl.reduce <"input"[1] [0 : 1]> from <"input"[0] [0 : 1]>
    // after
    ccl.scratch @xfer slots 1
    ccl.channel @mem_0_1_b0 memory 0 -> 1
    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.signal @mem_0_1_b0 tb 0
    ccl.wait @mem_0_1_b0 tb 0
    ccl.reduce tb 0 <"input"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
    ```
  }];
  let options = [
    Option<"channelKind", "channel", "std::string", /*default=*/"\"memory\"",
           "Channel kind for Simple transfers: memory or port (an "
           "algorithm's channel_kind attribute wins)">,
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"64",
           "Most thread blocks per rank for automatically placed lanes">,
    Option<"crossCall", "cross-call", "std::string", /*default=*/"\"ack\"",
           "Safety of transfer slots across calls: ack (acknowledge where "
           "needed) or none (testing only)">,
  ];
}

def CclFuse : Pass<"ccl-fuse", "mlir::ModuleOp"> {
  let summary = "Fuse consecutive operations of a thread block";
  let description = [{
    Merges an operation with the next operation of the same thread block
    (same rank and `tb`, nothing of that block in between) when one pass
    over the data can do both. The rules:

    * **put + signal (+ flush)**: `put @c` then `signal @c` (not relaxed)
      becomes `put @c ... signal`; a following `flush @c` adds `flush`.
    * **multi-destination put**: two puts of the same source (same signal
      and flush) become one put with a forward.
    * **recv-copy-send (rcs)**: a local `copy D = X` then `put Y = D`
      becomes `copy D = X forward [Y]`.
    * **reduce-send (rrcs / reduce_send)**: a local `reduce D from X` then
      `put Y = D` becomes `reduce D from X forward [Y]`.
    * **forward + signal**: a forwarding copy or reduce followed by a
      `signal` on its (single) forward channel gets `signal`.
    * **n-ary reduce**: `reduce D from X` then `reduce D from Z` (local)
      becomes `reduce D from X and [Z]`.
    * **copy into reduce (3-address reduce)**: a local `copy D = B` then,
      with only waits of the block in between, a local `reduce D from X`
      becomes `reduce D from X base B` (`D = B OP X`, one pass instead of
      two, after the waits). Not when X is, in place, D (the reduce would
      read the copy's result), when B partly overlaps D in place, or when
      the copy forwards.
    * **packet reduce-copy-send**: `reduce_packets D from R` then
      `put_packets Y = D` becomes `reduce_packets D from R forward [Y]`.
    * **multimem load-reduce-store**: `multimem_reduce @s D = S` then
      `multimem_broadcast @s D = D` becomes `multimem_reduce @s D = S
      broadcast`.

    Fusion moves no operation past another one of its block except a
    copy folded into a reduce, which moves past waits only: a wait makes
    later operations wait for a peer, it lets no peer wait for this block,
    so the copy races nothing it did not race before. The order every block
    observes is otherwise unchanged; fusion removes the barrier the
    scheduler would put between the two operations and one pass over the
    data. Cross-rank (chunk-level) operations, thread-block groups and
    operations on different blocks are never fused, and a put over a port
    channel never becomes a forward (the proxy moves its bytes on a copy
    engine; a forward is stored by the threads): over port channels only
    put + signal (+ flush) fuses.

    ```mlir
    // before
    ccl.reduce tb 0 <"input"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
    ccl.put @mem_1_2 tb 0 <"xfer"[2] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.signal @mem_1_2 tb 0
    // after
    ccl.reduce tb 0 <"input"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
        forward [#ccl.chunk<"xfer"[2] [0 : 1]>] via [@mem_1_2] signal
    ```
  }];
}

def CclReplicate : Pass<"ccl-replicate", "mlir::ModuleOp"> {
  let summary = "Lay several copies of an algorithm side by side (instances)";
  let description = [{
    With `instances=k` (k > 1), replaces each global-level algorithm whose
    operations are all placed by `k` copies that each work on `1/k` of the
    data, as `instances(k)` in the language does: chunk `c` of the
    algorithm becomes chunks `c * k + j` of copy `j` (so `chunks`, the
    buffers' chunk counts and every scratch buffer's slots grow `k`-fold),
    each copy gets its own channels (`NAME_iJ`) and semaphores, and thread
    block `t` of copy `j` becomes `t + j * T`, `T` being the number of
    thread blocks of the original. The contract is refined the same way,
    and so is the in-place layout of an algorithm of both forms
    (`also_inplace`: each rank's chunk offset times `k`), which the
    verifier's in-place proof of the replicated program uses. More copies
    mean more thread blocks and channels working in parallel.
    An operation on several chunks is split per chunk. Algorithms with an
    unplaced operation are left alone (run `--ccl-lower-chunks` first).

    With `share-blocks`, the copies are tiles instead: they keep the thread
    blocks (each tile gets its own channels `NAME_tJ` and semaphores) and
    run as a wavefront: tile j of an operation of depth d (the longest chain
    of block-order and signal-to-wait relations ending at it) runs at step
    d + j, so a block sends tile j + 1 while tile j travels on and the
    transfers of a chunk are pipelined (`cclc --tiles=k`). Every wait's
    signal has a smaller step, so the order is deadlock free when the
    program is. Programs with semaphores, multi-block barriers or LL packets
    run tile after tile. Tiling also applies an algorithm's own `tiles`
    attribute (its `tiles(k)` clause) times `instances`, even when
    `instances` is 1, once the algorithm is placed, and drops it; more than
    64 tiles per chunk in all is an error.

    ```mlir
    // instances=2, before
    ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    // after
    ccl.put @mem_0_1_i0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put @mem_0_1_i1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]>
    ```
  }];
  let options = [
    Option<"instances", "instances", "int64_t", /*default=*/"1",
           "Number of copies (1 leaves the module unchanged)">,
    Option<"shareBlocks", "share-blocks", "bool", /*default=*/"false",
           "Tiling: the copies keep the thread blocks, channels and "
           "semaphores and run one after the other on them">,
  ];
}

def CclSchedule : Pass<"ccl-schedule", "mlir::ModuleOp"> {
  let summary = "Group operations into per-rank, per-thread-block lists";
  let description = [{
    Turns each global-level `ccl.algorithm` into the kernel level: one
    `ccl.thread_block` per (rank, thread block) holding that block's
    operations in program order, a `ccl.op_id` on every operation (it indexes
    the plan's table of source locations; the copies of a `ccl.tb_barrier`
    in its blocks share one, numbered after the module's instructions), and
    a `ccl.barrier` between two operations of a block when the later one
    touches data the earlier one wrote, or writes data it read (the threads
    of a block split each operation differently). A barrier is not inserted
    between independent operations. In an algorithm of both forms
    (`also_inplace`) data is compared where it lives in place: a put that
    reads `input[r][0]` and a later copy into `output[r][0]` of an
    AllReduce get a barrier.

    ```mlir
    // before
    ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
    ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]>
    // after
    ccl.thread_block rank 0 tb 0 {
      ccl.copy tb 0 ... {ccl.op_id = 0 : i64}
      ccl.barrier
      ccl.reduce_packets tb 0 ... {ccl.op_id = 1 : i64}
    }
    ```
  }];
}

#endif // CCL_PASSES_TD
