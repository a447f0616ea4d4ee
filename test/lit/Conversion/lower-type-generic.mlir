// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,float16 redops=sum,max type-generic=true' | FileCheck %s
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,float16 redops=sum,max' | FileCheck %s --check-prefix=TYPED
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum type-generic=true' | FileCheck %s --check-prefix=ONE

// Tests that type-generic lowering lowers the algorithm once for all four
// (dtype, operator) pairs: two block programs (put, reduce) taking the kind
// as their sixth argument, the element size from __ccl_dtype_size(kind)
// (the slot layout count max-bytes / size), the reduction through
// __ccl_reduce_any(kind, ...); each pair's kernel calls the same programs
// and tables with its own kind (dtype code * 4 + operator code: f32 sum 0,
// f32 max 2, f16 sum 4, f16 max 6). A program the kernels of several
// kinds call is marked ccl-shared-program (the code generator keeps it one
// function); with one pair it is not.

// CHECK-LABEL: llvm.func internal @ccl_dt_nN_any__p0(
// CHECK-SAME:    %arg5: i32, %arg6: !llvm.ptr) attributes {passthrough = ["ccl-block-program", "ccl-shared-program"]}
// CHECK-NEXT:    %[[ES:.*]] = llvm.call @__ccl_dtype_size(%arg5) : (i32) -> i32
// CHECK-NEXT:    %[[MAX:.*]] = llvm.mlir.constant(1048576 : i64) : i64
// CHECK-NEXT:    %[[ES64:.*]] = llvm.zext %[[ES]] : i32 to i64
// CHECK-NEXT:    %[[PER:.*]] = llvm.udiv %[[MAX]], %[[ES64]] : i64
// CHECK:         %[[SLOTS:.*]] = llvm.select %{{.*}}, %{{.*}}, %[[PER]] : i1, i64
// CHECK:         llvm.call @__ccl_scratch_ptr(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SLOTS]], %{{.*}}, %[[ES]], %arg4,
// CHECK:         llvm.call @__ccl_put(
// CHECK-LABEL: llvm.func internal @ccl_dt_nN_any__p1(
// ONE-LABEL:   llvm.func internal @ccl_dt_nN_any__p0(
// ONE-SAME:      attributes {passthrough = ["ccl-block-program"]}
// ONE-LABEL:   llvm.func internal @ccl_dt_nN_any__p1(
// ONE-SAME:      attributes {passthrough = ["ccl-block-program"]}
// ONE-LABEL:   llvm.func ptx_kernelcc @ccl_dt_nN_f32_sum(
// CHECK-NOT:     __ccl_reduce_f
// CHECK:         llvm.call @__ccl_reduce_any(%arg5,
// CHECK-LABEL: llvm.func @ccl_dt_nN_f32_sum(
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @ccl_dt_nN_any__p0(%arg0, %arg1, %arg2, %arg3, %{{.*}}, %[[K0]],
// CHECK-LABEL: llvm.func @ccl_dt_nN_f32_max(
// CHECK:         llvm.mlir.addressof @ccl_dt_nN_any__programs
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[K2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @ccl_dt_nN_any__p0(%arg0, %arg1, %arg2, %arg3, %{{.*}}, %[[K2]],
// CHECK-LABEL: llvm.func @ccl_dt_nN_f16_sum(
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[K4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    llvm.call @ccl_dt_nN_any__p0(
// CHECK-LABEL: llvm.func @ccl_dt_nN_f16_max(
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[K6:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-NEXT:    llvm.call @ccl_dt_nN_any__p1(%arg0, %arg1, %arg2, %arg3, %{{.*}}, %[[K6]],

// Tests that without type-generic each pair is lowered on its own: no
// kind argument, constant element sizes in the rows, the reductions of
// each pair by name.

// TYPED-NOT:     __ccl_reduce_any
// TYPED-NOT:     __ccl_dtype_size
// TYPED-NOT:     _any__p
// TYPED-DAG:     llvm.call @__ccl_reduce_f32_sum(
// TYPED-DAG:     llvm.call @__ccl_reduce_f16_max(
// TYPED-DAG:     llvm.func @ccl_dt_nN_f16_max(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64, %arg4: i32)

ccl.algorithm @dt_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "dt", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}
