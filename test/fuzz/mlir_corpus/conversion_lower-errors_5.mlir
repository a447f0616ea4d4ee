ccl.algorithm @xscratch_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xscratch", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"s"[0] [0 : 1]>
}
