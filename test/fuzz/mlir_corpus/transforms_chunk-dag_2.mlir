ccl.algorithm @multimem_n2 attributes {name = "multimem", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"output"[1] [0 : 1]>
}
