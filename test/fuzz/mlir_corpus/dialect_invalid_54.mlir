ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @c memory 1 -> 0
  ccl.wait @c tb 0 {ccl.ordinal = 0 : i64}
}
