// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s --check-prefix=HOST
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=SM90

// Tests that lowering a scheduled 2-rank all-pairs algorithm for the host
// emits one kernel per (dtype, op) for all ranks (the ranks run the same
// two block programs; an LL algorithm's kernel serves one rank count:
// NAME_n2; a Simple one's all of them, NAME_nN), that takes the block id as a
// parameter and records it first (__ccl_begin's start delay reads it); then,
// all in the entry block, picks the entry base + rank * nblocks + block
// (rank read from the context; base 0 and nblocks 2 are constants, the
// kernel serving a single rank count: no rank-count read, selects or
// tables; share-blocks.mlir has the selects of a kernel serving two),
// checks the block against nblocks and the entry against the table size
// (out of range: entry 0 is read and program -1 runs, i.e. none), reads the
// entry's program, offset and params row, and only then calls __ccl_begin
// and switches on the program (no separate dispatch block, no cond_br) to
// a call of it with the row, every case and the default going to the exit
// block, which calls __ccl_end. The programs call the device library
// (__ccl_copy, __ccl_barrier, __ccl_reduce_packets_f32_sum,
// __ccl_put_packets); slot, peer rank and op id, which differ between the
// ranks, come from the row: rank 0 reduces slot 1 (op 2) and puts into
// rank 1's slot 0, rank 1 reduces slot 0 (op 5) and puts into rank 0's
// slot 1.
// HOST-DAG:   llvm.func @__ccl_put_packets(
// HOST-DAG:   llvm.func @__ccl_reduce_packets_f32_sum(
// HOST-DAG:   llvm.func @__ccl_begin(!llvm.ptr) -> i32
// HOST-DAG:   llvm.func @__ccl_end(!llvm.ptr, i32)
// HOST-DAG:   @ccl_allpairs_n2_f32_sum__programs(dense<[0, 1, 0, 1]> : tensor<4xi32>) {addr_space = 0 : i32
// HOST-DAG:   @ccl_allpairs_n2_f32_sum__offsets(dense<[0, 6, 3, 8]> : tensor<4xi32>)
// HOST-DAG:   @ccl_allpairs_n2_f32_sum__params(dense<[1, 0, 2, 0, 1, 5, 0, 1, 1, 0]> : tensor<10xi32>)
// HOST-LABEL: llvm.func internal @ccl_allpairs_n2_f32_sum__p0(
// HOST-SAME:    %arg4: i32, %arg5: !llvm.ptr)
// HOST:         llvm.call @__ccl_copy(
// HOST-NEXT:    llvm.call @__ccl_barrier()
// HOST:         %[[SLOTP:.*]] = llvm.getelementptr %arg5[%{{.*}}]
// HOST-NEXT:    %[[SLOT:.*]] = llvm.load %[[SLOTP]] invariant
// HOST:         %[[PEERP:.*]] = llvm.getelementptr %arg5[%{{.*}}]
// HOST-NEXT:    %[[PEER:.*]] = llvm.load %[[PEERP]] invariant
// HOST:         %[[RECV:.*]] = llvm.call @__ccl_scratch_ptr(%arg0, %{{.*}}, %[[PEER]], %[[SLOT]],
// HOST:         %[[IDP:.*]] = llvm.getelementptr %arg5[%{{.*}}]
// HOST-NEXT:    %[[ID:.*]] = llvm.load %[[IDP]] invariant
// HOST-NEXT:    llvm.call @__ccl_reduce_packets_f32_sum(%arg0, %{{.*}}, %[[RECV]], %{{.*}}, %{{.*}}, %[[ID]])
// HOST-NEXT:    llvm.return
// HOST-LABEL: llvm.func internal @ccl_allpairs_n2_f32_sum__p1(
// HOST-NOT:     llvm.call @__ccl_barrier
// HOST:         llvm.call @__ccl_put_packets(
// HOST-NEXT:    llvm.return
// HOST-LABEL: llvm.func @ccl_allpairs_n2_f32_sum(
// HOST-SAME:    %arg4: i32
// HOST-NEXT:    llvm.call @__ccl_host_set_block(%arg4)
// HOST-NEXT:    %[[RANK:.*]] = llvm.load %arg0
// HOST-NEXT:    %[[BASE:.*]] = llvm.mlir.constant(0 : i32) : i32
// HOST-NEXT:    %[[NB:.*]] = llvm.mlir.constant(2 : i32) : i32
// HOST-NEXT:    %[[RB:.*]] = llvm.mul %[[RANK]], %[[NB]] : i32
// HOST-NEXT:    %[[RBB:.*]] = llvm.add %[[RB]], %arg4 : i32
// HOST-NEXT:    %[[SEL:.*]] = llvm.add %[[BASE]], %[[RBB]] : i32
// HOST-NEXT:    %[[VALID:.*]] = llvm.icmp "ult" %arg4, %[[NB]] : i32
// HOST-NEXT:    %[[ENTRIES:.*]] = llvm.mlir.constant(4 : i32) : i32
// HOST-NEXT:    %[[FITS:.*]] = llvm.icmp "ult" %[[SEL]], %[[ENTRIES]] : i32
// HOST-NEXT:    %[[IN:.*]] = llvm.and %[[VALID]], %[[FITS]] : i1
// HOST-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// HOST-NEXT:    %[[AT:.*]] = llvm.select %[[IN]], %[[SEL]], %[[ZERO]] : i1, i32
// HOST-NEXT:    %[[NONE:.*]] = llvm.mlir.constant(-1 : i32) : i32
// HOST-NEXT:    llvm.mlir.addressof @ccl_allpairs_n2_f32_sum__programs : !llvm.ptr
// HOST-NEXT:    llvm.getelementptr %{{.*}}[%[[AT]]]
// HOST-NEXT:    %[[P:.*]] = llvm.load %{{.*}} invariant
// HOST-NEXT:    %[[PROG:.*]] = llvm.select %[[IN]], %[[P]], %[[NONE]] : i1, i32
// HOST-NEXT:    llvm.mlir.addressof @ccl_allpairs_n2_f32_sum__offsets : !llvm.ptr
// HOST-NEXT:    llvm.getelementptr %{{.*}}[%[[AT]]]
// HOST-NEXT:    %[[OFF:.*]] = llvm.load %{{.*}} invariant
// HOST-NEXT:    %[[PARAMS:.*]] = llvm.mlir.addressof @ccl_allpairs_n2_f32_sum__params : !llvm.ptr
// HOST-NEXT:    %[[ROW:.*]] = llvm.getelementptr %[[PARAMS]][%[[OFF]]]
// HOST-NEXT:    %[[EPOCH:.*]] = llvm.call @__ccl_begin(%arg0)
// HOST-NEXT:    llvm.switch %[[PROG]] : i32, ^[[EXIT:bb[0-9]+]] [
// HOST-NEXT:      0: ^[[P0:bb[0-9]+]],
// HOST-NEXT:      1: ^[[P1:bb[0-9]+]]
// HOST-NEXT:    ]
// HOST:       ^[[P0]]:
// HOST-NEXT:    llvm.call @ccl_allpairs_n2_f32_sum__p0(%arg0, %arg1, %arg2, %arg3, %[[EPOCH]], %[[ROW]])
// HOST-NEXT:    llvm.br ^[[EXIT]]
// HOST:       ^[[P1]]:
// HOST-NEXT:    llvm.call @ccl_allpairs_n2_f32_sum__p1(%arg0, %arg1, %arg2, %arg3, %[[EPOCH]], %[[ROW]])
// HOST-NEXT:    llvm.br ^[[EXIT]]
// HOST:       ^[[EXIT]]:
// HOST-NEXT:    llvm.call @__ccl_end(%arg0, %[[EPOCH]])
// HOST-NEXT:    llvm.return

// Tests that for sm_90 this algorithm, whose ranks run the same programs,
// also has one kernel for all ranks (per-rank kernels NAME_nK_rR are for
// algorithms whose ranks run different programs: share-blocks.mlir), with
// the ptx_kernel calling convention, no block parameter, the block id read
// from %ctaid.x, and its tables (72 bytes, under 60 KiB) and the programs'
// rows in the constant space (address space 4), read before __ccl_begin.
// SM90-DAG:   @ccl_allpairs_n2_f32_sum__programs(dense<[0, 1, 0, 1]> : tensor<4xi32>) {addr_space = 4 : i32
// SM90-DAG:   @ccl_allpairs_n2_f32_sum__offsets(dense<[0, 6, 3, 8]> : tensor<4xi32>) {addr_space = 4 : i32
// SM90-DAG:   @ccl_allpairs_n2_f32_sum__params(dense<[1, 0, 2, 0, 1, 5, 0, 1, 1, 0]> : tensor<10xi32>) {addr_space = 4 : i32
// SM90-LABEL: llvm.func internal @ccl_allpairs_n2_f32_sum__p0(
// SM90-SAME:    %arg5: !llvm.ptr<4>)
// SM90:         llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// SM90:         llvm.call @__ccl_reduce_packets_f32_sum(
// SM90-LABEL: llvm.func internal @ccl_allpairs_n2_f32_sum__p1(
// SM90:         llvm.call @__ccl_put_packets(
// SM90-LABEL: llvm.func ptx_kernelcc @ccl_allpairs_n2_f32_sum(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64)
// SM90-NEXT:    %[[BID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// SM90-NOT:     __ccl_host_set_block
// SM90-NOT:     __ccl_begin
// SM90:         llvm.add %{{.*}}, %[[BID]] : i32
// SM90-NOT:     __ccl_begin
// SM90:         llvm.icmp "ult" %[[BID]],
// SM90-NOT:     __ccl_begin
// SM90:         llvm.mlir.addressof @ccl_allpairs_n2_f32_sum__programs : !llvm.ptr<4>
// SM90-NEXT:    llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, i32
// SM90-NEXT:    llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// SM90-NOT:     __ccl_begin
// SM90:         llvm.mlir.addressof @ccl_allpairs_n2_f32_sum__params : !llvm.ptr<4>
// SM90-NEXT:    %[[ROW:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<4>, i32) -> !llvm.ptr<4>, i32
// SM90-NEXT:    %[[EPOCH:.*]] = llvm.call @__ccl_begin(%arg0)
// SM90-NEXT:    llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// SM90-NEXT:      0: ^{{bb[0-9]+}},
// SM90-NEXT:      1: ^{{bb[0-9]+}}
// SM90-NEXT:    ]
// SM90:         llvm.call @ccl_allpairs_n2_f32_sum__p0(%arg0, %arg1, %arg2, %arg3, %[[EPOCH]], %[[ROW]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr<4>) -> ()
// SM90-NOT:   @ccl_allpairs_n2_f32_sum_r
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
