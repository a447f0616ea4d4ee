// RUN: %ccl-opt %s | %ccl-opt | FileCheck %s
//
// Every ccl operation and the #ccl.chunk attribute print and parse back
// unchanged, at the global level and the scheduled (kernel) level.

// Tests that a global-level algorithm with scratch, channels (one with a
// credit), put_packets,
// copy and reduce_packets round-trips; chunk references are printed without
// the #ccl.chunk prefix where the operand type is known.
// CHECK-LABEL: ccl.algorithm @global_n2
// CHECK-SAME:    chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "global", nranks = 2 : i64, protocol = #ccl.protocol<LL>
// CHECK-NEXT:    ccl.scratch @recv slots 4
// CHECK-NEXT:    ccl.scratch @tmp slots 1 {note = "extra"}
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @port_1_0 port 1 -> 0
// CHECK-NEXT:    ccl.channel @ack_1_0 memory 1 -> 0 credit 2
// CHECK-NEXT:    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 2]> = <"input"[0] [0 : 2]>
// CHECK-NEXT:    ccl.put_packets @port_1_0 tb 3 <"recv"[0] [2 : 1]> = <"input"[1] [1 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [1 : 1]> from <"recv"[0] [2 : 1]> {ccl.op_id = 7 : i64}
// CHECK-NEXT:  }
ccl.algorithm @global_n2 attributes {name = "global", collective = #ccl.collective<AllReduce>, nranks = 2 : i64,
                                     chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 4
  ccl.scratch @tmp slots 1 {note = "extra"}
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @port_1_0 port 1 -> 0
  ccl.channel @ack_1_0 memory 1 -> 0 credit 2
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 2]> = #ccl.chunk<"input"[0][0 : 2]>
  ccl.put_packets @port_1_0 tb 3 <"recv"[0] [2 : 1]> = <"input"[1] [1 : 1]>
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 2]> = #ccl.chunk<"input"[0][0 : 2]>
  ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][1 : 1]> from #ccl.chunk<"recv"[0][2 : 1]> {ccl.op_id = 7 : i64}
}

// Tests that the optional attributes (inplace, chunk counts, instances) and
// a Simple algorithm with every channel-level and chunk-level operation,
// switch channels, semaphores, thread-block barriers and the contract
// (require/ensure) round-trip; placement is optional.
// CHECK-LABEL: ccl.algorithm @simple_n3
// CHECK-SAME:    inplace = true
// CHECK-SAME:    input_chunks = 1 : i64, instances = 2 : i64
// CHECK-SAME:    output_chunks = 3 : i64, protocol = #ccl.protocol<Simple>
// CHECK-NEXT:    ccl.scratch @buf slots 3
// CHECK-NEXT:    ccl.channel @mem_0_2 memory 0 -> 2
// CHECK-NEXT:    ccl.channel @port_2_0 port 2 -> 0
// CHECK-NEXT:    ccl.switch_channel @sw ranks [0, 1, 2]
// CHECK-NEXT:    ccl.semaphore @sem rank 2
// CHECK-NEXT:    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 2 <"buf"[2] [0 : 1]> = <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.copy <"output"[1] [0 : 1]> = <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.reduce tb 1 group 2 <"output"[1] [1 : 1]> from <"output"[0] [1 : 1]>
// CHECK-NEXT:    ccl.reduce tb 1 <"output"[1] [2 : 1]> from <"buf"[1] [1 : 1]> base <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.put @port_2_0 tb 0 <"output"[0] [0 : 1]> = <"buf"[2] [0 : 1]> signal flush
// CHECK-NEXT:    ccl.put @mem_0_2 <"buf"[2] [1 : 1]> = <"output"[0] [0 : 1]>
// CHECK-NEXT:    ccl.signal @mem_0_2 tb 0 relaxed
// CHECK-NEXT:    ccl.wait @mem_0_2 tb 3
// CHECK-NEXT:    ccl.flush @port_2_0
// CHECK-NEXT:    ccl.get @mem_0_2 tb 1 <"output"[0] [2 : 1]> = <"buf"[2] [2 : 1]>
// CHECK-NEXT:    ccl.read_reduce tb 0 <"output"[0] [1 : 1]> from [#ccl.chunk<"output"[2] [1 : 1]>] via [@mem_0_2]
// CHECK-NEXT:    ccl.multimem_reduce @sw tb 0 <"output"[1] [2 : 1]> = <"buf"[1] [2 : 1]>
// CHECK-NEXT:    ccl.multimem_broadcast @sw <"output"[1] [0 : 1]> = <"output"[1] [2 : 1]>
// CHECK-NEXT:    ccl.release @sem tb 1
// CHECK-NEXT:    ccl.acquire @sem tb 0
// CHECK-NEXT:    ccl.tb_barrier rank 2 tbs [0, 1]
// CHECK-NEXT:    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
ccl.algorithm @simple_n3 attributes {name = "simple", collective = #ccl.collective<Broadcast>, inplace = true,
                                     nranks = 3 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>,
                                     input_chunks = 1 : i64, output_chunks = 3 : i64, instances = 2 : i64} {
  ccl.scratch @buf slots 3
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @port_2_0 port 2 -> 0
  ccl.switch_channel @sw ranks [0, 1, 2]
  ccl.semaphore @sem rank 2
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.copy tb 2 #ccl.chunk<"buf"[2][0 : 1]> = #ccl.chunk<"input"[2][0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce tb 1 group 2 <"output"[1] [1 : 1]> from <"output"[0] [1 : 1]>
  ccl.reduce tb 1 <"output"[1] [2 : 1]> from <"buf"[1] [1 : 1]> base <"input"[1] [0 : 1]>
  ccl.put @port_2_0 tb 0 <"output"[0] [0 : 1]> = <"buf"[2] [0 : 1]> signal flush
  ccl.put @mem_0_2 <"buf"[2] [1 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @mem_0_2 tb 0 relaxed
  ccl.wait @mem_0_2 tb 3
  ccl.flush @port_2_0
  ccl.get @mem_0_2 tb 1 <"output"[0] [2 : 1]> = <"buf"[2] [2 : 1]>
  ccl.read_reduce tb 0 <"output"[0] [1 : 1]> from [#ccl.chunk<"output"[2][1 : 1]>] via [@mem_0_2]
  ccl.multimem_reduce @sw tb 0 <"output"[1] [2 : 1]> = <"buf"[1] [2 : 1]>
  ccl.multimem_broadcast @sw <"output"[1] [0 : 1]> = <"output"[1] [2 : 1]>
  ccl.release @sem tb 1
  ccl.acquire @sem tb 0
  ccl.tb_barrier rank 2 tbs [0, 1]
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0][0 : 1]>, #ccl.chunk<"input"[1][0 : 1]>, #ccl.chunk<"input"[1][0 : 1]>]
}

// Tests that LL packet copies, packs and unpacks round-trip.
// CHECK-LABEL: ccl.algorithm @ll_n2
// CHECK:         ccl.copy_packets tb 0 <"fwd"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
// CHECK-NEXT:    ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.unpack_packets <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
ccl.algorithm @ll_n2 attributes {name = "ll", collective = #ccl.collective<AllGather>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.scratch @fwd slots 1
  ccl.copy_packets tb 0 <"fwd"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.unpack_packets <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
}

// Tests that the scheduled form (thread_block regions with barriers) round-trips.
// CHECK-LABEL: ccl.algorithm @sched_n2
// CHECK-SAME:    scheduled
// CHECK-NEXT:    ccl.scratch @recv slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_1_0 memory 1 -> 0
// CHECK-NEXT:    ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> {ccl.op_id = 2 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 0 tb 1 {
// CHECK-NEXT:      ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 1 tb 0 attributes {hint = 1 : i64} {
// CHECK-NEXT:      ccl.barrier {why = "test"}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 1 tb 1 {
// CHECK-NEXT:    }
// CHECK-NEXT:  }
ccl.algorithm @sched_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "sched",
                                    nranks = 2 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]> {ccl.op_id = 1 : i64}
    ccl.barrier
    ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]> {ccl.op_id = 2 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]> {ccl.op_id = 0 : i64}
  }
  ccl.thread_block rank 1 tb 0 attributes {hint = 1 : i64} {
    ccl.barrier {why = "test"}
  }
  ccl.thread_block rank 1 tb 1 {
  }
}

// Tests that the chunk attribute also round-trips as a free-standing attribute.
// CHECK-LABEL: ccl.algorithm @attr_n1
// CHECK-SAME:    ref = #ccl.chunk<"input"[0] [0 : 1]>
ccl.algorithm @attr_n1 attributes {name = "attr", collective = #ccl.collective<custom>, custom_collective = "Custom", nranks = 1 : i64,
                                   chunks = 1 : i64, protocol = #ccl.protocol<Simple>, ref = #ccl.chunk<"input"[0][0 : 1]>} {
}

// Tests that the fused forms round-trip: forwarding on put, put_packets,
// copy, reduce, reduce_packets and unpack_packets (with a signal after the
// forwarded puts), an n-ary reduce, and a multimem reduce that broadcasts.
// CHECK-LABEL: ccl.algorithm @fused_n3
// CHECK:         ccl.put @mem_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"buf"[2] [0 : 1]>] via [@mem_0_2] signal
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1] [1 : 1]>] via [@mem_0_1] signal
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [1 : 1]> and [#ccl.chunk<"buf"[0] [2 : 1]>] forward [#ccl.chunk<"buf"[1] [2 : 1]>] via [@mem_0_1]
// CHECK-NEXT:    ccl.multimem_reduce @sw tb 1 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]> broadcast
ccl.algorithm @fused_n3 attributes {name = "fused", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.switch_channel @sw ranks [0, 1, 2]
  ccl.put @mem_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"buf"[2][0 : 1]>] via [@mem_0_2] signal
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1][1 : 1]>] via [@mem_0_1] signal
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [1 : 1]> and [#ccl.chunk<"buf"[0][2 : 1]>] forward [#ccl.chunk<"buf"[1][2 : 1]>] via [@mem_0_1]
  ccl.multimem_reduce @sw tb 1 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]> broadcast
}

// Tests the fused packet forms.
// CHECK-LABEL: ccl.algorithm @fused_ll_n2
// CHECK:         ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> forward [#ccl.chunk<"recv"[1] [0 : 1]>] via [@mem_0_1]
// CHECK-NEXT:    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [1 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"recv"[1] [2 : 1]>] via [@mem_0_1]
ccl.algorithm @fused_ll_n2 attributes {name = "fused_ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> forward [#ccl.chunk<"recv"[1][0 : 1]>] via [@mem_0_1]
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [1 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"recv"[1][2 : 1]>] via [@mem_0_1]
}
