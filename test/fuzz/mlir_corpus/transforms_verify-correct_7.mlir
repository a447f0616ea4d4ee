ccl.algorithm @ag_ll_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "ag_ll", nranks = 2 : i64, protocol = #ccl.protocol<LL>, output_chunks = 2 : i64} {
  ccl.scratch @recv slots 2
  ccl.scratch @fwd slots 2
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy_packets tb 0 <"fwd"[0] [1 : 1]> from <"recv"[0] [1 : 1]>
  ccl.unpack_packets tb 2 <"output"[0] [1 : 1]> from <"fwd"[0] [1 : 1]>
  ccl.put_packets @m_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy_packets tb 0 <"fwd"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.unpack_packets tb 2 <"output"[1] [0 : 1]> from <"fwd"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}
