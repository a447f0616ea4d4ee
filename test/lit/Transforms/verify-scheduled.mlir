// RUN: %ccl-opt %S/verify-correct.mlir -split-input-file --ccl-schedule --ccl-verify -verify-diagnostics
// RUN: %ccl-opt %s -split-input-file --ccl-verify -verify-diagnostics
//
// Re-verification at the kernel level: --ccl-verify builds the queues from
// the ccl.thread_block regions of a scheduled algorithm (global program order
// from op_id), matches the ccl.tb_barrier copies of the participating blocks
// and runs the same machine. The first RUN line schedules every correct
// program of verify-correct.mlir and proves it again.

// Tests that a kernel-level all-pairs LL AllReduce with ccl.barrier where a
// block reuses data is proven.
ccl.algorithm @allpairs_ll_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "allpairs_ll", nranks = 2 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 1 : i64}
    ccl.barrier
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> {ccl.op_id = 2 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
  }
  ccl.thread_block rank 1 tb 0 {
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> {ccl.op_id = 4 : i64}
    ccl.barrier
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]> {ccl.op_id = 5 : i64}
  }
  ccl.thread_block rank 1 tb 1 {
    ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> {ccl.op_id = 3 : i64}
  }
}

// -----

// Tests that a scheduling bug that drops a cross-thread-block hand-off is
// caught at the kernel level: thread block 0 reads what thread block 1
// writes, and the semaphore that ordered them is gone.
ccl.algorithm @lost_handoff_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "lost_handoff", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    // expected-error@+2 {{data race on tmp[0][0]: rank 0 thread block 0 reads it while rank 0 thread block 1 writes it at line 54, with nothing ordering the two}}
    // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 0 thread block 1 ran copy (line 54); rank 0 thread block 0 ran nothing yet}}
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    // expected-note@+1 {{the other access is here}}
    ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
  }
}

// -----

// Tests that matched ccl.tb_barrier copies order the blocks at the kernel
// level, and that a cross-rank copy keeps its implicit synchronisation
// after scheduling.
ccl.algorithm @barrier_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "barrier", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.tb_barrier rank 0 tbs [0, 1]
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    ccl.tb_barrier rank 0 tbs [0, 1]
  }
  ccl.thread_block rank 1 tb 0 {
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 2 : i64}
  }
}
