ccl.algorithm @twoputs_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Gather", name = "twoputs", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @m_2_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[2] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
