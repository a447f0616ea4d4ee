ccl.algorithm @tiled_n2 attributes {name = "tiled", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 0
  ccl.put @mem_0_1 tb 0 <"xfer"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 3
  ccl.copy tb 3 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.signal @ack_1_0 tb 3
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
