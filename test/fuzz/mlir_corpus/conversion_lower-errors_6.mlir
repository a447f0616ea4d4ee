ccl.algorithm @putout_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "putout", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
}
