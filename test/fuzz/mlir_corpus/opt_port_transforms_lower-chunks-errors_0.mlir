// fuzz: channel=port
ccl.algorithm @ll_n2 attributes {name = "ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.copy <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}
