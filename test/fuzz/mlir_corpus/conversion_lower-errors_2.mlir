ccl.algorithm @mmb_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "mmb", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
}
