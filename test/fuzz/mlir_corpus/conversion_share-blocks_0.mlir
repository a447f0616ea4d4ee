ccl.algorithm @pair_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "pair", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
}
