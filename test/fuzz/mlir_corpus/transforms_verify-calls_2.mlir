ccl.algorithm @nvls_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "nvls", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}
