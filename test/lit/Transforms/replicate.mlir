// RUN: %ccl-opt %s --ccl-replicate=instances=2 -split-input-file | FileCheck %s
// RUN: %ccl-opt %s --ccl-replicate=instances=1 -split-input-file | FileCheck %s --check-prefix=ONE
// RUN: not %ccl-opt %s --ccl-replicate=instances=0 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that two instances refine every chunk c to c * 2 + j, split a
// two-chunk put per chunk (only the last piece keeps the fused signal),
// double scratch slots and chunk counts, copy channels and semaphores per
// instance, move thread blocks by the block count of the original (2) and
// refine the contract.
// CHECK-LABEL: ccl.algorithm @two_n2
// CHECK-SAME:    chunks = 4 : i64
// CHECK-SAME:    instances = 2 : i64
// CHECK-SAME:    output_chunks = 6 : i64
// CHECK-NEXT:    ccl.scratch @buf slots 4
// CHECK-NEXT:    ccl.channel @mem_0_1_i0 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_0_1_i1 memory 0 -> 1
// CHECK-NEXT:    ccl.semaphore @sem_i0 rank 1
// CHECK-NEXT:    ccl.semaphore @sem_i1 rank 1
// CHECK-NEXT:    ccl.put @mem_0_1_i0 tb 1 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @mem_0_1_i0 tb 1 <"buf"[1] [2 : 1]> = <"input"[0] [2 : 1]> signal{{$}}
// CHECK-NEXT:    ccl.wait @mem_0_1_i0 tb 0
// CHECK-NEXT:    ccl.release @sem_i0 tb 0
// CHECK-NEXT:    ccl.acquire @sem_i0 tb 1
// CHECK-NEXT:    ccl.tb_barrier rank 1 tbs [0, 1]
// CHECK-NEXT:    ccl.put @mem_0_1_i1 tb 3 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @mem_0_1_i1 tb 3 <"buf"[1] [3 : 1]> = <"input"[0] [3 : 1]> signal{{$}}
// CHECK-NEXT:    ccl.wait @mem_0_1_i1 tb 2
// CHECK-NEXT:    ccl.release @sem_i1 tb 2
// CHECK-NEXT:    ccl.acquire @sem_i1 tb 3
// CHECK-NEXT:    ccl.tb_barrier rank 1 tbs [2, 3]
// CHECK-NEXT:    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
// CHECK-NEXT:    ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
// CHECK-NEXT:  }
// ONE-LABEL: ccl.algorithm @two_n2
// ONE-SAME:    chunks = 2 : i64
// ONE-NEXT:    ccl.scratch @buf slots 2
// ONE-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
ccl.algorithm @two_n2 attributes {name = "two", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, output_chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.semaphore @sem rank 1
  ccl.put @mem_0_1 tb 1 <"buf"[1] [0 : 2]> = <"input"[0] [0 : 2]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.release @sem tb 0
  ccl.acquire @sem tb 1
  ccl.tb_barrier rank 1 tbs [0, 1]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an algorithm with an unplaced operation is left alone (it must
// go through --ccl-lower-chunks first).
// CHECK-LABEL: ccl.algorithm @unplaced_n2
// CHECK-SAME:    chunks = 1 : i64
// CHECK-NEXT:    ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
ccl.algorithm @unplaced_n2 attributes {name = "unplaced", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// BAD: error: instances must be in 1..1024, not 0

// -----

// Tests that a copy over a two-chunk range with a forward split per chunk
// keeps the forward's fused signal on its last piece only, so that each
// instance signals its channel once, as the receiver waits once (a tiled
// relay of a chunk range signalled twice and was an internal error at
// verification: test/semantic/programs/a2a_range_relay.ccl).
// CHECK-LABEL: ccl.algorithm @fwd_range_n2
// CHECK:         ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> forward [#ccl.chunk<"buf"[0] [0 : 1]>] via [@mem_1_0_i0]{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [2 : 1]> = <"input"[1] [2 : 1]> forward [#ccl.chunk<"buf"[0] [2 : 1]>] via [@mem_1_0_i0] signal{{$}}
// CHECK-NEXT:    ccl.wait @mem_1_0_i0 tb 0
// CHECK:         ccl.copy tb 1 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]> forward [#ccl.chunk<"buf"[0] [1 : 1]>] via [@mem_1_0_i1]{{$}}
// CHECK-NEXT:    ccl.copy tb 1 <"output"[1] [3 : 1]> = <"input"[1] [3 : 1]> forward [#ccl.chunk<"buf"[0] [3 : 1]>] via [@mem_1_0_i1] signal{{$}}
// CHECK-NEXT:    ccl.wait @mem_1_0_i1 tb 1
ccl.algorithm @fwd_range_n2 attributes {name = "fwd_range", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.copy tb 0 <"output"[1] [0 : 2]> = <"input"[1] [0 : 2]> forward [#ccl.chunk<"buf"[0] [0 : 2]>] via [@mem_1_0] signal
  ccl.wait @mem_1_0 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [1 : 1]>]
}
