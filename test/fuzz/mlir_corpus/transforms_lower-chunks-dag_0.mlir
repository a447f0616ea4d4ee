ccl.algorithm @rar_n3 attributes {name = "rar", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
