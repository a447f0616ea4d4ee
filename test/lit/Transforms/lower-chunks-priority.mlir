// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks="max-blocks=1" | FileCheck %s --check-prefix=FOLD
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks="max-blocks=1" --ccl-fuse --ccl-schedule --ccl-verify > /dev/null
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks="max-blocks=1" --ccl-fuse | FileCheck %s --check-prefix=FUSED
// RUN: %ccl-opt %s --ccl-chunk-dag --ccl-lower-chunks="max-blocks=2" | FileCheck %s --check-prefix=SPREAD
// RUN: %ccl-opt %s --ccl-lower-chunks="max-blocks=1" | FileCheck %s --check-prefix=NODAG

// Tests that when two lanes (the chains of chunks 0 and 1) share one thread
// block, their operations run by priority: the first hop of both chains
// (depth 0) before the second hop of either (depth 1), so chunk 1 does not
// wait for chunk 0's whole chain; the result still proves.
// FOLD-LABEL: ccl.algorithm @two_chains_n2
// FOLD:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// FOLD:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]>
// FOLD:         ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"output"[1] [0 : 1]>
// FOLD:         ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [1 : 1]> = <"output"[1] [1 : 1]>

// Tests that with a block per lane the program order is kept (chunk 0's
// chain, then chunk 1's, each on its own block).
// SPREAD-LABEL: ccl.algorithm @two_chains_n2
// SPREAD:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// SPREAD:         ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"output"[1] [0 : 1]>
// SPREAD:         ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]>
// SPREAD:         ccl.put @mem_1_0_b1 tb 1 <"xfer"[0] [1 : 1]> = <"output"[1] [1 : 1]>

// Tests that without the chunk DAG (no depths) the program order is kept.
// NODAG-LABEL: ccl.algorithm @two_chains_n2
// NODAG:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]>
// NODAG:         ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"output"[1] [0 : 1]>
// NODAG:         ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]>
ccl.algorithm @two_chains_n2 attributes {name = "two_chains", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.copy <"output"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// Tests that a send of a local result is moved up to just after it when
// lanes share a block: the root's copy into its output and the put of that
// output are neighbours per chunk (not both copies, then both puts), so
// ccl-fuse makes each pair one copy with a forward; and that the result
// still proves.
// FOLD-LABEL: ccl.algorithm @copy_then_send_n2
// FOLD:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// FOLD-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"output"[0] [0 : 1]>
// FOLD-NEXT:    ccl.signal @mem_0_1_b0 tb 0
// FOLD:         ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
// FOLD-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [1 : 1]> = <"output"[0] [1 : 1]>
// FOLD-NEXT:    ccl.signal @mem_0_1_b0 tb 0
// FUSED-LABEL: ccl.algorithm @copy_then_send_n2
// FUSED:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0] signal
// FUSED:         ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [1 : 1]>] via [@mem_0_1_b0] signal
ccl.algorithm @copy_then_send_n2 attributes {name = "copy_then_send", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[1] [1 : 1]> = <"output"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// Tests that a send is not moved up past an operation it also depends on:
// the reduce into output[1][c] reads the root's copy and needs rank 1's own
// copy into output[1][c] first, so the put of chunk 0 comes after the
// copies of both chunks into rank 0's output and rank 1's copy of chunk 0.
// Tests too that rank 1's local copy into output[1][c] moves down to just
// before the reduce into output[1][c] (not ahead with the other copies),
// that chunk 0's acknowledgement signal stops before chunk 1's copy rather
// than moving past it, and that ccl-fuse then folds each copy into its
// reduce (`base`).
// FOLD-LABEL: ccl.algorithm @send_waits_for_both_n2
// FOLD:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
// FOLD-NEXT:    ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
// FOLD-NEXT:    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
// FOLD-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [0 : 1]> = <"output"[0] [0 : 1]>
// FOLD-NEXT:    ccl.signal @mem_0_1_b0 tb 0
// FOLD-NEXT:    ccl.wait @mem_0_1_b0 tb 0
// FOLD-NEXT:    ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
// FOLD-NEXT:    ccl.signal @ack_1_0_b0 tb 0
// FOLD-NEXT:    ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
// FOLD-NEXT:    ccl.put @mem_0_1_b0 tb 0 <"xfer"[1] [1 : 1]> = <"output"[0] [1 : 1]>
// FUSED-LABEL: ccl.algorithm @send_waits_for_both_n2
// FUSED:         ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"xfer"[1] [0 : 1]> base <"input"[1] [0 : 1]>
// FUSED:         ccl.reduce tb 0 <"output"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> base <"input"[1] [1 : 1]>
// FUSED-NOT:     ccl.copy tb 0 <"output"[1]
ccl.algorithm @send_waits_for_both_n2 attributes {name = "send_waits_for_both", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"output"[1] [0 : 1]> from <"output"[0] [0 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.reduce <"output"[1] [1 : 1]> from <"output"[0] [1 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// Tests that a local copy stays ahead when another operation that depends
// on it must run before the reduce into its destination: rank 1 sends its
// copied chunk to rank 0 before it reduces rank 0's chunk into it, so the
// copy is not moved down to the reduce (and is not folded into it).
// FOLD-LABEL: ccl.algorithm @copy_read_first_n2
// FOLD:         ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
// FOLD-NEXT:    ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"output"[1] [0 : 1]>
// FOLD:         ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"xfer"[1] [0 : 1]>
// FUSED-LABEL: ccl.algorithm @copy_read_first_n2
// FUSED:         ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> forward
// FUSED-NOT:     base
ccl.algorithm @copy_read_first_n2 attributes {name = "copy_read_first", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.reduce <"output"[1] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}
