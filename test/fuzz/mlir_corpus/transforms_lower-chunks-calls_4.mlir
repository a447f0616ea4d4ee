ccl.algorithm @land_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "land", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
