ccl.algorithm @raw_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "raw", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
