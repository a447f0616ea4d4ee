// RUN: %ccl-opt %s --ccl-chunk-dag -split-input-file | FileCheck %s
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-chunk-dag -split-input-file | FileCheck %s

// Tests the three kinds of edge: the packet reduce reads what the copy and
// the put wrote (RAW 0, 1) and overwrites the copy's result (WAW 0); a later
// copy overwrites a chunk the first copy read (WAR 0); the last copy reads
// the reduce's result and overwrites another chunk the first copy read.
// Running the pass twice gives the same edges.
// CHECK-LABEL: ccl.algorithm @dag_n2
// CHECK:         ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]> {ccl.dag_id = 0 : i64}
// CHECK-NEXT:    ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> {ccl.dag_id = 1 : i64}
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]> {ccl.dag_id = 2 : i64, ccl.raw = array<i64: 0, 1>, ccl.waw = array<i64: 0>}
// CHECK-NEXT:    ccl.copy tb 2 <"input"[0] [1 : 1]> = <"input"[1] [1 : 1]> {ccl.dag_id = 3 : i64, ccl.war = array<i64: 0>}
// CHECK-NEXT:    ccl.copy tb 0 <"input"[0] [0 : 1]> = <"output"[0] [0 : 1]> {ccl.dag_id = 4 : i64, ccl.raw = array<i64: 2>, ccl.war = array<i64: 0>}
ccl.algorithm @dag_n2 attributes {name = "dag", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.copy tb 2 <"input"[0] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"input"[0] [0 : 1]> = <"output"[0] [0 : 1]>
}

// -----

// Tests that operations on disjoint chunks get no edges, and that only the
// latest writer counts (no edge from op 0 to op 2).
// CHECK-LABEL: ccl.algorithm @independent_n2
// CHECK:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.dag_id = 0 : i64}
// CHECK-NEXT:    ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> {ccl.dag_id = 1 : i64}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [1 : 1]> {ccl.dag_id = 2 : i64, ccl.waw = array<i64: 0>}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.dag_id = 3 : i64, ccl.waw = array<i64: 2>}
ccl.algorithm @independent_n2 attributes {name = "independent", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that a multimem broadcast writes the chunk on every member, so a
// later read of it on another member depends on it.
// CHECK-LABEL: ccl.algorithm @multimem_n2
// CHECK:         ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.dag_id = 0 : i64}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[1] [1 : 1]> = <"output"[1] [0 : 1]> {ccl.dag_id = 1 : i64, ccl.raw = array<i64: 0>}
ccl.algorithm @multimem_n2 attributes {name = "multimem", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"output"[1] [0 : 1]>
}

// -----

// Tests that kernel-level (scheduled) algorithms are left alone.
// CHECK-LABEL: ccl.algorithm @sched_n2
// CHECK:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NOT:     dag_id
ccl.algorithm @sched_n2 attributes {name = "sched", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
  }
}

// -----

// Tests that in an algorithm of both forms a write of output[0][0] depends
// on an earlier read of input[0][0] (write after read: the same chunk in
// place), and that without also_inplace it does not.
// CHECK-LABEL: ccl.algorithm @both_n2
// CHECK:         ccl.put_packets {{.*}}ccl.dag_id = 0
// CHECK-NEXT:    ccl.copy {{.*}} {ccl.dag_id = 1 : i64, ccl.war = array<i64: 0>}
ccl.algorithm @both_n2 attributes {also_inplace = {from = "output", offsets = array<i64: 0, 0>, to = "input"}, chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "both", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that without also_inplace the copy has no edge to the put (they
// touch different buffers).
// CHECK-LABEL: ccl.algorithm @oop_n2
// CHECK:         ccl.put_packets {{.*}}ccl.dag_id = 0
// CHECK-NEXT:    ccl.copy {{.*}} {ccl.dag_id = 1 : i64}
ccl.algorithm @oop_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "oop", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}
