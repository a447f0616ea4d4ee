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

// -----

// Tests that tiling moves the in-place layout of an algorithm of both forms
// with its chunks: input[1] at output[1][1] becomes input[1][0..1] at
// output[1][2..3] (offsets x 2), so the verifier's in-place proof of the
// tiled program aliases the right chunks.
// CHECK-LABEL: ccl.algorithm @both_n2
// CHECK-SAME:    also_inplace = {from = "input", offsets = array<i64: 0, 2>, to = "output"}
// CHECK-SAME:    chunks = 2 : i64
// CHECK-SAME:    output_chunks = 4 : i64
// TWICE-LABEL: ccl.algorithm @both_n2
// TWICE-SAME:    also_inplace = {from = "input", offsets = array<i64: 0, 4>, to = "output"}
// INST-LABEL: ccl.algorithm @both_n2
// INST-SAME:    also_inplace = {from = "input", offsets = array<i64: 0, 2>, to = "output"}
ccl.algorithm @both_n2 attributes {also_inplace = {from = "input", offsets = array<i64: 0, 1>, to = "output"}, chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "both", nranks = 2 : i64, output_chunks = 2 : i64, protocol = #ccl.protocol<Simple>, tiles = 2 : i64} {
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}
