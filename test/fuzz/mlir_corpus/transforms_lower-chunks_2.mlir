ccl.algorithm @lanes_n2 attributes {name = "lanes", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.reduce <"input"[1] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}
