// Regression (ccl_opt_fuzzer): a placed chunk-level copy across ranks (tb 1,
// input[1] -> output[0]) followed by unplaced operations that depend on it;
// ccl-lower-chunks used the erased copy afterwards (a use after free).
ccl.algorithm @after_placed_n2 attributes {name = "after_placed", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[0] [1 : 1]>]
}
