ccl.algorithm @fwdport_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "fwdport", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @port_0_2 port 0 -> 2
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@port_0_2]
}
