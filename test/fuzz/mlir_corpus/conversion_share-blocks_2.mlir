ccl.algorithm @dt_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "dt", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}
