ccl.algorithm @chunklater_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "chunklater", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"tmp"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
