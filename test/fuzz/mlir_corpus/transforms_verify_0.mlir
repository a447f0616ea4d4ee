ccl.algorithm @nopost_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "nopost", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}
