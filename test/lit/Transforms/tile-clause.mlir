// RUN: %ccl-opt %s -split-input-file --ccl-replicate="share-blocks=true" | FileCheck %s
// RUN: %ccl-opt %s -split-input-file --ccl-replicate="instances=2 share-blocks=true" | FileCheck %s --check-prefix=TWICE
// RUN: %ccl-opt %s -split-input-file --ccl-replicate="instances=2" | FileCheck %s --check-prefix=INST
// RUN: not %ccl-opt %s -split-input-file --ccl-replicate="instances=33 share-blocks=true" 2>&1 | FileCheck %s --check-prefix=TOOMANY

// Tests that tiling applies an algorithm's own `tiles` (its tiles(k)
// clause) even when the pass asks for none, and drops the attribute: two
// tiles, each on its own channel, on the same thread blocks.
// CHECK-LABEL: ccl.algorithm @asked_n2
// CHECK-SAME:    chunks = 2 : i64
// CHECK-NOT:     tiles
// CHECK-NEXT:    ccl.scratch @xfer slots 2
// CHECK-NEXT:    ccl.channel @mem_0_1_t0 memory 0 -> 1
// CHECK-NEXT:    ccl.channel @mem_0_1_t1 memory 0 -> 1
// CHECK-NEXT:    ccl.put @mem_0_1_t0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
// CHECK-NEXT:    ccl.wait @mem_0_1_t0 tb 1
// CHECK-NEXT:    ccl.put @mem_0_1_t1 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
// CHECK-NEXT:    ccl.copy tb 1 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
// CHECK-NEXT:    ccl.wait @mem_0_1_t1 tb 1
// CHECK-NEXT:    ccl.copy tb 1 <"output"[1] [1 : 1]> = <"xfer"[1] [1 : 1]>
// The pass's own tiles multiply the algorithm's: 2 x 2 = 4 tiles.
// TWICE-LABEL: ccl.algorithm @asked_n2
// TWICE-SAME:    chunks = 4 : i64
// TWICE-NOT:     tiles
// TWICE-NEXT:    ccl.scratch @xfer slots 4
// TWICE:         ccl.channel @mem_0_1_t3 memory 0 -> 1
// TWICE-NEXT:    ccl.put @mem_0_1_t0
// Instances (not tiling) leave the clause for the tiling pass.
// INST-LABEL: ccl.algorithm @asked_n2
// INST-SAME:    instances = 2 : i64
// INST-SAME:    tiles = 2 : i64
// TOOMANY: error: tiles(2) with 33 tiles per chunk from the options gives 66, more than 64
ccl.algorithm @asked_n2 attributes {name = "asked", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>, tiles = 2 : i64} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 1
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an algorithm without the attribute is left alone when the pass
// asks for one tile.
// CHECK-LABEL: ccl.algorithm @plain_n2
// CHECK-SAME:    chunks = 1 : i64
// CHECK-NEXT:    ccl.scratch @xfer slots 1
// CHECK-NEXT:    ccl.channel @mem_0_1 memory 0 -> 1
ccl.algorithm @plain_n2 attributes {name = "plain", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 1
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an algorithm with an unplaced operation keeps its tiles for a
// later run of the pass (it must go through --ccl-lower-chunks first).
// CHECK-LABEL: ccl.algorithm @unplaced_n2
// CHECK-SAME:    chunks = 1 : i64
// CHECK-SAME:    tiles = 4 : i64
ccl.algorithm @unplaced_n2 attributes {name = "unplaced", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>, tiles = 4 : i64} {
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
