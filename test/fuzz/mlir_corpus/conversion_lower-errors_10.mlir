ccl.algorithm @srcend_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "srcend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @mem_0_1 tb 1
}
