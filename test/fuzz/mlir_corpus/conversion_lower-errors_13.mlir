ccl.algorithm @group_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "group", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 group 2 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  }
}
