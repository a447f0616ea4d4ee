ccl.algorithm @getport_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "getport", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @port_0_1 port 0 -> 1
  ccl.get @port_0_1 tb 0 <"output"[0] [0 : 1]> = <"s"[1] [0 : 1]>
}
