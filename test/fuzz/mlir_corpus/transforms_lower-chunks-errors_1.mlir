ccl.algorithm @remote_n2 attributes {name = "remote", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.put @m_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
