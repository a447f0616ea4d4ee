ccl.algorithm @ag_get_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "ag_get", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 3 : i64} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.channel @k_0_1 memory 0 -> 1
  ccl.channel @k_0_2 memory 0 -> 2
  ccl.channel @k_1_0 memory 1 -> 0
  ccl.channel @k_1_2 memory 1 -> 2
  ccl.channel @k_2_0 memory 2 -> 0
  ccl.channel @k_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.copy tb 0 <"output"[2] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_1_0 tb 2
  ccl.get @m_0_1 tb 2 <"output"[0] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.signal @k_0_1 tb 2
  ccl.wait @m_2_0 tb 3
  ccl.get @m_0_2 tb 3 <"output"[0] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.signal @k_0_2 tb 3
  ccl.wait @m_0_1 tb 1
  ccl.get @m_1_0 tb 1 <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @k_1_0 tb 1
  ccl.wait @m_2_1 tb 3
  ccl.get @m_1_2 tb 3 <"output"[1] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.signal @k_1_2 tb 3
  ccl.wait @m_0_2 tb 1
  ccl.get @m_2_0 tb 1 <"output"[2] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @k_2_0 tb 1
  ccl.wait @m_1_2 tb 2
  ccl.get @m_2_1 tb 2 <"output"[2] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.signal @k_2_1 tb 2
  ccl.wait @k_1_0 tb 0
  ccl.wait @k_2_0 tb 0
  ccl.wait @k_0_1 tb 0
  ccl.wait @k_2_1 tb 0
  ccl.wait @k_0_2 tb 0
  ccl.wait @k_1_2 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[2] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[2] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
}
