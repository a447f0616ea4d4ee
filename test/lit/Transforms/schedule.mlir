// RUN: %ccl-opt %s -split-input-file --ccl-schedule | FileCheck %s
// RUN: %ccl-opt %s -split-input-file --ccl-schedule | %ccl-opt -split-input-file | FileCheck %s
// RUN: %ccl-opt %s -split-input-file --ccl-schedule --ccl-schedule | FileCheck %s
//
// Each algorithm is its own split case, so op_id numbering starts at 0 in each.

// Tests that --ccl-schedule groups the operations into one thread_block per
// (rank, tb) in (rank, tb) order, numbers them with op_id in program order,
// marks the algorithm scheduled, and puts a ccl.barrier between a copy and
// the reduce_packets that accumulates into the chunk it wrote.
// CHECK-LABEL: ccl.algorithm @allpairs_n2
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
// CHECK-NEXT:    ccl.thread_block rank 1 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> {ccl.op_id = 4 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]> {ccl.op_id = 5 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 1 tb 1 {
// CHECK-NEXT:      ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> {ccl.op_id = 3 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
ccl.algorithm @allpairs_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "allpairs", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}

// -----

// Tests that operations of one block that touch disjoint chunks get no
// barrier, that a read of a chunk written earlier in the block (read after
// write) gets one, and that a write of a chunk read earlier (write after
// read) gets one; each barrier clears the pending accesses.
// CHECK-LABEL: ccl.algorithm @deps_n1
// CHECK-NEXT:    ccl.scratch @tmp slots 4
// CHECK-NEXT:    ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NOT:       ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [1 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NOT:       ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]> {ccl.op_id = 2 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 2]> = <"tmp"[0] [0 : 2]> {ccl.op_id = 3 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [3 : 1]> {ccl.op_id = 4 : i64}
// CHECK-NOT:       ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]> {ccl.op_id = 5 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 0 tb 1 {
// CHECK-NOT:       ccl.barrier
// CHECK-NEXT:      ccl.copy tb 1 <"tmp"[0] [3 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 6 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
ccl.algorithm @deps_n1 attributes {chunks = 4 : i64, collective = #ccl.collective<custom>, custom_collective = "Custom", name = "deps", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 4
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"tmp"[0] [0 : 2]>
  ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [3 : 1]>
  ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]>
  ccl.copy tb 1 <"tmp"[0] [3 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that an already scheduled algorithm is left alone.
// CHECK-LABEL: ccl.algorithm @done_n1
// CHECK-NEXT:    ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 9 : i64}
// CHECK-NEXT:    }
ccl.algorithm @done_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Custom", name = "done", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 9 : i64}
  }
}

// -----

// Tests that the copies of multi-block barriers get op ids after the
// instructions: the k-th barrier over the same blocks of a rank is one
// source operation, so it has one id in each of its blocks.
// CHECK-LABEL: ccl.algorithm @bars_n1
// CHECK-NEXT:    ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [0, 1] {ccl.op_id = 2 : i64}
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [0, 1] {ccl.op_id = 3 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 0 tb 1 {
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [0, 1] {ccl.op_id = 2 : i64}
// CHECK-NEXT:      ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [0, 1] {ccl.op_id = 3 : i64}
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [1, 2] {ccl.op_id = 4 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    ccl.thread_block rank 0 tb 2 {
// CHECK-NEXT:      ccl.tb_barrier rank 0 tbs [1, 2] {ccl.op_id = 4 : i64}
// CHECK-NEXT:    }
ccl.algorithm @bars_n1 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Mine", name = "bars", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.tb_barrier rank 0 tbs [1, 2]
}

// -----

// Tests that in an algorithm of both forms (also_inplace: its output may be
// its input) a block that reads input[0][0] for a put and then writes
// output[0][0] gets a barrier between the two (the chunks are one in
// place), and that the copy of another chunk after them does not.
// CHECK-LABEL: ccl.algorithm @both_n2
// CHECK:         ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> {ccl.op_id = 2 : i64}
// CHECK-NEXT:    }
ccl.algorithm @both_n2 attributes {also_inplace = {from = "output", offsets = array<i64: 0, 0>, to = "input"}, chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "both", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
}

// -----

// Tests that without also_inplace the same put and copy share the block
// without a barrier (they touch different buffers).
// CHECK-LABEL: ccl.algorithm @oop_n2
// CHECK:         ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NEXT:      ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NEXT:    }
ccl.algorithm @oop_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "oop", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that a packet read of packets the same block packed into its own
// scratch gets no barrier (it waits for each packet's flag, whoever wrote
// it), while a second pack over the slot the block wrote and read does.
// CHECK-LABEL: ccl.algorithm @pack_n2
// CHECK:         ccl.thread_block rank 0 tb 0 {
// CHECK-NEXT:      ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
// CHECK-NEXT:      ccl.unpack_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]> {ccl.op_id = 1 : i64}
// CHECK-NEXT:      ccl.reduce_packets tb 0 <"output"[0] [1 : 1]> from <"recv"[0] [0 : 1]> {ccl.op_id = 2 : i64}
// CHECK-NEXT:      ccl.barrier
// CHECK-NEXT:      ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [1 : 1]> {ccl.op_id = 3 : i64}
// CHECK-NEXT:    }
ccl.algorithm @pack_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "pack", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [1 : 1]> from <"recv"[0] [0 : 1]>
  ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [1 : 1]>
}
