// fuzz: channel=port
ccl.algorithm @bcast_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "bcast", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
