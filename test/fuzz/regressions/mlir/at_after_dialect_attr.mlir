// Known bug of upstream MLIR 22 (libMLIR, not cclc), found by
// ccl_opt_fuzzer: an '@' that starts no symbol name right after a pretty
// dialect attribute (here the '@' after #ccl.chunk<...>, followed by ']'
// or ',') makes the lexer emit "@ identifier expected to start with letter
// or '_'" (twice), but the parser drops the '@' and succeeds; ccl-opt (and
// mlir-opt with #llvm.linkage<internal>@) print the error and exit 0. A
// lone '.' there does the same (dot_after_dialect_attr.mlir); '$', '@1',
// '..' and others fail the parse as they should. The fuzzer does not
// report it (knownParseFailure() in ../../ccl_opt_fuzzer.cc) unless
// CCL_FUZZ_STRICT=1.
ccl.algorithm @unplaced_n2 attributes {name = "unplaced", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>@]
}
