ccl.algorithm @dstend_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "dstend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.signal @mem_0_1 tb 0
  ccl.signal @mem_0_1 tb 0
  ccl.wait @mem_0_1 tb 2
  ccl.wait @mem_0_1 tb 3
}
