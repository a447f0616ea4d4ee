ccl.algorithm @nvls_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "nvls", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @s_0_1 memory 0 -> 1
  ccl.channel @s_1_0 memory 1 -> 0
  ccl.channel @e_0_1 memory 0 -> 1
  ccl.channel @e_1_0 memory 1 -> 0
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.signal @s_0_1 tb 0
  ccl.wait @s_1_0 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @e_0_1 tb 0
  ccl.signal @s_1_0 tb 0
  ccl.wait @s_0_1 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.signal @e_1_0 tb 0
  ccl.wait @e_1_0 tb 0
  ccl.wait @e_0_1 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}
