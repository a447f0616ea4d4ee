ccl.algorithm @multimem_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [1 : 1]>
}
