ccl.algorithm @manyblocks_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "manyblocks", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 132 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
