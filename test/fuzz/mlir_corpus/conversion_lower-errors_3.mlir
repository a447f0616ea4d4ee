ccl.algorithm @xcopy_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xcopy", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
}
