ccl.algorithm @port_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllGather>, name = "port", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.scratch @t slots 1
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @port_0_1_b port 0 -> 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put @port_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal flush
  ccl.put @port_0_1_b tb 0 <"s"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @port_0_1_b tb 0
  ccl.flush @port_0_1_b tb 0
  ccl.put @mem_0_1 tb 0 <"t"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @mem_0_1 tb 0
  ccl.wait @port_0_1 tb 0
  ccl.wait @port_0_1_b tb 0
  ccl.wait @mem_0_1 tb 0
}
