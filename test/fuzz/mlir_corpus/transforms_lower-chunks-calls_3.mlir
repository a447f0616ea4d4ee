ccl.algorithm @chain_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "chain", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy <"output"[2] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
