// RUN: %ccl-opt %s | %ccl-opt | FileCheck %s
//
// Every ccl operation and the #ccl.chunk attribute print and parse back
// unchanged, at the global level and the scheduled (kernel) level.

// Tests that a global-level algorithm with scratch, channels, put_packets,
// copy and reduce_packets round-trips; chunk references are printed without
// the #ccl.chunk prefix where the operand type is known.
// CHECK-LABEL: ccl.algorithm @global_n2
// CHECK-SAME:    chunks = 2 : i64, collective = "AllReduce", name = "global", nranks = 2 : i64, protocol = "LL"
// CHECK-NEXT:    ccl.scratch @recv slots 4
// CHECK-NEXT:    ccl.scratch @tmp slots 1 {note = "extra"}
// CHECK-NEXT:    ccl.channel @mem_0_1 "memory" 0 -> 1
// CHECK-NEXT:    ccl.channel @port_1_0 "port" 1 -> 0
// CHECK-NEXT:    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 2]> = <"input"[0] [0 : 2]>
// CHECK-NEXT:    ccl.put_packets @port_1_0 tb 3 <"recv"[0] [2 : 1]> = <"input"[1] [1 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [1 : 1]> from <"recv"[0] [2 : 1]> {op_id = 7 : i64}
// CHECK-NEXT:  }
ccl.algorithm @global_n2 attributes {name = "global", collective = "AllReduce", nranks = 2 : i64,
                                     chunks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 4
  ccl.scratch @tmp slots 1 {note = "extra"}
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @port_1_0 "port" 1 -> 0
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 2]> = #ccl.chunk<"input"[0][0 : 2]>
  ccl.put_packets @port_1_0 tb 3 <"recv"[0] [2 : 1]> = <"input"[1] [1 : 1]>
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 2]> = #ccl.chunk<"input"[0][0 : 2]>
  ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][1 : 1]> from #ccl.chunk<"recv"[0][2 : 1]> {op_id = 7 : i64}
}

// Tests that the optional attributes (inplace, scheduled) and a Simple
// algorithm with a switch channel round-trip.
// CHECK-LABEL: ccl.algorithm @simple_n3
// CHECK-SAME:    inplace = true
// CHECK-SAME:    protocol = "Simple"
// CHECK-NEXT:    ccl.scratch @buf slots 3
// CHECK-NEXT:    ccl.channel @sw_0_2 "switch" 0 -> 2
// CHECK-NEXT:    ccl.copy tb 2 <"buf"[2] [0 : 1]> = <"input"[2] [0 : 1]>
ccl.algorithm @simple_n3 attributes {name = "simple", collective = "Broadcast", inplace = true,
                                     nranks = 3 : i64, chunks = 1 : i64, protocol = "Simple"} {
  ccl.scratch @buf slots 3
  ccl.channel @sw_0_2 "switch" 0 -> 2
  ccl.copy tb 2 #ccl.chunk<"buf"[2][0 : 1]> = #ccl.chunk<"input"[2][0 : 1]>
}

// Tests that the scheduled form (thread_block regions with barriers) round-trips.
// CHECK-LABEL: ccl.algorithm @sched_n2
// CHECK-SAME:    scheduled
// CHECK-NEXT:    ccl.scratch @recv slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1 "memory" 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_1_0 "memory" 1 -> 0
// CHECK-NEXT:    ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {op_id = 1 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> {op_id = 2 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 0 tb 1 {
// CHECK-NEXT:      ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> {op_id = 0 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 1 tb 0 attributes {hint = 1 : i64} {
// CHECK-NEXT:      ccl.barrier {why = "test"}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 1 tb 1 {
// CHECK-NEXT:    }
// CHECK-NEXT:  }
ccl.algorithm @sched_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "sched",
                                    nranks = 2 : i64, protocol = "LL", scheduled} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]> {op_id = 1 : i64}
    ccl.barrier
    ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]> {op_id = 2 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]> {op_id = 0 : i64}
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
ccl.algorithm @attr_n1 attributes {name = "attr", collective = "Custom", nranks = 1 : i64,
                                   chunks = 1 : i64, protocol = "Simple", ref = #ccl.chunk<"input"[0][0 : 1]>} {
}
