// RUN: %ccl-opt %s -split-input-file --ccl-replicate="instances=2 share-blocks=true" | FileCheck %s
// RUN: %ccl-opt %s -split-input-file --ccl-replicate="instances=2 share-blocks=true" --ccl-verify --ccl-schedule --ccl-verify > /dev/null

// Tests that two tiles per chunk keep the thread blocks, get a channel
// each, double the scratch slots, leave `instances` unset and run as a
// wavefront: the sender puts tile 1 before the receiver copies tile 0
// (tile j of an operation of depth d at step d + j), and the result still
// proves across calls (each wait pairs with the signal of its own tile; a
// wait on an acknowledgement channel with credit pairs with the previous
// call's signal, so it does not hold the wavefront back).
// CHECK-LABEL: ccl.algorithm @tiled_n2
// CHECK-SAME:    chunks = 2 : i64
// CHECK-NOT:     instances
// CHECK-NEXT:    ccl.scratch @xfer slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1_t0 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_0_1_t1 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @ack_1_0_t0 memory 1 -> 0 credit 1
// CHECK-NEXT:    ccl.channel @ack_1_0_t1 memory 1 -> 0 credit 1
// CHECK:         ccl.wait @ack_1_0_t0 tb 0
// CHECK-NEXT:    ccl.put @mem_0_1_t0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
// CHECK-NEXT:    ccl.wait @ack_1_0_t1 tb 0
// CHECK-NEXT:    ccl.wait @mem_0_1_t0 tb 3
// CHECK-NEXT:    ccl.put @mem_0_1_t1 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
// CHECK-NEXT:    ccl.copy tb 3 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.wait @mem_0_1_t1 tb 3
// CHECK-NEXT:    ccl.signal @ack_1_0_t0 tb 3
// CHECK-NEXT:    ccl.copy tb 3 <"output"[1] [1 : 1]> = <"xfer"[1] [1 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_t1 tb 3
ccl.algorithm @tiled_n2 attributes {name = "tiled", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 0
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 3
  ccl.copy tb 3 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.signal @ack_1_0 tb 3
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that tiles of a program with a semaphore run tile after tile (the
// wavefront does not model which release an acquire takes): tile 0's
// acquire comes before tile 1's first put. Each tile has its own semaphore.
// CHECK-LABEL: ccl.algorithm @sem_n2
// CHECK:         ccl.semaphore @s_t0 rank 1
// CHECK-NEXT:    ccl.semaphore @s_t1 rank 1
// CHECK-NEXT:    ccl.wait @ack_1_0_t0 tb 0
// CHECK-NEXT:    ccl.put @mem_0_1_t0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
// CHECK-NEXT:    ccl.wait @mem_0_1_t0 tb 1
// CHECK-NEXT:    ccl.release @s_t0 tb 1
// CHECK-NEXT:    ccl.acquire @s_t0 tb 2
// CHECK-NEXT:    ccl.copy tb 2 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_t0 tb 2
// CHECK-NEXT:    ccl.wait @ack_1_0_t1 tb 0
// CHECK-NEXT:    ccl.put @mem_0_1_t1 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
ccl.algorithm @sem_n2 attributes {name = "sem", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 1
  ccl.semaphore @s rank 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 0
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 1
  ccl.release @s tb 1
  ccl.acquire @s tb 2
  ccl.copy tb 2 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.signal @ack_1_0 tb 2
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that tiles of an LL program run tile after tile (packet flags, not
// signals, order its reader after its writer): rank 0's copy of tile 0
// comes right after its put of tile 0, before rank 1 unpacks it.
// CHECK-LABEL: ccl.algorithm @ll_n2
// CHECK:         ccl.channel @ack_1_0_t0 memory 1 -> 0 credit 2
// CHECK:         ccl.put_packets @mem_0_1_t0 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.unpack_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_t0 tb 0
// CHECK-NEXT:    ccl.wait @ack_1_0_t1 tb 0
// CHECK-NEXT:    ccl.put_packets @mem_0_1_t1 tb 0 <"recv"[1] [1 : 1]> = <"input"[0] [1 : 1]>
ccl.algorithm @ll_n2 attributes {name = "ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 2
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 0
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.signal @ack_1_0 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
