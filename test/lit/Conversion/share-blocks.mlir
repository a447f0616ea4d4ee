// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s
// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,float16 redops=sum' | FileCheck %s --check-prefix=DT
// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=SM90
// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum max-bytes=68719476736' | FileCheck %s --check-prefix=BIG
//
// Thread blocks whose lowered code is the same up to the values of integer
// constants share one block program KERNEL__pG(ctx, input, output, count,
// epoch, row); the constants that differ between them are loaded
// (invariant) from their row of the kernel's params table, the others stay
// immediates. The kernel finds a block's program and row in its programs
// and offsets tables.

// Tests that two blocks of the same shape (a put with signal) that differ
// only in the peer rank, the chunk index and the channel share program 0:
// those three come from the row (rank 0: peer 1, chunk 1, channel 0;
// rank 1: peer 0, chunk 0, channel 1, at offsets 0 and 3), while the slot
// (0) and the element size (4) they agree on stay constants; the kernel
// has a single case.

// CHECK-DAG:   llvm.mlir.global internal constant @ccl_pair_nN_f32_sum__programs(dense<0> : tensor<2xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_pair_nN_f32_sum__offsets(dense<[0, 3]> : tensor<2xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_pair_nN_f32_sum__params(dense<[1, 1, 0, 0, 0, 1]> : tensor<6xi32>)
// CHECK-LABEL: llvm.func internal @ccl_pair_nN_f32_sum__p0(
// CHECK-SAME:    %arg4: i32, %arg5: !llvm.ptr) attributes {passthrough = ["ccl-block-program"]} {
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         llvm.mlir.constant(262144 : i64) : i64
// CHECK-NEXT:    %[[BUF:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[A0:.*]] = llvm.getelementptr %arg5[%[[K0]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[PEER:.*]] = llvm.load %[[A0]] invariant {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[DST:.*]] = llvm.call @__ccl_scratch_ptr(%arg0, %[[BUF]], %[[PEER]], %[[SLOT]],
// CHECK-NEXT:    llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_scratch_elems(
// CHECK-NEXT:    %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[A1:.*]] = llvm.getelementptr %arg5[%[[K1]]]
// CHECK-NEXT:    %[[CHUNK:.*]] = llvm.load %[[A1]] invariant
// CHECK:         %[[SRC:.*]] = llvm.call @__ccl_chunk_ptr(%arg1, %arg3, %{{.*}}, %[[CHUNK]],
// CHECK:         %[[ES:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mul %{{.*}}, %[[ES]] : i64
// CHECK-NEXT:    llvm.call @__ccl_put(%[[DST]], %[[SRC]], %[[BYTES]])
// CHECK-NEXT:    %[[K2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[A2:.*]] = llvm.getelementptr %arg5[%[[K2]]]
// CHECK-NEXT:    %[[CH:.*]] = llvm.load %[[A2]] invariant
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[CH]])
// CHECK-NEXT:    llvm.return
// CHECK-NOT:   llvm.func internal @ccl_pair_nN_f32_sum__p1(
// CHECK-LABEL: llvm.func @ccl_pair_nN_f32_sum(
// CHECK:         llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT:      0: ^[[P0:bb[0-9]+]]
// CHECK-NEXT:    ]
// CHECK:       ^[[P0]]:
// CHECK-NEXT:    llvm.call @ccl_pair_nN_f32_sum__p0(
ccl.algorithm @pair_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "pair", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
}

// -----
// Tests that blocks do not share a program when their buffers differ (a
// copy from the input, __ccl_chunk_ptr, against one from scratch,
// __ccl_scratch_ptr) or their operations come in another order (copy then
// reduce against reduce then copy): four blocks, four programs, nothing in
// the params table.

// CHECK-DAG:   llvm.mlir.global internal constant @ccl_diff_nN_f32_sum__programs(dense<[0, 1, 2, 3]> : tensor<4xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_diff_nN_f32_sum__params(dense<0> : tensor<1xi32>)
// Rank 0, block 0: copy from the input.
// CHECK-LABEL: llvm.func internal @ccl_diff_nN_f32_sum__p0(
// CHECK-NOT:     llvm.load
// CHECK-NOT:     __ccl_scratch_ptr
// CHECK:         %[[IN:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK-NOT:     __ccl_scratch_ptr
// CHECK:         llvm.call @__ccl_copy(%{{.*}}, %[[IN]],
// CHECK-NEXT:    llvm.return
// Rank 0, block 1: copy, then reduce.
// CHECK-LABEL: llvm.func internal @ccl_diff_nN_f32_sum__p1(
// CHECK:         llvm.call @__ccl_copy(
// CHECK:         llvm.call @__ccl_reduce_f32_sum(
// CHECK-NEXT:    llvm.return
// Rank 1, block 0: copy from scratch.
// CHECK-LABEL: llvm.func internal @ccl_diff_nN_f32_sum__p2(
// CHECK-NOT:     llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[S:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_copy(%{{.*}}, %[[S]],
// CHECK-NEXT:    llvm.return
// Rank 1, block 1: reduce, then copy.
// CHECK-LABEL: llvm.func internal @ccl_diff_nN_f32_sum__p3(
// CHECK:         llvm.call @__ccl_reduce_f32_sum(
// CHECK:         llvm.call @__ccl_copy(
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func @ccl_diff_nN_f32_sum(
// CHECK:         llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT:      0: ^{{bb[0-9]+}},
// CHECK-NEXT:      1: ^{{bb[0-9]+}},
// CHECK-NEXT:      2: ^{{bb[0-9]+}},
// CHECK-NEXT:      3: ^{{bb[0-9]+}}
// CHECK-NEXT:    ]
ccl.algorithm @diff_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "diff", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.reduce tb 1 <"output"[0] [1 : 1]> from <"recv"[0] [0 : 1]>
  ccl.reduce tb 1 <"output"[1] [1 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
}

// -----
// Tests that blocks of different element types never share a program that
// reduces: the float32 and float16 kernels each call their own reducing
// program (__ccl_reduce_f32_sum in program 1, __ccl_reduce_f16_sum in
// program 2, each used by one kernel only), while the put block, which
// calls nothing type-specific, is one program for both kernels (marked
// shared, so that the code generator keeps it out of line), with the
// element size and slot layout in each kernel's rows (float32: 4, 262144;
// float16: 2, 524288).

// DT-DAG:      llvm.mlir.global internal constant @ccl_dt_nN_f32_sum__programs(dense<[0, 1]> : tensor<2xi32>)
// DT-DAG:      llvm.mlir.global internal constant @ccl_dt_nN_f16_sum__programs(dense<[0, 2]> : tensor<2xi32>)
// DT-DAG:      llvm.mlir.global internal constant @ccl_dt_nN_f32_sum__params(dense<[4, 262144, 4, 4]> : tensor<4xi32>)
// DT-DAG:      llvm.mlir.global internal constant @ccl_dt_nN_f16_sum__params(dense<[2, 524288, 2, 2]> : tensor<4xi32>)
// DT-LABEL:    llvm.func internal @ccl_dt_nN_f32_sum__p0(
// DT-SAME:       attributes {passthrough = ["ccl-block-program", "ccl-shared-program"]}
// DT-NOT:        __ccl_reduce
// DT:            llvm.call @__ccl_put(
// DT-NOT:        __ccl_reduce
// DT-LABEL:    llvm.func internal @ccl_dt_nN_f32_sum__p1(
// DT-SAME:       %arg5: !llvm.ptr) attributes {passthrough = ["ccl-block-program"]} {
// DT-NOT:        __ccl_reduce_f16
// DT:            llvm.call @__ccl_reduce_f32_sum(
// DT-NOT:        __ccl_reduce_f16
// DT-LABEL:    llvm.func internal @ccl_dt_nN_f16_sum__p2(
// DT-SAME:       %arg5: !llvm.ptr) attributes {passthrough = ["ccl-block-program"]} {
// DT-NOT:        __ccl_reduce_f32
// DT:            llvm.call @__ccl_reduce_f16_sum(
// DT-NOT:        __ccl_reduce_f32
// DT-LABEL:    llvm.func @ccl_dt_nN_f32_sum(
// DT:            llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// DT-NEXT:         0: ^[[A0:bb[0-9]+]],
// DT-NEXT:         1: ^[[A1:bb[0-9]+]]
// DT-NEXT:       ]
// DT:          ^[[A0]]:
// DT-NEXT:       llvm.call @ccl_dt_nN_f32_sum__p0(
// DT:          ^[[A1]]:
// DT-NEXT:       llvm.call @ccl_dt_nN_f32_sum__p1(
// DT-LABEL:    llvm.func @ccl_dt_nN_f16_sum(
// DT-NOT:        @ccl_dt_nN_f32_sum__p1(
// DT:            llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// DT-NEXT:         0: ^[[B0:bb[0-9]+]],
// DT-NEXT:         2: ^[[B2:bb[0-9]+]]
// DT-NEXT:       ]
// DT:          ^[[B0]]:
// DT-NEXT:       llvm.call @ccl_dt_nN_f32_sum__p0(
// DT:          ^[[B2]]:
// DT-NEXT:       llvm.call @ccl_dt_nN_f16_sum__p2(
// DT-NOT:        @ccl_dt_nN_f32_sum__p1(
ccl.algorithm @dt_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "dt", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}

// -----
// Tests that an algorithm whose ranks run different programs (rank 0
// waits and reduces, rank 1 puts, rank 2 copies and puts: three programs,
// more than twice the one each rank runs) keeps per-rank-count kernels: on
// the host one kernel for all ranks, NAME_n3 (entry rank * 1 + block, base
// and block count constants: no rank-count selects or tables), on sm_90 one
// kernel per rank, NAME_n3_rR, which loads nothing before it branches: no
// programs table, its switch on the block id itself (when in range, else
// -1) with a case for its one block and that rank's program; no NAME_nN
// kernel.

// CHECK-DAG:   llvm.mlir.global internal constant @ccl_gather_n3_f32_sum__programs(dense<[0, 1, 2]> : tensor<3xi32>)
// CHECK-LABEL: llvm.func internal @ccl_gather_n3_f32_sum__p0(
// CHECK:         llvm.call @__ccl_wait(
// CHECK:         llvm.call @__ccl_reduce_f32_sum(
// CHECK-LABEL: llvm.func internal @ccl_gather_n3_f32_sum__p1(
// CHECK:         llvm.call @__ccl_put(
// CHECK-LABEL: llvm.func internal @ccl_gather_n3_f32_sum__p2(
// CHECK:         llvm.call @__ccl_copy(
// CHECK:         llvm.call @__ccl_put(
// CHECK-LABEL: llvm.func @ccl_gather_n3_f32_sum(
// CHECK-SAME:    %arg4: i32)
// CHECK-NOT:     __bases
// CHECK:         %[[RANK:.*]] = llvm.load %arg0
// CHECK-NEXT:    %[[BASE:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[NB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[RB:.*]] = llvm.mul %[[RANK]], %[[NB]] : i32
// CHECK-NEXT:    %[[RBB:.*]] = llvm.add %[[RB]], %arg4 : i32
// CHECK-NEXT:    llvm.add %[[BASE]], %[[RBB]] : i32
// CHECK-NOT:     __bases
// CHECK-NOT:     llvm.icmp "eq"
// CHECK:         llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT:      0: ^{{bb[0-9]+}},
// CHECK-NEXT:      1: ^{{bb[0-9]+}},
// CHECK-NEXT:      2: ^{{bb[0-9]+}}
// CHECK-NEXT:    ]
// CHECK-NOT:   @ccl_gather_nN_

// SM90-NOT:    @ccl_gather_nN_
// SM90-NOT:    @ccl_gather_n3_f32_sum_r{{[0-9]}}__programs
// SM90-LABEL:  llvm.func internal @ccl_gather_n3_f32_sum_r0__p0(
// SM90:          llvm.call @__ccl_reduce_f32_sum(
// SM90-LABEL:  llvm.func internal @ccl_gather_n3_f32_sum_r1__p1(
// SM90:          llvm.call @__ccl_put(
// SM90-LABEL:  llvm.func internal @ccl_gather_n3_f32_sum_r2__p2(
// SM90:          llvm.call @__ccl_copy(
// SM90-LABEL:  llvm.func ptx_kernelcc @ccl_gather_n3_f32_sum_r0(
// SM90:          %[[B0:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"()
// SM90-NOT:      llvm.load %arg0
// SM90:          %[[IN0:.*]] = llvm.and
// SM90:          %[[NEG0:.*]] = llvm.mlir.constant(-1 : i32) : i32
// SM90-NEXT:     %[[SEL0:.*]] = llvm.select %[[IN0]], %[[B0]], %[[NEG0]] : i1, i32
// SM90-NOT:      llvm.load %arg0
// SM90:          llvm.call @__ccl_begin(%arg0)
// SM90-NEXT:     llvm.switch %[[SEL0]] : i32, ^{{bb[0-9]+}} [
// SM90-NEXT:       0: ^{{bb[0-9]+}}
// SM90-NEXT:     ]
// SM90:          llvm.call @ccl_gather_n3_f32_sum_r0__p0(
// SM90-LABEL:  llvm.func ptx_kernelcc @ccl_gather_n3_f32_sum_r1(
// SM90:          %[[B1:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"()
// SM90-NOT:      llvm.load %arg0
// SM90:          %[[IN1:.*]] = llvm.and
// SM90:          %[[NEG1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// SM90-NEXT:     %[[SEL1:.*]] = llvm.select %[[IN1]], %[[B1]], %[[NEG1]] : i1, i32
// SM90-NOT:      llvm.load %arg0
// SM90:          llvm.call @__ccl_begin(%arg0)
// SM90-NEXT:     llvm.switch %[[SEL1]] : i32, ^{{bb[0-9]+}} [
// SM90-NEXT:       0: ^{{bb[0-9]+}}
// SM90-NEXT:     ]
// SM90:          llvm.call @ccl_gather_n3_f32_sum_r1__p1(
// SM90-LABEL:  llvm.func ptx_kernelcc @ccl_gather_n3_f32_sum_r2(
// SM90:          llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// SM90-NEXT:       0: ^{{bb[0-9]+}}
// SM90-NEXT:     ]
// SM90:          llvm.call @ccl_gather_n3_f32_sum_r2__p2(
// SM90-NOT:    @ccl_gather_nN_
ccl.algorithm @gather_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "gather", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.put @mem_2_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[2] [0 : 1]> signal
  ccl.wait @mem_1_0 tb 0
  ccl.wait @mem_2_0 tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
}

// -----
// Tests that a symmetric algorithm (every rank puts its own chunk to the
// next rank) has one kernel, NAME_nN, for all its ranks and for both of its
// rank counts, on the host and on sm_90: all five blocks (2 + 3 ranks) run
// program 0, whose rows hold the chunk count, peer, chunk index, chunk
// count and channel of each (rank count 2 at entries 0..1, rank count 3 at
// entries 2..4: base 0 for rank count 2, base 2 for rank count 3, one
// block each); the kernel reads the communicator's rank count and rank and
// picks base and block count for it with selects (icmp eq against 2 and
// 3; an unknown rank count keeps base 0 and block count 0), without
// __bases/__nblocks tables (those are left to kernels of more than 16 rank
// counts); on sm_90 its tables and the program's row are in the constant
// space (address space 4). The program is the kernel's own, so it is not
// marked shared.

// CHECK-DAG:   llvm.mlir.global internal constant @ccl_rot_nN_f32_sum__programs(dense<0> : tensor<5xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_rot_nN_f32_sum__offsets(dense<[0, 5, 10, 15, 20]> : tensor<5xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_rot_nN_f32_sum__params(dense<[2, 1, 0, 2, 0, 2, 0, 1, 2, 1, 3, 1, 0, 3, 0, 3, 2, 1, 3, 1, 3, 0, 2, 3, 2]> : tensor<25xi32>)
// CHECK-LABEL: llvm.func internal @ccl_rot_nN_f32_sum__p0(
// CHECK-SAME:    %arg5: !llvm.ptr) attributes {passthrough = ["ccl-block-program"]} {
// CHECK:         llvm.call @__ccl_put(
// CHECK:         llvm.call @__ccl_signal(
// CHECK-NOT:   llvm.func internal @ccl_rot_nN_f32_sum__p1(
// CHECK-LABEL: llvm.func @ccl_rot_nN_f32_sum(
// CHECK:         %[[RANK:.*]] = llvm.load %arg0
// CHECK-NEXT:    %[[NRP:.*]] = llvm.getelementptr %arg0[1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[NR:.*]] = llvm.load %[[NRP]]
// CHECK-NEXT:    %[[BASE0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[NB0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[R2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[IS2:.*]] = llvm.icmp "eq" %[[NR]], %[[R2]] : i32
// CHECK-NEXT:    %[[BASE2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[SB2:.*]] = llvm.select %[[IS2]], %[[BASE2]], %[[BASE0]] : i1, i32
// CHECK-NEXT:    %[[NB2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SN2:.*]] = llvm.select %[[IS2]], %[[NB2]], %[[NB0]] : i1, i32
// CHECK-NEXT:    %[[R3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[IS3:.*]] = llvm.icmp "eq" %[[NR]], %[[R3]] : i32
// CHECK-NEXT:    %[[BASE3:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[BASE:.*]] = llvm.select %[[IS3]], %[[BASE3]], %[[SB2]] : i1, i32
// CHECK-NEXT:    %[[NB3:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[NB:.*]] = llvm.select %[[IS3]], %[[NB3]], %[[SN2]] : i1, i32
// CHECK-NEXT:    %[[RB:.*]] = llvm.mul %[[RANK]], %[[NB]] : i32
// CHECK-NEXT:    %[[RBB:.*]] = llvm.add %[[RB]], %arg4 : i32
// CHECK-NEXT:    llvm.add %[[BASE]], %[[RBB]] : i32
// CHECK-NEXT:    llvm.icmp "ult" %arg4, %[[NB]] : i32
// CHECK-NOT:     __bases
// CHECK-NOT:     __nblocks
// CHECK:         llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT:      0: ^{{bb[0-9]+}}
// CHECK-NEXT:    ]
// CHECK-NOT:   @ccl_rot_n2_
// CHECK-NOT:   @ccl_rot_n3_

// SM90-NOT:    @ccl_rot_n2_
// SM90-NOT:    @ccl_rot_n3_
// SM90-DAG:    llvm.mlir.global internal constant @ccl_rot_nN_f32_sum__params({{.*}}) {addr_space = 4 : i32
// SM90-LABEL:  llvm.func internal @ccl_rot_nN_f32_sum__p0(
// SM90-SAME:     %arg5: !llvm.ptr<4>) attributes {passthrough = ["ccl-block-program"]} {
// SM90-LABEL:  llvm.func ptx_kernelcc @ccl_rot_nN_f32_sum(
// SM90:          %[[NRP:.*]] = llvm.getelementptr %arg0[1]
// SM90-NEXT:     %[[NR:.*]] = llvm.load %[[NRP]]
// SM90:          llvm.icmp "eq" %[[NR]], %{{.*}} : i32
// SM90:          llvm.icmp "eq" %[[NR]], %{{.*}} : i32
// SM90-NOT:      __bases
// SM90-NOT:      __nblocks
// SM90:          llvm.mlir.addressof @ccl_rot_nN_f32_sum__programs : !llvm.ptr<4>
// SM90:          llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// SM90-NEXT:       0: ^{{bb[0-9]+}}
// SM90-NEXT:     ]
// SM90-NOT:    @ccl_rot_n2_
// SM90-NOT:    @ccl_rot_n3_
ccl.algorithm @rot_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "rot", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [1 : 1]> signal
}
ccl.algorithm @rot_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "rot", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_1_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[1] [1 : 1]> signal
  ccl.put @mem_2_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[2] [2 : 1]> signal
}

// -----

// Tests that blocks of one shape whose constants do not all fit the i32
// table (a 16 GiB scratch slot with --max-bytes=64G) are not merged: each
// gets a program of its own holding its own constants as immediates (rank
// 0: peer 1 and channel 0; rank 1: peer 0 and channel 1), with no table
// loads, although the blocks were merged while they were lowered.

// BIG-LABEL:  llvm.func internal @ccl_big_nN_f32_sum__p0(
// BIG:          llvm.mlir.constant(17179869184 : i64) : i64
// BIG-NEXT:     %[[B0:.*]] = llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     %[[P0:.*]] = llvm.mlir.constant(1 : i32) : i32
// BIG-NEXT:     llvm.mlir.constant(2 : i32) : i32
// BIG-NEXT:     llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     llvm.call @__ccl_scratch_ptr(%arg0, %[[B0]], %[[P0]],
// BIG-NOT:      invariant
// BIG:          llvm.call @__ccl_put(
// BIG-NEXT:     %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     llvm.call @__ccl_signal(%arg0, %[[C0]])
// BIG-LABEL:  llvm.func internal @ccl_big_nN_f32_sum__p1(
// BIG:          llvm.mlir.constant(17179869184 : i64) : i64
// BIG-NEXT:     %[[B1:.*]] = llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     %[[P1:.*]] = llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     llvm.mlir.constant(2 : i32) : i32
// BIG-NEXT:     llvm.mlir.constant(0 : i32) : i32
// BIG-NEXT:     llvm.call @__ccl_scratch_ptr(%arg0, %[[B1]], %[[P1]],
// BIG-NOT:      invariant
// BIG:          llvm.call @__ccl_put(
// BIG-NEXT:     %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// BIG-NEXT:     llvm.call @__ccl_signal(%arg0, %[[C1]])
// BIG-LABEL:  llvm.func @ccl_big_nN_f32_sum(
// BIG:          llvm.call @ccl_big_nN_f32_sum__p0(
// BIG:          llvm.call @ccl_big_nN_f32_sum__p1(
ccl.algorithm @big_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "big", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.put @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> signal
}
