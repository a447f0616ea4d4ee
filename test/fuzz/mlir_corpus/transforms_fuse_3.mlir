ccl.algorithm @nary_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 3
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [1 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [2 : 1]>
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [0 : 1]>
  ccl.reduce <"output"[0] [1 : 1]> from <"input"[1] [1 : 1]>
}
