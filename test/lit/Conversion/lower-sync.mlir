// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s

// Tests the synchronisation patterns' indices into the plan's tables:
// channels and semaphores in declaration order, multi-block barriers by
// (rank, blocks) in order of first appearance, each with its block count;
// and the wait ordinals, counted per channel and block (waits on another
// channel in between do not count), with one __ccl_wait_commit per channel
// in order of first wait. A relaxed signal or wait never becomes the
// ordered call, nor the other way round. Every block is alone in its
// program (but for two identical ones), so these indices stay literal
// constants in the program functions.

// Rank 0's blocks 2 and 3 are the same (the second barrier only): they
// share program 2, with nothing to read from the params table.
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_sync_nN_f32_sum__programs(dense<[0, 1, 2, 2, 3, -1, -1, -1, 4, -1, -1, -1]> : tensor<12xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_sync_nN_f32_sum__params(dense<0> : tensor<1xi32>)
// Rank 0, block 0: signal on mem_0_2 (1), release of sem_b (1), barrier
// over blocks 0 and 1 (0, 2 blocks).
// CHECK-LABEL: llvm.func internal @ccl_sync_nN_f32_sum__p0(
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C1]])
// CHECK-NEXT:    %[[SB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_release(%arg0, %[[SB]])
// CHECK-NEXT:    %[[B0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[B0N:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[B0ID:.*]] = llvm.mlir.constant({{-?[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_tb_barrier(%arg0, %[[B0]], %[[B0N]], %[[B0ID]])
// CHECK-NEXT:    llvm.return
// Rank 0, block 1: acquire of sem_b (1, op id 4), then both barriers; the
// one over blocks 1..3 is the second (1, 3 blocks).
// CHECK-LABEL: llvm.func internal @ccl_sync_nN_f32_sum__p1(
// CHECK-NEXT:    %[[SB2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[AID:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_acquire(%arg0, %[[SB2]], %[[AID]])
// CHECK:         llvm.call @__ccl_tb_barrier(%arg0, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[B1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[B1N:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[B1ID:.*]] = llvm.mlir.constant({{-?[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_tb_barrier(%arg0, %[[B1]], %[[B1N]], %[[B1ID]])
// CHECK-NEXT:    llvm.return
// Rank 0, blocks 2 and 3: the second barrier only.
// CHECK-LABEL: llvm.func internal @ccl_sync_nN_f32_sum__p2(
// CHECK-NEXT:    %[[B2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[B2N:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant({{-?[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_tb_barrier(%arg0, %[[B2]], %[[B2N]],
// CHECK-NEXT:    llvm.return
// Rank 1, block 0: a relaxed signal on mem_1_2 (2).
// CHECK-LABEL: llvm.func internal @ccl_sync_nN_f32_sum__p3(
// CHECK-NEXT:    %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal_relaxed(%arg0, %[[C2]])
// CHECK-NEXT:    llvm.return
// Rank 2, block 0: waits on mem_0_2 (1), mem_1_2 (2, relaxed), mem_0_2:
// ordinals 0, 0, 1; then one commit per channel, mem_0_2 first.
// CHECK-LABEL: llvm.func internal @ccl_sync_nN_f32_sum__p4(
// CHECK-NEXT:    %[[W1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[O0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait(%arg0, %[[W1]], %[[O0]],
// CHECK-NEXT:    %[[W2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[O0B:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait_relaxed(%arg0, %[[W2]], %[[O0B]],
// CHECK-NEXT:    %[[W1B:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[O1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait(%arg0, %[[W1B]], %[[O1]],
// CHECK-NEXT:    %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[N2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait_commit(%arg0, %[[K1]], %[[N2]])
// CHECK-NEXT:    %[[K2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[N1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait_commit(%arg0, %[[K2]], %[[N1]])
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func @ccl_sync_nN_f32_sum(
// CHECK:         llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT:      0: ^{{bb[0-9]+}},
// CHECK-NEXT:      1: ^{{bb[0-9]+}},
// CHECK-NEXT:      2: ^{{bb[0-9]+}},
// CHECK-NEXT:      3: ^{{bb[0-9]+}},
// CHECK-NEXT:      4: ^{{bb[0-9]+}}
// CHECK-NEXT:    ]
ccl.algorithm @sync_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "sync", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.semaphore @sem_a rank 0
  ccl.semaphore @sem_b rank 0
  ccl.signal @mem_0_2 tb 0
  ccl.signal @mem_1_2 tb 0 relaxed
  ccl.wait @mem_0_2 tb 0
  ccl.release @sem_b tb 0
  ccl.acquire @sem_b tb 1
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.tb_barrier rank 0 tbs [1, 2, 3]
  ccl.wait @mem_1_2 tb 0 relaxed
  ccl.wait @mem_0_2 tb 0
}
