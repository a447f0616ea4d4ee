// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s --check-prefix=HOST
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=SM90

// Tests that lowering a scheduled 2-rank all-pairs algorithm for the host
// emits one kernel per (dtype, op), that takes the block id as a parameter,
// records it (before __ccl_begin, whose start delay reads it), brackets the
// work with __ccl_begin/__ccl_end and switches on
// rank * nblocks + block to one case per thread block, calling the device
// library (__ccl_copy, __ccl_barrier, __ccl_reduce_packets_f32_sum,
// __ccl_put_packets).
// HOST-DAG:   llvm.func @__ccl_put_packets(
// HOST-DAG:   llvm.func @__ccl_reduce_packets_f32_sum(
// HOST-DAG:   llvm.func @__ccl_begin(!llvm.ptr) -> i32
// HOST-DAG:   llvm.func @__ccl_end(!llvm.ptr)
// HOST-LABEL: llvm.func @ccl_allpairs_n2_f32_sum(
// HOST-SAME:    %arg4: i32
// HOST:         llvm.call @__ccl_host_set_block(%arg4)
// HOST:         %[[EPOCH:.*]] = llvm.call @__ccl_begin(%arg0)
// HOST:         llvm.switch %{{.*}} : i32, ^[[EXIT:bb[0-9]+]] [
// HOST-NEXT:      0: ^[[R0TB0:bb[0-9]+]],
// HOST-NEXT:      1: ^[[R0TB1:bb[0-9]+]],
// HOST-NEXT:      2: ^[[R1TB0:bb[0-9]+]],
// HOST-NEXT:      3: ^[[R1TB1:bb[0-9]+]]
// HOST-NEXT:    ]
// HOST:       ^[[R0TB0]]:
// HOST:         llvm.call @__ccl_copy(
// HOST-NEXT:    llvm.call @__ccl_barrier()
// HOST:         llvm.call @__ccl_reduce_packets_f32_sum(
// HOST:         llvm.br ^[[EXIT]]
// HOST:       ^[[R0TB1]]:
// HOST-NOT:     llvm.call @__ccl_barrier
// HOST:         llvm.call @__ccl_put_packets(
// HOST:         llvm.br ^[[EXIT]]
// HOST:       ^[[EXIT]]:
// HOST-NEXT:    llvm.call @__ccl_end(%arg0)
// HOST-NEXT:    llvm.return

// Tests that for sm_90 there is one kernel per rank (NAME_rR, holding only
// that rank's blocks: one put_packets each), each with the ptx_kernel calling convention, no block
// parameter, and a switch on the block id read from %ctaid.x; the host
// target above keeps one kernel for all ranks.
// SM90-NOT:   @ccl_allpairs_n2_f32_sum(
// SM90-LABEL: llvm.func ptx_kernelcc @ccl_allpairs_n2_f32_sum_r0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64)
// SM90:         %[[BID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// SM90-NOT:     __ccl_host_set_block
// SM90-NEXT:    llvm.call @__ccl_begin(%arg0)
// SM90-NEXT:    llvm.switch %[[BID]] : i32
// SM90:         llvm.call @__ccl_put_packets(
// SM90-NOT:     llvm.call @__ccl_put_packets(
// SM90-LABEL: llvm.func ptx_kernelcc @ccl_allpairs_n2_f32_sum_r1(
// SM90:         %[[BID1:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// SM90-NEXT:    llvm.call @__ccl_begin(%arg0)
// SM90-NEXT:    llvm.switch %[[BID1]] : i32
// SM90:         llvm.call @__ccl_put_packets(
// SM90-NOT:     llvm.call @__ccl_put_packets(
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
