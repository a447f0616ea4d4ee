ccl.algorithm @reuse_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "reuse", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}
