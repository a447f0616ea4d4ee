// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks | FileCheck %s --check-prefix=DAG
// RUN: %ccl-opt %s --ccl-lower-chunks | FileCheck %s --check-prefix=NODAG

// Tests that with the chunk DAG two transfers that only read the same chunk
// (no RAW/WAR/WAW edge between them) go to separate lanes, thread blocks 0
// and 1; without the DAG the lowering links every pair of operations that
// touch a common chunk and keeps both on block 0.
// DAG-LABEL: ccl.algorithm @rar_n3
// DAG:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// DAG:         ccl.put @mem_0_2_b1 tb 1 <"xfer"[2] [0 : 1]> = <"input"[0] [0 : 1]>
// NODAG-LABEL: ccl.algorithm @rar_n3
// NODAG:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// NODAG:         ccl.put @mem_0_2_b0 tb 0 <"xfer"[2] [0 : 1]> = <"input"[0] [0 : 1]>
ccl.algorithm @rar_n3 attributes {name = "rar", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
