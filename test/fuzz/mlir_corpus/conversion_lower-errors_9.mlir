ccl.algorithm @llget_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "llget", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.get @mem_0_1 tb 0 <"output"[0] [0 : 1]> = <"s"[1] [0 : 1]>
}
