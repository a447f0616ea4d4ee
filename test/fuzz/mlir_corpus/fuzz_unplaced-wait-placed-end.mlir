ccl.algorithm @readreduce_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "readreduce", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.wait @m_1_0 tb 0
  ccl.wait @m_2_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_0_1, @m_0_2]
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.wait @m_1_0 tb 0
  ccl.wait @m_2_0// fuzz: instances=2 tb 0
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[1] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_1_0, @m_1_2]
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_0_2 tb 0
  ccl.wait @m_1_2 tb 0
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[2] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>] via [@m_2_0, @m_2_1]
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_0_2 tb 0
  ccl.wait @m_1_2 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}
