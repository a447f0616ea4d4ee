ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}
