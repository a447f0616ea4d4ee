// RUN: %ccl-opt %s --ccl-verify | FileCheck %s
// RUN: %ccl-opt %s --ccl-verify | %ccl-opt | FileCheck %s
//
// Tests that --ccl-verify accepts a correct all-pairs LL AllReduce for three
// ranks, proven against its contract (ccl.require / ccl.ensure), without a
// diagnostic and passes it through unchanged. Its ranks add in their own
// orders, which it allows (bits<any>; verify-bits.mlir rejects it without).

// CHECK-LABEL: ccl.algorithm @allpairs_ll_n3
// CHECK-NEXT:    ccl.scratch @recv slots 3
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_0_2 memory 0 -> 2
// CHECK-NEXT:    ccl.channel @mem_1_0 memory 1 -> 0
// CHECK-NEXT:    ccl.channel @mem_1_2 memory 1 -> 2
// CHECK-NEXT:    ccl.channel @mem_2_0 memory 2 -> 0
// CHECK-NEXT:    ccl.channel @mem_2_1 memory 2 -> 1
// CHECK-NEXT:    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_1_0 tb 2 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_2_0 tb 1 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.put_packets @mem_2_1 tb 2 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
// CHECK-NEXT:    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
// CHECK-NEXT:    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
// CHECK-NEXT:    ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
// CHECK-NEXT:  }
// CHECK-NOT:   error
  ccl.algorithm @allpairs_ll_n3 attributes {bits = #ccl.bits<any>, chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "allpairs_ll", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
    ccl.scratch @recv slots 3
    ccl.channel @mem_0_1 memory 0 -> 1
    ccl.channel @mem_0_2 memory 0 -> 2
    ccl.channel @mem_1_0 memory 1 -> 0
    ccl.channel @mem_1_2 memory 1 -> 2
    ccl.channel @mem_2_0 memory 2 -> 0
    ccl.channel @mem_2_1 memory 2 -> 1
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
    ccl.put_packets @mem_1_0 tb 2 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
    ccl.put_packets @mem_2_0 tb 1 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_1 tb 2 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  }
