ccl.algorithm @xreduce_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xreduce", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"s"[0] [0 : 1]>
}
