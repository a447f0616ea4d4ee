// RUN: %ccl-opt %s --ccl-lower-chunks=cross-call=none -split-input-file | FileCheck %s
// RUN: not %ccl-opt %s --ccl-lower-chunks="channel=port cross-call=none" -split-input-file 2>/dev/null | FileCheck %s --check-prefix=PORT
//
// The transfers themselves (cross-call=none: without the acknowledgements
// that make them safe across calls, which lower-chunks-calls.mlir tests).

// Tests that a cross-rank reduce becomes put + signal on the source's rank
// and wait + local reduce from a transfer slot on the destination's rank,
// all on thread block 0, over a new memory channel.
// CHECK-LABEL: ccl.algorithm @reduce_n2
// CHECK-NEXT:    ccl.scratch @xfer slots 1
// CHECK-NEXT:    ccl.channel @mem_0_1_b0 memory 0 -> 1
// CHECK:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.signal @mem_0_1_b0 tb 0{{$}}
// CHECK-NEXT:    ccl.wait @mem_0_1_b0 tb 0{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"input"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.ensure
// PORT-LABEL: ccl.algorithm @reduce_n2
// PORT:         ccl.channel @port_0_1_b0 port 0 -> 1
// PORT:    ccl.put @port_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// PORT-NEXT:    ccl.signal @port_0_1_b0 tb 0
// PORT-NEXT:    ccl.flush @port_0_1_b0 tb 0
// PORT-NEXT:    ccl.wait @port_0_1_b0 tb 0
ccl.algorithm @reduce_n2 attributes {name = "reduce", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.reduce <"input"[1] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that transfers into one rank get consecutive slots (a 2-chunk copy
// takes two), that a copy into a scratch buffer lands there without a slot,
// and that operations touching common chunks share a lane (all on block 0
// here, with one channel per pair and block; the declared channel is not
// used by the lowering).
// CHECK-LABEL: ccl.algorithm @copies_n3
// CHECK-NEXT:    ccl.scratch @buf slots 2
// CHECK-NEXT:    ccl.scratch @xfer slots 3
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_0_1_b0 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_2_1_b0 memory 2 -> 1
// CHECK-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 2]> = <"input"[0] [0 : 2]>
// CHECK-NEXT:    ccl.signal @mem_0_1_b0 tb 0
// CHECK-NEXT:    ccl.wait @mem_0_1_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 2]> = <"xfer"[1] [0 : 2]>
// CHECK-NEXT:    ccl.put @mem_2_1_b0 tb 0 <"xfer"[1] [2 : 1]> = <"input"[2] [1 : 1]>
// CHECK:         ccl.copy tb 0 <"output"[1] [1 : 1]> = <"xfer"[1] [2 : 1]>
// CHECK-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [1 : 1]>
// CHECK-NEXT:    ccl.signal @mem_0_1_b0 tb 0
// CHECK-NEXT:    ccl.wait @mem_0_1_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
ccl.algorithm @copies_n3 attributes {name = "copies", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.copy <"output"[1] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.copy <"output"[1] [1 : 1]> = <"input"[2] [1 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[2] [1 : 1]>]
}

// -----

// Tests that independent chains go to separate lanes: chunk 0 and chunk 1
// never meet, so they run on blocks 1 and 2 (block 0 is taken by the
// program's own placed copy) with their own channels.
// CHECK-LABEL: ccl.algorithm @lanes_n2
// CHECK:         ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK:         ccl.reduce tb 1 <"input"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.put @mem_0_1_b2 tb 2 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]>
// CHECK:         ccl.reduce tb 2 <"input"[1] [1 : 1]> from <"xfer"[1] [1 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
ccl.algorithm @lanes_n2 attributes {name = "lanes", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.reduce <"input"[1] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that an LL algorithm sends packets and receives them with
// unpack_packets / reduce_packets, without signals.
// CHECK-LABEL: ccl.algorithm @ll_n2
// CHECK-NEXT:    ccl.scratch @xfer slots 2
// CHECK-NEXT:    ccl.channel @mem_1_0_b0 memory 1 -> 0
// CHECK-NEXT:    ccl.put_packets @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.unpack_packets tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_1_0_b0 tb 0 <"xfer"[0] [1 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [1 : 1]>
ccl.algorithm @ll_n2 attributes {name = "ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.copy <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that the pass does not fire on a channel-level program whose
// operations are all placed: nothing changes.
// CHECK-LABEL: ccl.algorithm @placed_n2
// CHECK-NEXT:    ccl.scratch @recv slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
// CHECK-NEXT:    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
// CHECK-NEXT:  }
ccl.algorithm @placed_n2 attributes {name = "placed", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}

// -----

// Tests that an unplaced operation that depends on a placed one of another
// block of its rank (ordering rule 9) waits for it through a semaphore: the
// placed block releases after its copy, the lane block acquires before its
// reduce; an unplaced operation on chunks the placed one does not touch
// gets none (it shares the reduce's lane: they read a common chunk).
// CHECK-LABEL: ccl.algorithm @after_placed_n2
// CHECK:         ccl.semaphore @order_0_0 rank 0
// CHECK-NOT:     ccl.semaphore
// CHECK:         ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.release @order_0_0 tb 1
// CHECK-NEXT:    ccl.acquire @order_0_0 tb 2
// CHECK-NEXT:    ccl.reduce tb 2 <"output"[0] [0 : 1]> from <"input"[0] [1 : 1]>
// CHECK-NEXT:    ccl.copy tb 2 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
// CHECK-NEXT:    ccl.ensure
ccl.algorithm @after_placed_n2 attributes {name = "after_placed", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[0] [1 : 1]>]
}
