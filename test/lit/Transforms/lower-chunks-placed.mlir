// RUN: %ccl-opt %s --ccl-lower-chunks=cross-call=none -split-input-file | FileCheck %s
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks --ccl-fuse --ccl-schedule --ccl-verify -split-input-file > /dev/null

// Placed chunk-level operations across ranks (a copy with `tb` whose source
// is on another rank), followed by unplaced operations that depend on them.
// The placed operation is lowered on its own thread block (tb 1), and
// erased; the later operations are ordered after its halves on the
// destination's rank: the receiving copy, reduce or unpack, or the wait
// where the put lands in place. (The pass used to keep the erased operation
// in its list of placed operations: a use after free, which crashed cclc or
// named a wrong operation in a diagnostic; found by
// //test/fuzz:ccl_opt_fuzzer. It also lowered it on block 0.)

// CHECK-LABEL: ccl.algorithm @after_placed_remote_n2
// CHECK:         ccl.semaphore @order_0_0 rank 0
// CHECK:         ccl.put @mem_1_0_b1 tb 1 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_1_0_b1 tb 1
// CHECK-NEXT:    ccl.wait @mem_1_0_b1 tb 1
// CHECK-NEXT:    ccl.copy tb 1 <"output"[0] [0 : 1]> = <"xfer"[0] [0 : 1]>
// CHECK-NEXT:    ccl.release @order_0_0 tb 1
// CHECK-NEXT:    ccl.acquire @order_0_0 tb 2
// CHECK-NEXT:    ccl.reduce tb 2 <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 3 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
ccl.algorithm @after_placed_remote_n2 attributes {name = "after_placed_remote", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// CHECK-LABEL: ccl.algorithm @after_placed_remote_ll_n2
// CHECK:         ccl.put_packets @mem_1_0_b1 tb 1 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.unpack_packets tb 1 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]>
// CHECK-NEXT:    ccl.release @order_0_0 tb 1
// CHECK-NEXT:    ccl.acquire @order_0_0 tb 2
// CHECK-NEXT:    ccl.reduce tb 2 <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>
ccl.algorithm @after_placed_remote_ll_n2 attributes {name = "after_placed_remote_ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// CHECK-LABEL: ccl.algorithm @placed_into_scratch_n2
// CHECK:         ccl.put @mem_1_0_b1 tb 1 <"stage"[0] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_1_0_b1 tb 1
// CHECK-NEXT:    ccl.wait @mem_1_0_b1 tb 1
// CHECK-NEXT:    ccl.release @order_0_0 tb 1
// CHECK-NEXT:    ccl.acquire @order_0_0 tb 2
// CHECK-NEXT:    ccl.copy tb 2 <"output"[0] [0 : 1]> = <"stage"[0] [0 : 1]>
ccl.algorithm @placed_into_scratch_n2 attributes {name = "placed_into_scratch", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @stage slots 1
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy tb 1 <"stage"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"stage"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// A placed operation after an unplaced one that touches its chunk on its
// rank: the unplaced copy runs on its lane's block (tb 1 of both ranks),
// so the placed copy on tb 0 of rank 1 acquires a semaphore that tb 1
// releases after the wait that lands the chunk. (It used to read tmp[1]
// with nothing ordering it after the put: a data race the kernel-level
// verification reported as an internal compiler error; found by
// //test/fuzz:ccl_opt_fuzzer.)

// CHECK-LABEL: ccl.algorithm @placed_after_unplaced_n2
// CHECK:         ccl.semaphore @order_1_0 rank 1
// CHECK:         ccl.put @mem_0_1_b1 tb 1 <"tmp"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_0_1_b1 tb 1
// CHECK-NEXT:    ccl.wait @mem_0_1_b1 tb 1
// CHECK-NEXT:    ccl.release @order_1_0 tb 1
// CHECK-NEXT:    ccl.acquire @order_1_0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
ccl.algorithm @placed_after_unplaced_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "placed_after_unplaced", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"tmp"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// The put of a placed chunk-level operation runs on its block of the
// source's rank as early as what it reads allows: rank 1's put comes before
// its wait for rank 0's signal, which rank 0 sends only after it received
// the chunk. (At the copy's position the put came after that wait: a cyclic
// wait the program does not have, which the kernel-level verification
// reported as an internal compiler error; found by
// //test/fuzz:ccl_opt_fuzzer.)

// CHECK-LABEL: ccl.algorithm @send_early_n2
// CHECK:         ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_1_0_b0 tb 0
// CHECK-NEXT:    ccl.wait @m_0_1 tb 0
// CHECK-NEXT:    ccl.wait @mem_1_0_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"xfer"[0] [0 : 1]>
// CHECK-NEXT:    ccl.signal @m_0_1 tb 0
ccl.algorithm @send_early_n2 attributes {name = "send_early", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.wait @m_0_1 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// An unplaced operation that is not a copy or a reduce (here a wait) stays
// on block 0, in program order, where the verifier of the global level has
// it; only unplaced copies and reduces get lanes. (The wait used to get a
// lane block of its own, and the kernel-level verification reported the
// channel end waited on by two blocks as an internal compiler error; found
// by //test/fuzz:ccl_opt_fuzzer.)

// CHECK-LABEL: ccl.algorithm @unplaced_wait_n2
// CHECK:         ccl.wait @m_1_0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.wait @m_1_0 tb 0
ccl.algorithm @unplaced_wait_n2 attributes {name = "unplaced_wait", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_0 tb 0
  ccl.wait @m_1_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @m_1_0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// The same for an unplaced wait for an acknowledgement before a placed put:
// on block 0 it still orders the put into the slot after the
// acknowledgement of the previous call. (On a lane block it ordered
// nothing: a write-after-read race between calls, reported as an internal
// compiler error; found by //test/fuzz:ccl_opt_fuzzer.)

// CHECK-LABEL: ccl.algorithm @unplaced_ack_n2
// CHECK:         ccl.wait @a_1_0 tb 0
// CHECK-NEXT:    ccl.put @c_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
ccl.algorithm @unplaced_ack_n2 attributes {name = "unplaced_ack", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @c_0_1 memory 0 -> 1
  ccl.channel @a_1_0 memory 1 -> 0 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.wait @a_1_0
  ccl.put @c_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @c_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.signal @a_1_0 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
