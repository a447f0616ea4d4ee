ccl.algorithm @landsafe_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "landsafe", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce <"input"[1] [0 : 1]> from <"buf"[1] [0 : 1]>
  ccl.copy <"input"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}
