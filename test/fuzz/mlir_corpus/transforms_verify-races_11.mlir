ccl.algorithm @neverflushed_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "neverflushed", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.channel @p_0_1 port 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @p_0_1 tb 0 <"output"[1] [0 : 1]> = <"tmp"[0] [0 : 1]> signal
  ccl.flush @p_0_1 tb 0
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.put @p_0_1 tb 0 <"output"[1] [1 : 1]> = <"tmp"[0] [0 : 1]> signal
  ccl.wait @p_0_1 tb 0
  ccl.wait @p_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}
