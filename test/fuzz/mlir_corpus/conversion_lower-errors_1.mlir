ccl.algorithm @mmr_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "mmr", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}
