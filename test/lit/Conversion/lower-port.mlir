// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s

// Tests the lowering of port-channel operations: a put over a port channel
// becomes one __ccl_port_put (channel index, destination, source, bytes,
// flags = 1 for signal | 2 for flush, op id) and nothing that moves the
// data from the threads; a signal over it __ccl_port_signal and a flush
// __ccl_port_flush (the proxy signals and completes); a wait on it is the
// memory channel's __ccl_wait (the proxy writes the same counter). The same
// operations over a memory channel are not turned into triggers: __ccl_put
// and __ccl_signal.

// CHECK-LABEL: llvm.func internal @ccl_port_nN_f32_sum__p0(
// CHECK:         llvm.call @__ccl_chunk_elems(
// CHECK-NEXT:    %[[PC:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ES:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[N:.*]] = llvm.mul %{{.*}}, %[[ES]] : i64
// CHECK-NEXT:    %[[F3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[ID0:.*]] = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_port_put(%arg0, %[[PC]], %{{.*}}, %{{.*}}, %[[N]], %[[F3]], %[[ID0]])
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         llvm.call @__ccl_chunk_elems(
// CHECK:         llvm.mul
// CHECK-NEXT:    %[[F0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ID1:.*]] = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_port_put(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F0]], %[[ID1]])
// CHECK:         llvm.call @__ccl_port_signal(%arg0, %{{.*}}, %{{.*}})
// CHECK:         llvm.call @__ccl_port_flush(%arg0, %{{.*}}, %{{.*}})
// CHECK:         llvm.call @__ccl_put(
// CHECK:         llvm.call @__ccl_signal(%arg0,
// CHECK-NOT:     llvm.call @__ccl_port_
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func internal @ccl_port_nN_f32_sum__p1(
// CHECK:         llvm.call @__ccl_wait(%arg0,
// CHECK:         llvm.call @__ccl_wait(%arg0,
// CHECK:         llvm.call @__ccl_wait(%arg0,
// CHECK-NOT:     llvm.call @__ccl_port_
// CHECK:         llvm.return

ccl.algorithm @port_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllGather>, name = "port", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.scratch @t slots 1
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @port_0_1_b port 0 -> 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @port_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal flush
  ccl.put @port_0_1_b tb 0 <"s"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @port_0_1_b tb 0
  ccl.flush @port_0_1_b tb 0
  ccl.put @mem_0_1 tb 0 <"t"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @mem_0_1 tb 0
  ccl.wait @port_0_1 tb 0
  ccl.wait @port_0_1_b tb 0
  ccl.wait @mem_0_1 tb 0
}
