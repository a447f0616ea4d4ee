ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[1] [0 : 1]> and [#ccl.chunk<"input"[0][1 : 1]>]
}
