ccl.algorithm @rot_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "rot", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [1 : 1]> signal
}
ccl.algorithm @rot_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "rot", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_1_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[1] [1 : 1]> signal
  ccl.put @mem_2_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[2] [2 : 1]> signal
}
