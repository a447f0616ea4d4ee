ccl.algorithm @gather_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "gather", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.put @mem_2_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[2] [0 : 1]> signal
  ccl.wait @mem_1_0 tb 0
  ccl.wait @mem_2_0 tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
}
