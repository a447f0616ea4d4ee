// Known bug of upstream MLIR 22 (libMLIR, not cclc), found by
// ccl_opt_fuzzer; the same as at_after_dialect_attr.mlir with a '.' that
// starts no ellipsis: the lexer emits "expected three consecutive dots for
// an ellipsis" (twice), the parser drops the '.' and succeeds; ccl-opt
// prints the error and exits 0. knownParseFailure() in
// ../../ccl_opt_fuzzer.cc; reported with CCL_FUZZ_STRICT=1.
ccl.algorithm @unplaced_n2 attributes {name = "unplaced", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>.]
}
