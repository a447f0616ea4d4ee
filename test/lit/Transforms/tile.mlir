// RUN: %ccl-opt %s --ccl-replicate="instances=2 share-blocks=true" | FileCheck %s
// RUN: %ccl-opt %s --ccl-replicate="instances=2 share-blocks=true" --ccl-verify --ccl-schedule --ccl-verify > /dev/null

// Tests tiling: two tiles per chunk keep the thread blocks, channels and
// slots' scratch buffer (doubled), run tile 0 then tile 1 on the same
// blocks, leave `instances` unset, and still prove (the k-th signal matches
// the k-th wait tile after tile).
// CHECK-LABEL: ccl.algorithm @tiled_n2
// CHECK-SAME:    chunks = 2 : i64
// CHECK-NOT:     instances
// CHECK-NEXT:    ccl.scratch @xfer slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1 "memory" 0 -> 1
// CHECK-NEXT:    ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
// CHECK-NEXT:    ccl.wait @mem_0_1 tb 3
// CHECK-NEXT:    ccl.copy tb 3 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.put @mem_0_1 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
// CHECK-NEXT:    ccl.wait @mem_0_1 tb 3
// CHECK-NEXT:    ccl.copy tb 3 <"output"[1] [1 : 1]> = <"xfer"[1] [1 : 1]>
ccl.algorithm @tiled_n2 attributes {name = "tiled", collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = "Simple"} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 3
  ccl.copy tb 3 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
