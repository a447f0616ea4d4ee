ccl.algorithm @rs_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<ReduceScatter>, name = "rs", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 1 : i64} {
  ccl.scratch @recv slots 3
  ccl.channel @c_0_1 port 0 -> 1
  ccl.channel @c_0_2 memory 0 -> 2
  ccl.channel @c_1_0 memory 1 -> 0
  ccl.channel @c_1_2 memory 1 -> 2
  ccl.channel @c_2_0 port 2 -> 0
  ccl.channel @c_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
  ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
  ccl.put @c_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal flush
  ccl.put @c_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [2 : 1]>
  ccl.signal @c_0_2 tb 0
  ccl.put @c_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.put @c_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [2 : 1]> signal
  ccl.put @c_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]> signal flush
  ccl.put @c_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [1 : 1]> signal
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @c_1_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.wait @c_2_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"input"[1] [1 : 1]>
  ccl.wait @c_0_1 tb 1
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.wait @c_2_1 tb 1
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.copy tb 1 <"output"[2] [0 : 1]> = <"input"[2] [2 : 1]>
  ccl.wait @c_0_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.wait @c_1_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
}
