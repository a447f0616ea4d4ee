// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks -split-input-file | FileCheck %s
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks --ccl-verify -split-input-file > /dev/null
// RUN: not %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks=cross-call=none --ccl-verify -split-input-file 2>&1 | FileCheck %s --check-prefix=NONE
//
// Transfer slots across calls: --ccl-lower-chunks acknowledges a transfer
// only when one call does not already order the destination's use of the
// slot before the source's next put into it; the result verifies across
// calls (second RUN). Without the acknowledgements (cross-call=none) the
// verifier rejects the same programs (third RUN).

// Tests that a transfer whose destination never answers is acknowledged:
// a credited channel back, a wait before the put (and before the local copy
// that produces its source, so that the two can still be fused), a signal
// after the destination's copy out of the slot.
// CHECK-LABEL: ccl.algorithm @bcast_n2
// CHECK:         ccl.channel @ack_1_0_b0 memory 1 -> 0 credit 1
// CHECK:         ccl.wait @ack_1_0_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"output"[0] [0 : 1]>
// CHECK:         ccl.copy tb 0 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_b0 tb 0
// NONE: write-after-read race on xfer[1][0] between calls: rank 0 thread block 0 writes it in call 2 while rank 1 thread block 0 may still read it in call 1

ccl.algorithm @bcast_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "bcast", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that the ring AllReduce gets no acknowledgement: every rank hears
// from its peer after the peer used the slot, before its own call ends.
// CHECK-LABEL: ccl.algorithm @ring_n2
// CHECK-NOT:     ack_
// CHECK:         ccl.ensure

ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, inplace = true} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.reduce <"input"[0] [0 : 1]> from <"input"[1] [0 : 1]>
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy <"input"[0] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that in an LL algorithm the acknowledgement channel has two credits
// per acknowledgement: slots alternate between calls, so the put waits for
// the acknowledgement of two calls back.
// CHECK-LABEL: ccl.algorithm @llbcast_n2
// CHECK:         ccl.channel @ack_1_0_b0 memory 1 -> 0 credit 2
// CHECK:         ccl.wait @ack_1_0_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_0_1_b0
// CHECK-NEXT:    ccl.unpack_packets tb 0 <"output"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_b0 tb 0
// NONE: write-after-read race on xfer[1][0] between calls: rank 0 thread block 0 writes it in call 3 while rank 1 thread block 0 may still read it in call 1

ccl.algorithm @llbcast_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "llbcast", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that the acknowledgements stay out of the way of fusion on a rank
// that forwards: its wait goes before the copy whose result it puts on, its
// signal after that put and its signal.
// CHECK-LABEL: ccl.algorithm @chain_n3
// CHECK:         ccl.wait @mem_0_1_b0 tb 0
// CHECK-NEXT:    ccl.wait @ack_2_1_b0 tb 0
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.put @mem_1_2_b0 tb 0 <"xfer"[2] [0 : 1]> = <"output"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_1_2_b0 tb 0
// CHECK-NEXT:    ccl.signal @ack_1_0_b0 tb 0
// NONE: write-after-read race on xfer[1][0] between calls

ccl.algorithm @chain_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "chain", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy <"output"[2] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a copy into a peer's scratch that the peer keeps using goes
// through an acknowledged transfer slot instead of landing directly.
// CHECK-LABEL: ccl.algorithm @land_n2
// CHECK:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"output"[0] [0 : 1]>
// CHECK:         ccl.copy tb 0 <"buf"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
// CHECK-NEXT:    ccl.signal @ack_1_0_b0 tb 0
// NONE: write-after-read race on buf[1][0] between calls

ccl.algorithm @land_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "land", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a copy into a peer's scratch lands directly, unacknowledged,
// when the peer answers after using it (the sender's call ends only then).
// CHECK-LABEL: ccl.algorithm @landsafe_n2
// CHECK-NOT:     ack_
// CHECK:         ccl.put @mem_0_1_b0 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NOT:     ack_
// CHECK:         ccl.ensure

ccl.algorithm @landsafe_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "landsafe", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce <"input"[1] [0 : 1]> from <"buf"[1] [0 : 1]>
  ccl.copy <"input"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}
